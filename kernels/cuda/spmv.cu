// CSR SpMV, y = alpha A x + beta y. Bound: reading values, column indices and row pointers once,
// plus the gathers of x (mostly L2 hits). Four kernels:
//  - stream (short, even rows): a warp's 32 rows read as one contiguous run of nonzeros;
//  - vector: `lanes` threads per row (2..32, chosen on the host from the mean row length), so a
//    warp reads contiguous runs of several rows' nonzeros; a shuffle tree finishes each row
//    (a variant with two rows per lane group and two loads per lane in flight measured 3-5%
//    slower on the 3D Laplacian and random rows, H200, 2026-11-22);
//  - merge: the merge-path split (Merrill & Garland) of the row-end offsets and the nonzeros into
//    equal tiles of rows + nonzeros, so one huge row cannot stall a warp while others idle; the
//    tile's products are formed with coalesced loads into shared memory, each thread then walks
//    its share of the path, and rows cut by a thread or tile boundary are completed through
//    carries (in the block via shared memory, across blocks by a small fix-up pass);
//  - split (skewed matrices): the long rows' chunks of kSpmvChunk entries a warp each, then the
//    vector kernel's groups over the other rows, in one launch; the warp finishing a row's last
//    chunk adds the row's chunk sums (a fixed order, as every kernel here but merge's fix-up,
//    whose atomics add a long row's carries in any order).
#include <algorithm>
#include <climits>

#include "kernels/cuda/reduce.cuh"

