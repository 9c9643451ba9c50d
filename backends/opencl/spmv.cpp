// y = alpha * A * x + beta * y for CSR (kernels/opencl/spmv.cl). The kernel is the one SpMV
// policy's choice (plan/spmv_policy.hpp) from the matrix's row statistics (CsrView::stats,
// computed once when it was built) and the tuning values:
//  - rows (cpu kernels): one work-item per spmv.rows_per_item consecutive rows;
//  - merge (skewed rows): the merge-path kernel, its partition of rows + nonzeros into equal
//    tiles of spmv.wg x spmv.merge_items computed once per matrix, then a fix-up pass for the
//    rows that span tiles;
//  - stream (short, even rows): a group's rows read as one coalesced run of nonzeros;
//  - vector: `lanes` work-items per row, so short rows do not leave most of a warp idle and
//    long rows are read coalesced.
// The merge partitions are per matrix and shared by all queues (behind the backend's mutex);
// the carries are per-queue scratch.
#include <string>
#include <unordered_map>
#include <vector>

#include "opencl_backend.hpp"
#include "plan/spmv_policy.hpp"

namespace tessera::opencl {

namespace {

// The merge kernel's tile partitions, one per matrix (keyed by CsrView::generation; a matrix
// without a generation uses per-queue scratch). `ready`: the partition kernel, which ran on the
// queue that first needed it; a call on another queue waits for it on the device.
struct SpmvMergeCache {
  struct Entry {
    cl::Buffer coords;
    cl::Event ready;
  };
  std::unordered_map<std::uint64_t, Entry> entries;
};
// Per-queue scratch of the merge kernel.
struct SpmvScratch {
  ScratchBuffer coords, carry_rows, carry_vals;
};

std::size_t round_up(std::int64_t v, std::int64_t m) { return static_cast<std::size_t>((v + m - 1) / m * m); }

// The partition for A and the events a merge kernel using it must wait for (none when it was
// computed on q just now).
template <class T>
cl::Buffer merge_coords(OpenCLBackend& cl, OpenClQueue& q, const CsrView& A, const std::string& defines, int tiles,
                        std::vector<cl::Event>& wait) {
  SpmvMergeCache& cache = cl.state<SpmvMergeCache>();
  const bool cached = A.generation != 0;
  if (cached) {
    std::lock_guard<std::mutex> lock(cl.mutex());
    if (auto it = cache.entries.find(A.generation); it != cache.entries.end()) {
      wait.push_back(it->second.ready);
      return it->second.coords;
    }
  }
  const std::size_t bytes = static_cast<std::size_t>(tiles + 1) * 2 * sizeof(cl_int);
  cl::Buffer coords = cached ? cl::Buffer(cl.context(), CL_MEM_READ_WRITE, bytes)
                             : cl.grow(q.state<SpmvScratch>().coords, bytes);
  cl::Kernel& k = cl.kernel("spmv.cl", dtype_v<T>, defines, "spmv_merge_partition");
  const std::int64_t wg = cl.tuning()["spmv.wg"];
  cl::Event done;
  cl.launch_ordered<T>(q, k, cl::NDRange(round_up(tiles + 1, wg)), cl::NDRange(static_cast<std::size_t>(wg)), nullptr,
                       &done, A.row_ptr, static_cast<int>(A.rows), static_cast<int>(A.nnz), tiles, coords);
  if (cached) {
    std::lock_guard<std::mutex> lock(cl.mutex());
    if (cache.entries.size() >= 32) cache.entries.clear();  // a bound, not an LRU: rebuilt on demand
    cache.entries[A.generation] = {coords, done};  // another thread's equal partition may be replaced
  }
  return coords;
}

template <class T>
void spmv_merge(OpenCLBackend& cl, OpenClQueue& q, double alpha, const CsrView& A, const VecView& x, double beta,
                const VecView& y, const std::string& defines) {
  const std::int64_t wg = cl.tuning()["spmv.wg"];
  const std::int64_t tile = wg * cl.tuning()["spmv.merge_items"];
  const int tiles = static_cast<int>((A.rows + A.nnz + tile - 1) / tile);
  std::vector<cl::Event> wait;
  const cl::Buffer coords = merge_coords<T>(cl, q, A, defines, tiles, wait);
  SpmvScratch& scratch = q.state<SpmvScratch>();
  cl::Buffer& carry_rows = cl.grow(scratch.carry_rows, static_cast<std::size_t>(tiles) * sizeof(cl_int));
  cl::Buffer& carry_vals = cl.grow(scratch.carry_vals, static_cast<std::size_t>(tiles) * sizeof(T));
  const int read_y = beta != 0.0 ? 1 : 0;
  cl::Kernel& k = cl.kernel("spmv.cl", dtype_v<T>, defines, "spmv_merge");
  cl.launch_ordered<T>(q, k, cl::NDRange(static_cast<std::size_t>(tiles * wg)), cl::NDRange(static_cast<std::size_t>(wg)),
                       wait.empty() ? nullptr : &wait, nullptr, A.row_ptr, A.col_idx, A.values, x.data, x.offset, y.data,
                       y.offset, static_cast<int>(A.rows), Real{alpha}, Real{beta}, read_y, coords, carry_rows,
                       carry_vals);
  cl::Kernel& fix = cl.kernel("spmv.cl", dtype_v<T>, defines, "spmv_merge_fixup");
  cl.launch<T>(q, fix, cl::NDRange(round_up(tiles, wg)), cl::NDRange(static_cast<std::size_t>(wg)), carry_rows,
               carry_vals, tiles, static_cast<int>(A.rows), Real{alpha}, y.data, y.offset);
}

}  // namespace

template <class T>
void OpenCLBackend::spmv(QueueImpl& qi, double alpha, const CsrView& A, const VecView& x, double beta,
                         const VecView& y) {
  OpenClQueue& q = cl_queue(qi);
  const tuning::Tuning& t = tuning_;
  const std::string defines = t.defines("spmv");
  const int read_y = beta != 0.0 ? 1 : 0;  // beta == 0: y is not read
  const std::int64_t wg = t["spmv.wg"];
  const plan::SpmvChoice choice = plan::choose_spmv(A, t, cpu_kernels_, wg * t["spmv.merge_items"]);
  switch (choice.kernel) {
    case plan::SpmvKernel::rows: {
      const std::int64_t items = (A.rows + t["spmv.rows_per_item"] - 1) / t["spmv.rows_per_item"];
      cl::Kernel& k = kernel("spmv.cl", dtype_v<T>, defines, "spmv_rows");
      launch<T>(q, k, cl::NDRange(round_up(items, wg)), cl::NDRange(static_cast<std::size_t>(wg)), A.row_ptr, A.col_idx,
                A.values, x.data, x.offset, y.data, y.offset, A.rows, Real{alpha}, Real{beta}, read_y);
      return;
    }
    case plan::SpmvKernel::merge:
      spmv_merge<T>(*this, q, alpha, A, x, beta, y, defines);
      return;
    case plan::SpmvKernel::stream: {
      cl::Kernel& k = kernel("spmv.cl", dtype_v<T>, defines, "spmv_stream");
      launch<T>(q, k, cl::NDRange(round_up(A.rows, wg)), cl::NDRange(static_cast<std::size_t>(wg)), A.row_ptr,
                A.col_idx, A.values, x.data, x.offset, y.data, y.offset, A.rows, Real{alpha}, Real{beta}, read_y);
      return;
    }
    case plan::SpmvKernel::vector: {
      const int lanes = choice.lanes;
      const std::int64_t rows_per_group = wg / lanes;
      const std::int64_t groups = (A.rows + rows_per_group - 1) / rows_per_group;
      cl::Kernel& k = kernel("spmv.cl", dtype_v<T>, defines, "spmv_vector");
      launch<T>(q, k, cl::NDRange(static_cast<std::size_t>(groups * wg)), cl::NDRange(static_cast<std::size_t>(wg)),
                A.row_ptr, A.col_idx, A.values, x.data, x.offset, y.data, y.offset, A.rows, Real{alpha}, Real{beta},
                read_y, lanes);
      return;
    }
  }
}

TESSERA_INSTANTIATE_TYPED_OP(OpenCLBackend, spmv)

}  // namespace tessera::opencl
