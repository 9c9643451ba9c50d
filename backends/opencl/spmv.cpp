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
// spmv_dot: the stream and vector kernels' _dot variants add the dot of w with the rows they
// wrote, in the same launch (a reduction's first pass; its last group sums with single_pass).
// The merge partitions are per matrix and shared by all queues (behind the backend's mutex);
// the carries are per-queue scratch.
//
// SELL-C-sigma (the format policy's choice, before the CSR kernels): the layout's structure is
// computed on the host from the host row offsets (plan/sell_layout.hpp, no download) and
// copied into buffers at creation; the padded columns and values are filled from the CSR
// arrays by a kernel on the device (spmv_sell_fill), once per matrix (keyed by generation), and
// the values again after update_values (into a new buffer: a queue still running the old plan
// keeps its own). C = spmv.sell_c (the warp / wavefront), sigma = spmv.sell_sigma.
#include <string>
#include <unordered_map>
#include <vector>

#include "opencl_backend.hpp"
#include "plan/plan_cache.hpp"
#include "reduce.hpp"
#include "plan/sell_layout.hpp"
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

// One matrix's SELL plan. `ready`: the fill kernel's event, waited for on the device.
struct ClSellPlan {
  std::shared_ptr<const plan::SellLayout> layout;
  bool use = false;
  cl::Buffer slice_ptr, perm, col, val;
  cl::Event ready;
  std::uint64_t values_version = 0;
  DType dtype = DType::f32;
};
struct ClSellCache {
  plan::PlanCache<ClSellPlan> plans;
};

// spmv.sell_c is a power of two (its tuning shape); the kernels find a slot's slice by a shift.
int log2_of(int c) {
  int l = 0;
  while ((1 << l) < c) ++l;
  return l;
}

cl::Buffer host_copy(cl::Context& ctx, const std::vector<std::int32_t>& v) {
  // An empty array still needs a buffer to pass (perm when sigma == 1).
  static const std::int32_t zero = 0;
  const void* src = v.empty() ? static_cast<const void*>(&zero) : static_cast<const void*>(v.data());
  return cl::Buffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, std::max<std::size_t>(v.size(), 1) * sizeof(cl_int),
                    const_cast<void*>(src));
}

// Queues the fill of p's values (and columns) from A's arrays on q; p.ready gets its event.
template <class T>
void sell_fill(OpenCLBackend& cl, OpenClQueue& q, const CsrView& A, ClSellPlan& p, bool with_cols,
               const std::string& defines) {
  const plan::SellLayout& l = *p.layout;
  const std::int64_t wg = cl.tuning()["spmv.wg"];
  const std::int64_t slots = l.slices * l.c;  // every slot, padding past the last row included
  cl::Kernel& k = cl.kernel("spmv.cl", dtype_v<T>, defines, "spmv_sell_fill");
  cl.launch_ordered<T>(q, k, cl::NDRange(round_up(slots, wg)), cl::NDRange(static_cast<std::size_t>(wg)), nullptr,
                       &p.ready, p.slice_ptr, p.perm, l.sorted() ? 1 : 0, A.row_ptr, A.col_idx, A.values, p.col, p.val,
                       static_cast<int>(A.rows), static_cast<cl_long>(slots), log2_of(l.c), with_cols ? 1 : 0);
  p.values_version = A.values_version;
}

