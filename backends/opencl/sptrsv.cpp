// Sparse triangular solve by level sets (kernels/opencl/sptrsv.cl). The analysis downloads the
// structure (and, with Diag::non_unit, the values) and runs the one level-schedule analysis
// (plan/level_schedule.hpp: levels, rows ordered by level, each row's diagonal, singular rows
// rejected); from it this file builds the device's solve plan, one of:
//  - sync-free (gpu kernels with sptrsv.syncfree, where the levels hold that many rows on
//    average; the CUDA backend's method): one launch of sptrsv.groups_per_cu x compute units
//    groups that take tasks (levels cut into pieces of at most sptrsv.syncfree_wg rows) in
//    level order from an atomic ticket; a row waits on flags of the rows it depends on;
//  - levels: a level with more rows than a work-group gets a launch of its own, and runs of
//    consecutive smaller levels are solved by one work-group with a barrier between levels (one
//    launch for a whole chain of small levels instead of one per level; on the H200 letting one
//    group take levels of up to 2048 rows was slower: 2.7 against 2.1 ms, 128^3 Laplacian, f32),
//    each work-item loading its next rows while the current level computes, x in local memory
//    where it fits (kernels/opencl/sptrsv.cl).
// A plan may be used on any queue: the sync-free plan's flags and epoch are the plan's, so its
// solves are chained on the device (each waits for the previous one's event, whichever queue
// ran it), under the backend's mutex.
#include <algorithm>
#include <climits>
#include <string>
#include <type_traits>
#include <vector>

#include "opencl_backend.hpp"
#include "plan/level_schedule.hpp"
#include "tessera/errors.hpp"

