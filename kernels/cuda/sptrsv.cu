// Sparse triangular solve on CSR (only the triangle named by uplo is used).
//
// Analysis, all on the GPU (no matrix copy to the host): the diagonal of every row (inverted,
// checked), the level of every row computed sync-free (a row's level is one more than its
// dependencies', each thread waits on its dependencies' levels with acquire loads), then rows
// are bucketed by level (histogram, scan, scatter). Cost: a few passes over the matrix plus the
// level chain; no sort.
//
// Solve: sync-free in level order. Blocks take rows in level order through an atomic ticket, so
// whatever a row waits for is held by a thread that is already running (no deadlock); the
// window of rows in flight (bounded: a few blocks per SM) spans several levels, so rows of one level
// proceed in parallel and a row starts the moment its own dependencies are done, not when a
// whole level is. A row is published with x[i] stored then ready[i] = epoch (release); readers spin on
// ready[j] (acquire), then read x[j] through L2. The epoch changes per solve, so the flags need
// no clearing between solves.
#include <algorithm>
#include <climits>

#include "kernels/cuda/common.cuh"

namespace tessera::cuda {

namespace {

__device__ __forceinline__ bool depends(bool lower, int row, int col) { return lower ? col < row : col > row; }

template <class T>
__global__ void diag_kernel(SptrsvShape s, const int* __restrict__ row_ptr, const int* __restrict__ col_idx,
                            const T* __restrict__ values, T* __restrict__ inv_diag, int* __restrict__ bad_row) {
  const int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= s.n) return;
  if (s.unit) {
    inv_diag[row] = T(1);
    return;
  }
  T d = 0;
  bool found = false;
  for (int e = row_ptr[row]; e < row_ptr[row + 1]; ++e)
    if (col_idx[e] == row) {
      d += values[e];  // duplicates add up, as they would in A x
      found = true;
    }
  if (!found || d == T(0)) {
    atomicMin(bad_row, row);
    inv_diag[row] = T(0);
  } else {
    inv_diag[row] = T(1) / d;
  }
}

// Waits (acquire) until *p satisfies pred, with exponential back-off up to max_sleep_ns: the
// waiting threads of a wide window would otherwise flood L2 with polls and slow down the very
// stores they wait for.
template <class Pred>
__device__ __forceinline__ int wait_for(const int* p, Pred pred, int max_sleep_ns) {
  int v = load_acquire(p);
  unsigned ns = 16;
  while (!pred(v)) {
    __nanosleep(ns);
    if (ns < static_cast<unsigned>(max_sleep_ns)) ns *= 2;
    v = load_acquire(p);
  }
  return v;
}

// Each block takes one chunk of ROWS positions through an atomic ticket when it starts, so every
// position below the lowest unfinished one is done or held by a running block: waiting on
// earlier positions can never deadlock, however many blocks are resident. A thread exits as
// soon as its row is published; nothing makes a finished thread wait (no barrier, no
// reconvergence point) while another thread of its warp still waits for it — rows of one chunk
// may depend on each other.
template <int ROWS>
__device__ __forceinline__ int take_chunk(int* ticket) {
  __shared__ int s_ticket;
  if (threadIdx.x == 0) s_ticket = atomicAdd(ticket, 1);
  __syncthreads();
  return s_ticket * ROWS;
}

__global__ void levels_kernel(SptrsvShape s, const int* __restrict__ row_ptr, const int* __restrict__ col_idx,
                              int* level, int* __restrict__ counts, int* __restrict__ ticket,
                              int* __restrict__ max_level, int sleep_ns) {
  const int pos = take_chunk<kSptrsvThreads>(ticket) + threadIdx.x;
  if (pos >= s.n) return;
  const int row = s.lower ? pos : s.n - 1 - pos;  // dependency order
  const int begin = row_ptr[row], end = row_ptr[row + 1];
  // One loop per thread, the level published inside it (see take_chunk).
  int lvl = 0, e = begin;
  unsigned ns = 16;
  for (;;) {
    while (e < end) {
      const int j = col_idx[e];
      if (depends(s.lower, row, j)) {
        const int lj = load_acquire(level + j);
        if (lj == 0) break;  // not yet: back off, then retry this entry
        lvl = max(lvl, lj);
      }
      ++e;
    }
    if (e >= end) {
      ++lvl;
      store_release(level + row, lvl);
      atomicAdd(counts + (lvl - 1), 1);
      atomicMax(max_level, lvl);
      return;
    }
    __nanosleep(ns);
    if (ns < static_cast<unsigned>(sleep_ns)) ns *= 2;
  }
}

// Exclusive scan in one block of 1024 threads, chunk by chunk (the level count is small for
// matrices with parallelism, and at most n for a chain).
__global__ __launch_bounds__(1024) void exclusive_scan_kernel(int* counts, int len) {
  __shared__ int warp_tot[32];
  __shared__ int s_base;
  const int tid = threadIdx.x, lane = tid % 32, warp = tid / 32;
  if (tid == 0) s_base = 0;
  __syncthreads();
  for (int start = 0; start < len; start += 1024) {
    const int i = start + tid;
    const int v = i < len ? counts[i] : 0;
    int incl = v;
#pragma unroll
    for (int o = 1; o < 32; o <<= 1) {
      const int u = __shfl_up_sync(kFullMask, incl, o);
      if (lane >= o) incl += u;
    }
    if (lane == 31) warp_tot[warp] = incl;
    __syncthreads();
    if (warp == 0) {
      int w = warp_tot[lane];
      int wi = w;
#pragma unroll
      for (int o = 1; o < 32; o <<= 1) {
        const int u = __shfl_up_sync(kFullMask, wi, o);
        if (lane >= o) wi += u;
      }
      warp_tot[lane] = wi - w;  // exclusive prefix of warp totals
    }
    __syncthreads();
    const int base = s_base;
    if (i < len) counts[i] = base + warp_tot[warp] + incl - v;
    __syncthreads();
    if (tid == 1023) s_base = base + warp_tot[warp] + incl;
    __syncthreads();
  }
}

__global__ void scatter_kernel(int n, const int* __restrict__ level, int* __restrict__ cursor,
                               int* __restrict__ order) {
  const int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= n) return;
  order[atomicAdd(cursor + level[row] - 1, 1)] = row;
}

