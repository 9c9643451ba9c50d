// y = alpha * A * x + beta * y for CSR (int32 indices). With read_y == 0 (beta == 0) y is only
// written, so NaNs in y do not propagate. Each row's products are summed in REAL.

#ifndef SPMV_WG
#define SPMV_WG 256  // spmv_vector: work-group size (a multiple of the lanes per row)
#endif
#ifndef SPMV_ROWS_PER_ITEM
#define SPMV_ROWS_PER_ITEM 16  // spmv_rows: consecutive rows per work-item
#endif

#if TESSERA_CPU_KERNELS  // cpu variant
// cpu: a work-item walks SPMV_ROWS_PER_ITEM consecutive rows, so its reads of row_ptr, col_idx and
// values are one contiguous stream (what a CPU's prefetcher wants).
__kernel void spmv_rows(__global const int* row_ptr, __global const int* col_idx, __global const REAL* values,
                        __global const REAL* x, long xoff, __global REAL* y, long yoff, long rows, REAL alpha, REAL beta,
                        int read_y) {
  x += xoff;  // views' offsets (elements)
  y += yoff;
  const long first = get_global_id(0) * (long)SPMV_ROWS_PER_ITEM;
  const long last = min(first + (long)SPMV_ROWS_PER_ITEM, rows);
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
// gpu: `lanes` consecutive work-items share a row (lanes a power of two <= SPMV_WG, chosen by the
// host from the mean row length): they read the row's entries side by side (coalesced), then
// add their partial sums in a tree in local memory.
// y[row] = alpha * sum + beta * y[row] (read_y == 0: y is only written); returns it.
inline REAL write_row(REAL sum, REAL alpha, REAL beta, int read_y, __global REAL* y, long row) {
  const REAL v = read_y ? alpha * sum + beta * y[row] : alpha * sum;
  y[row] = v;
  return v;
}

// The row sum of work-item l's row (valid in the row's lane 0); every work-item calls it.
inline REAL vector_row_sum(__global const int* row_ptr, __global const int* col_idx, __global const REAL* values,
                           __global const REAL* x, long rows, int lanes, __local REAL* part) {
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
  return t;
}
__kernel __attribute__((reqd_work_group_size(SPMV_WG, 1, 1))) void spmv_vector(
    __global const int* row_ptr, __global const int* col_idx, __global const REAL* values, __global const REAL* x,
    long xoff, __global REAL* y, long yoff, long rows, REAL alpha, REAL beta, int read_y, int lanes) {
  __local REAL part[SPMV_WG];
  x += xoff;
  y += yoff;
  const REAL t = vector_row_sum(row_ptr, col_idx, values, x, rows, lanes, part);
  const long row = get_global_id(0) / lanes;
  if ((get_local_id(0) & (lanes - 1)) == 0 && row < rows) write_row(t, alpha, beta, read_y, y, row);
}

// gpu, short rows (classes with spmv.stream_mean > 0): a group owns SPMV_WG consecutive rows,
// whose nonzeros are one contiguous run; the group reads the run with coalesced loads
// (STREAM_UNROLL per work-item in flight, no idle lanes however the row lengths fall) into
// products in local memory, STREAM_CHUNK at a time, and each work-item then sums its own row's
// products in order. Row pointers are read once per row, coalesced. Global (groups * SPMV_WG).
#ifndef STREAM_CHUNK
#define STREAM_CHUNK (8 * SPMV_WG)
#endif
#define STREAM_UNROLL (STREAM_CHUNK / SPMV_WG)
// Work-item l's row sum (rows beyond the last: 0); every work-item calls it.
inline REAL stream_row_sum(__global const int* row_ptr, __global const int* col_idx, __global const REAL* values,
                           __global const REAL* x, long rows, __local REAL* prod) {
  const int l = get_local_id(0);
  const long first = (long)get_group_id(0) * SPMV_WG;
  const long row = first + l;
  const long last = min(first + SPMV_WG, rows);
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
      const int j = base + l + SPMV_WG * u;
      c[u] = j < chunk_end ? col_idx[j] : 0;
      v[u] = j < chunk_end ? values[j] : 0;
    }
#pragma unroll
    for (int u = 0; u < STREAM_UNROLL; ++u)
      if (base + l + SPMV_WG * u < chunk_end) prod[l + SPMV_WG * u] = v[u] * x[c[u]];
    barrier(CLK_LOCAL_MEM_FENCE);
    const int lo = max(my_begin, base), hi = min(my_end, chunk_end);
    for (int j = lo; j < hi; ++j) sum += prod[j - base];
    barrier(CLK_LOCAL_MEM_FENCE);  // the chunk is read before the next one overwrites it
  }
  return sum;
}
__kernel __attribute__((reqd_work_group_size(SPMV_WG, 1, 1))) void spmv_stream(
    __global const int* row_ptr, __global const int* col_idx, __global const REAL* values, __global const REAL* x,
    long xoff, __global REAL* y, long yoff, long rows, REAL alpha, REAL beta, int read_y) {
  __local REAL prod[STREAM_CHUNK];
  x += xoff;
  y += yoff;
  const REAL sum = stream_row_sum(row_ptr, col_idx, values, x, rows, prod);
  const long row = (long)get_group_id(0) * SPMV_WG + get_local_id(0);
  if (row < rows) write_row(sum, alpha, beta, read_y, y, row);
}

