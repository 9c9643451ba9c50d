// y = alpha * A * x + beta * y for CSR (int32 indices). With read_y == 0 (beta == 0) y is only
// written, so NaNs in y do not propagate. Each row's products are summed in REAL.

#ifndef WG_SIZE
#define WG_SIZE 256         // spmv_vector: work-group size (a multiple of the lanes per row)
#endif
#ifndef ROWS_PER_ITEM
#define ROWS_PER_ITEM 16    // spmv_rows: consecutive rows per work-item
#endif

#if TESSERA_CPU_KERNELS  // cpu variant
// cpu: a work-item walks ROWS_PER_ITEM consecutive rows, so its reads of row_ptr, col_idx and
// values are one contiguous stream (what a CPU's prefetcher wants).
__kernel void spmv_rows(__global const int* row_ptr, __global const int* col_idx, __global const REAL* values,
                        __global const REAL* x, __global REAL* y, long rows, REAL alpha, REAL beta, int read_y) {
  const long first = get_global_id(0) * (long)ROWS_PER_ITEM;
  const long last = min(first + (long)ROWS_PER_ITEM, rows);
  for (long r = first; r < last; ++r) {
    const int end = row_ptr[r + 1];
    int k = row_ptr[r];
    // Two partial sums: the loads of neighbouring products overlap instead of queueing behind
    // one chain of additions.
    REAL s0 = 0, s1 = 0;
    for (; k + 1 < end; k += 2) {
      s0 += values[k] * x[col_idx[k]];
      s1 += values[k + 1] * x[col_idx[k + 1]];
    }
    if (k < end) s0 += values[k] * x[col_idx[k]];
    const REAL s = s0 + s1;
    y[r] = read_y ? alpha * s + beta * y[r] : alpha * s;
  }
}
#endif

#if TESSERA_GPU_KERNELS  // gpu variant
// gpu: `lanes` consecutive work-items share a row (lanes a power of two <= WG_SIZE, chosen by the
// host from the mean row length): they read the row's entries side by side (coalesced), then
// add their partial sums in a tree in local memory.
__kernel __attribute__((reqd_work_group_size(WG_SIZE, 1, 1))) void spmv_vector(
    __global const int* row_ptr, __global const int* col_idx, __global const REAL* values, __global const REAL* x,
    __global REAL* y, long rows, REAL alpha, REAL beta, int read_y, int lanes) {
  __local REAL part[WG_SIZE];
  const int l = get_local_id(0);
  const int lane = l & (lanes - 1);
  const long row = get_global_id(0) / lanes;
  REAL s = 0;
  if (row < rows) {
    const int end = row_ptr[row + 1];
    for (int k = row_ptr[row] + lane; k < end; k += lanes) s += values[k] * x[col_idx[k]];
  }
  part[l] = s;
  barrier(CLK_LOCAL_MEM_FENCE);
  REAL t = 0;
  if (lanes <= 8) {
    // Few lanes (short rows, the common case): the row's first lane adds its neighbours'
    // partials itself; one barrier instead of log2(lanes).
    if (lane == 0)
      for (int q = 0; q < lanes; ++q) t += part[l + q];
  } else {
    for (int off = lanes / 2; off > 0; off >>= 1) {
      if (lane < off) part[l] += part[l + off];
      barrier(CLK_LOCAL_MEM_FENCE);
    }
    t = part[l];
  }
  if (lane == 0 && row < rows) y[row] = read_y ? alpha * t + beta * y[row] : alpha * t;
}
#endif
