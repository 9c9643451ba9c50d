// SpMV: the kernel comes from the one SpMV policy (plan/spmv_policy.hpp), from the matrix's row
// statistics (CsrView::stats, computed on the host when it was built) and this device's spmv.*
// tuning values:
//  - merge: the merge-path kernel, over a partition of rows + nonzeros into equal tiles that is
//    computed once per matrix (keyed by CsrView::generation) and shared by every queue, with
//    the carries between tiles in the calling queue's scratch;
//  - stream: a warp per 32 rows, their nonzeros read as one coalesced run;
//  - vector: `lanes` threads per row;
//  - split: the long rows' chunks (plan/split_layout.hpp, built on the host from the host row
//    offsets and copied up once per matrix, shared by every queue as the SELL plans) beside the
//    vector kernel, one launch; the chunks' partial sums and the rows' tickets in the calling
//    queue's scratch (the tickets are changed while the kernel runs: one set per queue).
// Before those, the format policy may choose SELL-C-sigma: its structure is computed on the
// host from the host row offsets (plan/sell_layout.hpp) and copied up asynchronously, the
// padded columns and values filled from the CSR arrays by a kernel on the device, once per
// matrix (plan::PlanCache by generation, shared by every queue; its `ready` event is waited for
// on the device), the values again after update_values (into a new buffer). A plan is never
// built while the stream is capturing a graph (CSR runs then): a graph must not hold a one-off
// conversion.
#include <algorithm>
#include <cstdint>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "cuda_backend.hpp"
#include "kernels/cuda/launch.hpp"
#include "plan/plan_cache.hpp"
#include "plan/sell_layout.hpp"
#include "plan/split_layout.hpp"
#include "plan/spmv_policy.hpp"
#include "queue.hpp"
#include "reduce_state.hpp"

namespace tessera::cuda {

namespace {

// One matrix's merge-path partition: written once by the kernel queued on the queue that first
// needed it, read-only afterwards. `done` marks its completion, so a queue that uses it first
// waits for it on the device (cudaStreamWaitEvent), never on the host; null for one used by the
// stream that made it alone (a matrix without a generation, or one made while the stream records
// a graph, where an event recorded could not even be queried): stream order is enough there.
struct Partition {
  int tiles = 0;
  DeviceBuffer coords;
  cudaEvent_t done = nullptr;
  Partition() = default;
  Partition(const Partition&) = delete;
  Partition& operator=(const Partition&) = delete;
  ~Partition() {
    if (done != nullptr) (void)cudaEventDestroy(done);
  }
};

// `shared`: put in the cache every queue reads (never while the stream captures a graph).
std::shared_ptr<Partition> make_partition(const CsrView& A, cudaStream_t stream, bool shared) {
  auto p = std::make_shared<Partition>();
  p->tiles = static_cast<int>((A.rows + A.nnz + kMergeTile - 1) / kMergeTile);
  p->coords.ensure(static_cast<std::size_t>(p->tiles + 1) * sizeof(int2));
  TESSERA_CUDA_CHECK(launch_merge_partition(static_cast<int>(A.rows), static_cast<int>(A.nnz),
                                            static_cast<const int*>(A.row_ptr), p->tiles, p->coords.as<int2>(),
                                            stream));
  if (!shared) return p;
  TESSERA_CUDA_CHECK(cudaEventCreateWithFlags(&p->done, cudaEventDisableTiming));
  TESSERA_CUDA_CHECK(cudaEventRecord(p->done, stream));
  return p;
}

// A recorded event, destroyed with its owner.
struct OwnedEvent {
  cudaEvent_t e = nullptr;
  OwnedEvent() { TESSERA_CUDA_CHECK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming)); }
  OwnedEvent(const OwnedEvent&) = delete;
  OwnedEvent& operator=(const OwnedEvent&) = delete;
  ~OwnedEvent() { (void)cudaEventDestroy(e); }
};
// The structure's device arrays (shared by a plan's value refreshes).
struct SellArrays {
  DeviceBuffer slice_ptr, perm, col;
};
struct SellValues {
  DeviceBuffer val;
  OwnedEvent ready;  // the fill that wrote val (and, the first time, col)
};
struct SellPlan {
  std::shared_ptr<const plan::SellLayout> layout;
  bool use = false;
  DType dtype = DType::f32;
  std::shared_ptr<SellArrays> arrays;    // null until the first spmv (spmv_kernel builds none)
  std::shared_ptr<SellValues> values;
  std::uint64_t values_version = 0;
};