namespace tessera::cuda {

namespace {

template <class T>
__device__ __forceinline__ T finish(T alpha, T sum, T beta, const T* y, std::int64_t row) {
  return beta == T(0) ? alpha * sum : alpha * sum + beta * y[row];  // beta == 0: y is not read
}

// Row `row`'s sum over its `L` lanes (whole groups of L lanes call it; groups never straddle a
// warp), valid in lane 0 of the group.
template <class T, int L>
__device__ __forceinline__ T vector_row_sum(std::int64_t row, const int* __restrict__ row_ptr,
                                            const int* __restrict__ col_idx, const T* __restrict__ values,
                                            const T* __restrict__ x) {
  const int lane = threadIdx.x % L;
  const unsigned mask = L == 32 ? kFullMask : ((1u << L) - 1u) << ((threadIdx.x % 32) / L * L);
  const int begin = row_ptr[row], end = row_ptr[row + 1];
  T sum = 0;
  for (int j = begin + lane; j < end; j += L) sum += values[j] * __ldg(x + col_idx[j]);
#pragma unroll
  for (int o = L / 2; o > 0; o >>= 1) sum += __shfl_xor_sync(mask, sum, o, L);
  return sum;
}

template <class T, int L>
__global__ __launch_bounds__(kSpmvThreads) void spmv_vector_kernel(int rows, const int* __restrict__ row_ptr,
                                                                   const int* __restrict__ col_idx,
                                                                   const T* __restrict__ values,
                                                                   const T* __restrict__ x, T alpha, T beta,
                                                                   T* __restrict__ y) {
  const std::int64_t row = (static_cast<std::int64_t>(blockIdx.x) * kSpmvThreads + threadIdx.x) / L;
  if (row >= rows) return;  // whole groups of L lanes leave together
  const T sum = vector_row_sum<T, L>(row, row_ptr, col_idx, values, x);
  if (threadIdx.x % L == 0) y[row] = finish(alpha, sum, beta, y, row);
}

// Stream kernel for short rows: a warp owns 32 consecutive rows; their nonzeros are one
// contiguous run, read with coalesced loads (all of a chunk's loads in flight before the
// gathers, 8 per lane, as the OpenCL kernel; no idle lanes however the row lengths fall) into
// products in shared memory (`s`, the warp's kSpmvStreamChunk slots), which each lane then sums
// for its own row (in row order). Row pointers are read once per row, coalesced. Every lane of
// the warp calls it; rows past the last sum to 0.
template <class T>
__device__ __forceinline__ T stream_row_sum(std::int64_t row, int rows, const int* __restrict__ row_ptr,
                                            const int* __restrict__ col_idx, const T* __restrict__ values,
                                            const T* __restrict__ x, T* s) {
  constexpr int UNROLL = kSpmvStreamChunk / 32;
  const int lane = threadIdx.x % 32;
  const int r = static_cast<int>(row < rows ? row : rows);
  const int my_begin = row_ptr[r];
  const int my_end = row < rows ? row_ptr[r + 1] : my_begin;
  const int warp_begin = __shfl_sync(kFullMask, my_begin, 0);
  const int warp_end = __shfl_sync(kFullMask, my_end, 31);
  T sum = 0;
  for (int base = warp_begin; base < warp_end; base += kSpmvStreamChunk) {
    const int chunk_end = min(base + kSpmvStreamChunk, warp_end);
    int c[UNROLL];
    T v[UNROLL];
#pragma unroll
    for (int u = 0; u < UNROLL; ++u) {
      const int j = base + lane + 32 * u;
      c[u] = j < chunk_end ? __ldcs(col_idx + j) : 0;
      v[u] = j < chunk_end ? __ldcs(values + j) : T(0);
    }
#pragma unroll
    for (int u = 0; u < UNROLL; ++u)
      if (base + lane + 32 * u < chunk_end) s[lane + 32 * u] = v[u] * __ldg(x + c[u]);
    __syncwarp();
    const int lo = max(my_begin, base), hi = min(my_end, chunk_end);
    for (int j = lo; j < hi; ++j) sum += s[j - base];
    __syncwarp();  // the chunk is read before the next one overwrites it
  }
  return sum;
}

template <class T>
__global__ __launch_bounds__(kSpmvThreads) void spmv_stream_kernel(int rows, const int* __restrict__ row_ptr,
                                                                   const int* __restrict__ col_idx,
                                                                   const T* __restrict__ values,
                                                                   const T* __restrict__ x, T alpha, T beta,
                                                                   T* __restrict__ y) {
  constexpr int WARPS = kSpmvThreads / 32;
  __shared__ T s_prod[WARPS][kSpmvStreamChunk];
  const int w = threadIdx.x / 32;
  const std::int64_t row = (static_cast<std::int64_t>(blockIdx.x) * WARPS + w) * 32 + threadIdx.x % 32;
  const T sum = stream_row_sum(row, rows, row_ptr, col_idx, values, x, s_prod[w]);
  if (row < rows) y[row] = finish(alpha, sum, beta, y, row);
}

// spmv_dot: the stream and vector kernels over groups of rows (grid-stride, at most the
// reduction scratch's blocks), then out = w . y over the rows written, in double, finished by
// the last block (reduce.cuh): CG's A p and p . Ap in one launch. w may be x or y (not restrict).
template <class T>
__global__ __launch_bounds__(kSpmvThreads) void spmv_stream_dot_kernel(
    int rows, const int* __restrict__ row_ptr, const int* __restrict__ col_idx, const T* __restrict__ values,
    const T* __restrict__ x, T alpha, T beta, T* y, const T* w, T* out, ReduceScratch rs) {
  constexpr int WARPS = kSpmvThreads / 32;
  __shared__ T s_prod[WARPS][kSpmvStreamChunk];
  const int wi = threadIdx.x / 32;
  const std::int64_t groups = (static_cast<std::int64_t>(rows) + kSpmvThreads - 1) / kSpmvThreads;
  double acc[1] = {0.0};
  for (std::int64_t g = blockIdx.x; g < groups; g += gridDim.x) {
    const std::int64_t row = (g * WARPS + wi) * 32 + threadIdx.x % 32;
    const T sum = stream_row_sum(row, rows, row_ptr, col_idx, values, x, s_prod[wi]);
    if (row < rows) {
      const T v = finish(alpha, sum, beta, y, row);
      y[row] = v;
      acc[0] = fma(static_cast<double>(w[row]), static_cast<double>(v), acc[0]);
    }
  }
  if (last_block_totals<RK::sum, kSpmvThreads, 1>(acc, rs.partials, rs.counter)) *out = static_cast<T>(acc[0]);
}

template <class T, int L>
__global__ __launch_bounds__(kSpmvThreads) void spmv_vector_dot_kernel(
    int rows, const int* __restrict__ row_ptr, const int* __restrict__ col_idx, const T* __restrict__ values,
    const T* __restrict__ x, T alpha, T beta, T* y, const T* w, T* out, ReduceScratch rs) {
  constexpr int ROWS = kSpmvThreads / L;
  const std::int64_t groups = (static_cast<std::int64_t>(rows) + ROWS - 1) / ROWS;
  double acc[1] = {0.0};
  for (std::int64_t g = blockIdx.x; g < groups; g += gridDim.x) {
    const std::int64_t row = g * ROWS + threadIdx.x / L;
    if (row >= rows) continue;  // whole groups of L lanes together
    const T sum = vector_row_sum<T, L>(row, row_ptr, col_idx, values, x);
    if (threadIdx.x % L == 0) {
      const T v = finish(alpha, sum, beta, y, row);
      y[row] = v;
      acc[0] = fma(static_cast<double>(w[row]), static_cast<double>(v), acc[0]);
    }
  }
  if (last_block_totals<RK::sum, kSpmvThreads, 1>(acc, rs.partials, rs.counter)) *out = static_cast<T>(acc[0]);
}

// Merge path over a = row_ptr + 1 (row ends, a_len rows) and b = 0, 1, ..., b_len - 1 (nonzero
// indices): the (row, nonzero) split where `diag` items have been consumed. A row end is consumed
// once every nonzero before it is: a[i] <= j.
__device__ __forceinline__ int2 merge_path_search(int diag, const int* a, int a_len, int b_len) {
  int lo = max(diag - b_len, 0), hi = min(diag, a_len);
  while (lo < hi) {
    const int mid = (lo + hi) >> 1;
    if (a[mid] <= diag - mid - 1) lo = mid + 1;
    else hi = mid;
  }
  return make_int2(lo, diag - lo);
}

__global__ void merge_partition_kernel(int rows, int nnz, const int* __restrict__ row_ptr, int tiles,
                                       int2* __restrict__ coords) {
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t > tiles) return;
  const std::int64_t total = static_cast<std::int64_t>(rows) + nnz;
  const int diag = static_cast<int>(min(static_cast<std::int64_t>(t) * kMergeTile, total));
  coords[t] = merge_path_search(diag, row_ptr + 1, rows, nnz);
}

template <class T>
__global__ __launch_bounds__(kMergeThreads) void spmv_merge_kernel(
    int rows, const int* __restrict__ row_ptr, const int* __restrict__ col_idx, const T* __restrict__ values,
    const T* __restrict__ x, T alpha, T beta, T* __restrict__ y, const int2* __restrict__ coords,
    int* __restrict__ carry_rows, T* __restrict__ carry_vals) {
  constexpr int THREADS = kMergeThreads, ITEMS = kMergeItemsPerThread, TILE = kMergeTile;
  __shared__ int s_row_end[TILE + 1];  // ends of the tile's rows, relative to its first nonzero
  __shared__ T s_prod[TILE];           // values[j] * x[col[j]] for the tile's nonzeros

  const int2 c0 = coords[blockIdx.x], c1 = coords[blockIdx.x + 1];
  const int r0 = c0.x, z0 = c0.y;
  const int tile_rows = c1.x - r0, tile_nnz = c1.y - z0;
  const int tid = threadIdx.x;

  // Row ends of rows r0 .. r0 + tile_rows; the last may be the row left open at the tile's end
  // (never completed here: its end lies past the tile), or past the matrix.
  for (int i = tid; i <= tile_rows; i += THREADS)
    s_row_end[i] = r0 + i < rows ? row_ptr[r0 + i + 1] - z0 : INT_MAX;
  // The tile's products: all of a thread's column indices and values first (streamed past L2,
  // whose room is x's), then its gathers, so that PER loads of each kind are in flight at once
  // (a loop that waited for each index before its gather took 0.278-0.284 ms on power-law 2M
  // f32 against 0.261-0.263 now, H200, bench/RESULTS.md session 37).
  constexpr int PER = TILE / THREADS;
  int col[PER];
  T val[PER];
#pragma unroll
  for (int u = 0; u < PER; ++u) {
    const int j = tid + u * THREADS;
    col[u] = j < tile_nnz ? __ldcs(col_idx + z0 + j) : 0;
    val[u] = j < tile_nnz ? __ldcs(values + z0 + j) : T(0);
  }
#pragma unroll
  for (int u = 0; u < PER; ++u)
    if (tid + u * THREADS < tile_nnz) s_prod[tid + u * THREADS] = val[u] * __ldg(x + col[u]);
  __syncthreads();

  const int tile_items = tile_rows + tile_nnz;
  const int d = min(tid * ITEMS, tile_items);
  int2 c = merge_path_search(d, s_row_end, tile_rows, tile_nnz);
  int i = c.x, j = c.y;
  T sum = 0;
  bool first_done = false;
  int first_row = 0;
  T first_sum = 0;
#pragma unroll
  for (int k = 0; k < ITEMS; ++k) {
    if (d + k >= tile_items) break;
    if (j < s_row_end[i]) {
      sum += s_prod[j];
      ++j;
    } else {
      if (!first_done) {  // may have begun in an earlier thread: finished after the carries are known
        first_done = true;
        first_row = i;
        first_sum = sum;
      } else {
        y[r0 + i] = finish(alpha, sum, beta, y, r0 + i);
      }
      sum = 0;
      ++i;
    }
  }
  // The threads' open rows (the row still open at each thread's end, and its partial sum) are
  // non-decreasing in tid: a segmented inclusive scan by row gives each thread the sum of its
  // open row over itself and the earlier threads of this block. Within a warp by shuffles, then
  // across warps through each warp's last lane (rows spanning whole warps: at most 7 steps).
  // (A thread walking back over its predecessors one by one cost a dependent chain of up to 255
  // shared-memory loads on power-law rows.)
  __shared__ int s_warp_row[THREADS / 32];
  __shared__ T s_warp_scan[THREADS / 32];
  const int lane = tid & 31, warp = tid >> 5;
  const int open = i;
  T scan = sum;
#pragma unroll
  for (int off = 1; off < 32; off <<= 1) {
    const T v = __shfl_up_sync(kFullMask, scan, off);
    const int r = __shfl_up_sync(kFullMask, open, off);
    if (lane >= off && r == open) scan += v;
  }
  const T prev_scan = __shfl_up_sync(kFullMask, scan, 1);  // lane - 1's, within the warp
  const int prev_open = __shfl_up_sync(kFullMask, open, 1);
  const int lane0_open = __shfl_sync(kFullMask, open, 0);
  if (lane == 31) {
    s_warp_row[warp] = open;
    s_warp_scan[warp] = scan;
  }
  __syncthreads();
  // The part of `row` held by the warps before this one (it began there and fills them to their ends).
  auto earlier_warps = [&](int row) {
    T c = 0;
    for (int w = warp - 1; w >= 0 && s_warp_row[w] == row; --w) c += s_warp_scan[w];
    return c;
  };

  if (first_done) {
    // Earlier threads of this block that ended inside first_row hold its beginning (thread
    // tid - 1's open row is first_row whenever it holds any of it); earlier blocks' parts
    // arrive through the fix-up pass.
    T carry = 0;
    if (lane == 0) carry = earlier_warps(first_row);
    else if (prev_open == first_row) carry = prev_scan + (lane0_open == first_row ? earlier_warps(first_row) : T(0));
    y[r0 + first_row] = finish(alpha, carry + first_sum, beta, y, r0 + first_row);
  }
  if (tid == THREADS - 1) {
    carry_rows[blockIdx.x] = r0 + open;
    carry_vals[blockIdx.x] = scan + (lane0_open == open ? earlier_warps(open) : T(0));
  }
}

// A separate pass: folded into the merge kernel's last block to finish (a ticket counter, as the
// reductions) it was no faster on small matrices (vsp_model1, dblp-2010: the second launch is
// queued while the first runs) and 27 % slower on power-law 2M rows (0.353 against 0.279 ms,
// H200, session 35: one block adding 18 K tiles' carries).
template <class T>
__global__ void merge_fixup_kernel(int rows, int tiles, const int* __restrict__ carry_rows,
                                   const T* __restrict__ carry_vals, T alpha, T* __restrict__ y) {
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= tiles) return;
  const int row = carry_rows[t];
  const T v = carry_vals[t];
  // Rows spanning several tiles get several carries: atomics (only those rows are affected).
  if (row < rows && v != T(0)) atomicAdd(y + row, alpha * v);
}

