// Sparse triangular solve. Analysis: the device's own implementation of the level schedule
// (plan/level_schedule.hpp is the host one), all on the GPU so the matrix never crosses to the
// host: inverted diagonal, levels, rows bucketed by level, one host round trip (counted) for the
// diagonal check and the level count; a singular row is worded by plan::singular_row_error.
// Solve: one sync-free launch where the levels are wide, else one block that walks the levels
// with barriers (plan::solve_sync_free, sptrsv.syncfree; kernels/cuda/sptrsv.cu). The
// plan keeps the level order and the inverted diagonal, read-only, so any queue may solve with
// it; the per-row "solved in epoch e" words and the ticket a solve writes are the solving
// queue's (SptrsvState), and each solve bumps the queue's epoch instead of clearing them.
#include <algorithm>
#include <climits>
#include <cstring>
#include <string>
#include <vector>

#include "cuda_backend.hpp"
#include "kernels/cuda/launch.hpp"
#include "plan/level_schedule.hpp"
#include "queue.hpp"

namespace tessera::cuda {

namespace {

template <class T>
struct CudaSptrsvPlan final : SptrsvPlanData {
  SptrsvShape shape;
  bool warp_per_row = false;
  int levels = 0;
  DeviceBuffer order, inv_diag;
  // One block walks the levels (plan::solve_sync_free says no): each level's end position and
  // each position's row and entry range; `lanes` threads a row; x in shared memory where it fits.
  bool one_block = false;
  int lanes = 1, threads = 32;
  bool smem_x = false;
  DeviceBuffer level_end, info;
  // Recorded after the analysis's last kernel: a solve on another queue waits for it (on the device).
  cudaEvent_t done = nullptr;
  CudaSptrsvPlan() = default;
  CudaSptrsvPlan(const CudaSptrsvPlan&) = delete;
  CudaSptrsvPlan& operator=(const CudaSptrsvPlan&) = delete;
  ~CudaSptrsvPlan() override {
    if (done != nullptr) (void)cudaEventDestroy(done);
  }
};

template <class U>
U* ptr(const DeviceBuffer& b) {
  return static_cast<U*>(b.get());
}

constexpr int kNoRow = 0x7f7f7f7f;  // what a memset of 0x7f bytes leaves: larger than any row

// The diagonal kernel reports the first row whose diagonal is missing or sums to zero; on that
// (error) path only, the row's column indices come back to tell which, so the message is the
// host analysis's own.
std::string singular_row_message(Backend& b, const CsrView& A, int row, cudaStream_t stream) {
  int range[2] = {0, 0};
  TESSERA_CUDA_CHECK(cudaMemcpyAsync(range, static_cast<const int*>(A.row_ptr) + row, 2 * sizeof(int),
                                     cudaMemcpyDeviceToHost, stream));
  b.note_host_wait();
  TESSERA_CUDA_CHECK(cudaStreamSynchronize(stream));
  std::vector<int> cols(static_cast<std::size_t>(std::max(0, range[1] - range[0])));
  if (!cols.empty()) {
    TESSERA_CUDA_CHECK(cudaMemcpyAsync(cols.data(), static_cast<const int*>(A.col_idx) + range[0],
                                       cols.size() * sizeof(int), cudaMemcpyDeviceToHost, stream));
    b.note_host_wait();
    TESSERA_CUDA_CHECK(cudaStreamSynchronize(stream));
  }
  const bool has_entry = std::find(cols.begin(), cols.end(), row) != cols.end();
  return plan::singular_row_error(row, has_entry ? "a zero diagonal" : "no diagonal entry");
}

}  // namespace

// A queue's sptrsv scratch. Analysis: the level and bucket arrays (n ints each) and three ints
// (first singular row, level count, ticket), reused rather than freed after each analysis (a
// cudaFree would wait for the device). Solve: the per-row flags, per dtype (f32 rows publish
// value and epoch in one 8-byte word, f64 rows a 4-byte epoch), with the epoch of the queue's
// latest solve: flags left by earlier solves, of any plan, hold smaller epochs. And the ticket.
struct CudaBackend::SptrsvState {
  DeviceBuffer level, counts, misc;
  struct Flags {
    DeviceBuffer ready;
    int epoch = 0;  // the value ready[i] took in this queue's latest solve
  };
  Flags flags[2];  // f32, f64
  DeviceBuffer ticket;