void upload_async(DeviceBuffer& dst, const std::vector<std::int32_t>& v, cudaStream_t stream) {
  dst.ensure(std::max<std::size_t>(v.size(), 1) * sizeof(int));
  // From pageable memory: returns once staged, so the layout may go; kept by the plan anyway.
  if (!v.empty())
    TESSERA_CUDA_CHECK(cudaMemcpyAsync(dst.as<int>(), v.data(), v.size() * sizeof(int), cudaMemcpyHostToDevice, stream));
}

// A matrix's split layout and its chunk list on the device (`ready`: the copy, recorded on the
// queue that made it).
struct SplitPlan {
  std::shared_ptr<const plan::SplitLayout> layout;
  DeviceBuffer chunks;
  OwnedEvent ready;
};

}  // namespace

struct CudaBackend::SellPlans {
  plan::PlanCache<SellPlan> plans;
  plan::PlanCache<SplitPlan> splits;
};
std::shared_ptr<CudaBackend::SellPlans> CudaBackend::make_sell_plans() { return std::make_shared<SellPlans>(); }

namespace {

// A's SELL plan (stream null: only the verdict, nothing built on the device); null: CSR runs.
template <class T>
std::shared_ptr<const SellPlan> sell_plan_for(CudaBackend::SellPlans& cache, const tuning::Tuning& t, const CsrView& A,
                                              cudaStream_t stream) {
  if (!plan::sell_candidate(A, t, sizeof(T))) return nullptr;
  const bool build = stream != nullptr && !capturing(stream);
  const int c = t.get("spmv.sell_c");
  const int sigma = plan::sell_sigma_for(t.get("spmv.sell_sigma"), c);
  auto p = cache.plans.get(A.generation, [&](std::shared_ptr<const SellPlan> old) {
    const bool same = old && old->dtype == dtype_v<T>;
    if (same && (!old->use || !build || (old->arrays && old->values_version == A.values_version))) return old;
    auto fresh = std::make_shared<SellPlan>();
    if (same) {
      *fresh = *old;
    } else {
      fresh->dtype = dtype_v<T>;
      auto layout = std::make_shared<plan::SellLayout>(
          plan::sell_layout(A.host_row_ptr, A.rows, c, sigma));
      fresh->use = plan::keep_sell(A, layout->padded, t, sizeof(T));
      fresh->layout = std::move(layout);
    }
    if (!fresh->use || !build) return std::shared_ptr<const SellPlan>(fresh);
    const plan::SellLayout& l = *fresh->layout;
    const bool with_cols = !fresh->arrays;
    if (with_cols) {
      auto a = std::make_shared<SellArrays>();
      upload_async(a->slice_ptr, l.slice_ptr, stream);
      upload_async(a->perm, l.perm, stream);
      a->col.ensure(static_cast<std::size_t>(l.padded) * sizeof(int));
      fresh->arrays = std::move(a);
    }
    auto v = std::make_shared<SellValues>();
    v->val.ensure(static_cast<std::size_t>(l.padded) * sizeof(T));
    const SellArrays& a = *fresh->arrays;
    TESSERA_CUDA_CHECK(launch_sell_fill<T>(static_cast<int>(A.rows), l.c, a.slice_ptr.as<int>(),
                                           l.sorted() ? a.perm.as<int>() : nullptr, static_cast<const int*>(A.row_ptr),
                                           static_cast<const int*>(A.col_idx), static_cast<const T*>(A.values),
                                           a.col.as<int>(), v->val.as<T>(), with_cols, stream));
    TESSERA_CUDA_CHECK(cudaEventRecord(v->ready.e, stream));
    fresh->values = std::move(v);
    fresh->values_version = A.values_version;
    return std::shared_ptr<const SellPlan>(fresh);
  });
  if (!p->use || (stream != nullptr && !p->values)) return nullptr;
  return p;
}

// A's split plan (A takes the split kernel; stream null: the layout only, nothing copied up);
// null while the stream records a graph and the plan is not on the device yet (merge runs: a
// graph must not hold a one-off copy).
std::shared_ptr<const SplitPlan> split_plan_for(CudaBackend::SellPlans& cache, const tuning::Tuning& t,
                                                const CsrView& A, cudaStream_t stream) {
  auto p = cache.splits.get(A.generation, [&](std::shared_ptr<const SplitPlan> old) {
    if (old && old->chunks.get() != nullptr) return old;  // the common case: no capture query
    const bool build = stream != nullptr && !capturing(stream);
    if (old && !build) return old;
    auto fresh = std::make_shared<SplitPlan>();
    fresh->layout = old ? old->layout
                        : std::make_shared<const plan::SplitLayout>(plan::split_layout(
                              A.host_row_ptr, A.rows, t["spmv.split_row"], kSpmvChunk, t));
    if (build) {
      upload_async(fresh->chunks, fresh->layout->chunks, stream);
      TESSERA_CUDA_CHECK(cudaEventRecord(fresh->ready.e, stream));
    }
    return std::shared_ptr<const SplitPlan>(fresh);
  });
  if (stream != nullptr && p->chunks.get() == nullptr) return nullptr;
  return p;
}

}  // namespace