// Publishing and reading solved values. f32: value and epoch share one 64-bit word, written
// and polled with single (relaxed, single-copy atomic) 64-bit accesses: a poll that sees the
// epoch has the value too, so a dependency costs one L2 round trip, and polls for all of a
// row's dependencies go out together (no acquire between them). f64 (no 128-bit atomic access):
// an int flag per row, the row's flags polled together, one fence, then the values through L2.
__device__ __forceinline__ unsigned long long load_relaxed_u64(const unsigned long long* p) {
  unsigned long long v;
  asm volatile("ld.relaxed.gpu.global.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
  return v;
}
__device__ __forceinline__ void store_relaxed_u64(unsigned long long* p, unsigned long long v) {
  asm volatile("st.relaxed.gpu.global.u64 [%0], %1;" ::"l"(p), "l"(v) : "memory");
}
__device__ __forceinline__ int load_relaxed(const int* p) {
  int v;
  asm volatile("ld.relaxed.gpu.global.s32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}

template <class T>
struct Published;
template <>
struct Published<float> {
  // slots[j] = epoch << 32 | bits of x[j]
  static __device__ __forceinline__ bool try_read(const void* slots, const float*, int j, int epoch, float& v) {
    const unsigned long long w = load_relaxed_u64(static_cast<const unsigned long long*>(slots) + j);
    v = __uint_as_float(static_cast<unsigned int>(w));
    return static_cast<int>(w >> 32) == epoch;
  }
  static __device__ __forceinline__ void after_ready(const float*, int, float&) {}
  static __device__ __forceinline__ void publish(void* slots, float* x, int row, int epoch, float v) {
    x[row] = v;
    store_relaxed_u64(static_cast<unsigned long long*>(slots) + row,
                      static_cast<unsigned long long>(epoch) << 32 | __float_as_uint(v));
  }
};
template <>
struct Published<double> {
  static __device__ __forceinline__ bool try_read(const void* flags, const double*, int j, int epoch, double&) {
    return load_relaxed(static_cast<const int*>(flags) + j) == epoch;
  }
  // Called once every flag of the batch was seen (after a fence): the values themselves.
  static __device__ __forceinline__ void after_ready(const double* x, int j, double& v) { v = __ldcg(x + j); }
  static __device__ __forceinline__ void publish(void* flags, double* x, int row, int epoch, double v) {
    x[row] = v;
    store_release(static_cast<int*>(flags) + row, epoch);  // orders the x store before the flag
  }
};

// Thread per row: one loop per thread that polls the current batch of (up to G) dependencies
// together and publishes the row inside the loop (see take_chunk).
template <class T>
__global__ __launch_bounds__(kSptrsvThreads) void solve_thread_kernel(
    SptrsvShape s, const int* __restrict__ order, const int* __restrict__ row_ptr, const int* __restrict__ col_idx,
    const T* __restrict__ values, const T* __restrict__ inv_diag, const T* b, T* x, void* ready, int epoch,
    int* __restrict__ ticket, int sleep_ns) {
  using P = Published<T>;
  constexpr int G = 8;
  const int pos = take_chunk<kSptrsvThreads>(ticket) + threadIdx.x;
  if (pos >= s.n) return;
  const int row = order[pos];
  // Independent of the dependencies: loaded before any waiting. b[row] is read only by the
  // thread that writes x[row], so x may alias b.
  const T brow = b[row], inv = inv_diag[row];
  const int end = row_ptr[row + 1];
  int e0 = row_ptr[row];
  T sum = 0;
  int c[G];
  T v[G], xv[G];
  unsigned pending = 0, deps = 0;
  auto load_batch = [&] {
    pending = 0;
#pragma unroll
    for (int k = 0; k < G; ++k) {
      c[k] = e0 + k < end ? col_idx[e0 + k] : row;
      v[k] = e0 + k < end ? values[e0 + k] : T(0);
      xv[k] = 0;
      if (depends(s.lower, row, c[k])) pending |= 1u << k;
    }
    deps = pending;
  };
  load_batch();
  unsigned ns = 16;
  for (;;) {
#pragma unroll
    for (int k = 0; k < G; ++k)
      if ((pending >> k & 1u) && P::try_read(ready, x, c[k], epoch, xv[k])) pending &= ~(1u << k);
    if (pending == 0) {
      if constexpr (sizeof(T) == 8) {
        if (deps != 0) __threadfence();  // the flags were read relaxed: order the value loads after them
      }
#pragma unroll
      for (int k = 0; k < G; ++k)
        if (deps >> k & 1u) {
          P::after_ready(x, c[k], xv[k]);
          sum += v[k] * xv[k];
        }
      e0 += G;
      if (e0 >= end) {
        P::publish(ready, x, row, epoch, (brow - sum) * inv);
        return;
      }
      load_batch();
      ns = 16;
      continue;
    }
    __nanosleep(ns);
    if (ns < static_cast<unsigned>(sleep_ns)) ns *= 2;
  }
}

// Warp per row (long rows): the lanes wait on their own entries; rows a warp waits for belong to
// other warps, so the lanes may reconverge for the final sum.
template <class T>
__global__ __launch_bounds__(kSptrsvThreads) void solve_warp_kernel(
    SptrsvShape s, const int* __restrict__ order, const int* __restrict__ row_ptr, const int* __restrict__ col_idx,
    const T* __restrict__ values, const T* __restrict__ inv_diag, const T* b, T* x, void* ready, int epoch,
    int* __restrict__ ticket, int sleep_ns) {
  using P = Published<T>;
  constexpr int ROWS = kSptrsvThreads / 32;
  const int pos = take_chunk<ROWS>(ticket) + threadIdx.x / 32;
  if (pos >= s.n) return;  // whole warps leave together
  const int lane = threadIdx.x % 32;
  const int row = order[pos];
  const T brow = b[row], inv = inv_diag[row];
  T sum = 0;
  for (int e = row_ptr[row] + lane; e < row_ptr[row + 1]; e += 32) {
    const int j = col_idx[e];
    if (!depends(s.lower, row, j)) continue;
    T xj = 0;
    unsigned ns = 16;
    while (!P::try_read(ready, x, j, epoch, xj)) {
      __nanosleep(ns);
      if (ns < static_cast<unsigned>(sleep_ns)) ns *= 2;
    }
    if constexpr (sizeof(T) == 8) {
      __threadfence();
      P::after_ready(x, j, xj);
    }
    sum += values[e] * xj;
  }
  sum = warp_sum(sum);
  if (lane == 0) P::publish(ready, x, row, epoch, (brow - sum) * inv);
}

}  // namespace

template <class T>
cudaError_t launch_sptrsv_diag(const SptrsvShape& s, const int* row_ptr, const int* col_idx, const T* values,
                               T* inv_diag, int* bad_row, cudaStream_t stream) {
  diag_kernel<T><<<blocks_for(s.n, 256), 256, 0, stream>>>(s, row_ptr, col_idx, values, inv_diag, bad_row);
  return cudaGetLastError();
}

cudaError_t launch_sptrsv_levels(const SptrsvShape& s, const int* row_ptr, const int* col_idx, int* level,
                                 int* counts, int* ticket, int* max_level, int sleep_ns, cudaStream_t stream) {
  levels_kernel<<<blocks_for(s.n, kSptrsvThreads), kSptrsvThreads, 0, stream>>>(s, row_ptr, col_idx, level, counts,
                                                                               ticket, max_level, sleep_ns);
  return cudaGetLastError();
}

cudaError_t launch_exclusive_scan(int* counts, int len, cudaStream_t stream) {
  exclusive_scan_kernel<<<1, 1024, 0, stream>>>(counts, len);
  return cudaGetLastError();
}

cudaError_t launch_sptrsv_scatter(int n, const int* level, int* cursor, int* order, cudaStream_t stream) {
  scatter_kernel<<<blocks_for(n, 256), 256, 0, stream>>>(n, level, cursor, order);
  return cudaGetLastError();
}

template <class T>
cudaError_t launch_sptrsv_solve(const SptrsvShape& s, bool warp_per_row, const int* order, const int* row_ptr,
                                const int* col_idx, const T* values, const T* inv_diag, const T* b, T* x,
                                void* ready, int epoch, int* ticket, std::size_t residency_smem, int sleep_ns,
                                cudaStream_t stream) {
  // The dynamic shared memory is not used: it only bounds how many blocks an SM holds at once.
  if (warp_per_row) {
    if (residency_smem > 48 * 1024)
      if (cudaError_t e = cudaFuncSetAttribute(solve_warp_kernel<T>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                               static_cast<int>(residency_smem));
          e != cudaSuccess)
        return e;
    solve_warp_kernel<T><<<blocks_for(s.n, kSptrsvThreads / 32), kSptrsvThreads, residency_smem, stream>>>(
        s, order, row_ptr, col_idx, values, inv_diag, b, x, ready, epoch, ticket, sleep_ns);
  } else {
    if (residency_smem > 48 * 1024)
      if (cudaError_t e = cudaFuncSetAttribute(solve_thread_kernel<T>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                               static_cast<int>(residency_smem));
          e != cudaSuccess)
        return e;
    solve_thread_kernel<T><<<blocks_for(s.n, kSptrsvThreads), kSptrsvThreads, residency_smem, stream>>>(
        s, order, row_ptr, col_idx, values, inv_diag, b, x, ready, epoch, ticket, sleep_ns);
  }
  return cudaGetLastError();
}

#define TESSERA_SPTRSV_INSTANTIATE(T)                                                                         \
  template cudaError_t launch_sptrsv_diag<T>(const SptrsvShape&, const int*, const int*, const T*, T*, int*,   \
                                             cudaStream_t);                                                    \
  template cudaError_t launch_sptrsv_solve<T>(const SptrsvShape&, bool, const int*, const int*, const int*,    \
                                              const T*, const T*, const T*, T*, void*, int, int*, std::size_t, \
                                              int,                                                             \
                                              cudaStream_t);
TESSERA_SPTRSV_INSTANTIATE(float)
TESSERA_SPTRSV_INSTANTIATE(double)

}  // namespace tessera::cuda