#if defined(SPMV_DOT) && SPMV_WG == REDUCE_WG
// spmv_dot (backends/opencl/spmv.cpp): the kernels above, then out = w . y over the rows each
// work-item wrote, as a reduction's first pass (group_sum; built with reduce.cl's defines), its
// last group summing the partials with REDUCE_SINGLE_PASS: CG's A p and p . Ap in one launch.
#define SPMV_DOT_FINISH(s)                                \
  group_sum((ACC)(s), acc, partial, get_group_id(0));    \
  finish_single_pass(partial, acc, ticket, &last, out, out_off, 0);
// y[row] from its product sum, and w[row] * y[row] for the dot.
inline ACC write_row_dot(REAL sum, REAL alpha, REAL beta, int read_y, __global REAL* y, __global const REAL* w,
                         long row) {
  return (ACC)w[row] * (ACC)write_row(sum, alpha, beta, read_y, y, row);
}
#define SPMV_DOT_PARAMS \
  __global const REAL *w, long woff, __global ACC *partial, __global int *ticket, __global REAL *out, long out_off
__kernel __attribute__((reqd_work_group_size(SPMV_WG, 1, 1))) void spmv_stream_dot(
    __global const int* row_ptr, __global const int* col_idx, __global const REAL* values, __global const REAL* x,
    long xoff, __global REAL* y, long yoff, long rows, REAL alpha, REAL beta, int read_y, SPMV_DOT_PARAMS) {
  __local REAL prod[STREAM_CHUNK];
  __local ACC acc[REDUCE_WG];
  __local int last;
  x += xoff;
  y += yoff;
  w += woff;
  const REAL sum = stream_row_sum(row_ptr, col_idx, values, x, rows, prod);
  const long row = (long)get_group_id(0) * SPMV_WG + get_local_id(0);
  SPMV_DOT_FINISH(row < rows ? write_row_dot(sum, alpha, beta, read_y, y, w, row) : 0)
}
__kernel __attribute__((reqd_work_group_size(SPMV_WG, 1, 1))) void spmv_vector_dot(
    __global const int* row_ptr, __global const int* col_idx, __global const REAL* values, __global const REAL* x,
    long xoff, __global REAL* y, long yoff, long rows, REAL alpha, REAL beta, int read_y, int lanes,
    SPMV_DOT_PARAMS) {
  __local REAL part[SPMV_WG];
  __local ACC acc[REDUCE_WG];
  __local int last;
  x += xoff;
  y += yoff;
  w += woff;
  const REAL t = vector_row_sum(row_ptr, col_idx, values, x, rows, lanes, part);
  const long row = get_global_id(0) / lanes;
  SPMV_DOT_FINISH((get_local_id(0) & (lanes - 1)) == 0 && row < rows ? write_row_dot(t, alpha, beta, read_y, y, w, row)
                                                                      : 0)
}
#endif

