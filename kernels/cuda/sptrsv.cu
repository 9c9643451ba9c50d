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
//
// Or, where the levels are narrow (plan::solve_sync_free), one block walks them with a barrier
// between levels (solve_block_kernel below).
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

// ------------------------------------------------------------------ one block, level by level
// For schedules of many narrow levels (the real FEM triangles: 3-45 rows a level on average,
// hundreds of levels) a sync-free solve pays an L2 publish-and-poll round trip per level (about
// 2 us on an H100), where one block pays a barrier (tens of ns). What remains per level is
// latency, so the loads a level needs do not wait for it: the positions' info is read two levels
// ahead and the rows' first entries (with b and the inverted diagonal) one level ahead, while the
// current level computes. x is read back from shared memory where n values fit: a global store
// by one thread leaves the line out of L1, and the next level's reader would go to L2.
// Wider levels were tried on a thread-block cluster (sm_90: up to 16 blocks of 1024 threads, a
// hardware cluster barrier between levels, x through L2): 5-7 us a level against the sync-free
// solve's 2.1 (H100, 2026-11-27; 128^3 Laplacian 2.56 against 0.81 ms, 64^3 1.03 against 0.31),
// so levels too wide for one block stay sync-free.
__global__ void block_info_kernel(int n, const int* __restrict__ order, const int* __restrict__ row_ptr,
                                  int4* __restrict__ info) {
  const int p = blockIdx.x * blockDim.x + threadIdx.x;
  if (p >= n) return;
  const int row = order[p];
  info[p] = make_int4(row, row_ptr[row], row_ptr[row + 1], 0);
}

template <class T, int LANES, bool SMEM_X>
__global__ __launch_bounds__(kSptrsvBlockThreads) void solve_block_kernel(
    SptrsvShape s, int levels, const int* __restrict__ level_end, const int4* __restrict__ info,
    const int* __restrict__ col_idx, const T* __restrict__ values, const T* __restrict__ inv_diag, const T* b, T* x) {
  constexpr int G = kSptrsvBlockEntries;
  const int groups = blockDim.x / LANES;
  extern __shared__ __align__(16) unsigned char block_smem[];
  T* xs = reinterpret_cast<T*>(block_smem);
  const int g = threadIdx.x / LANES, lane = threadIdx.x % LANES;
  const int4 none = make_int4(-1, 0, 0, 0);
  // A row of a level and this lane's first G entries (c < 0: none). row < 0: no row.
  struct Row {
    int row, e, end;
    T b, inv;
    int c[G];
    T v[G];
  };
  auto first = [&](int L) { return L == 0 ? 0 : level_end[L - 1]; };
  auto info_at = [&](int L, int p) { return L < levels && p < level_end[L] ? info[p] : none; };
  auto load = [&](int4 f) {
    Row r;
    r.row = f.x;
    r.end = f.z;
    r.e = f.y + lane + G * LANES;  // this lane's first entry past the ones held
    r.b = r.inv = T(0);
    if (f.x >= 0) {
      r.b = b[f.x];  // read before any x store: x may alias b (row f.x is written only below)
      r.inv = inv_diag[f.x];
    }
#pragma unroll
    for (int k = 0; k < G; ++k) {
      const int e = f.y + lane + k * LANES;
      const bool in = f.x >= 0 && e < f.z;
      r.c[k] = in ? col_idx[e] : -1;
      r.v[k] = in ? values[e] : T(0);
    }
    return r;
  };
  auto xval = [&](int j) -> T {
    if constexpr (SMEM_X) return xs[j];
    else return x[j];  // written by this block before the last barrier
  };
  // Every thread calls it (the group's lanes meet in shuffles).
  auto solve = [&](const Row& r) {
    T sum = 0;
#pragma unroll
    for (int k = 0; k < G; ++k)
      if (r.c[k] >= 0 && depends(s.lower, r.row, r.c[k])) sum += r.v[k] * xval(r.c[k]);
    for (int e = r.e; e < r.end; e += LANES) {
      const int j = col_idx[e];
      if (depends(s.lower, r.row, j)) sum += values[e] * xval(j);
    }
#pragma unroll
    for (int o = LANES / 2; o > 0; o /= 2) sum += __shfl_xor_sync(kFullMask, sum, o, LANES);
    if (r.row >= 0 && lane == 0) {
      const T v = (r.b - sum) * r.inv;
      x[r.row] = v;
      if constexpr (SMEM_X) xs[r.row] = v;
    }
  };
  Row next = load(info_at(0, g));
  int4 f1 = levels > 1 ? info_at(1, first(1) + g) : none;
  for (int L = 0; L < levels; ++L) {
    const Row cur = next;
    const int4 f2 = L + 2 < levels ? info_at(L + 2, first(L + 2) + g) : none;
    next = load(f1);
    f1 = f2;
    solve(cur);
    // A level of more rows than groups: the rest, loaded as they come.
    const int end = level_end[L];
    for (int base = first(L) + groups; base < end; base += groups) solve(load(info_at(L, base + g)));
    __syncthreads();
  }
}

}  // namespace

