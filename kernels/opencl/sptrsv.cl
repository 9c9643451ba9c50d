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
