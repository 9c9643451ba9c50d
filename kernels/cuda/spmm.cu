// SpMM, Y = alpha A X + beta Y (CSR A, row-major X and Y): a group of W lanes per row (W = the
// power of two >= k, at most 32), the k columns across the lanes, so the group reads each stored
// entry's row of X as one coalesced run and the entry itself as a broadcast; for k > 32 each lane
// owns C = 2 columns 32 apart (two independent FMA chains), in passes of 64 columns. Small k
// packs 32 / W rows into a warp instead of idling lanes.
//
// Rows longer than `long_row` (skewed, e.g. power-law, matrices): one group walking a row of
// thousands of entries would finish long after every other group (on a 2M-row power-law matrix
// with rows up to 20000, k = 8: 0.56x cuSPARSE, bench/RESULTS.md session 7). The row kernel
// skips them; a listing pass collects them and cuts each into chunks (launch.hpp), a block per
// chunk splits its entries over all of its groups (entry p to group p mod G) whose partial sums
// meet in shared memory in group order, and the block that finishes a row's last chunk adds the
// row's chunks in order: a row's result is computed in a fixed order. (One block a whole long
// row, session 15's form, left the 17 663-entry rows of vsp_model1 on one SM: 0.18-0.26x
// cuSPARSE there, session 34.) The listing depends on the structure only: the backend keeps it
// per matrix, so a call is two launches, the rows and the chunks (with the listing and a
// separate pass adding the chunks, five stream operations: vsp_model1 k = 8 took 0.061 ms
// against cuSPARSE's 0.044), or, for a matrix of at most spmm.one_launch_max_nnz entries, one:
// the chunks' blocks first, then the rows', so the long rows no longer wait for the short ones
// (vsp_model1 0.050 -> 0.033 ms; on power-law 2M rows 4 % slower, the fused kernel's registers
// thinning the rows' blocks).
#include <algorithm>
#include <climits>

#include "kernels/cuda/common.cuh"

