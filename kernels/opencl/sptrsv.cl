// Sparse triangular solve on CSR by level sets (computed by the host at analysis): rows of one
// level depend only on rows of earlier levels, so a level is solved in parallel. x holds b on
// entry (the host copies b into x unless they are the same buffer); row i reads x[i] (still b)
// and x[j] of earlier levels (already solved), then writes x[i]: aliasing x == b is safe.
// Only entries strictly inside the triangle named by `lower` are used; the diagonal comes from
// the analysis (the sum of a row's diagonal entries), so duplicates and entries of the other
// triangle are ignored, as in the reference.

#ifndef SPTRSV_WG
#define SPTRSV_WG 256
#endif

inline void solve_row(int i, __global const int* row_ptr, __global const int* col_idx,
                      __global const REAL* values, __global const REAL* diag, __global REAL* x, int lower,
                      int unit) {
  REAL s = x[i];
  const int end = row_ptr[i + 1];
  for (int k = row_ptr[i]; k < end; ++k) {
    const int j = col_idx[k];
    if (lower ? j < i : j > i) s -= values[k] * x[j];
  }
  x[i] = unit ? s : s / diag[i];
}

// One (large) level: a work-item per row. Global: count rounded up to SPTRSV_WG.
__kernel void sptrsv_level(__global const int* row_ptr, __global const int* col_idx, __global const REAL* values,
                           __global const REAL* diag, __global const int* level_rows, int first, int count,
                           __global REAL* x, long x_off, int lower, int unit) {
  x += x_off;
  const int t = get_global_id(0);
  if (t < count) solve_row(level_rows[first + t], row_ptr, col_idx, values, diag, x, lower, unit);
}

// A run of consecutive small levels in one work-group: a barrier between levels replaces a
// kernel launch (a chain-like matrix has as many levels as rows; launching each would cost
// more than solving it). level_ptr indexes the positions; info[p] = (row, row_ptr[row],
// row_ptr[row + 1]) of position p (the host's analysis). Levels [level_begin, level_end).
// What remains per level is latency, so a work-item loads its next rows while the current level
// computes: the position's info two levels ahead, the row's first SPTRSV_G entries (and its b and
// diagonal) one level ahead, the CUDA backend's one-block solve (kernels/cuda/sptrsv.cu). x sits
// in local memory too when n_local (= n) values fit: the barrier then fences local memory only,
// and a row reads its dependencies there instead of through the global memory's caches.
#ifndef SPTRSV_G
#define SPTRSV_G 8
#endif
typedef struct {
  int row, e, end;
  REAL b, d;
  int c[SPTRSV_G];
  REAL v[SPTRSV_G];
} ChainRow;

inline int4 chain_info(__global const int4* info, __global const int* level_ptr, int lev, int level_end, int t) {
  if (lev >= level_end) return (int4)(-1, 0, 0, 0);
  const int p = level_ptr[lev] + t;
  return p < level_ptr[lev + 1] ? info[p] : (int4)(-1, 0, 0, 0);
}

inline ChainRow chain_load(int4 f, __global const int* col_idx, __global const REAL* values,
                           __global const REAL* diag, __global const REAL* x, int unit) {
  ChainRow r;
  r.row = f.x;
  r.end = f.z;
  r.e = f.y + SPTRSV_G;
  r.b = f.x >= 0 ? x[f.x] : (REAL)0;  // still b: only this row's work-item writes it
  r.d = f.x >= 0 && !unit ? diag[f.x] : (REAL)1;
#pragma unroll
  for (int k = 0; k < SPTRSV_G; ++k) {
    const int e = f.y + k;
    const bool in = f.x >= 0 && e < f.z;
    r.c[k] = in ? col_idx[e] : -1;
    r.v[k] = in ? values[e] : (REAL)0;
  }
  return r;
}

inline void chain_solve(const ChainRow* r, __global const int* col_idx, __global const REAL* values,
                        __global REAL* x, __local REAL* xs, int local_x, int lower) {
  if (r->row < 0) return;
  const int i = r->row;
  REAL s = r->b;
#pragma unroll
  for (int k = 0; k < SPTRSV_G; ++k) {
    const int j = r->c[k];
    if (j >= 0 && (lower ? j < i : j > i)) s -= r->v[k] * (local_x ? xs[j] : x[j]);
  }
  for (int e = r->e; e < r->end; ++e) {
    const int j = col_idx[e];
    if (lower ? j < i : j > i) s -= values[e] * (local_x ? xs[j] : x[j]);
  }
  const REAL v = s / r->d;
  x[i] = v;
  if (local_x) xs[i] = v;
}