// Split: a long row's chunk per warp (kSpmvChunk entries, its lanes' loads in flight together,
// then a butterfly sum), eight chunks a block; or the vector kernel's rows.
template <class T, int L>
__global__ __launch_bounds__(kSpmvThreads) void spmv_split_kernel(
    int rows, const int* __restrict__ row_ptr, const int* __restrict__ col_idx, const T* __restrict__ values,
    const T* __restrict__ x, T alpha, T beta, T* __restrict__ y, int long_row, int chunk_count, int chunk_blocks,
    const int4* __restrict__ chunks, T* __restrict__ partial, int* __restrict__ tickets) {
  if (static_cast<int>(blockIdx.x) < chunk_blocks) {
    const int t = blockIdx.x * (kSpmvThreads / 32) + static_cast<int>(threadIdx.x) / 32;
    if (t >= chunk_count) return;  // whole warps
    const int lane = threadIdx.x % 32;
    const int4 e = chunks[t];  // row, chunk in the row, the row's chunks, long-row index
    const int row_end = row_ptr[e.x + 1];
    const int first = row_ptr[e.x] + e.y * kSpmvChunk;
    const int end = row_end - first > kSpmvChunk ? first + kSpmvChunk : row_end;
    T sum = 0;
#pragma unroll
    for (int u = 0; u < kSpmvChunk / 32; ++u) {
      const int j = first + lane + 32 * u;
      if (j < end) sum += values[j] * __ldg(x + col_idx[j]);
    }
    sum = warp_sum(sum);
    if (e.z == 1) {
      if (lane == 0) y[e.x] = finish(alpha, sum, beta, y, e.x);
      return;
    }
    int last = 0;
    if (lane == 0) {
      partial[t] = sum;
      __threadfence();  // visible device-wide before the ticket is taken
      last = atomicAdd(tickets + e.w, 1) == e.z - 1;
    }
    if (!__shfl_sync(kFullMask, last, 0)) return;
    // The row's last chunk to finish: its chunks' sums, lane l taking l, l + 32, ... (through
    // L2: other SMs wrote them), then the butterfly: the same order whichever warp comes last.
    const int t0 = t - e.y;
    T row_sum = 0;
    for (int c = lane; c < e.z; c += 32) row_sum += __ldcg(partial + t0 + c);
    row_sum = warp_sum(row_sum);
    if (lane == 0) {
      y[e.x] = finish(alpha, row_sum, beta, y, e.x);
      tickets[e.w] = 0;  // every chunk of the row has taken its ticket
    }
    return;
  }
  const std::int64_t row = (static_cast<std::int64_t>(blockIdx.x - chunk_blocks) * kSpmvThreads + threadIdx.x) / L;
  if (row >= rows || row_ptr[row + 1] - row_ptr[row] > long_row) return;  // whole groups of L lanes together
  const T sum = vector_row_sum<T, L>(row, row_ptr, col_idx, values, x);
  if (threadIdx.x % L == 0) y[row] = finish(alpha, sum, beta, y, row);
}

