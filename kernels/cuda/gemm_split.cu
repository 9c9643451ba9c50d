// The last pass of a split-k gemm (GemmProblem::splits): each output's parts, written by the gemm
// kernels to a workspace, summed in a fixed order (no atomics: the same bits every run) and
// combined with C as gemm's store_c does. Bound by memory: splits + 1 passes over the outputs (+ 1
// where beta != 0); a thread per output along a row, so every part's row and C's row are read
// and written as coalesced runs.
#include "kernels/cuda/common.cuh"

namespace tessera::cuda {

namespace {

constexpr int kSplitSumThreads = 256;
constexpr unsigned kSplitSumMaxRowBlocks = 65535;

template <class T>
__global__ __launch_bounds__(kSplitSumThreads) void gemm_split_sum_kernel(std::int64_t m, std::int64_t n,
                                                                          std::int64_t rows, int splits,
                                                                          const T* __restrict__ W, T alpha, T beta,
                                                                          T* __restrict__ C, std::int64_t ldc,
                                                                          std::int64_t stride_c) {
  const std::int64_t j = static_cast<std::int64_t>(blockIdx.x) * kSplitSumThreads + threadIdx.x;
  if (j >= n) return;
  const std::int64_t part = m * n;
  for (std::int64_t r = blockIdx.y; r < rows; r += gridDim.y) {  // r = b m + i over the batch
    const std::int64_t b = r / m, i = r - b * m;
    const T* w = W + b * splits * part + i * n + j;
    T sum = w[0];
    for (int p = 1; p < splits; ++p) sum += w[p * part];
    T* c = C + b * stride_c + i * ldc + j;
    *c = beta == T(0) ? alpha * sum : fma(beta, *c, alpha * sum);  // as store_c
  }
}

}  // namespace

template <class T>
cudaError_t launch_gemm_split_sum(std::int64_t m, std::int64_t n, std::int64_t batch, int splits, const T* W, T alpha,
                                  T beta, T* C, std::int64_t ldc, std::int64_t stride_c, cudaStream_t stream) {
  const std::int64_t rows = m * batch;
  if (rows == 0 || n == 0) return cudaSuccess;
  const std::int64_t cols = (n + kSplitSumThreads - 1) / kSplitSumThreads;
  if (cols > 0x7fffffff) return cudaErrorInvalidConfiguration;
  const dim3 grid(static_cast<unsigned>(cols),
                  static_cast<unsigned>(rows < kSplitSumMaxRowBlocks ? rows : kSplitSumMaxRowBlocks));
  gemm_split_sum_kernel<T><<<grid, kSplitSumThreads, 0, stream>>>(m, n, rows, splits, W, alpha, beta, C, ldc,
                                                                   stride_c);
  return cudaGetLastError();
}

template cudaError_t launch_gemm_split_sum<float>(std::int64_t, std::int64_t, std::int64_t, int, const float*, float,
                                                  float, float*, std::int64_t, std::int64_t, cudaStream_t);
template cudaError_t launch_gemm_split_sum<double>(std::int64_t, std::int64_t, std::int64_t, int, const double*,
                                                   double, double, double*, std::int64_t, std::int64_t, cudaStream_t);

}  // namespace tessera::cuda