std::string CudaBackend::spmv_kernel(DType dtype, const CsrView& A) {
  make_current();
  const auto p = dtype == DType::f32 ? sell_plan_for<float>(*sell_plans_, tune_, A, nullptr)
                                     : sell_plan_for<double>(*sell_plans_, tune_, A, nullptr);
  if (p) return plan::describe_sell(p->layout->c, p->layout->sigma, p->layout->padded, A.nnz);
  const plan::SpmvChoice choice = plan::choose_spmv(A, tune_, false, kMergeTile);
  if (choice.kernel == plan::SpmvKernel::split) {
    const plan::SplitLayout& l = *split_plan_for(*sell_plans_, tune_, A, nullptr)->layout;
    return plan::describe_split(l.lanes, l.long_rows, l.count());
  }
  return plan::describe_csr(choice);
}

// The partitions of the matrices seen last (bounded: oldest dropped first), shared by all queues
// under CudaBackend::spmv_mutex_. Users hold a shared_ptr, so a partition dropped here while
// another thread enqueues with it stays alive until that call returns (cudaFree then waits for
// the kernels still reading it).
struct CudaBackend::SpmvPlans {
  static constexpr std::size_t kMaxPartitions = 32;
  std::unordered_map<std::uint64_t, std::shared_ptr<Partition>> partitions;
  std::vector<std::uint64_t> order;  // generations, oldest first
};

// A queue's merge-path carries (one per tile), and the partition of the last matrix without a
// generation (kept until the next such call on this queue, so its buffers outlive the kernels).
struct CudaBackend::SpmvState {
  DeviceBuffer carry_rows, carry_vals;
  DeviceBuffer split_partial, split_tickets;  // the tickets are all 0 between calls
  std::shared_ptr<Partition> uncached;

  static SpmvState& of(CudaQueue& q) {
    if (!q.state.spmv) q.state.spmv = std::make_shared<SpmvState>();
    return *q.state.spmv;
  }
};