// SELL-C-sigma: a thread per slot; lanes of a slice read their step j side by side, every lane
// to the slice's width (slice_ptr's difference / c: no per-row length is read, the bytes of a
// CSR row offset saved). Padding holds column -1 and value 0, and its gather is predicated off,
// so it costs its streamed bytes but no L2 sector of x, and an infinite or NaN x never meets it.
// Steps go S at a time, their column and value loads all issued before the first gather (steps
// past the width predicated off, no serial tail): one step at a time, a thread waits twice per
// step (the column, then x) and too few bytes are in flight to keep DRAM busy.
template <class T, int S>
__global__ __launch_bounds__(kSpmvThreads) void spmv_sell_kernel(int rows, int log2c, const int* __restrict__ slice_ptr,
                                                                 const int* __restrict__ perm,
                                                                 const int* __restrict__ col,
                                                                 const T* __restrict__ val, const T* __restrict__ x,
                                                                 T alpha, T beta, T* __restrict__ y) {
  // 32-bit index arithmetic, slices by shifts (C is a power of two): a 64-bit division per
  // thread costs more than a Laplacian row's whole loop.
  const std::int64_t gslot = static_cast<std::int64_t>(blockIdx.x) * kSpmvThreads + threadIdx.x;
  if (gslot >= rows) return;
  const int slot = static_cast<int>(gslot);
  const int s = slot >> log2c;
  const int first = slice_ptr[s];
  const int width = (slice_ptr[s + 1] - first) >> log2c;
  const int c = 1 << log2c;
  int k = first + (slot & (c - 1));
  T sum = 0;
  for (int j = 0; j < width; j += S, k += S * c) {
    int cc[S];
    T v[S];
#pragma unroll
    for (int u = 0; u < S; ++u) {
      const bool in = j + u < width;
      cc[u] = in ? __ldcs(col + k + u * c) : -1;
      v[u] = in ? __ldcs(val + k + u * c) : T(0);
    }
    // v * 0 where the gather is off: the value load never waits for the column's.
#pragma unroll
    for (int u = 0; u < S; ++u) sum += v[u] * (cc[u] >= 0 ? __ldg(x + cc[u]) : T(0));
  }
  const int r = perm != nullptr ? perm[slot] : slot;
  y[r] = finish(alpha, sum, beta, y, r);
}

