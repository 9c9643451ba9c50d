// SpMV: the kernel comes from the one SpMV policy (plan/spmv_policy.hpp), from the matrix's row
// statistics (CsrView::stats, computed on the host when it was built) and this device's spmv.*
// tuning values:
//  - merge: the merge-path kernel, over a partition of rows + nonzeros into equal tiles that is
//    computed once per matrix (keyed by CsrView::generation) and shared by every queue, with
//    the carries between tiles in the calling queue's scratch;
//  - stream: a warp per 32 rows, their nonzeros read as one coalesced run;
//  - vector: `lanes` threads per row.
#include <algorithm>
#include <cstdint>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "cuda_backend.hpp"
#include "kernels/cuda/launch.hpp"
#include "plan/spmv_policy.hpp"
#include "queue.hpp"

namespace tessera::cuda {

namespace {

// One matrix's merge-path partition: written once by the kernel queued on the queue that first
// needed it, read-only afterwards. `done` marks its completion, so a queue that uses it first
// waits for it on the device (cudaStreamWaitEvent), never on the host.
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

std::shared_ptr<Partition> make_partition(const CsrView& A, cudaStream_t stream) {
  auto p = std::make_shared<Partition>();
  p->tiles = static_cast<int>((A.rows + A.nnz + kMergeTile - 1) / kMergeTile);
  p->coords.ensure(static_cast<std::size_t>(p->tiles + 1) * sizeof(int2));
  TESSERA_CUDA_CHECK(launch_merge_partition(static_cast<int>(A.rows), static_cast<int>(A.nnz),
                                            static_cast<const int*>(A.row_ptr), p->tiles, p->coords.as<int2>(),
                                            stream));
  TESSERA_CUDA_CHECK(cudaEventCreateWithFlags(&p->done, cudaEventDisableTiming));
  TESSERA_CUDA_CHECK(cudaEventRecord(p->done, stream));
  return p;
}

}  // namespace

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
  const plan::SpmvChoice choice = plan::choose_spmv(A, tune_, false, kMergeTile);
  const auto* rp = static_cast<const int*>(A.row_ptr);
  const auto* ci = static_cast<const int*>(A.col_idx);
  const auto* v = static_cast<const T*>(A.values);
  const T* xp = dev_ptr<const T>(x);
  T* yp = dev_ptr<T>(y);
  const int rows = static_cast<int>(A.rows);
  const T a = static_cast<T>(alpha), b = static_cast<T>(beta);
  switch (choice.kernel) {
    case plan::SpmvKernel::merge: {
      SpmvState& st = SpmvState::of(queue_of(q));
      std::shared_ptr<Partition> part;
      if (A.generation == 0) {
        part = st.uncached = make_partition(A, stream);
      } else {
        std::lock_guard<std::mutex> lock(spmv_mutex_);
        if (!spmv_plans_) spmv_plans_ = std::make_shared<SpmvPlans>();
        SpmvPlans& plans = *spmv_plans_;
        if (auto it = plans.partitions.find(A.generation); it != plans.partitions.end()) {
          part = it->second;
        } else {
          // Queued here under the lock, so no other queue computes it twice.
          part = make_partition(A, stream);
          if (plans.order.size() >= SpmvPlans::kMaxPartitions) {
            plans.partitions.erase(plans.order.front());
            plans.order.erase(plans.order.begin());
          }
          plans.order.push_back(A.generation);
          plans.partitions[A.generation] = part;
        }
      }
      // Made on another queue: this stream starts after it is written (free once it has been).
      wait_for_event(stream, part->done);
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

}  // namespace tessera::cuda
