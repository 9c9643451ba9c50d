// SpMM: Y = alpha * A * X + beta * Y, CSR A, row-major X and Y (views' offsets and leading
// dimensions), k columns. A work-item per (column j, row i): get_global_id(0) = j, so the
// work-items of a group that share a row read consecutive elements of each row of X (one
// coalesced run per stored entry on GPUs) and the same entry of A (a broadcast). The group is
// (lx, ly): lx = min(power of two >= k, 32) columns of ly rows (the host's choice).
// Global: (lx * ceil(k / lx), ly * ceil(rows / ly)). read_y = 0: beta == 0, Y is not read.
__kernel void spmm_csr(__global const int* row_ptr, __global const int* col_idx, __global const REAL* values,
                       long rows, long k, __global const REAL* X, long xoff, long ldx, __global REAL* Y, long yoff,
                       long ldy, REAL alpha, REAL beta, int read_y) {
  const long j = get_global_id(0), i = get_global_id(1);
  if (i >= rows || j >= k) return;
  X += xoff + j;
  __global REAL* y = Y + yoff + i * ldy + j;
  const int end = row_ptr[i + 1];
  // Two partial sums: the loads of neighbouring products overlap (as spmv_rows).
  REAL s0 = 0, s1 = 0;
  int p = row_ptr[i];
  for (; p + 1 < end; p += 2) {
    s0 += values[p] * X[(long)col_idx[p] * ldx];
    s1 += values[p + 1] * X[(long)col_idx[p + 1] * ldx];
  }
  if (p < end) s0 += values[p] * X[(long)col_idx[p] * ldx];
  REAL r = alpha * (s0 + s1);
  if (read_y) r += beta * *y;
  *y = r;
}