// A thread per slot of every slice (the last slice's slots past the rows included): the row's
// entries, then padding (column -1, value 0) to the slice's width.
template <class T>
__global__ void sell_fill_kernel(int rows, std::int64_t slots, int c, const int* __restrict__ slice_ptr,
                                 const int* __restrict__ perm, const int* __restrict__ row_ptr,
                                 const int* __restrict__ col_idx, const T* __restrict__ values, int* __restrict__ col,
                                 T* __restrict__ val, bool with_cols) {
  const std::int64_t slot = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (slot >= slots) return;
  const int s = static_cast<int>(slot / c);
  const int width = (slice_ptr[s + 1] - slice_ptr[s]) / c;
  int src = 0, len = 0;
  if (slot < rows) {
    const std::int64_t r = perm != nullptr ? perm[slot] : slot;
    src = row_ptr[r];
    len = row_ptr[r + 1] - src;
  }
  int k = slice_ptr[s] + static_cast<int>(slot - static_cast<std::int64_t>(s) * c);
  for (int j = 0; j < width; ++j, k += c) {
    val[k] = j < len ? values[src + j] : T(0);
    if (with_cols) col[k] = j < len ? col_idx[src + j] : -1;
  }
}

}  // namespace

template <class T>
cudaError_t launch_spmv_sell(int rows, int c, int steps, const int* slice_ptr, const int* perm, const int* col,
                             const T* val, const T* x, T alpha, T beta, T* y, cudaStream_t stream) {
  if (c <= 0 || (c & (c - 1)) != 0) return cudaErrorInvalidValue;  // spmv.sell_c is a power of two
  const int log2c = __builtin_ctz(static_cast<unsigned>(c));
  const auto launch = [&](auto kernel) {
    kernel<<<blocks_for(rows, kSpmvThreads), kSpmvThreads, 0, stream>>>(rows, log2c, slice_ptr, perm, col, val, x,
                                                                         alpha, beta, y);
  };
  switch (steps) {  // spmv.sell_steps: 1, 2, 4 or 8
    case 1: launch(spmv_sell_kernel<T, 1>); break;
    case 2: launch(spmv_sell_kernel<T, 2>); break;
    case 4: launch(spmv_sell_kernel<T, 4>); break;
    case 8: launch(spmv_sell_kernel<T, 8>); break;
    default: return cudaErrorInvalidValue;
  }
  return cudaGetLastError();
}