// A's plan, built or refreshed on q where needed; null where CSR runs. build = false: only the
// structure's verdict (spmv_kernel), nothing queued.
template <class T>
std::shared_ptr<const ClSellPlan> sell_plan(OpenCLBackend& cl, OpenClQueue* q, const CsrView& A,
                                            const std::string& defines) {
  const tuning::Tuning& t = cl.tuning();
  if (!plan::sell_candidate(A, t, sizeof(T))) return nullptr;
  const int c = t.get("spmv.sell_c");
  const int sigma = plan::sell_sigma_for(t.get("spmv.sell_sigma"), c);
  auto p = cl.state<ClSellCache>().plans.get(A.generation, [&](std::shared_ptr<const ClSellPlan> old) {
    const bool arrays = old && (!old->use || old->col() != nullptr);
    if (old && old->dtype == dtype_v<T> && (!old->use || q == nullptr || (arrays && old->values_version == A.values_version)))
      return old;
    auto fresh = std::make_shared<ClSellPlan>();
    fresh->dtype = dtype_v<T>;
    if (old && old->dtype == dtype_v<T>) {
      *fresh = *old;  // the structure (and its buffers) stays
    } else {
      auto layout = std::make_shared<plan::SellLayout>(
          plan::sell_layout(static_cast<const std::int32_t*>(A.host_row_ptr), A.rows, c, sigma));
      fresh->use = plan::keep_sell(A, layout->padded, t, sizeof(T));
      fresh->layout = std::move(layout);
    }
    if (!fresh->use || q == nullptr) return std::shared_ptr<const ClSellPlan>(fresh);
    const plan::SellLayout& l = *fresh->layout;
    const bool with_cols = fresh->col() == nullptr;
    if (with_cols) {
      fresh->slice_ptr = host_copy(cl.context(), l.slice_ptr);
      fresh->perm = host_copy(cl.context(), l.perm);
      fresh->col = cl::Buffer(cl.context(), CL_MEM_READ_WRITE, static_cast<std::size_t>(l.padded) * sizeof(cl_int));
    }
    fresh->val = cl::Buffer(cl.context(), CL_MEM_READ_WRITE, static_cast<std::size_t>(l.padded) * sizeof(T));
    sell_fill<T>(cl, *q, A, *fresh, with_cols, defines);
    return std::shared_ptr<const ClSellPlan>(fresh);
  });
  return p->use ? p : nullptr;
}

}  // namespace

std::string OpenCLBackend::spmv_kernel(DType dtype, const CsrView& A) {
  return translate_errors(where("spmv_kernel"), [&] {
    const std::string defines = tuning_.defines("spmv");
    const auto p = dtype == DType::f32 ? sell_plan<float>(*this, nullptr, A, defines)
                                       : sell_plan<double>(*this, nullptr, A, defines);
    if (p) return plan::describe_sell(p->layout->c, p->layout->sigma, p->layout->padded, A.nnz);
    const std::int64_t wg = tuning_["spmv.wg"];
    return plan::describe_csr(plan::choose_spmv(A, tuning_, cpu_kernels_, wg * tuning_["spmv.merge_items"]));
  });
}