__kernel __attribute__((reqd_work_group_size(SPTRSV_WG, 1, 1))) void sptrsv_chain(
    __global const int* col_idx, __global const REAL* values, __global const REAL* diag, __global const int4* info,
    __global const int* level_ptr, int level_begin, int level_end, __global REAL* x, long x_off, int lower, int unit,
    __local REAL* xs, int n_local) {
  x += x_off;
  const int t = get_local_id(0);
  const int local_x = n_local > 0;
  if (local_x) {  // earlier segments' values and this chain's b
    for (int i = t; i < n_local; i += SPTRSV_WG) xs[i] = x[i];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  ChainRow next = chain_load(chain_info(info, level_ptr, level_begin, level_end, t), col_idx, values, diag, x, unit);
  int4 f1 = chain_info(info, level_ptr, level_begin + 1, level_end, t);
  for (int lev = level_begin; lev < level_end; ++lev) {
    const ChainRow cur = next;
    const int4 f2 = chain_info(info, level_ptr, lev + 2, level_end, t);
    next = chain_load(f1, col_idx, values, diag, x, unit);
    f1 = f2;
    chain_solve(&cur, col_idx, values, x, xs, local_x, lower);
    const int end = level_ptr[lev + 1];
    for (int p = level_ptr[lev] + SPTRSV_WG + t; p < end; p += SPTRSV_WG) {  // a level wider than the group
      const ChainRow r = chain_load(info[p], col_idx, values, diag, x, unit);
      chain_solve(&r, col_idx, values, x, xs, local_x, lower);
    }
    if (local_x)
      barrier(CLK_LOCAL_MEM_FENCE);  // this level's x visible to the whole group
    else
      barrier(CLK_GLOBAL_MEM_FENCE);
  }
}

// Sync-free solve in level order (classes with sptrsv.syncfree; the CUDA backend's method, see
// kernels/cuda/sptrsv.cu). The host cuts every level into tasks of at most SPTRSV_SYNCFREE_WG rows
// (task_ptr indexes level_rows); each group takes tasks in order from an atomic ticket, a
// work-item per row. A row waits only for the rows it depends on, polling a batch of them
// together with back-off, so it starts the moment its own dependencies are done, not when a
// whole level is; it then publishes x[i]. b is read before x[i] is written by the same
// work-item, so x may alias b.
// Forward progress (OpenCL 1.2 promises none between groups): a task's rows depend only on rows
// of earlier levels, so of earlier tasks, taken by groups that already started; rows of one task
// never wait for each other (safe where a group's work-items run in lock step or one after
// another: AMD wavefronts, PoCL).
//
// Publication, per dtype:
//  - float: ready[i] = epoch << 32 | bits of x[i], one 64-bit word written and polled with
//    single (relaxed) accesses: a poll that sees the epoch has the value too, so a dependency
//    costs one round trip to L2 and needs no fence;
//  - double (no 128-bit single-copy access): ready[i] = epoch (int) stored with release
//    semantics after x[i]; the batch's flags are polled, one acquire fence, then the values.
// The epoch changes per solve, so ready needs no clearing between solves.
#if TESSERA_GPU_KERNELS  // gpu variant (the host runs it with the gpu kernels only)
#ifndef SPTRSV_SYNCFREE_WG
#define SPTRSV_SYNCFREE_WG 256
#endif
#ifndef SPTRSV_SLEEP_NS
#define SPTRSV_SLEEP_NS 0  // longest back-off of a waiting work-item (nanosleep, NVIDIA only); 0: spin
#endif
#define SYNCFREE_BATCH 8  // dependencies polled together

#ifdef TESSERA_FP64
#define READY_T int
#else
#define READY_T ulong
#endif

#if TESSERA_NVIDIA_PTX
// NVIDIA: scoped PTX accesses (relaxed/release at GPU scope: past the SM's non-coherent L1) and
// nanosleep back-off, as kernels/cuda/sptrsv.cu. Pointers go in as integers (global addresses).
inline ulong poll_u64(__global const ulong* p) {
  ulong v;
  asm volatile("ld.relaxed.gpu.global.u64 %0, [%1];" : "=l"(v) : "l"((ulong)p) : "memory");
  return v;
}
inline void store_u64(__global ulong* p, ulong v) {
  asm volatile("st.relaxed.gpu.global.u64 [%0], %1;" ::"l"((ulong)p), "l"(v) : "memory");
}
inline int poll_i32(__global const int* p) {
  int v;
  asm volatile("ld.relaxed.gpu.global.s32 %0, [%1];" : "=r"(v) : "l"((ulong)p) : "memory");
  return v;
}
inline void store_release_i32(__global int* p, int v) {
  asm volatile("st.release.gpu.global.s32 [%0], %1;" ::"l"((ulong)p), "r"(v) : "memory");
}
inline void back_off(uint* ns) {
#if SPTRSV_SLEEP_NS > 0
  asm volatile("nanosleep.u32 %0;" ::"r"(*ns));
  if (*ns < SPTRSV_SLEEP_NS) *ns *= 2;
#endif
}
#else
// Portable (OpenCL 1.2): volatile accesses (aligned 64-bit ones are single accesses on the
// 64-bit devices this runs on) and fences; a waiting work-item spins.
inline ulong poll_u64(__global const ulong* p) { return *(volatile __global const ulong*)p; }
inline void store_u64(__global ulong* p, ulong v) { *(volatile __global ulong*)p = v; }
inline int poll_i32(__global const int* p) { return *(volatile __global const int*)p; }
inline void store_release_i32(__global int* p, int v) {
  DEVICE_FENCE();
  atomic_xchg(p, v);
}
inline void back_off(uint* ns) {}
#endif

#ifdef TESSERA_FP64
inline bool try_read(__global const READY_T* ready, int j, int epoch, REAL* v) {
  return poll_i32(ready + j) == epoch;
}
inline void publish(__global READY_T* ready, __global REAL* x, int row, int epoch, REAL v) {
  *(volatile __global REAL*)(x + row) = v;
  store_release_i32(ready + row, epoch);  // orders the x store before the flag
}
#else
inline bool try_read(__global const READY_T* ready, int j, int epoch, REAL* v) {
  const ulong w = poll_u64(ready + j);
  *v = as_float((uint)w);
  return (int)(w >> 32) == epoch;
}
inline void publish(__global READY_T* ready, __global REAL* x, int row, int epoch, REAL v) {
  x[row] = v;  // the result; other rows read the slot
  store_u64(ready + row, (ulong)(uint)epoch << 32 | as_uint(v));
}
#endif

inline void syncfree_row(int row, __global const int* row_ptr, __global const int* col_idx,
                         __global const REAL* values, __global const REAL* diag, __global const REAL* b,
                         __global REAL* x, int lower, int unit, __global READY_T* ready, int epoch) {
  // Independent of the dependencies: loaded before any waiting.
  const REAL brow = b[row], d = unit ? (REAL)1 : diag[row];
  const int end = row_ptr[row + 1];
  REAL sum = 0;
  for (int e0 = row_ptr[row]; e0 < end; e0 += SYNCFREE_BATCH) {
    int c[SYNCFREE_BATCH];
    REAL v[SYNCFREE_BATCH], xv[SYNCFREE_BATCH];
    uint pending = 0;
#pragma unroll
    for (int k = 0; k < SYNCFREE_BATCH; ++k) {
      const int e = e0 + k;
      c[k] = e < end ? col_idx[e] : row;
      v[k] = e < end ? values[e] : 0;
      xv[k] = 0;
      if (lower ? c[k] < row : c[k] > row) pending |= 1u << k;
    }
    const uint deps = pending;
    uint ns = 16;
    while (pending != 0) {
#pragma unroll
      for (int k = 0; k < SYNCFREE_BATCH; ++k)
        if ((pending >> k & 1u) && try_read(ready, c[k], epoch, &xv[k])) pending &= ~(1u << k);
      if (pending != 0) back_off(&ns);
    }
#ifdef TESSERA_FP64
    if (deps != 0) DEVICE_FENCE();  // acquire: the values are read after their flags
#pragma unroll
    for (int k = 0; k < SYNCFREE_BATCH; ++k)
      if (deps >> k & 1u) xv[k] = *(volatile __global const REAL*)(x + c[k]);
#endif
#pragma unroll
    for (int k = 0; k < SYNCFREE_BATCH; ++k)
      if (deps >> k & 1u) sum += v[k] * xv[k];
  }
  publish(ready, x, row, epoch, (brow - sum) / d);
}

__kernel __attribute__((reqd_work_group_size(SPTRSV_SYNCFREE_WG, 1, 1))) void sptrsv_syncfree(
    __global const int* row_ptr, __global const int* col_idx, __global const REAL* values,
    __global const REAL* diag, __global const int* level_rows, __global const int* task_ptr, int ntasks,
    __global const REAL* b, long b_off, __global REAL* x, long x_off, int lower, int unit, __global READY_T* ready, int epoch,
    __global int* ticket) {
  __local int s_task;
  b += b_off;
  x += x_off;
  const int l = get_local_id(0);
  for (;;) {
    if (l == 0) s_task = atomic_inc(ticket);
    barrier(CLK_LOCAL_MEM_FENCE);
    const int task = s_task;
    barrier(CLK_LOCAL_MEM_FENCE);  // every work-item has read s_task before it is rewritten
    if (task >= ntasks) break;     // uniform
    const int p = task_ptr[task] + l;
    if (p < task_ptr[task + 1])
      syncfree_row(level_rows[p], row_ptr, col_idx, values, diag, b, x, lower, unit, ready, epoch);
  }
}
#endif