template <class T>
cudaError_t launch_sell_fill(int rows, int c, const int* slice_ptr, const int* perm, const int* row_ptr,
                             const int* col_idx, const T* values, int* col, T* val, bool with_cols,
                             cudaStream_t stream) {
  const std::int64_t slots = (static_cast<std::int64_t>(rows) + c - 1) / c * c;
  sell_fill_kernel<T><<<blocks_for(slots, 256), 256, 0, stream>>>(rows, slots, c, slice_ptr, perm, row_ptr, col_idx,
                                                                  values, col, val, with_cols);
  return cudaGetLastError();
}

template <class T>
cudaError_t launch_spmv_vector(int lanes, int rows, const int* row_ptr, const int* col_idx, const T* values,
                               const T* x, T alpha, T beta, T* y, cudaStream_t stream) {
  const unsigned int grid = blocks_for(static_cast<std::int64_t>(rows) * lanes, kSpmvThreads);
  switch (lanes) {
    case 2: spmv_vector_kernel<T, 2><<<grid, kSpmvThreads, 0, stream>>>(rows, row_ptr, col_idx, values, x, alpha, beta, y); break;
    case 4: spmv_vector_kernel<T, 4><<<grid, kSpmvThreads, 0, stream>>>(rows, row_ptr, col_idx, values, x, alpha, beta, y); break;
    case 8: spmv_vector_kernel<T, 8><<<grid, kSpmvThreads, 0, stream>>>(rows, row_ptr, col_idx, values, x, alpha, beta, y); break;
    case 16: spmv_vector_kernel<T, 16><<<grid, kSpmvThreads, 0, stream>>>(rows, row_ptr, col_idx, values, x, alpha, beta, y); break;
    case 32: spmv_vector_kernel<T, 32><<<grid, kSpmvThreads, 0, stream>>>(rows, row_ptr, col_idx, values, x, alpha, beta, y); break;
    default: return cudaErrorInvalidValue;
  }
  return cudaGetLastError();
}

