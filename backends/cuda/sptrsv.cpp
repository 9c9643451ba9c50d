// Sparse triangular solve. Analysis (all on the GPU, one host round trip for the diagonal
// check and the level count): inverted diagonal, levels, rows bucketed by level. The plan keeps
// the level order, the inverted diagonal and the per-row "solved in epoch e" words; each solve
// bumps the epoch instead of clearing them.
#include <algorithm>
#include <climits>
#include <cstring>
#include <string>

#include "cuda_backend.hpp"
#include "kernels/cuda/launch.hpp"

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

}  // namespace

template <class T>
std::shared_ptr<SptrsvPlanData> CudaBackend::sptrsv_analyze_t(Uplo uplo, Diag diag, const CsrView& A) {
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

  DeviceBuffer level(ints), counts(ints);
  int* misc = static_cast<int*>(small_.ensure(4 * sizeof(int)));  // bad_row, max_level, ticket
  TESSERA_CUDA_CHECK(cudaMemsetAsync(level.as<void>(), 0, ints, stream_));
  TESSERA_CUDA_CHECK(cudaMemsetAsync(counts.as<void>(), 0, ints, stream_));
  TESSERA_CUDA_CHECK(cudaMemsetAsync(misc, 0x7f, sizeof(int), stream_));
  TESSERA_CUDA_CHECK(cudaMemsetAsync(misc + 1, 0, 2 * sizeof(int), stream_));

  const auto* rp = static_cast<const int*>(A.row_ptr);
  const auto* ci = static_cast<const int*>(A.col_idx);
  TESSERA_CUDA_CHECK(launch_sptrsv_diag<T>(plan->shape, rp, ci, static_cast<const T*>(A.values),
                                           ptr<T>(plan->inv_diag), misc, stream_));
  TESSERA_CUDA_CHECK(launch_sptrsv_levels(plan->shape, rp, ci, level.as<int>(), counts.as<int>(), misc + 2,
                                          misc + 1, profile_.sptrsv_sleep_ns, stream_));
  int host[2] = {0, 0};
  TESSERA_CUDA_CHECK(cudaMemcpyAsync(host, misc, 2 * sizeof(int), cudaMemcpyDeviceToHost, stream_));
  TESSERA_CUDA_CHECK(cudaStreamSynchronize(stream_));
  if (!plan->shape.unit && host[0] != kNoRow)
    throw InvalidArgument("sptrsv_analyze: row " + std::to_string(host[0]) +
                          " has no diagonal entry or a zero one; with Diag::non_unit the triangular matrix is singular");
  plan->levels = host[1];

  TESSERA_CUDA_CHECK(launch_exclusive_scan(counts.as<int>(), plan->levels, stream_));
  TESSERA_CUDA_CHECK(launch_sptrsv_scatter(n, level.as<int>(), counts.as<int>(), ptr<int>(plan->order), stream_));
  // level and counts are freed on return (cudaFree waits for the scatter).
  return plan;
}

template <class T>
void CudaBackend::sptrsv_solve_t(const SptrsvPlanData& data, const CsrView& A, const VecView& b, const VecView& x) {
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
  // At most sptrsv_blocks_per_sm blocks per SM: each asks for its share of the SM's shared
  // memory (less the 1 KB per block the hardware reserves), within the per-block opt-in limit.
  const std::size_t per_sm = props_.sharedMemPerMultiprocessor;
  const std::size_t share = per_sm / static_cast<std::size_t>(std::max(1, profile_.sptrsv_blocks_per_sm));
  const std::size_t residency_smem =
      std::min<std::size_t>(share > 2048 ? share - 1024 - 256 : 0, props_.sharedMemPerBlockOptin);
  TESSERA_CUDA_CHECK(launch_sptrsv_solve<T>(
      plan->shape, plan->warp_per_row, ptr<int>(plan->order), static_cast<const int*>(A.row_ptr),
      static_cast<const int*>(A.col_idx), static_cast<const T*>(A.values), ptr<T>(plan->inv_diag),
      static_cast<const T*>(b.data), static_cast<T*>(x.data), ptr<void>(plan->ready), plan->epoch,
      ptr<int>(plan->ticket), residency_smem, profile_.sptrsv_sleep_ns, stream_));
}

std::shared_ptr<SptrsvPlanData> CudaBackend::sptrsv_analyze(DType t, Uplo uplo, Diag diag, const CsrView& A) {
  make_current();
  return t == DType::f32 ? sptrsv_analyze_t<float>(uplo, diag, A) : sptrsv_analyze_t<double>(uplo, diag, A);
}

void CudaBackend::sptrsv_solve(DType t, const SptrsvPlanData& plan, const CsrView& A, const VecView& b,
                               const VecView& x) {
  make_current();
  if (t == DType::f32) sptrsv_solve_t<float>(plan, A, b, x);
  else sptrsv_solve_t<double>(plan, A, b, x);
}

}  // namespace tessera::cuda
