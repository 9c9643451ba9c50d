// SpMM, Y = alpha A X + beta Y (CSR A, row-major X and Y): a group of W lanes per row (W = the
// power of two >= k, at most 32), the k columns across the lanes, so the group reads each stored
// entry's row of X as one coalesced run and the entry itself as a broadcast; for k > 32 each lane
// owns C = 2 columns 32 apart (two independent FMA chains), in passes of 64 columns. Small k
// packs 32 / W rows into a warp instead of idling lanes.
//
// Rows longer than `long_row` (skewed, e.g. power-law, matrices): one group walking a row of
// thousands of entries would finish long after every other group (on a 2M-row power-law matrix
// with rows up to 20000, k = 8: 0.56x cuSPARSE, bench/RESULTS.md session 7). The row kernel
// skips them; a listing pass collects them, and a block per long row splits its entries over
// all of its groups (entry p to group p mod G), whose partial sums meet in shared memory in
// group order: each row's result is still computed by one block, in a fixed order.
#include <algorithm>
#include <climits>

#include "kernels/cuda/common.cuh"

namespace tessera::cuda {

namespace {

// s[c] = the sum over entries p = first, first + stride, ... < end of A's entry times X's
// column j0 + lane + c W (columns past k left 0).
template <class T, int W, int C>
__device__ __forceinline__ void entry_sums(int first, int end, int stride, std::int64_t k, std::int64_t j0, int lane,
                                           const int* __restrict__ col_idx, const T* __restrict__ values,
                                           const T* __restrict__ X, std::int64_t ldx, T (&s)[C]) {
#pragma unroll
  for (int c = 0; c < C; ++c) s[c] = T(0);
  for (int p = first; p < end; p += stride) {
    const T a = values[p];
    const T* x = X + static_cast<std::int64_t>(col_idx[p]) * ldx + j0 + lane;
#pragma unroll
    for (int c = 0; c < C; ++c)
      if (j0 + lane + c * W < k) s[c] = fma(a, x[c * W], s[c]);
  }
}

// y[j] = alpha t + beta y[j] (y not read unless read_y).
template <class T>
__device__ __forceinline__ void store_entry(T alpha, T t, T beta, bool read_y, T* y, std::int64_t j) {
  T r = alpha * t;
  if (read_y) r = fma(beta, y[j], r);
  y[j] = r;
}

template <class T, int W, int C>
__global__ void spmm_kernel(std::int64_t rows, std::int64_t k, const int* __restrict__ row_ptr,
                            const int* __restrict__ col_idx, const T* __restrict__ values, const T* __restrict__ X,
                            std::int64_t ldx, T alpha, T beta, bool read_y, T* __restrict__ Y, std::int64_t ldy,
                            int long_row) {
  const std::int64_t gid = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const std::int64_t row = gid / W;
  const int lane = static_cast<int>(gid % W);
  if (row >= rows) return;
  const int begin = row_ptr[row], end = row_ptr[row + 1];
  if (end - begin > long_row) return;  // spmm_long_kernel's
  T* y = Y + row * ldy;
  for (std::int64_t j0 = 0; j0 < k; j0 += W * C) {
    T s[C];
    entry_sums<T, W, C>(begin, end, 1, k, j0, lane, col_idx, values, X, ldx, s);
#pragma unroll
    for (int c = 0; c < C; ++c)
      if (j0 + lane + c * W < k) store_entry(alpha, s[c], beta, read_y, y, j0 + lane + c * W);
  }
}

// The rows longer than long_row, listed in any order (each is then computed by one block).
__global__ void spmm_list_long_kernel(std::int64_t rows, const int* __restrict__ row_ptr, int long_row,
                                      int* __restrict__ list, int* __restrict__ count) {
  const std::int64_t row = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (row < rows && row_ptr[row + 1] - row_ptr[row] > long_row) list[atomicAdd(count, 1)] = static_cast<int>(row);
}

// A block per listed row (grid-stride over the list): G = blockDim / W groups take the row's
// entries in turn, then group 0 adds the G partial sums in group order.
template <class T, int W, int C>
__global__ __launch_bounds__(kSpmmLongThreads) void spmm_long_kernel(
    std::int64_t k, const int* __restrict__ row_ptr, const int* __restrict__ col_idx, const T* __restrict__ values,
    const T* __restrict__ X, std::int64_t ldx, T alpha, T beta, bool read_y, T* __restrict__ Y, std::int64_t ldy,
    const int* __restrict__ list, const int* __restrict__ count) {
  constexpr int G = kSpmmLongThreads / W;
  __shared__ T part[G][W * C];
  const int g = threadIdx.x / W, lane = threadIdx.x % W;
  const int n = *count;
  for (int li = blockIdx.x; li < n; li += gridDim.x) {
    const std::int64_t row = list[li];
    const int begin = row_ptr[row], end = row_ptr[row + 1];
    T* y = Y + row * ldy;
    for (std::int64_t j0 = 0; j0 < k; j0 += W * C) {
      T s[C];
      entry_sums<T, W, C>(begin + g, end, G, k, j0, lane, col_idx, values, X, ldx, s);
#pragma unroll
      for (int c = 0; c < C; ++c) part[g][lane + c * W] = s[c];
      __syncthreads();
      if (g == 0) {
#pragma unroll
        for (int c = 0; c < C; ++c) {
          if (j0 + lane + c * W >= k) continue;
          T t = part[0][lane + c * W];
          for (int h = 1; h < G; ++h) t += part[h][lane + c * W];
          store_entry(alpha, t, beta, read_y, y, j0 + lane + c * W);
        }
      }
      __syncthreads();  // part is read before the next pass or row overwrites it
    }
  }
}

template <class T, int W, int C>
cudaError_t launch(const SpmmArgs<T>& a, cudaStream_t stream) {
  const std::int64_t blocks = (a.rows * W + a.block - 1) / a.block;
  if (blocks > 0x7fffffff) return cudaErrorInvalidConfiguration;
  const int long_row = a.long_list != nullptr ? a.long_row : INT_MAX;
  if (a.long_list != nullptr) {
    if (cudaError_t e = cudaMemsetAsync(a.long_count, 0, sizeof(int), stream); e != cudaSuccess) return e;
    spmm_list_long_kernel<<<blocks_for(a.rows, 256), 256, 0, stream>>>(a.rows, a.row_ptr, long_row, a.long_list,
                                                                      a.long_count);
  }
  spmm_kernel<T, W, C><<<static_cast<unsigned>(blocks), a.block, 0, stream>>>(
      a.rows, a.k, a.row_ptr, a.col_idx, a.values, a.X, a.ldx, a.alpha, a.beta, a.read_y, a.Y, a.ldy, long_row);
  if (a.long_list != nullptr)
    spmm_long_kernel<T, W, C><<<static_cast<unsigned>(std::max(a.long_blocks, 1)), kSpmmLongThreads, 0, stream>>>(
        a.k, a.row_ptr, a.col_idx, a.values, a.X, a.ldx, a.alpha, a.beta, a.read_y, a.Y, a.ldy, a.long_list,
        a.long_count);
  return cudaGetLastError();
}

}  // namespace

template <class T>
cudaError_t launch_spmm(const SpmmArgs<T>& a, cudaStream_t stream) {
  if (a.k <= 1) return launch<T, 1, 1>(a, stream);
  if (a.k <= 2) return launch<T, 2, 1>(a, stream);
  if (a.k <= 4) return launch<T, 4, 1>(a, stream);
  if (a.k <= 8) return launch<T, 8, 1>(a, stream);
  if (a.k <= 16) return launch<T, 16, 1>(a, stream);
  if (a.k <= 32) return launch<T, 32, 1>(a, stream);
  return launch<T, 32, 2>(a, stream);
}

template cudaError_t launch_spmm<float>(const SpmmArgs<float>&, cudaStream_t);
template cudaError_t launch_spmm<double>(const SpmmArgs<double>&, cudaStream_t);

}  // namespace tessera::cuda