template <class T>
cudaError_t launch_spmv_stream(int rows, const int* row_ptr, const int* col_idx, const T* values, const T* x,
                               T alpha, T beta, T* y, cudaStream_t stream) {
  spmv_stream_kernel<T><<<blocks_for(rows, kSpmvThreads), kSpmvThreads, 0, stream>>>(rows, row_ptr, col_idx, values,
                                                                                     x, alpha, beta, y);
  return cudaGetLastError();
}

template <class T>
cudaError_t launch_spmv_dot(int lanes, int rows, const int* row_ptr, const int* col_idx, const T* values, const T* x,
                            T alpha, T beta, T* y, const T* w, T* out, int max_blocks, const ReduceScratch& s,
                            cudaStream_t stream) {
  const int rows_per_block = lanes == 0 ? kSpmvThreads : kSpmvThreads / lanes;
  const int grid = static_cast<int>(
      std::min<std::int64_t>(std::max<std::int64_t>(blocks_for(rows, rows_per_block), 1), max_blocks));
  switch (lanes) {
    case 0: spmv_stream_dot_kernel<T><<<grid, kSpmvThreads, 0, stream>>>(rows, row_ptr, col_idx, values, x, alpha, beta, y, w, out, s); break;
    case 2: spmv_vector_dot_kernel<T, 2><<<grid, kSpmvThreads, 0, stream>>>(rows, row_ptr, col_idx, values, x, alpha, beta, y, w, out, s); break;
    case 4: spmv_vector_dot_kernel<T, 4><<<grid, kSpmvThreads, 0, stream>>>(rows, row_ptr, col_idx, values, x, alpha, beta, y, w, out, s); break;
    case 8: spmv_vector_dot_kernel<T, 8><<<grid, kSpmvThreads, 0, stream>>>(rows, row_ptr, col_idx, values, x, alpha, beta, y, w, out, s); break;
    case 16: spmv_vector_dot_kernel<T, 16><<<grid, kSpmvThreads, 0, stream>>>(rows, row_ptr, col_idx, values, x, alpha, beta, y, w, out, s); break;
    case 32: spmv_vector_dot_kernel<T, 32><<<grid, kSpmvThreads, 0, stream>>>(rows, row_ptr, col_idx, values, x, alpha, beta, y, w, out, s); break;
    default: return cudaErrorInvalidValue;
  }
  return cudaGetLastError();
}