// gpu, skewed rows (classes with spmv.merge_skew > 0, chosen where the longest row is many times
// the mean): the merge-path split (Merrill & Garland) of the row ends and the nonzeros into tiles
// of MERGE_TILE rows + nonzeros, so one huge row cannot stall a group while others idle (the
// CUDA backend's method). A group forms its tile's products with coalesced loads into local
// memory, each work-item walks SPMV_MERGE_ITEMS steps of the path, and rows cut by a work-item or a
// tile boundary are completed through carries: within the group through local memory, across
// groups by spmv_merge_fixup.
#ifndef SPMV_MERGE_ITEMS
#define SPMV_MERGE_ITEMS 4  // path steps (rows + nonzeros) per work-item
#endif
#define MERGE_TILE (SPMV_WG * SPMV_MERGE_ITEMS)

// Merge path over a = the row ends (a_len rows) and b = 0, 1, ..., b_len - 1 (nonzero indices):
// the (row, nonzero) split where `diag` items have been consumed. A row end is consumed once
// every nonzero before it is: a[i] <= j. Written once per address space (OpenCL 1.2 has no
// generic pointers).
#define MERGE_PATH_SEARCH(diag, a, a_len, b_len, row_out)   \
  do {                                                       \
    int lo_ = max((diag) - (b_len), 0), hi_ = min((diag), (a_len)); \
    while (lo_ < hi_) {                                      \
      const int mid_ = (lo_ + hi_) >> 1;                     \
      if ((a)[mid_] <= (diag) - mid_ - 1) lo_ = mid_ + 1;    \
      else hi_ = mid_;                                       \
    }                                                        \
    (row_out) = lo_;                                         \
  } while (0)

// Where each tile starts: coords[t] = (row, nonzero) at path item t * MERGE_TILE (the last, t ==
// tiles, is the end). Once per matrix. Global: tiles + 1 rounded up to SPMV_WG.
__kernel void spmv_merge_partition(__global const int* row_ptr, int rows, int nnz, int tiles,
                                   __global int2* coords) {
  const int t = get_global_id(0);
  if (t > tiles) return;
  const long total = (long)rows + nnz;
  const int diag = (int)min((long)t * MERGE_TILE, total);
  int row;
  MERGE_PATH_SEARCH(diag, row_ptr + 1, rows, nnz, row);
  coords[t] = (int2)(row, diag - row);
}

inline REAL merge_finish(REAL alpha, REAL sum, REAL beta, __global const REAL* y, int row, int read_y) {
  return read_y ? alpha * sum + beta * y[row] : alpha * sum;
}