  static SptrsvState& of(CudaQueue& q) {
    if (!q.state.sptrsv) q.state.sptrsv = std::make_shared<SptrsvState>();
    return *q.state.sptrsv;
  }
};

template <class T>
std::shared_ptr<SptrsvPlanData> CudaBackend::sptrsv_analyze(QueueImpl& q, Uplo uplo, Diag diag, const CsrView& A) {
  if (A.rows >= INT_MAX) throw NotImplemented("cuda: sptrsv with more than 2^31 - 2 rows is not supported");
  const cudaStream_t stream = stream_of(q);
  auto plan = std::make_shared<CudaSptrsvPlan<T>>();
  const int n = static_cast<int>(A.rows);
  plan->shape.n = n;
  plan->shape.lower = uplo == Uplo::lower;
  plan->shape.unit = diag == Diag::unit;
  if (n == 0) return plan;
  // Rows much longer than a warp: a warp per row.
  plan->warp_per_row = A.nnz / n > 32;
  const std::size_t ints = static_cast<std::size_t>(n) * sizeof(int);
  plan->order.ensure(ints);
  plan->inv_diag.ensure(static_cast<std::size_t>(n) * sizeof(T));

  SptrsvState& st = SptrsvState::of(queue_of(q));
  int* level = static_cast<int*>(st.level.ensure(ints));
  int* counts = static_cast<int*>(st.counts.ensure(ints));
  int* misc = static_cast<int*>(st.misc.ensure(3 * sizeof(int)));  // bad_row, max_level, ticket
  TESSERA_CUDA_CHECK(cudaMemsetAsync(level, 0, ints, stream));
  TESSERA_CUDA_CHECK(cudaMemsetAsync(counts, 0, ints, stream));
  TESSERA_CUDA_CHECK(cudaMemsetAsync(misc, 0x7f, sizeof(int), stream));
  TESSERA_CUDA_CHECK(cudaMemsetAsync(misc + 1, 0, 2 * sizeof(int), stream));

  const auto* rp = static_cast<const int*>(A.row_ptr);
  const auto* ci = static_cast<const int*>(A.col_idx);
  TESSERA_CUDA_CHECK(launch_sptrsv_diag<T>(plan->shape, rp, ci, static_cast<const T*>(A.values),
                                           ptr<T>(plan->inv_diag), misc, stream));
  TESSERA_CUDA_CHECK(launch_sptrsv_levels(plan->shape, rp, ci, level, counts, misc + 2, misc + 1,
                                          tune_.get("sptrsv.sleep_ns"), stream));
  int host[2] = {0, 0};
  TESSERA_CUDA_CHECK(cudaMemcpyAsync(host, misc, 2 * sizeof(int), cudaMemcpyDeviceToHost, stream));
  note_host_wait();  // the verdict and the level count are needed here
  TESSERA_CUDA_CHECK(cudaStreamSynchronize(stream));
  if (!plan->shape.unit && host[0] != kNoRow) throw InvalidArgument(singular_row_message(*this, A, host[0], stream));
  plan->levels = host[1];

  TESSERA_CUDA_CHECK(launch_exclusive_scan(counts, plan->levels, stream));
  TESSERA_CUDA_CHECK(launch_sptrsv_scatter(n, level, counts, ptr<int>(plan->order), stream));
  plan->one_block = !plan::solve_sync_free(n, plan->levels, tune_.get("sptrsv.syncfree"));
  if (plan->one_block) {  // the scatter left each level's end position in counts
    const std::size_t level_bytes = static_cast<std::size_t>(plan->levels) * sizeof(int);
    plan->level_end.ensure(level_bytes);
    TESSERA_CUDA_CHECK(cudaMemcpyAsync(plan->level_end.get(), counts, level_bytes, cudaMemcpyDeviceToDevice, stream));
    plan->info.ensure(static_cast<std::size_t>(n) * sizeof(int4));
    TESSERA_CUDA_CHECK(launch_sptrsv_block_info(n, ptr<int>(plan->order), rp, ptr<int4>(plan->info), stream));
    // Lanes enough for rows of twice the mean length in the entries each lane holds ahead (the
    // whole row is walked, not only the triangle; longer rows load the rest as they go). Groups
    // for twice the mean level: a block of idle warps still issues every level's instructions,
    // and a wider level takes further rounds.
    const std::int64_t per_lane = (2 * A.nnz / n + kSptrsvBlockEntries - 1) / kSptrsvBlockEntries;
    while (plan->lanes < 32 && plan->lanes < per_lane) plan->lanes *= 2;
    const std::int64_t groups = 2 * ((n + plan->levels - 1) / plan->levels);
    plan->threads = 32;
    while (plan->threads < kSptrsvBlockThreads && plan->threads < groups * plan->lanes) plan->threads *= 2;
    plan->smem_x = static_cast<std::size_t>(n) * sizeof(T) <= props_.sharedMemPerBlockOptin;
  }
  TESSERA_CUDA_CHECK(cudaEventCreateWithFlags(&plan->done, cudaEventDisableTiming));
  TESSERA_CUDA_CHECK(cudaEventRecord(plan->done, stream));
  return plan;
}

template <class T>
void CudaBackend::sptrsv_solve(QueueImpl& q, const SptrsvPlanData& data, const CsrView& A, const VecView& b,
                               const VecView& x) {
  const auto* plan = dynamic_cast<const CudaSptrsvPlan<T>*>(&data);
  if (plan == nullptr)
    throw InvalidArgument("sptrsv_solve: the plan was not made by the cuda backend for this data type");
  if (plan->shape.n == 0) return;
  const cudaStream_t stream = stream_of(q);
  if (plan->one_block) {
    wait_for_event(stream, plan->done);  // the analysis may have run on another queue
    TESSERA_CUDA_CHECK(launch_sptrsv_block_solve<T>(
        plan->shape, plan->levels, ptr<int>(plan->level_end), ptr<int4>(plan->info), static_cast<const int*>(A.col_idx),
        static_cast<const T*>(A.values), ptr<T>(plan->inv_diag), dev_ptr<const T>(b), dev_ptr<T>(x), plan->lanes,
        plan->threads, plan->smem_x, stream));
    return;
  }
  SptrsvState& st = SptrsvState::of(queue_of(q));
  SptrsvState::Flags& flags = st.flags[sizeof(T) == 8 ? 1 : 0];
  const std::size_t ready_bytes = static_cast<std::size_t>(plan->shape.n) * kSptrsvReadyBytes<T>;
  if (flags.ready.get() == nullptr || flags.ready.bytes() < ready_bytes || flags.epoch == INT_MAX) {
    // New (or regrown) flags, or epochs exhausted: start over from clear flags.
    flags.ready.ensure(ready_bytes);
    TESSERA_CUDA_CHECK(cudaMemsetAsync(flags.ready.get(), 0, flags.ready.bytes(), stream));
    flags.epoch = 0;
  }
  ++flags.epoch;
  int* ticket = static_cast<int*>(st.ticket.ensure(sizeof(int)));
  TESSERA_CUDA_CHECK(cudaMemsetAsync(ticket, 0, sizeof(int), stream));
  // The analysis may have run on another queue.
  wait_for_event(stream, plan->done);
  // At most sptrsv.blocks_per_sm blocks per SM: each asks for its share of the SM's shared
  // memory (less the 1 KB per block the hardware reserves), within the per-block opt-in limit.
  const std::size_t per_sm = props_.sharedMemPerMultiprocessor;
  const std::size_t share = per_sm / static_cast<std::size_t>(tune_.get("sptrsv.blocks_per_sm"));
  const std::size_t residency_smem =
      std::min<std::size_t>(share > 2048 ? share - 1024 - 256 : 0, props_.sharedMemPerBlockOptin);
  TESSERA_CUDA_CHECK(launch_sptrsv_solve<T>(
      plan->shape, plan->warp_per_row, ptr<int>(plan->order), static_cast<const int*>(A.row_ptr),
      static_cast<const int*>(A.col_idx), static_cast<const T*>(A.values), ptr<T>(plan->inv_diag),
      dev_ptr<const T>(b), dev_ptr<T>(x), flags.ready.get(), flags.epoch, ticket, residency_smem,
      tune_.get("sptrsv.sleep_ns"), stream));
}

TESSERA_INSTANTIATE_TYPED_OP(CudaBackend, sptrsv_analyze)
TESSERA_INSTANTIATE_TYPED_OP(CudaBackend, sptrsv_solve)

}  // namespace tessera::cuda