cudaError_t launch_sptrsv_block_info(int n, const int* order, const int* row_ptr, int4* info, cudaStream_t stream) {
  block_info_kernel<<<blocks_for(n, 256), 256, 0, stream>>>(n, order, row_ptr, info);
  return cudaGetLastError();
}

namespace {
template <class T, int LANES, bool SMEM_X>
cudaError_t launch_block_solve(const SptrsvShape& s, int levels, const int* level_end, const int4* info,
                               const int* col_idx, const T* values, const T* inv_diag, const T* b, T* x,
                               int threads, cudaStream_t stream) {
  const std::size_t smem = SMEM_X ? static_cast<std::size_t>(s.n) * sizeof(T) : 0;
  if (smem > 48 * 1024)
    if (cudaError_t e = cudaFuncSetAttribute(solve_block_kernel<T, LANES, SMEM_X>,
                                             cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(smem));
        e != cudaSuccess)
      return e;
  solve_block_kernel<T, LANES, SMEM_X><<<1, threads, smem, stream>>>(s, levels, level_end, info, col_idx, values,
                                                                     inv_diag, b, x);
  return cudaGetLastError();
}
template <class T, int LANES>
cudaError_t launch_block_solve_x(const SptrsvShape& s, int levels, const int* level_end, const int4* info,
                                 const int* col_idx, const T* values, const T* inv_diag, const T* b, T* x, int threads,
                                 bool smem_x, cudaStream_t stream) {
  return smem_x ? launch_block_solve<T, LANES, true>(s, levels, level_end, info, col_idx, values, inv_diag, b, x,
                                                     threads, stream)
                : launch_block_solve<T, LANES, false>(s, levels, level_end, info, col_idx, values, inv_diag, b, x,
                                                      threads, stream);
}
}  // namespace

template <class T>
cudaError_t launch_sptrsv_block_solve(const SptrsvShape& s, int levels, const int* level_end, const int4* info,
                                      const int* col_idx, const T* values, const T* inv_diag, const T* b, T* x,
                                      int lanes, int threads, bool smem_x, cudaStream_t stream) {
  if (threads < 32 || threads > kSptrsvBlockThreads || threads % 32 != 0 || threads % lanes != 0)
    return cudaErrorInvalidValue;
  switch (lanes) {
#define TESSERA_SPTRSV_LANES(L)                                                                                \
  case L:                                                                                                      \
    return launch_block_solve_x<T, L>(s, levels, level_end, info, col_idx, values, inv_diag, b, x, threads, smem_x, \
                                      stream);
    TESSERA_SPTRSV_LANES(1)
    TESSERA_SPTRSV_LANES(2)
    TESSERA_SPTRSV_LANES(4)
    TESSERA_SPTRSV_LANES(8)
    TESSERA_SPTRSV_LANES(16)
    TESSERA_SPTRSV_LANES(32)
#undef TESSERA_SPTRSV_LANES
    default: return cudaErrorInvalidValue;
  }
}

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
  template cudaError_t launch_sptrsv_block_solve<T>(const SptrsvShape&, int, const int*, const int4*, const int*,  \
                                                    const T*, const T*, const T*, T*, int, int, bool, cudaStream_t);\
  template cudaError_t launch_sptrsv_solve<T>(const SptrsvShape&, bool, const int*, const int*, const int*,    \
                                              const T*, const T*, const T*, T*, void*, int, int*, std::size_t, \
                                              int,                                                             \
                                              cudaStream_t);
TESSERA_SPTRSV_INSTANTIATE(float)
TESSERA_SPTRSV_INSTANTIATE(double)

}  // namespace tessera::cuda