// One tile per group. The row left open at the tile's end (and its partial sum) goes to
// carry_rows / carry_vals[group] for spmv_merge_fixup; every other row is written here, the
// first row of a work-item after the earlier work-items' parts of it are known.
__kernel __attribute__((reqd_work_group_size(SPMV_WG, 1, 1))) void spmv_merge(
    __global const int* row_ptr, __global const int* col_idx, __global const REAL* values, __global const REAL* x,
    long xoff, __global REAL* y, long yoff, int rows, REAL alpha, REAL beta, int read_y,
    __global const int2* coords, __global int* carry_rows, __global REAL* carry_vals) {
  __local int s_row_end[MERGE_TILE + 1];  // ends of the tile's rows, relative to its first nonzero
  __local REAL s_prod[MERGE_TILE];        // values[j] * x[col[j]] for the tile's nonzeros
  __local int s_carry_row[SPMV_WG];
  __local REAL s_carry_val[SPMV_WG];
  x += xoff;
  y += yoff;

  const int g = get_group_id(0), tid = get_local_id(0);
  const int2 c0 = coords[g], c1 = coords[g + 1];
  const int r0 = c0.x, z0 = c0.y;
  const int tile_rows = c1.x - r0, tile_nnz = c1.y - z0;

  // Row ends of rows r0 .. r0 + tile_rows; the last may be the row left open at the tile's end
  // (never completed here: its end lies past the tile), or past the matrix.
  for (int i = tid; i <= tile_rows; i += SPMV_WG)
    s_row_end[i] = r0 + i < rows ? row_ptr[r0 + i + 1] - z0 : INT_MAX;
  // All of a work-item's indices and values first, then its gathers: SPMV_MERGE_ITEMS loads of
  // each kind in flight at once (kernels/cuda/spmv.cu's merge kernel says what it gained there).
  int col[SPMV_MERGE_ITEMS];
  REAL val[SPMV_MERGE_ITEMS];
  for (int u = 0; u < SPMV_MERGE_ITEMS; ++u) {
    const int j = tid + u * SPMV_WG;
    col[u] = j < tile_nnz ? col_idx[z0 + j] : 0;
    val[u] = j < tile_nnz ? values[z0 + j] : (REAL)0;
  }
  for (int u = 0; u < SPMV_MERGE_ITEMS; ++u)
    if (tid + u * SPMV_WG < tile_nnz) s_prod[tid + u * SPMV_WG] = val[u] * x[col[u]];
  barrier(CLK_LOCAL_MEM_FENCE);

  const int tile_items = tile_rows + tile_nnz;
  const int d = min(tid * SPMV_MERGE_ITEMS, tile_items);
  int i;
  MERGE_PATH_SEARCH(d, s_row_end, tile_rows, tile_nnz, i);
  int j = d - i;
  REAL sum = 0;
  int first_done = 0, first_row = 0;
  REAL first_sum = 0;
  for (int k = 0; k < SPMV_MERGE_ITEMS && d + k < tile_items; ++k) {
    if (j < s_row_end[i]) {
      sum += s_prod[j];
      ++j;
    } else {
      if (!first_done) {  // may have begun in an earlier work-item: finished once the carries are known
        first_done = 1;
        first_row = i;
        first_sum = sum;
      } else {
        y[r0 + i] = merge_finish(alpha, sum, beta, y, r0 + i, read_y);
      }
      sum = 0;
      ++i;
    }
  }
  // The open rows (the row still open at each work-item's end, and its partial sum) are
  // non-decreasing in tid: a segmented inclusive scan by row (Hillis-Steele in local memory)
  // leaves in s_carry_val[t] the sum of t's open row over work-items 0..t. (A work-item walking
  // back over its predecessors one by one is a dependent chain as long as the row's span.)
  s_carry_row[tid] = i;
  s_carry_val[tid] = sum;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int off = 1; off < SPMV_WG; off <<= 1) {
    const REAL add = tid >= off && s_carry_row[tid - off] == i ? s_carry_val[tid - off] : (REAL)0;
    barrier(CLK_LOCAL_MEM_FENCE);
    s_carry_val[tid] += add;
    barrier(CLK_LOCAL_MEM_FENCE);
  }

  if (first_done) {
    // Earlier work-items of this group that ended inside first_row hold its beginning (work-item
    // tid - 1's open row is first_row whenever it holds any of it); earlier groups' parts arrive
    // through the fix-up pass.
    const REAL carry = tid > 0 && s_carry_row[tid - 1] == first_row ? s_carry_val[tid - 1] : (REAL)0;
    y[r0 + first_row] = merge_finish(alpha, carry + first_sum, beta, y, r0 + first_row, read_y);
  }
  if (tid == SPMV_WG - 1) {
    carry_rows[g] = r0 + i;
    carry_vals[g] = s_carry_val[tid];
  }
}

// Adds the carries of rows that span tiles, after spmv_merge wrote those rows' last parts. A row
// open at the end of several consecutive tiles has one carry per tile: the first tile of such a
// run adds them all (in order, no atomics: OpenCL 1.2 has no floating-point atomic add).
// Global: tiles rounded up to SPMV_WG.
__kernel void spmv_merge_fixup(__global const int* carry_rows, __global const REAL* carry_vals, int tiles, int rows,
                               REAL alpha, __global REAL* y, long yoff) {
  y += yoff;
  const int t = get_global_id(0);
  if (t >= tiles) return;
  const int row = carry_rows[t];
  if (row >= rows || (t > 0 && carry_rows[t - 1] == row)) return;
  REAL v = 0;
  for (int u = t; u < tiles && carry_rows[u] == row; ++u) v += carry_vals[u];
  if (v != 0) y[row] += alpha * v;
}
#endif