namespace tessera::opencl {

namespace {

class OpenCLSptrsvPlan final : public SptrsvPlanData {
 public:
  const void* owner = nullptr;  // the backend that made it
  Uplo uplo = Uplo::lower;
  Diag diag = Diag::non_unit;
  std::uint64_t generation = 0;
  cl::Buffer diagonal;    // per row, in the dtype; empty with Diag::unit
  cl::Buffer level_rows;  // rows ordered by level
  cl::Buffer level_ptr;   // levels + 1 offsets into level_rows
  cl::Buffer info;        // per position: (row, row_ptr[row], row_ptr[row + 1], 0), for the chains
  int chain_entries = 4;  // entries of a row a chain's work-item loads a level ahead (SPTRSV_G)
  struct Segment {
    bool chain;            // true: levels [begin, end) in one work-group
    int begin, end;        // levels
    int first_row, count;  // chain == false: level_rows[first_row, + count)
  };
  std::vector<Segment> segments;
  // Sync-free solve: level_rows[task_ptr[t], task_ptr[t + 1]) is task t; ready[i] says row i is
  // solved in the current solve (epoch, advanced per solve; kernels/opencl/sptrsv.cl): a 64-bit
  // word per row in f32 (epoch and value), an int in f64.
  bool syncfree = false;
  int tasks = 0;
  std::size_t ready_bytes = 0;
  cl::Buffer task_ptr, ready;
  mutable int epoch = 0;         // guarded by the backend's mutex
  mutable cl::Event last_solve;  // the latest sync-free solve (same mutex)
};

// Per-queue scratch of the sync-free solve: its task ticket.
struct SptrsvScratch {
  ScratchBuffer ticket;
};

}  // namespace

template <class T>
std::shared_ptr<SptrsvPlanData> OpenCLBackend::sptrsv_analyze(QueueImpl& qi, Uplo uplo, Diag diag, const CsrView& A) {
  cl::CommandQueue& queue = cl_queue(qi).queue();
  const std::int64_t n = A.rows;
  const auto un = static_cast<std::size_t>(n);
  std::vector<std::int32_t> rp(un + 1), ci(static_cast<std::size_t>(A.nnz));
  // The structure comes to the host (the one wait of an op: the verdict on singularity is the
  // caller's answer); the last read blocks for all three.
  std::vector<T> values;
  if (diag == Diag::non_unit && A.nnz > 0) values.resize(static_cast<std::size_t>(A.nnz));
  queue.enqueueReadBuffer(cl::Buffer(mem(A.row_ptr), true), CL_FALSE, 0, rp.size() * 4, rp.data());
  if (A.nnz > 0) queue.enqueueReadBuffer(cl::Buffer(mem(A.col_idx), true), CL_FALSE, 0, ci.size() * 4, ci.data());
  if (!values.empty())
    queue.enqueueReadBuffer(cl::Buffer(mem(A.values), true), CL_FALSE, 0, values.size() * sizeof(T), values.data());
  queue.finish();
  note_host_wait();

  auto plan = std::make_shared<OpenCLSptrsvPlan>();
  plan->owner = this;
  plan->uplo = uplo;
  plan->diag = diag;
  plan->generation = A.generation;
  if (n == 0) return plan;  // nothing to solve (and OpenCL has no empty buffers)

  const plan::LevelSchedule s =
      plan::level_schedule(n, rp.data(), ci.data(), values.data(), dtype_v<T>, uplo, diag);
  if (diag == Diag::non_unit) {
    const std::vector<T> d(s.diagonal.begin(), s.diagonal.end());
    plan->diagonal = cl::Buffer(context_, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, d.size() * sizeof(T),
                                const_cast<T*>(d.data()));
  }
  const auto levels = static_cast<int>(s.levels);
  const std::vector<std::int32_t>& ptr = s.level_ptr;
  plan->level_rows = cl::Buffer(context_, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, s.order.size() * 4,
                                const_cast<std::int32_t*>(s.order.data()));
  plan->level_ptr = cl::Buffer(context_, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, ptr.size() * 4,
                               const_cast<std::int32_t*>(ptr.data()));

  const tuning::Tuning& t = tuning_;
  if (!cpu_kernels_ && plan::solve_sync_free(n, s.levels, t["sptrsv.syncfree"])) {
    const int task_rows = t.get("sptrsv.syncfree_wg");
    std::vector<std::int32_t> tasks{0};
    for (std::size_t l = 0; l < static_cast<std::size_t>(levels); ++l)
      for (std::int32_t r = ptr[l]; r < ptr[l + 1]; r += task_rows) tasks.push_back(std::min(r + task_rows, ptr[l + 1]));
    plan->syncfree = true;
    plan->tasks = static_cast<int>(tasks.size()) - 1;
    plan->task_ptr = cl::Buffer(context_, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, tasks.size() * 4, tasks.data());
    // f32: a 64-bit word per row (epoch and value); f64: an int flag (kernels/opencl/sptrsv.cl).
    plan->ready_bytes = un * (std::is_same_v<T, float> ? sizeof(cl_ulong) : sizeof(cl_int));
    plan->ready = cl::Buffer(context_, CL_MEM_READ_WRITE, plan->ready_bytes);
    // The first solve, on any queue, waits for this fill.
    queue.enqueueFillBuffer(plan->ready, cl_int{0}, 0, plan->ready_bytes, nullptr, &plan->last_solve);
    return plan;
  }
  std::vector<cl_int4> info(un);
  for (std::size_t p = 0; p < un; ++p) {
    const std::int32_t row = s.order[p];
    info[p] = {{row, rp[static_cast<std::size_t>(row)], rp[static_cast<std::size_t>(row) + 1], 0}};
  }
  plan->info = cl::Buffer(context_, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, un * sizeof(cl_int4), info.data());
  // Entries loaded ahead: most rows whole (1.5x the mean length, a power of 2 in 4..32): the
  // rest of a row is loaded as the level computes, a round trip per few entries.
  const std::int64_t want = (3 * A.nnz + 2 * n - 1) / (2 * n);
  while (plan->chain_entries < 32 && plan->chain_entries < want) plan->chain_entries *= 2;
  const int chain_max = t.get("sptrsv.wg");  // a level this small is one pass of one group
  for (int l = 0; l < levels;) {
    const int size = ptr[static_cast<std::size_t>(l) + 1] - ptr[static_cast<std::size_t>(l)];
    if (size > chain_max) {
      plan->segments.push_back({false, l, l + 1, ptr[static_cast<std::size_t>(l)], size});
      ++l;
      continue;
    }
    int end = l;
    while (end < levels && ptr[static_cast<std::size_t>(end) + 1] - ptr[static_cast<std::size_t>(end)] <= chain_max)
      ++end;
    plan->segments.push_back({true, l, end, 0, 0});
    l = end;
  }
  return plan;
}

template <class T>
void OpenCLBackend::sptrsv_solve(QueueImpl& qi, const SptrsvPlanData& plan_data, const CsrView& A, const VecView& b,
                                 const VecView& x) {
  OpenClQueue& q = cl_queue(qi);
  const auto* plan = dynamic_cast<const OpenCLSptrsvPlan*>(&plan_data);
  if (plan == nullptr || plan->owner != this)
    throw InvalidArgument("sptrsv_solve: the plan was not made by opencl:" + std::to_string(index_) +
                          "; analyse on this device");
  if (plan->generation != A.generation)
    throw InvalidArgument("sptrsv_solve: the plan was made for a different matrix; analyse this one first");
  const tuning::Tuning& t = tuning_;
  const std::string defines = t.defines("sptrsv");
  const int lower = plan->uplo == Uplo::lower ? 1 : 0;
  const int unit = plan->diag == Diag::unit ? 1 : 0;
  void* diag = unit ? nullptr : plan->diagonal();
  if (plan->syncfree) {  // reads b itself
    cl::Buffer& ticket = grow(q.state<SptrsvScratch>().ticket, sizeof(cl_int));
    q.queue().enqueueFillBuffer(ticket, cl_int{0}, 0, sizeof(cl_int));
    const int wg = t.get("sptrsv.syncfree_wg");
    const int groups = std::max(1, std::min(plan->tasks, compute_units_ * t.get("sptrsv.groups_per_cu")));
    cl::Kernel& k = kernel("sptrsv.cl", dtype_v<T>, defines, "sptrsv_syncfree");
    std::lock_guard<std::mutex> lock(mutex_);  // the plan's epoch, flags and event
    std::vector<cl::Event> wait{plan->last_solve};
    if (plan->epoch == INT_MAX) {  // flags of old solves could match again: clear them
      cl::Event cleared;
      q.queue().enqueueFillBuffer(plan->ready, cl_int{0}, 0, plan->ready_bytes, &wait, &cleared);
      wait = {cleared};
      plan->epoch = 0;
    }
    ++plan->epoch;
    // launch_ordered would take the mutex again: set the arguments and enqueue here.
    cl_uint i = 0;
    for (void* m : {A.row_ptr, A.col_idx, A.values, static_cast<void*>(diag), static_cast<void*>(plan->level_rows()),
                    static_cast<void*>(plan->task_ptr())})
      set_arg(k, i, dtype_v<T>, m);
    set_arg(k, i, dtype_v<T>, plan->tasks);
    set_arg(k, i, dtype_v<T>, b.data), set_arg(k, i, dtype_v<T>, b.offset);
    set_arg(k, i, dtype_v<T>, x.data), set_arg(k, i, dtype_v<T>, x.offset);
    set_arg(k, i, dtype_v<T>, lower), set_arg(k, i, dtype_v<T>, unit);
    set_arg(k, i, dtype_v<T>, static_cast<void*>(plan->ready())), set_arg(k, i, dtype_v<T>, plan->epoch);
    set_arg(k, i, dtype_v<T>, ticket);
    q.queue().enqueueNDRangeKernel(k, cl::NullRange, cl::NDRange(static_cast<std::size_t>(groups) * wg),
                                   cl::NDRange(static_cast<std::size_t>(wg)), &wait, &plan->last_solve);
    return;
  }
  if (b.data != x.data || b.offset != x.offset) {  // the level kernels solve x in place
    const cl_int err = ::clEnqueueCopyBuffer(q.queue()(), mem(b.data), mem(x.data), b.offset * sizeof(T),
                                             x.offset * sizeof(T), static_cast<std::size_t>(b.n) * sizeof(T), 0,
                                             nullptr, nullptr);
    if (err != CL_SUCCESS) throw cl::Error(err, "clEnqueueCopyBuffer");
  }
  const int wg = t.get("sptrsv.wg");
  // The chains keep x in local memory where the group's share holds all n values.
  const bool local_x = static_cast<std::size_t>(b.n) * sizeof(T) <= local_mem_limit();
  const int n_local = local_x ? static_cast<int>(b.n) : 0;
  for (const auto& seg : plan->segments) {
    if (seg.chain) {
      cl::Kernel& k =
          kernel("sptrsv.cl", dtype_v<T>, defines + " -DSPTRSV_G=" + std::to_string(plan->chain_entries), "sptrsv_chain");
      launch<T>(q, k, cl::NDRange(static_cast<std::size_t>(wg)), cl::NDRange(static_cast<std::size_t>(wg)), A.col_idx,
                A.values, diag, plan->info, plan->level_ptr, seg.begin, seg.end, x.data, x.offset, lower, unit,
                cl::Local(local_x ? static_cast<std::size_t>(b.n) * sizeof(T) : sizeof(T)), n_local);
    } else {
      cl::Kernel& k = kernel("sptrsv.cl", dtype_v<T>, defines, "sptrsv_level");
      const std::size_t global = (static_cast<std::size_t>(seg.count) + wg - 1) / wg * wg;
      launch<T>(q, k, cl::NDRange(global), cl::NDRange(static_cast<std::size_t>(wg)), A.row_ptr, A.col_idx, A.values,
                diag, plan->level_rows, seg.first_row, seg.count, x.data, x.offset, lower, unit);
    }
  }
}

TESSERA_INSTANTIATE_TYPED_OP(OpenCLBackend, sptrsv_analyze)
TESSERA_INSTANTIATE_TYPED_OP(OpenCLBackend, sptrsv_solve)

}  // namespace tessera::opencl
