// Sparse triangular solve. Analysis: the device's own implementation of the level schedule
// (plan/level_schedule.hpp is the host one), all on the GPU so the matrix never crosses to the
// host: inverted diagonal, levels, rows bucketed by level, one host round trip for the diagonal
// check and the level count; a singular row is worded by plan::singular_row_error. The plan keeps
// the level order, the inverted diagonal and the per-row "solved in epoch e" words; each solve
// bumps the epoch instead of clearing them.
#include <algorithm>
#include <climits>
#include <cstring>
#include <string>
#include <vector>

#include "cuda_backend.hpp"
#include "kernels/cuda/launch.hpp"
#include "plan/level_schedule.hpp"

namespace tessera::cuda {

namespace {

template <class T>
struct CudaSptrsvPlan final : SptrsvPlanData {
  SptrsvShape shape;
  bool warp_per_row = false;
  int levels = 0;
  DeviceBuffer order, inv_diag, ready, ticket;
  mutable int epoch = 0;  // the value ready[i] takes in the current solve
};

template <class U>
U* ptr(const DeviceBuffer& b) {
  return static_cast<U*>(b.get());
}

constexpr int kNoRow = 0x7f7f7f7f;  // what a memset of 0x7f bytes leaves: larger than any row

// The diagonal kernel reports the first row whose diagonal is missing or sums to zero; on that
// (error) path only, the row's column indices come back to tell which, so the message is the
// host analysis's own.
std::string singular_row_message(const CsrView& A, int row, cudaStream_t stream) {
  int range[2] = {0, 0};
  TESSERA_CUDA_CHECK(cudaMemcpyAsync(range, static_cast<const int*>(A.row_ptr) + row, 2 * sizeof(int),
                                     cudaMemcpyDeviceToHost, stream));
  TESSERA_CUDA_CHECK(cudaStreamSynchronize(stream));
  std::vector<int> cols(static_cast<std::size_t>(std::max(0, range[1] - range[0])));
  if (!cols.empty()) {
    TESSERA_CUDA_CHECK(cudaMemcpyAsync(cols.data(), static_cast<const int*>(A.col_idx) + range[0],
                                       cols.size() * sizeof(int), cudaMemcpyDeviceToHost, stream));
    TESSERA_CUDA_CHECK(cudaStreamSynchronize(stream));
  }
  const bool has_entry = std::find(cols.begin(), cols.end(), row) != cols.end();
  return plan::singular_row_error(row, has_entry ? "a zero diagonal" : "no diagonal entry");
}

}  // namespace

template <class T>
std::shared_ptr<SptrsvPlanData> CudaBackend::sptrsv_analyze(Uplo uplo, Diag diag, const CsrView& A) {
  if (A.rows >= INT_MAX) throw NotImplemented("cuda: sptrsv with more than 2^31 - 2 rows is not supported");
  auto plan = std::make_shared<CudaSptrsvPlan<T>>();
  const int n = static_cast<int>(A.rows);
  plan->shape.n = n;
  plan->shape.lower = uplo == Uplo::lower;
  plan->shape.unit = diag == Diag::unit;
  if (n == 0) return plan;
  // Rows much longer than a warp: a warp per row.
  plan->warp_per_row = n > 0 && A.nnz / n > 32;
  const std::size_t ints = static_cast<std::size_t>(n) * sizeof(int);
  plan->order.ensure(ints);
  plan->inv_diag.ensure(static_cast<std::size_t>(n) * sizeof(T));
  const std::size_t ready_bytes = static_cast<std::size_t>(n) * kSptrsvReadyBytes<T>;
  plan->ready.ensure(ready_bytes);
  plan->ticket.ensure(sizeof(int));
  TESSERA_CUDA_CHECK(cudaMemsetAsync(ptr<void>(plan->ready), 0, ready_bytes, stream_));

  DeviceBuffer level(ints), counts(ints), misc_buffer(3 * sizeof(int));
  int* misc = misc_buffer.as<int>();  // bad_row, max_level, ticket
  TESSERA_CUDA_CHECK(cudaMemsetAsync(level.as<void>(), 0, ints, stream_));
  TESSERA_CUDA_CHECK(cudaMemsetAsync(counts.as<void>(), 0, ints, stream_));
  TESSERA_CUDA_CHECK(cudaMemsetAsync(misc, 0x7f, sizeof(int), stream_));
  TESSERA_CUDA_CHECK(cudaMemsetAsync(misc + 1, 0, 2 * sizeof(int), stream_));

  const auto* rp = static_cast<const int*>(A.row_ptr);
  const auto* ci = static_cast<const int*>(A.col_idx);
  TESSERA_CUDA_CHECK(launch_sptrsv_diag<T>(plan->shape, rp, ci, static_cast<const T*>(A.values),
                                           ptr<T>(plan->inv_diag), misc, stream_));
  TESSERA_CUDA_CHECK(launch_sptrsv_levels(plan->shape, rp, ci, level.as<int>(), counts.as<int>(), misc + 2,
                                          misc + 1, tune_.get("sptrsv.sleep_ns"), stream_));
  int host[2] = {0, 0};
  TESSERA_CUDA_CHECK(cudaMemcpyAsync(host, misc, 2 * sizeof(int), cudaMemcpyDeviceToHost, stream_));
  TESSERA_CUDA_CHECK(cudaStreamSynchronize(stream_));
  if (!plan->shape.unit && host[0] != kNoRow)
    throw InvalidArgument(singular_row_message(A, host[0], stream_));
  plan->levels = host[1];

  TESSERA_CUDA_CHECK(launch_exclusive_scan(counts.as<int>(), plan->levels, stream_));
  TESSERA_CUDA_CHECK(launch_sptrsv_scatter(n, level.as<int>(), counts.as<int>(), ptr<int>(plan->order), stream_));
  // level and counts are freed on return (cudaFree waits for the scatter).
  return plan;
}

template <class T>
void CudaBackend::sptrsv_solve(const SptrsvPlanData& data, const CsrView& A, const VecView& b, const VecView& x) {
  const auto* plan = dynamic_cast<const CudaSptrsvPlan<T>*>(&data);
  if (plan == nullptr)
    throw InvalidArgument("sptrsv_solve: the plan was not made by the cuda backend for this data type");
  if (plan->shape.n == 0) return;
  if (plan->epoch == INT_MAX) {  // flags wrap: start over from clear flags
    TESSERA_CUDA_CHECK(cudaMemsetAsync(ptr<void>(plan->ready), 0,
                                       static_cast<std::size_t>(plan->shape.n) * kSptrsvReadyBytes<T>, stream_));
    plan->epoch = 0;
  }
  ++plan->epoch;
  TESSERA_CUDA_CHECK(cudaMemsetAsync(ptr<void>(plan->ticket), 0, sizeof(int), stream_));
  // At most sptrsv.blocks_per_sm blocks per SM: each asks for its share of the SM's shared
  // memory (less the 1 KB per block the hardware reserves), within the per-block opt-in limit.
  const std::size_t per_sm = props_.sharedMemPerMultiprocessor;
  const std::size_t share = per_sm / static_cast<std::size_t>(tune_.get("sptrsv.blocks_per_sm"));
  const std::size_t residency_smem =
      std::min<std::size_t>(share > 2048 ? share - 1024 - 256 : 0, props_.sharedMemPerBlockOptin);
  TESSERA_CUDA_CHECK(launch_sptrsv_solve<T>(
      plan->shape, plan->warp_per_row, ptr<int>(plan->order), static_cast<const int*>(A.row_ptr),
      static_cast<const int*>(A.col_idx), static_cast<const T*>(A.values), ptr<T>(plan->inv_diag),
      static_cast<const T*>(b.data), static_cast<T*>(x.data), ptr<void>(plan->ready), plan->epoch,
      ptr<int>(plan->ticket), residency_smem, tune_.get("sptrsv.sleep_ns"), stream_));
}

TESSERA_INSTANTIATE_TYPED_OP(CudaBackend, sptrsv_analyze)
TESSERA_INSTANTIATE_TYPED_OP(CudaBackend, sptrsv_solve)

}  // namespace tessera::cuda