template <class T>
cudaError_t launch_spmv_split(int lanes, int rows, const int* row_ptr, const int* col_idx, const T* values,
                              const T* x, T alpha, T beta, T* y, int long_row, int chunk_count, const int* chunks,
                              T* partial, int* tickets, cudaStream_t stream) {
  const int chunk_blocks = static_cast<int>(blocks_for(chunk_count, kSpmvThreads / 32));
  const std::int64_t grid =
      chunk_blocks + static_cast<std::int64_t>(blocks_for(static_cast<std::int64_t>(rows) * lanes, kSpmvThreads));
  if (grid > INT_MAX) return cudaErrorInvalidConfiguration;
  const auto* c = reinterpret_cast<const int4*>(chunks);
#define TESSERA_SPLIT(L)                                                                                         \
  spmv_split_kernel<T, L><<<static_cast<unsigned>(grid), kSpmvThreads, 0, stream>>>(                             \
      rows, row_ptr, col_idx, values, x, alpha, beta, y, long_row, chunk_count, chunk_blocks, c, partial, tickets)
  switch (lanes) {
    case 2: TESSERA_SPLIT(2); break;
    case 4: TESSERA_SPLIT(4); break;
    case 8: TESSERA_SPLIT(8); break;
    case 16: TESSERA_SPLIT(16); break;
    case 32: TESSERA_SPLIT(32); break;
    default: return cudaErrorInvalidValue;
  }
#undef TESSERA_SPLIT
  return cudaGetLastError();
}

cudaError_t launch_merge_partition(int rows, int nnz, const int* row_ptr, int tiles, int2* coords,
                                   cudaStream_t stream) {
  merge_partition_kernel<<<blocks_for(tiles + 1, 256), 256, 0, stream>>>(rows, nnz, row_ptr, tiles, coords);
  return cudaGetLastError();
}

template <class T>
cudaError_t launch_spmv_merge(int rows, int /*nnz*/, const int* row_ptr, const int* col_idx, const T* values,
                              const T* x, T alpha, T beta, T* y, int tiles, const int2* coords, int* carry_rows,
                              T* carry_vals, cudaStream_t stream) {
  spmv_merge_kernel<T><<<tiles, kMergeThreads, 0, stream>>>(rows, row_ptr, col_idx, values, x, alpha, beta, y,
                                                            coords, carry_rows, carry_vals);
  if (cudaError_t e = cudaGetLastError(); e != cudaSuccess) return e;
  merge_fixup_kernel<T><<<blocks_for(tiles, 256), 256, 0, stream>>>(rows, tiles, carry_rows, carry_vals, alpha, y);
  return cudaGetLastError();
}

#define TESSERA_SPMV_INSTANTIATE(T)                                                                         \
  template cudaError_t launch_spmv_vector<T>(int, int, const int*, const int*, const T*, const T*, T, T, T*, \
                                             cudaStream_t);                                                 \
  template cudaError_t launch_spmv_stream<T>(int, const int*, const int*, const T*, const T*, T, T, T*,      \
                                             cudaStream_t);                                                 \
  template cudaError_t launch_spmv_dot<T>(int, int, const int*, const int*, const T*, const T*, T, T, T*,     \
                                          const T*, T*, int, const ReduceScratch&, cudaStream_t);          \
  template cudaError_t launch_spmv_merge<T>(int, int, const int*, const int*, const T*, const T*, T, T, T*, \
                                            int, const int2*, int*, T*, cudaStream_t);                  \
  template cudaError_t launch_spmv_split<T>(int, int, const int*, const int*, const T*, const T*, T, T, T*, int,  \
                                            int, const int*, T*, int*, cudaStream_t);                         \
  template cudaError_t launch_spmv_sell<T>(int, int, int, const int*, const int*, const int*, const T*, const T*, \
                                           T, T, T*, cudaStream_t);                                           \
  template cudaError_t launch_sell_fill<T>(int, int, const int*, const int*, const int*, const int*, const T*,   \
                                           int*, T*, bool, cudaStream_t);
TESSERA_SPMV_INSTANTIATE(float)
TESSERA_SPMV_INSTANTIATE(double)

}  // namespace tessera::cuda