template <class T>
void CudaBackend::spmv(QueueImpl& q, double alpha, const CsrView& A, const VecView& x, double beta, const VecView& y) {
  if (A.rows == 0) return;
  const cudaStream_t stream = stream_of(q);
  plan::SpmvChoice choice = plan::choose_spmv(A, tune_, false, kMergeTile);
  const auto* rp = static_cast<const int*>(A.row_ptr);
  const auto* ci = static_cast<const int*>(A.col_idx);
  const auto* v = static_cast<const T*>(A.values);
  const T* xp = dev_ptr<const T>(x);
  T* yp = dev_ptr<T>(y);
  const int rows = static_cast<int>(A.rows);
  const T a = static_cast<T>(alpha), b = static_cast<T>(beta);
  if (const auto p = sell_plan_for<T>(*sell_plans_, tune_, A, stream)) {
    // Filled on another queue: this stream starts after it (free once it has been).
    wait_for_event(stream, p->values->ready.e);
    const SellArrays& s = *p->arrays;
    TESSERA_CUDA_CHECK(launch_spmv_sell<T>(rows, p->layout->c, static_cast<int>(tune_["spmv.sell_steps"]),
                                           s.slice_ptr.as<int>(),
                                           p->layout->sorted() ? s.perm.as<int>() : nullptr, s.col.as<int>(),
                                           p->values->val.template as<T>(), xp, a, b, yp, stream));
    return;
  }
  std::shared_ptr<const SplitPlan> split;
  std::size_t tickets_bytes = 0;
  if (choice.kernel == plan::SpmvKernel::split) {
    split = split_plan_for(*sell_plans_, tune_, A, stream);
    if (split) tickets_bytes = static_cast<std::size_t>(std::max<std::int64_t>(split->layout->long_rows, 1)) * sizeof(int);
    // The queue's tickets are zeroed when first allocated, which a graph's recording would only
    // record: while recording, a queue without them takes the choice without split too.
    if (split && SpmvState::of(queue_of(q)).split_tickets.bytes() < tickets_bytes && capturing(stream)) split.reset();
    if (!split) {
      CsrView unsplit = A;  // recording a graph before the plan exists: the policy's choice without split
      unsplit.host_row_ptr = nullptr;
      choice = plan::choose_spmv(unsplit, tune_, false, kMergeTile);
    }
  }
  switch (choice.kernel) {
    case plan::SpmvKernel::split: {
      wait_for_event(stream, split->ready.e);  // copied up on another queue: this stream starts after it
      const plan::SplitLayout& l = *split->layout;
      SpmvState& st = SpmvState::of(queue_of(q));
      if (st.split_tickets.bytes() < tickets_bytes) {
        st.split_tickets.ensure(tickets_bytes);
        TESSERA_CUDA_CHECK(cudaMemsetAsync(st.split_tickets.get(), 0, st.split_tickets.bytes(), stream));
      }
      auto* partial = static_cast<T*>(
          st.split_partial.ensure(static_cast<std::size_t>(std::max<std::int64_t>(l.count(), 1)) * sizeof(T)));
      TESSERA_CUDA_CHECK(launch_spmv_split<T>(std::clamp(l.lanes, 2, 32), rows, rp, ci, v, xp, a, b, yp,
                                              static_cast<int>(l.long_row),
                                              static_cast<int>(l.count()), split->chunks.as<int>(), partial,
                                              st.split_tickets.as<int>(), stream));
      break;
    }
    case plan::SpmvKernel::merge: {
      SpmvState& st = SpmvState::of(queue_of(q));
      std::shared_ptr<Partition> part;
      if (A.generation == 0) {
        part = st.uncached = make_partition(A, stream, false);
      } else {
        std::lock_guard<std::mutex> lock(spmv_mutex_);
        if (!spmv_plans_) spmv_plans_ = std::make_shared<SpmvPlans>();
        SpmvPlans& plans = *spmv_plans_;
        if (auto it = plans.partitions.find(A.generation); it != plans.partitions.end()) {
          part = it->second;
        } else if (capturing(stream)) {
          // Made for the graph alone: its kernel is recorded, not run, so no other queue may
          // find it in the shared cache.
          part = st.uncached = make_partition(A, stream, false);
        } else {
          // Queued here under the lock, so no other queue computes it twice.
          part = make_partition(A, stream, true);
          if (plans.order.size() >= SpmvPlans::kMaxPartitions) {
            plans.partitions.erase(plans.order.front());
            plans.order.erase(plans.order.begin());
          }
          plans.order.push_back(A.generation);
          plans.partitions[A.generation] = part;
        }
      }
      // Made on another queue: this stream starts after it is written (free once it has been).
      if (part->done != nullptr) wait_for_event(stream, part->done);
      auto* carry_rows = static_cast<int*>(st.carry_rows.ensure(static_cast<std::size_t>(part->tiles) * sizeof(int)));
      auto* carry_vals = static_cast<T*>(st.carry_vals.ensure(static_cast<std::size_t>(part->tiles) * sizeof(T)));
      TESSERA_CUDA_CHECK(launch_spmv_merge<T>(rows, static_cast<int>(A.nnz), rp, ci, v, xp, a, b, yp, part->tiles,
                                              part->coords.as<int2>(), carry_rows, carry_vals, stream));
      break;
    }
    case plan::SpmvKernel::stream:
      TESSERA_CUDA_CHECK(launch_spmv_stream<T>(rows, rp, ci, v, xp, a, b, yp, stream));
      break;
    default:
      // The vector kernel is compiled for 2..32 lanes (a warp at most); spmv.min_lanes and
      // spmv.max_lanes may ask for fewer or more.
      TESSERA_CUDA_CHECK(launch_spmv_vector<T>(std::clamp(choice.lanes, 2, 32), rows, rp, ci, v, xp, a, b, yp, stream));
      break;
  }
}