namespace tessera::cuda {

namespace {

// s[c] = the sum over entries p = first, first + stride, ... < end of A's entry times X's
// column j0 + lane + c W (columns past k left 0). UNROLLED: the chunks' walks ask for four
// entries a step, so that four entries' loads of X are in flight; the rows' short walks keep the
// compiler's own choice (asked for four too, the real matrices' products took 6-14 % longer on an
// H200, and for none, longer still: session 34).
template <class T, int W, int C, bool UNROLLED = false>
__device__ __forceinline__ void entry_sums(int first, int end, int stride, std::int64_t k, std::int64_t j0, int lane,
                                           const int* __restrict__ col_idx, const T* __restrict__ values,
                                           const T* __restrict__ X, std::int64_t ldx, T (&s)[C]) {
#pragma unroll
  for (int c = 0; c < C; ++c) s[c] = T(0);
  const auto entry = [&](int p) {
    const T a = values[p];
    const T* x = X + static_cast<std::int64_t>(col_idx[p]) * ldx + j0 + lane;
#pragma unroll
    for (int c = 0; c < C; ++c)
      if (j0 + lane + c * W < k) s[c] = fma(a, x[c * W], s[c]);
  };
  if constexpr (UNROLLED) {
#pragma unroll 4
    for (int p = first; p < end; p += stride) entry(p);
  } else {
    for (int p = first; p < end; p += stride) entry(p);
  }
}

// y[j] = alpha t + beta y[j] (y not read unless read_y).
template <class T>
__device__ __forceinline__ void store_entry(T alpha, T t, T beta, bool read_y, T* y, std::int64_t j) {
  T r = alpha * t;
  if (read_y) r = fma(beta, y[j], r);
  y[j] = r;
}

// The rows of at most long_row entries, a group of W lanes each: the row kernel's block `block`.
template <class T, int W, int C>
__device__ __forceinline__ void row_groups(unsigned block, std::int64_t rows, std::int64_t k,
                                           const int* __restrict__ row_ptr, const int* __restrict__ col_idx,
                                           const T* __restrict__ values, const T* __restrict__ X, std::int64_t ldx,
                                           T alpha, T beta, bool read_y, T* __restrict__ Y, std::int64_t ldy,
                                           int long_row) {
  const std::int64_t gid = static_cast<std::int64_t>(block) * blockDim.x + threadIdx.x;
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

template <class T, int W, int C>
__global__ void spmm_kernel(std::int64_t rows, std::int64_t k, const int* __restrict__ row_ptr,
                            const int* __restrict__ col_idx, const T* __restrict__ values, const T* __restrict__ X,
                            std::int64_t ldx, T alpha, T beta, bool read_y, T* __restrict__ Y, std::int64_t ldy,
                            int long_row) {
  row_groups<T, W, C>(blockIdx.x, rows, k, row_ptr, col_idx, values, X, ldx, alpha, beta, read_y, Y, ldy, long_row);
}

// The rows longer than long_row, listed in any order, each with its run of chunks.
__global__ void spmm_list_long_kernel(std::int64_t rows, const int* __restrict__ row_ptr, int long_row, int chunk,
                                      int4* __restrict__ list, int2* __restrict__ chunks, int* __restrict__ counts) {
  const std::int64_t row = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (row >= rows) return;
  const int len = row_ptr[row + 1] - row_ptr[row];
  if (len <= long_row) return;
  const int n = (len + chunk - 1) / chunk;
  const int first = atomicAdd(counts + 1, n);
  const int at = atomicAdd(counts, 1);
  list[at] = make_int4(static_cast<int>(row), first, n, 0);
  for (int c = 0; c < n; ++c) chunks[first + c] = make_int2(at, c);
}

// A block per chunk (grid-stride over the chunks): G = blockDim / W groups take its entries in
// turn, group 0 adds their sums in group order into the chunk's row of `partial` (k columns of X
// from X's column 0, of Y from Y's: the caller offsets both by the pass). The block that
// finishes a row's last chunk (a ticket from the row's list entry, .w, which it sets back to 0)
// adds the row's chunks in chunk order and stores them.
// Block `block` of `blocks` (kSpmmLongThreads threads each) takes chunks block, block + blocks, ...
template <class T, int W, int C>
__device__ __forceinline__ void chunk_blocks(int block, int blocks, std::int64_t k, const int* __restrict__ row_ptr,
                                             const int* __restrict__ col_idx, const T* __restrict__ values,
                                             const T* __restrict__ X, std::int64_t ldx, int chunk,
                                             int4* __restrict__ list, const int2* __restrict__ chunks,
                                             const int* __restrict__ counts, T* __restrict__ partial, T alpha,
                                             T beta, bool read_y, T* __restrict__ Y, std::int64_t ldy) {
  constexpr int G = kSpmmLongThreads / W;
  __shared__ T part[G][W * C];
  __shared__ bool row_done;
  const int g = threadIdx.x / W, lane = threadIdx.x % W;
  const int n = counts[1];
  for (int t = block; t < n; t += blocks) {
    const int2 lc = chunks[t];
    const int4 r = list[lc.x];  // row, first chunk, chunks
    const int first = row_ptr[r.x] + lc.y * chunk, row_end = row_ptr[r.x + 1];
    const int end = row_end - first > chunk ? first + chunk : row_end;  // (first + chunk may overflow)
    for (std::int64_t j0 = 0; j0 < k; j0 += W * C) {
      T s[C];
      entry_sums<T, W, C, true>(first + g, end, G, k, j0, lane, col_idx, values, X, ldx, s);
#pragma unroll
      for (int c = 0; c < C; ++c) part[g][lane + c * W] = s[c];
      __syncthreads();
      if (g == 0) {
#pragma unroll
        for (int c = 0; c < C; ++c) {
          const std::int64_t j = j0 + lane + c * W;
          if (j >= k) continue;
          T sum = part[0][lane + c * W];
          for (int h = 1; h < G; ++h) sum += part[h][lane + c * W];
          partial[static_cast<std::int64_t>(t) * k + j] = sum;
        }
      }
      __syncthreads();  // part is read before the next pass or chunk overwrites it
    }
    __threadfence();  // this chunk's sums are visible device-wide before its ticket is taken
    __syncthreads();
    if (threadIdx.x == 0) row_done = atomicAdd(&list[lc.x].w, 1) == r.z - 1;
    __syncthreads();
    if (row_done) {
      T* y = Y + static_cast<std::int64_t>(r.x) * ldy;
      for (std::int64_t j = threadIdx.x; j < k; j += blockDim.x) {
        T sum = __ldcg(partial + static_cast<std::int64_t>(r.y) * k + j);  // through L2: other SMs wrote them
        for (int c = 1; c < r.z; ++c) sum += __ldcg(partial + static_cast<std::int64_t>(r.y + c) * k + j);
        store_entry(alpha, sum, beta, read_y, y, j);
      }
      if (threadIdx.x == 0) list[lc.x].w = 0;  // every chunk of the row has taken its ticket
    }
  }
}

template <class T, int W, int C>
__global__ __launch_bounds__(kSpmmLongThreads) void spmm_chunk_kernel(
    std::int64_t k, const int* __restrict__ row_ptr, const int* __restrict__ col_idx, const T* __restrict__ values,
    const T* __restrict__ X, std::int64_t ldx, int chunk, int4* __restrict__ list, const int2* __restrict__ chunks,
    const int* __restrict__ counts, T* __restrict__ partial, T alpha, T beta, bool read_y, T* __restrict__ Y,
    std::int64_t ldy) {
  chunk_blocks<T, W, C>(blockIdx.x, gridDim.x, k, row_ptr, col_idx, values, X, ldx, chunk, list, chunks, counts,
                        partial, alpha, beta, read_y, Y, ldy);
}

// One launch for both (spmm.one_launch_max_nnz, blocks of kSpmmLongThreads): the first chunk_grid blocks
// take the chunks' first pass of columns (started first: the long rows are the critical path),
// the rest the rows.
template <class T, int W, int C>
__global__ __launch_bounds__(kSpmmLongThreads) void spmm_rows_and_chunks_kernel(
    int chunk_grid, std::int64_t rows, std::int64_t k, std::int64_t pass_k, const int* __restrict__ row_ptr,
    const int* __restrict__ col_idx, const T* __restrict__ values, const T* __restrict__ X, std::int64_t ldx,
    T alpha, T beta, bool read_y, T* __restrict__ Y, std::int64_t ldy, int long_row, int chunk,
    int4* __restrict__ list, const int2* __restrict__ chunks, const int* __restrict__ counts, T* __restrict__ partial) {
  if (static_cast<int>(blockIdx.x) < chunk_grid)
    chunk_blocks<T, W, C>(blockIdx.x, chunk_grid, pass_k, row_ptr, col_idx, values, X, ldx, chunk, list, chunks,
                          counts, partial, alpha, beta, read_y, Y, ldy);
  else
    row_groups<T, W, C>(blockIdx.x - chunk_grid, rows, k, row_ptr, col_idx, values, X, ldx, alpha, beta, read_y, Y,
                        ldy, long_row);
}

template <class T, int W, int C>
cudaError_t launch(const SpmmArgs<T>& a, cudaStream_t stream) {
  const std::int64_t blocks = (a.rows * W + a.block - 1) / a.block;
  if (blocks > 0x7fffffff) return cudaErrorInvalidConfiguration;
  const int long_row = a.long_rows ? a.long_row : INT_MAX;
  if (a.long_rows && !a.long_listed) {
    if (cudaError_t e = cudaMemsetAsync(a.long_counts, 0, 2 * sizeof(int), stream); e != cudaSuccess) return e;
    spmm_list_long_kernel<<<blocks_for(a.rows, 256), 256, 0, stream>>>(a.rows, a.row_ptr, long_row, a.long_chunk,
                                                                      a.long_list, a.long_chunks, a.long_counts);
  }
  const unsigned lb = static_cast<unsigned>(std::max(a.long_blocks, 1));
  std::int64_t first_pass = 0;  // the chunk passes before it were run with the rows
  if (a.long_rows && a.one_launch && a.block == kSpmmLongThreads && blocks + lb <= 0x7fffffff) {
    spmm_rows_and_chunks_kernel<T, W, C><<<static_cast<unsigned>(blocks + lb), kSpmmLongThreads, 0, stream>>>(
        static_cast<int>(lb), a.rows, a.k, std::min<std::int64_t>(kSpmmLongPass, a.k), a.row_ptr, a.col_idx, a.values,
        a.X, a.ldx, a.alpha, a.beta, a.read_y, a.Y, a.ldy, long_row, a.long_chunk, a.long_list, a.long_chunks,
        a.long_counts, a.long_partial);
    first_pass = kSpmmLongPass;
  } else {
    spmm_kernel<T, W, C><<<static_cast<unsigned>(blocks), a.block, 0, stream>>>(
        a.rows, a.k, a.row_ptr, a.col_idx, a.values, a.X, a.ldx, a.alpha, a.beta, a.read_y, a.Y, a.ldy, long_row);
  }
  if (a.long_rows) {
    for (std::int64_t j0 = first_pass; j0 < a.k; j0 += kSpmmLongPass) {  // the partial sums hold a pass
      const std::int64_t kk = std::min<std::int64_t>(kSpmmLongPass, a.k - j0);
      spmm_chunk_kernel<T, W, C><<<lb, kSpmmLongThreads, 0, stream>>>(
          kk, a.row_ptr, a.col_idx, a.values, a.X + j0, a.ldx, a.long_chunk, a.long_list, a.long_chunks,
          a.long_counts, a.long_partial, a.alpha, a.beta, a.read_y, a.Y + j0, a.ldy);
    }
  }
  return cudaGetLastError();
}

}  // namespace

template <class T>
cudaError_t launch_spmm(const SpmmArgs<T>& a, cudaStream_t stream) {
  switch (spmm_lanes(a.k)) {  // the lanes a row's group has (launch.hpp), as the host sizes chunks by
    case 1: return launch<T, 1, 1>(a, stream);
    case 2: return launch<T, 2, 1>(a, stream);
    case 4: return launch<T, 4, 1>(a, stream);
    case 8: return launch<T, 8, 1>(a, stream);
    case 16: return launch<T, 16, 1>(a, stream);
    default: return a.k <= 32 ? launch<T, 32, 1>(a, stream) : launch<T, 32, 2>(a, stream);
  }
}

template cudaError_t launch_spmm<float>(const SpmmArgs<float>&, cudaStream_t);
template cudaError_t launch_spmm<double>(const SpmmArgs<double>&, cudaStream_t);

}  // namespace tessera::cuda
