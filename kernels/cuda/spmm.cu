// SpMM, Y = alpha A X + beta Y (CSR A, row-major X and Y): a group of W lanes per row (W = the
// power of two >= k, at most 32), the k columns across the lanes, so the group reads each stored
// entry's row of X as one coalesced run and the entry itself as a broadcast; for k > 32 each lane
// owns C = 2 columns 32 apart (two independent FMA chains), in passes of 64 columns. Small k
// packs 32 / W rows into a warp instead of idling lanes.
#include "kernels/cuda/common.cuh"

namespace tessera::cuda {

namespace {

template <class T, int W, int C>
__global__ void spmm_kernel(std::int64_t rows, std::int64_t k, const int* __restrict__ row_ptr,
                            const int* __restrict__ col_idx, const T* __restrict__ values, const T* __restrict__ X,
                            std::int64_t ldx, T alpha, T beta, bool read_y, T* __restrict__ Y, std::int64_t ldy) {
  const std::int64_t gid = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const std::int64_t row = gid / W;
  const int lane = static_cast<int>(gid % W);
  if (row >= rows) return;
  const int begin = row_ptr[row], end = row_ptr[row + 1];
  T* y = Y + row * ldy;
  for (std::int64_t j0 = 0; j0 < k; j0 += W * C) {
    T s[C];
#pragma unroll
    for (int c = 0; c < C; ++c) s[c] = T(0);
    for (int p = begin; p < end; ++p) {
      const T a = values[p];
      const T* x = X + static_cast<std::int64_t>(col_idx[p]) * ldx + j0 + lane;
#pragma unroll
      for (int c = 0; c < C; ++c)
        if (j0 + lane + c * W < k) s[c] = fma(a, x[c * W], s[c]);
    }
#pragma unroll
    for (int c = 0; c < C; ++c) {
      const std::int64_t j = j0 + lane + c * W;
      if (j >= k) continue;
      T r = alpha * s[c];
      if (read_y) r = fma(beta, y[j], r);
      y[j] = r;
    }
  }
}

template <class T, int W, int C>
cudaError_t launch(std::int64_t rows, std::int64_t k, const int* row_ptr, const int* col_idx, const T* values,
                   const T* X, std::int64_t ldx, T alpha, T beta, bool read_y, T* Y, std::int64_t ldy, int block,
                   cudaStream_t stream) {
  const std::int64_t blocks = (rows * W + block - 1) / block;
  if (blocks > 0x7fffffff) return cudaErrorInvalidConfiguration;
  spmm_kernel<T, W, C><<<static_cast<unsigned>(blocks), block, 0, stream>>>(rows, k, row_ptr, col_idx, values, X, ldx,
                                                                           alpha, beta, read_y, Y, ldy);
  return cudaGetLastError();
}

}  // namespace

template <class T>
cudaError_t launch_spmm(std::int64_t rows, std::int64_t k, const int* row_ptr, const int* col_idx, const T* values,
                        const T* X, std::int64_t ldx, T alpha, T beta, bool read_y, T* Y, std::int64_t ldy, int block,
                        cudaStream_t stream) {
  if (k <= 1) return launch<T, 1, 1>(rows, k, row_ptr, col_idx, values, X, ldx, alpha, beta, read_y, Y, ldy, block, stream);
  if (k <= 2) return launch<T, 2, 1>(rows, k, row_ptr, col_idx, values, X, ldx, alpha, beta, read_y, Y, ldy, block, stream);
  if (k <= 4) return launch<T, 4, 1>(rows, k, row_ptr, col_idx, values, X, ldx, alpha, beta, read_y, Y, ldy, block, stream);
  if (k <= 8) return launch<T, 8, 1>(rows, k, row_ptr, col_idx, values, X, ldx, alpha, beta, read_y, Y, ldy, block, stream);
  if (k <= 16)
    return launch<T, 16, 1>(rows, k, row_ptr, col_idx, values, X, ldx, alpha, beta, read_y, Y, ldy, block, stream);
  if (k <= 32)
    return launch<T, 32, 1>(rows, k, row_ptr, col_idx, values, X, ldx, alpha, beta, read_y, Y, ldy, block, stream);
  return launch<T, 32, 2>(rows, k, row_ptr, col_idx, values, X, ldx, alpha, beta, read_y, Y, ldy, block, stream);
}

template cudaError_t launch_spmm<float>(std::int64_t, std::int64_t, const int*, const int*, const float*, const float*,
                                        std::int64_t, float, float, bool, float*, std::int64_t, int, cudaStream_t);
template cudaError_t launch_spmm<double>(std::int64_t, std::int64_t, const int*, const int*, const double*,
                                         const double*, std::int64_t, double, double, bool, double*, std::int64_t, int,
                                         cudaStream_t);

}  // namespace tessera::cuda
