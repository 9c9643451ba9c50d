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
#include <string>
#include <unordered_map>

#include "opencl_backend.hpp"
#include "plan/spmv_policy.hpp"

namespace tessera::opencl {

namespace {

// The merge kernel's tile partitions, one per matrix (keyed by CsrView::generation; a matrix
// without a generation uses scratch memory).
struct SpmvMergeCache {
  std::unordered_map<std::uint64_t, cl::Buffer> coords;
};

std::size_t round_up(std::int64_t v, std::int64_t m) { return static_cast<std::size_t>((v + m - 1) / m * m); }

template <class T>
cl::Buffer merge_coords(OpenCLBackend& cl, const CsrView& A, const std::string& defines, int tiles) {
  auto& cache = cl.state<SpmvMergeCache>().coords;
  const bool cached = A.generation != 0;
  if (cached)
    if (auto it = cache.find(A.generation); it != cache.end()) return it->second;
  const std::size_t bytes = static_cast<std::size_t>(tiles + 1) * 2 * sizeof(cl_int);
  cl::Buffer coords = cached ? cl::Buffer(cl.context(), CL_MEM_READ_WRITE, bytes)
                             : cl.scratch(OpenCLBackend::Scratch::spmv_merge_coords, bytes);
  cl::Kernel& k = cl.kernel("spmv.cl", dtype_v<T>, defines, "spmv_merge_partition");
  cl.set_args<T>(k, A.row_ptr, static_cast<int>(A.rows), static_cast<int>(A.nnz), tiles, coords);
  const std::int64_t wg = cl.tuning()["spmv.wg"];
  cl.launch(k, cl::NDRange(round_up(tiles + 1, wg)), cl::NDRange(static_cast<std::size_t>(wg)));
  if (cached) {
    if (cache.size() >= 32) cache.clear();  // a bound, not an LRU: rebuilt on demand
    cache[A.generation] = coords;
  }
  return coords;
}

template <class T>
void spmv_merge(OpenCLBackend& cl, double alpha, const CsrView& A, const VecView& x, double beta, const VecView& y,
                const std::string& defines) {
  using Scratch = OpenCLBackend::Scratch;
  const std::int64_t wg = cl.tuning()["spmv.wg"];
  const std::int64_t tile = wg * cl.tuning()["spmv.merge_items"];
  const int tiles = static_cast<int>((A.rows + A.nnz + tile - 1) / tile);
  const cl::Buffer coords = merge_coords<T>(cl, A, defines, tiles);
  cl::Buffer& carry_rows = cl.scratch(Scratch::spmv_carry_rows, static_cast<std::size_t>(tiles) * sizeof(cl_int));
  cl::Buffer& carry_vals = cl.scratch(Scratch::spmv_carry_vals, static_cast<std::size_t>(tiles) * sizeof(T));
  const int read_y = beta != 0.0 ? 1 : 0;
  cl::Kernel& k = cl.kernel("spmv.cl", dtype_v<T>, defines, "spmv_merge");
  cl.set_args<T>(k, A.row_ptr, A.col_idx, A.values, x.data, y.data, static_cast<int>(A.rows), Real{alpha}, Real{beta},
                 read_y, coords, carry_rows, carry_vals);
  cl.launch(k, cl::NDRange(static_cast<std::size_t>(tiles * wg)), cl::NDRange(static_cast<std::size_t>(wg)));
  cl::Kernel& fix = cl.kernel("spmv.cl", dtype_v<T>, defines, "spmv_merge_fixup");
  cl.set_args<T>(fix, carry_rows, carry_vals, tiles, static_cast<int>(A.rows), Real{alpha}, y.data);
  cl.launch(fix, cl::NDRange(round_up(tiles, wg)), cl::NDRange(static_cast<std::size_t>(wg)));
}

}  // namespace

template <class T>
void OpenCLBackend::spmv(double alpha, const CsrView& A, const VecView& x, double beta, const VecView& y) {
  const tuning::Tuning& t = tuning_;
  const std::string defines = t.defines("spmv");
  const int read_y = beta != 0.0 ? 1 : 0;  // beta == 0: y is not read
  const std::int64_t wg = t["spmv.wg"];
  const plan::SpmvChoice choice = plan::choose_spmv(A, t, cpu_kernels_, wg * t["spmv.merge_items"]);
  switch (choice.kernel) {
    case plan::SpmvKernel::rows: {
      const std::int64_t items = (A.rows + t["spmv.rows_per_item"] - 1) / t["spmv.rows_per_item"];
      cl::Kernel& k = kernel("spmv.cl", dtype_v<T>, defines, "spmv_rows");
      set_args<T>(k, A.row_ptr, A.col_idx, A.values, x.data, y.data, A.rows, Real{alpha}, Real{beta}, read_y);
      launch(k, cl::NDRange(round_up(items, wg)), cl::NDRange(static_cast<std::size_t>(wg)));
      return;
    }
    case plan::SpmvKernel::merge:
      spmv_merge<T>(*this, alpha, A, x, beta, y, defines);
      return;
    case plan::SpmvKernel::stream: {
      cl::Kernel& k = kernel("spmv.cl", dtype_v<T>, defines, "spmv_stream");
      set_args<T>(k, A.row_ptr, A.col_idx, A.values, x.data, y.data, A.rows, Real{alpha}, Real{beta}, read_y);
      launch(k, cl::NDRange(round_up(A.rows, wg)), cl::NDRange(static_cast<std::size_t>(wg)));
      return;
    }
    case plan::SpmvKernel::vector: {
      const int lanes = choice.lanes;
      const std::int64_t rows_per_group = wg / lanes;
      const std::int64_t groups = (A.rows + rows_per_group - 1) / rows_per_group;
      cl::Kernel& k = kernel("spmv.cl", dtype_v<T>, defines, "spmv_vector");
      set_args<T>(k, A.row_ptr, A.col_idx, A.values, x.data, y.data, A.rows, Real{alpha}, Real{beta}, read_y, lanes);
      launch(k, cl::NDRange(static_cast<std::size_t>(groups * wg)), cl::NDRange(static_cast<std::size_t>(wg)));
      return;
    }
  }
}

TESSERA_INSTANTIATE_TYPED_OP(OpenCLBackend, spmv)

}  // namespace tessera::opencl
