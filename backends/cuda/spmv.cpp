// SpMV: the kernel and its parameters are chosen once per matrix (keyed by
// CsrView::generation) from row-length statistics computed on the GPU:
//  - max row / mean row > profile.spmv_skew_ratio (and max > 64): the merge-path kernel, with its
//    partition of rows + nonzeros into equal tiles computed once and kept in the plan;
//  - mean row <= profile.spmv_stream_mean: the stream kernel (a warp per 32 rows, their
//    nonzeros read as one coalesced run);
//  - otherwise the vector kernel with lanes per row = next power of two of the mean row length,
//    halved (each lane then does about two products), within 2..32.
#include <algorithm>
#include <climits>

#include "cuda_backend.hpp"
#include "kernels/cuda/launch.hpp"

namespace tessera::cuda {

namespace {

constexpr std::size_t kMaxPlans = 32;

int lanes_for(double mean) {
  int p = 1;
  while (p < mean && p < 64) p *= 2;
  return std::clamp(p / 2, 2, 32);
}

}  // namespace

const SpmvPlan& CudaBackend::spmv_plan(const CsrView& A, std::size_t value_size) {
  if (A.generation != 0)
    if (auto it = spmv_plans_.find(A.generation); it != spmv_plans_.end()) return *it->second;

  auto plan = std::make_unique<SpmvPlan>();
  const int rows = static_cast<int>(A.rows);
  int max_len = 0;
  int* d_max = static_cast<int*>(spmv_stats_.ensure(sizeof(int)));
  TESSERA_CUDA_CHECK(cudaMemsetAsync(d_max, 0, sizeof(int), stream_));
  TESSERA_CUDA_CHECK(launch_csr_max_row_length(static_cast<const int*>(A.row_ptr), rows, d_max, stream_));
  TESSERA_CUDA_CHECK(cudaMemcpyAsync(&max_len, d_max, sizeof(int), cudaMemcpyDeviceToHost, stream_));
  TESSERA_CUDA_CHECK(cudaStreamSynchronize(stream_));

  const double mean = static_cast<double>(A.nnz) / static_cast<double>(A.rows);
  const bool skewed = max_len > 64 && max_len > profile_.spmv_skew_ratio * mean;
  if (skewed && A.rows + A.nnz < INT_MAX - kMergeTile) {
    plan->merge = true;
    plan->tiles = static_cast<int>((A.rows + A.nnz + kMergeTile - 1) / kMergeTile);
    plan->coords.ensure(static_cast<std::size_t>(plan->tiles + 1) * sizeof(int2));
    plan->carry_rows.ensure(static_cast<std::size_t>(plan->tiles) * sizeof(int));
    plan->carry_vals.ensure(static_cast<std::size_t>(plan->tiles) * value_size);
    TESSERA_CUDA_CHECK(launch_merge_partition(rows, static_cast<int>(A.nnz), static_cast<const int*>(A.row_ptr),
                                              plan->tiles, plan->coords.as<int2>(), stream_));
  } else {
    plan->stream = mean <= profile_.spmv_stream_mean;
    plan->lanes = lanes_for(mean);
  }

  if (A.generation == 0) {  // no identity to cache under: keep it only for this call
    spmv_plans_[0] = std::move(plan);
    return *spmv_plans_[0];
  }
  if (spmv_plan_order_.size() >= kMaxPlans) {
    spmv_plans_.erase(spmv_plan_order_.front());
    spmv_plan_order_.erase(spmv_plan_order_.begin());
  }
  spmv_plan_order_.push_back(A.generation);
  return *(spmv_plans_[A.generation] = std::move(plan));
}

template <class T>
void CudaBackend::spmv_t(double alpha, const CsrView& A, const VecView& x, double beta, const VecView& y) {
  const SpmvPlan& plan = spmv_plan(A, sizeof(T));
  const auto* rp = static_cast<const int*>(A.row_ptr);
  const auto* ci = static_cast<const int*>(A.col_idx);
  const auto* v = static_cast<const T*>(A.values);
  const auto* xp = static_cast<const T*>(x.data);
  auto* yp = static_cast<T*>(y.data);
  const int rows = static_cast<int>(A.rows);
  if (plan.merge)
    TESSERA_CUDA_CHECK(launch_spmv_merge<T>(rows, static_cast<int>(A.nnz), rp, ci, v, xp, static_cast<T>(alpha),
                                            static_cast<T>(beta), yp, plan.tiles, plan.coords.as<int2>(),
                                            plan.carry_rows.as<int>(), plan.carry_vals.as<T>(), stream_));
  else if (plan.stream)
    TESSERA_CUDA_CHECK(launch_spmv_stream<T>(rows, rp, ci, v, xp, static_cast<T>(alpha), static_cast<T>(beta), yp,
                                             stream_));
  else
    TESSERA_CUDA_CHECK(launch_spmv_vector<T>(plan.lanes, rows, rp, ci, v, xp, static_cast<T>(alpha),
                                             static_cast<T>(beta), yp, stream_));
}

void CudaBackend::spmv(DType t, double alpha, const CsrView& A, const VecView& x, double beta, const VecView& y) {
  make_current();
  if (A.rows == 0) return;
  if (t == DType::f32) spmv_t<float>(alpha, A, x, beta, y);
  else spmv_t<double>(alpha, A, x, beta, y);
}

}  // namespace tessera::cuda