template <class T>
void OpenCLBackend::spmv(QueueImpl& qi, double alpha, const CsrView& A, const VecView& x, double beta,
                         const VecView& y) {
  OpenClQueue& q = cl_queue(qi);
  const tuning::Tuning& t = tuning_;
  const std::string defines = t.defines("spmv");
  const int read_y = beta != 0.0 ? 1 : 0;  // beta == 0: y is not read
  const std::int64_t wg = t["spmv.wg"];
  if (const auto p = sell_plan<T>(*this, &q, A, defines)) {
    const std::vector<cl::Event> wait{p->ready};
    cl::Kernel& k = kernel("spmv.cl", dtype_v<T>, defines, "spmv_sell");
    launch_ordered<T>(q, k, cl::NDRange(round_up(A.rows, wg)), cl::NDRange(static_cast<std::size_t>(wg)), &wait,
                      nullptr, p->slice_ptr, p->perm, p->layout->sorted() ? 1 : 0, p->col, p->val, x.data, x.offset,
                      y.data, y.offset, static_cast<int>(A.rows), log2_of(p->layout->c), Real{alpha}, Real{beta},
                      read_y);
    return;
  }
  const plan::SpmvChoice choice = plan::choose_spmv(A, t, cpu_kernels_, wg * t["spmv.merge_items"]);
  switch (choice.kernel) {
    case plan::SpmvKernel::rows: {
      const std::int64_t items = (A.rows + t["spmv.rows_per_item"] - 1) / t["spmv.rows_per_item"];
      cl::Kernel& k = kernel("spmv.cl", dtype_v<T>, defines, "spmv_rows");
      launch<T>(q, k, cl::NDRange(round_up(items, wg)), cl::NDRange(static_cast<std::size_t>(wg)), A.row_ptr, A.col_idx,
                A.values, x.data, x.offset, y.data, y.offset, A.rows, Real{alpha}, Real{beta}, read_y);
      return;
    }
    case plan::SpmvKernel::split:  // CUDA's alone (spmv.split_max_nnz): never chosen here
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

namespace {

// spmv_dot in one launch where the product runs the stream or vector kernel (their _dot
// variants: the dot as a reduction's first pass over the rows each work-item wrote, needing
// spmv.wg == reduce.wg); false where another kernel runs (rows, merge, SELL where
// plan::sell_in_spmv_dot says), and the caller runs spmv, then dot.
template <class T>
bool spmv_dot_fused(OpenCLBackend& cl, OpenClQueue& q, double alpha, const CsrView& A, const VecView& x, double beta,
                    const VecView& y, const VecView& w, const VecView& out) {
  const tuning::Tuning& t = cl.tuning();
  const std::int64_t wg = t["spmv.wg"];
  if (cl.cpu_kernels() || wg != t["reduce.wg"] || A.rows == 0) return false;
  const std::string spmv_defines = t.defines("spmv");
  if (plan::sell_in_spmv_dot(t)) return false;
  const plan::SpmvChoice choice = plan::choose_spmv(A, t, false, wg * t["spmv.merge_items"], true);
  if (choice.kernel != plan::SpmvKernel::stream && choice.kernel != plan::SpmvKernel::vector) return false;
  const std::string defines = spmv_defines + " " + reduce_defines<T>(cl) + " -DSPMV_DOT=1";
  const bool stream = choice.kernel == plan::SpmvKernel::stream;
  const std::int64_t groups = stream ? (A.rows + wg - 1) / wg : (A.rows + wg / choice.lanes - 1) / (wg / choice.lanes);
  cl::Buffer& partials =
      cl.grow(q.state<ReduceScratch>().partials, static_cast<std::size_t>(groups) * reduce_partial_bytes<T>(cl));
  const int read_y = beta != 0.0 ? 1 : 0;
  const cl::NDRange global(static_cast<std::size_t>(groups * wg)), local(static_cast<std::size_t>(wg));
  if (stream) {
    cl.launch<T>(q, cl.kernel("spmv.cl", dtype_v<T>, defines, "spmv_stream_dot"), global, local, A.row_ptr, A.col_idx,
                 A.values, x.data, x.offset, y.data, y.offset, A.rows, Real{alpha}, Real{beta}, read_y, w.data,
                 w.offset, partials, reduce_ticket(cl, q), out.data, out.offset);
  } else {
    cl.launch<T>(q, cl.kernel("spmv.cl", dtype_v<T>, defines, "spmv_vector_dot"), global, local, A.row_ptr, A.col_idx,
                 A.values, x.data, x.offset, y.data, y.offset, A.rows, Real{alpha}, Real{beta}, read_y, choice.lanes,
                 w.data, w.offset, partials, reduce_ticket(cl, q), out.data, out.offset);
  }
  if (!single_pass(cl)) reduce_sum_final<T>(cl, q, partials, 0, groups, out, false);
  return true;
}

}  // namespace

void OpenCLBackend::spmv_dot(DType dtype, QueueImpl& qi, double alpha, const CsrView& A, const VecView& x, double beta,
                             const VecView& y, const VecView& w, const VecView& out) {
  bool fused = false;
  if (support(Op::spmv, dtype).ok)
    fused = run(Op::spmv, [&] {
      OpenClQueue& q = cl_queue(qi);
      return dtype == DType::f32 ? spmv_dot_fused<float>(*this, q, alpha, A, x, beta, y, w, out)
                                 : spmv_dot_fused<double>(*this, q, alpha, A, x, beta, y, w, out);
    });
  if (!fused) Backend::spmv_dot(dtype, qi, alpha, A, x, beta, y, w, out);
}

TESSERA_INSTANTIATE_TYPED_OP(OpenCLBackend, spmv)

}  // namespace tessera::opencl