TESSERA_INSTANTIATE_TYPED_OP(CudaBackend, spmv)

namespace {

// spmv_dot in one launch where CSR runs the stream or vector kernel; false where merge runs, SELL
// is forced (plan::sell_in_spmv_dot) or A has no rows, and the caller runs spmv, then dot.
template <class T>
bool spmv_dot_fused(const tuning::Tuning& t, int max_blocks, const ReduceScratch& rs, cudaStream_t stream,
                    double alpha, const CsrView& A, const VecView& x, double beta, const VecView& y, const VecView& w,
                    const VecView& out) {
  if (A.rows == 0 || plan::sell_in_spmv_dot(t)) return false;
  const plan::SpmvChoice choice = plan::choose_spmv(A, t, false, kMergeTile, true);
  if (choice.kernel != plan::SpmvKernel::stream && choice.kernel != plan::SpmvKernel::vector) return false;
  const int lanes = choice.kernel == plan::SpmvKernel::stream ? 0 : std::clamp(choice.lanes, 2, 32);
  TESSERA_CUDA_CHECK(launch_spmv_dot<T>(lanes, static_cast<int>(A.rows), static_cast<const int*>(A.row_ptr),
                                        static_cast<const int*>(A.col_idx), static_cast<const T*>(A.values),
                                        dev_ptr<const T>(x), static_cast<T>(alpha), static_cast<T>(beta),
                                        dev_ptr<T>(y), dev_ptr<const T>(w), dev_ptr<T>(out), max_blocks, rs, stream));
  return true;
}

}  // namespace

void CudaBackend::spmv_dot(DType dtype, QueueImpl& q, double alpha, const CsrView& A, const VecView& x, double beta,
                           const VecView& y, const VecView& w, const VecView& out) {
  make_current();
  CudaQueue& cq = queue_of(q);
  const ReduceState& st = ReduceState::of(cq, reduce_blocks_);
  const bool fused = dtype == DType::f32
                         ? spmv_dot_fused<float>(tune_, st.max_blocks, st.view(), cq.stream(), alpha, A, x, beta, y, w, out)
                         : spmv_dot_fused<double>(tune_, st.max_blocks, st.view(), cq.stream(), alpha, A, x, beta, y, w,
                                                  out);
  if (!fused) Backend::spmv_dot(dtype, q, alpha, A, x, beta, y, w, out);
}

}  // namespace tessera::cuda