// SELL-C-sigma (plan/sell_layout.hpp; every class, chosen by the format policy): a work-item per
// slot (a row of a slice; slot = slice * c + lane), reading its row's j-th entry at
// slice_ptr[slice] + j * c + lane, so the c work-items of a slice read each step as one
// contiguous run. Every work-item runs to its slice's width (slice_ptr's difference / c; no
// per-row length is read); padding holds column -1 and value 0 and its gather is skipped, so it
// costs its streamed bytes but no read of x, and an infinite or NaN x never meets it. Steps go
// SPMV_SELL_STEPS at a time, their column and value loads issued before the first gather (the
// CUDA kernel's order; kernels/cuda/spmv.cu says what each change measured). c = 1 << log2c (a
// power of two, spmv.sell_c). sorted: perm gives each slot's row, else the slot is the row.
// Global: rows rounded up to the group size.
#ifndef SPMV_SELL_STEPS
#define SPMV_SELL_STEPS 4
#endif
__kernel void spmv_sell(__global const int* slice_ptr, __global const int* perm, int sorted, __global const int* col,
                        __global const REAL* val, __global const REAL* x, long xoff, __global REAL* y, long yoff,
                        int rows, int log2c, REAL alpha, REAL beta, int read_y) {
  const long gid = get_global_id(0);  // rows rounded up to the group size may pass INT_MAX
  if (gid >= rows) return;
  const int slot = (int)gid;
  x += xoff;
  y += yoff;
  const int c = 1 << log2c;
  const int s = slot >> log2c;
  const int first = slice_ptr[s];
  const int width = (slice_ptr[s + 1] - first) >> log2c;
  int k = first + (slot & (c - 1));
  REAL sum = 0;
  for (int j = 0; j < width; j += SPMV_SELL_STEPS, k += SPMV_SELL_STEPS * c) {
    int cc[SPMV_SELL_STEPS];
    REAL v[SPMV_SELL_STEPS];
#pragma unroll
    for (int u = 0; u < SPMV_SELL_STEPS; ++u) {
      const bool in = j + u < width;
      cc[u] = in ? col[k + u * c] : -1;
      v[u] = in ? val[k + u * c] : (REAL)0;
    }
#pragma unroll
    for (int u = 0; u < SPMV_SELL_STEPS; ++u) sum += v[u] * (cc[u] >= 0 ? x[cc[u]] : (REAL)0);
  }
  const int r = sorted ? perm[slot] : slot;
  y[r] = read_y ? alpha * sum + beta * y[r] : alpha * sum;
}

// The conversion from CSR on the device, once per matrix (with_cols) and after update_values
// (values only): a work-item per slot of every slice (the last slice's slots past the rows
// included) writes its row's entries, then padding (column -1, value 0) to the slice's width.
// Global: slots rounded up to the group size.
__kernel void spmv_sell_fill(__global const int* slice_ptr, __global const int* perm, int sorted,
                             __global const int* row_ptr, __global const int* col_idx, __global const REAL* values,
                             __global int* col, __global REAL* val, int rows, long slots, int log2c, int with_cols) {
  const long slot = get_global_id(0);  // slots may pass INT_MAX by less than c
  if (slot >= slots) return;
  const int c = 1 << log2c;
  const int s = (int)(slot >> log2c);
  const int width = (slice_ptr[s + 1] - slice_ptr[s]) >> log2c;
  int src = 0, len = 0;
  if (slot < rows) {
    const int r = sorted ? perm[slot] : (int)slot;
    src = row_ptr[r];
    len = row_ptr[r + 1] - src;
  }
  int k = slice_ptr[s] + (int)(slot & (c - 1));
  for (int j = 0; j < width; ++j, k += c) {
    val[k] = j < len ? values[src + j] : (REAL)0;
    if (with_cols) col[k] = j < len ? col_idx[src + j] : -1;
  }
}
