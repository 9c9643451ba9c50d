// Sparse triangular solve on CSR by level sets (computed by the host at analysis): rows of one
// level depend only on rows of earlier levels, so a level is solved in parallel. x holds b on
// entry (the host copies b into x unless they are the same buffer); row i reads x[i] (still b)
// and x[j] of earlier levels (already solved), then writes x[i]: aliasing x == b is safe.
// Only entries strictly inside the triangle named by `lower` are used; the diagonal comes from
// the analysis (the sum of a row's diagonal entries), so duplicates and entries of the other
// triangle are ignored, as in the reference.

#ifndef WG_SIZE
#define WG_SIZE 256
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

// One (large) level: a work-item per row. Global: count rounded up to WG_SIZE.
__kernel void sptrsv_level(__global const int* row_ptr, __global const int* col_idx, __global const REAL* values,
                           __global const REAL* diag, __global const int* level_rows, int first, int count,
                           __global REAL* x, int lower, int unit) {
  const int t = get_global_id(0);
  if (t < count) solve_row(level_rows[first + t], row_ptr, col_idx, values, diag, x, lower, unit);
}

// A run of consecutive small levels in one work-group: a barrier between levels replaces a
// kernel launch (a chain-like matrix has as many levels as rows; launching each would cost
// more than solving it). level_ptr indexes level_rows; levels [level_begin, level_end).
__kernel __attribute__((reqd_work_group_size(WG_SIZE, 1, 1))) void sptrsv_chain(
    __global const int* row_ptr, __global const int* col_idx, __global const REAL* values,
    __global const REAL* diag, __global const int* level_rows, __global const int* level_ptr, int level_begin,
    int level_end, __global REAL* x, int lower, int unit) {
  const int t = get_local_id(0);
  for (int lev = level_begin; lev < level_end; ++lev) {
    const int end = level_ptr[lev + 1];
    for (int p = level_ptr[lev] + t; p < end; p += WG_SIZE)
      solve_row(level_rows[p], row_ptr, col_idx, values, diag, x, lower, unit);
    barrier(CLK_GLOBAL_MEM_FENCE);  // this level's x visible to the whole group
  }
}

// Sync-free solve in level order (profiles with sptrsv.syncfree; the CUDA backend's method):
// the host cuts every level into tasks of at most WG_SIZE rows (task_ptr indexes level_rows);
// groups take tasks in order from an atomic ticket, a work-item per row. A row waits for each
// row it depends on (ready[j] == epoch), so it starts the moment its own dependencies are done,
// not when a whole level is; it then publishes x[i] and ready[i] = epoch. The epoch changes per
// solve, so the flags need no clearing between solves.
// Forward progress (OpenCL 1.2 promises none between groups): a task's rows depend only on rows
// of earlier levels, so of earlier tasks, taken by groups already running; rows of one task
// never wait for each other; and the host launches no more groups than stay resident.
__kernel __attribute__((reqd_work_group_size(WG_SIZE, 1, 1))) void sptrsv_syncfree(
    __global const int* row_ptr, __global const int* col_idx, __global const REAL* values,
    __global const REAL* diag, __global const int* level_rows, __global const int* task_ptr, int ntasks,
    __global REAL* x_out, int lower, int unit, __global int* ready_out, int epoch, __global int* ticket) {
  volatile __global REAL* x = x_out;  // written by other groups while this one runs
  volatile __global int* ready = ready_out;
  __local int s_task;
  const int l = get_local_id(0);
  for (;;) {
    if (l == 0) s_task = atomic_inc(ticket);
    barrier(CLK_LOCAL_MEM_FENCE);
    const int task = s_task;
    barrier(CLK_LOCAL_MEM_FENCE);  // every work-item has read s_task before it is rewritten
    if (task >= ntasks) break;     // uniform
    const int p = task_ptr[task] + l;
    if (p < task_ptr[task + 1]) {
      const int i = level_rows[p];
      const int begin = row_ptr[i], end = row_ptr[i + 1];
      for (int k = begin; k < end; ++k) {  // wait for every dependency, then one fence
        const int j = col_idx[k];
        if (lower ? j < i : j > i)
          while (ready[j] != epoch) {
          }
      }
      DEVICE_FENCE();  // acquire: the x[j] below are read after their flags
      REAL s = x[i];
      for (int k = begin; k < end; ++k) {
        const int j = col_idx[k];
        if (lower ? j < i : j > i) s -= values[k] * x[j];
      }
      x[i] = unit ? s : s / diag[i];
      DEVICE_FENCE();  // release: x[i] before its flag
      atomic_xchg(ready_out + i, epoch);
    }
  }
}
