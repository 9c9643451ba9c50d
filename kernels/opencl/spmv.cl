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

// gpu, short rows (profiles with spmv.stream_mean > 0): a group owns WG_SIZE consecutive rows,
// whose nonzeros are one contiguous run; the group reads the run with coalesced loads
// (STREAM_UNROLL per work-item in flight, no idle lanes however the row lengths fall) into
// products in local memory, STREAM_CHUNK at a time, and each work-item then sums its own row's
// products in order. Row pointers are read once per row, coalesced. Global (groups * WG_SIZE).
#ifndef STREAM_CHUNK
#define STREAM_CHUNK (8 * WG_SIZE)
#endif
#define STREAM_UNROLL (STREAM_CHUNK / WG_SIZE)
__kernel __attribute__((reqd_work_group_size(WG_SIZE, 1, 1))) void spmv_stream(
    __global const int* row_ptr, __global const int* col_idx, __global const REAL* values, __global const REAL* x,
    __global REAL* y, long rows, REAL alpha, REAL beta, int read_y) {
  __local REAL prod[STREAM_CHUNK];
  const int l = get_local_id(0);
  const long first = (long)get_group_id(0) * WG_SIZE;
  const long row = first + l;
  const long last = min(first + WG_SIZE, rows);
  const int my_begin = row_ptr[min(row, rows)];
  const int my_end = row < rows ? row_ptr[row + 1] : my_begin;
  const int group_begin = row_ptr[first], group_end = row_ptr[last];  // the same address for all
  REAL sum = 0;
  for (int base = group_begin; base < group_end; base += STREAM_CHUNK) {
    const int chunk_end = min(base + STREAM_CHUNK, group_end);
    int c[STREAM_UNROLL];
    REAL v[STREAM_UNROLL];
#pragma unroll
    for (int u = 0; u < STREAM_UNROLL; ++u) {
      const int j = base + l + WG_SIZE * u;
      c[u] = j < chunk_end ? col_idx[j] : 0;
      v[u] = j < chunk_end ? values[j] : 0;
    }
#pragma unroll
    for (int u = 0; u < STREAM_UNROLL; ++u)
      if (base + l + WG_SIZE * u < chunk_end) prod[l + WG_SIZE * u] = v[u] * x[c[u]];
    barrier(CLK_LOCAL_MEM_FENCE);
    const int lo = max(my_begin, base), hi = min(my_end, chunk_end);
    for (int j = lo; j < hi; ++j) sum += prod[j - base];
    barrier(CLK_LOCAL_MEM_FENCE);  // the chunk is read before the next one overwrites it
  }
  if (row < rows) y[row] = read_y ? alpha * sum + beta * y[row] : alpha * sum;
}

// The longest row, for choosing between the kernels (once per matrix): a maximum per group in
// local memory, then one global atomic per group. Global (rows rounded up to WG_SIZE).
__kernel __attribute__((reqd_work_group_size(WG_SIZE, 1, 1))) void spmv_max_row(__global const int* row_ptr,
                                                                                long rows, __global int* max_len) {
  __local int m;
  const long r = get_global_id(0);
  if (get_local_id(0) == 0) m = 0;
  barrier(CLK_LOCAL_MEM_FENCE);
  if (r < rows) atomic_max(&m, row_ptr[r + 1] - row_ptr[r]);
  barrier(CLK_LOCAL_MEM_FENCE);
  if (get_local_id(0) == 0 && m > 0) atomic_max(max_len, m);
}
#endif
