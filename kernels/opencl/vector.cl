// The vector algebra (backends/opencl/vector.cpp): fill, axpby and elementwise as streaming
// kernels (GPUs: one element per work-item, neighbouring work-items touching neighbouring
// elements; CPUs: a chunk of vector.chunk elements per work-item; and
// every view's offset is applied at the start, so no alignment is assumed), and the fused dots
// axpby_dot and dot2 as the first pass of a reduction (one ACC partial per work-group, grid-stride
// over the elements, a tree in local memory), whose partials reduce.cl's reduce_sum_final turns
// into the T result on the device (with REDUCE_SINGLE_PASS, the kernel's own last group: common.cl). Built with reduce.cl's tuning defines (REDUCE_WG) plus
// VECTOR_*, and -DTESSERA_ACC_FP64 for float data on devices with doubles.
#ifndef VECTOR_WG
#define VECTOR_WG 256
#endif
// Consecutive elements per work-item of the streaming kernels: 1 on GPUs (coalescing); CPUs run a
// loop over a chunk, which their compiler vectorises, and form the coefficient once per chunk.
#ifndef VECTOR_CHUNK
#define VECTOR_CHUNK 1
#endif
#define CHUNK_BEGIN ((long)get_global_id(0) * VECTOR_CHUNK)
#define CHUNK_END(n) min(CHUNK_BEGIN + VECTOR_CHUNK, (long)(n))
// The elements of this work-item in the streaming kernels. GPUs (VECTOR_CHUNK 1): grid-stride
// over a grid of vector.groups_per_cu groups per compute unit, so each work-item forms the
// coefficient (up to four scalar loads) once for many elements: one element per work-item made
// f32 axpy 60% of copy bandwidth on an H100 against 103% for f64 (bench/RESULTS.md).
#if VECTOR_CHUNK > 1
#define FOR_EACH_ELEMENT(i, n) for (long i = CHUNK_BEGIN, end_ = CHUNK_END(n); i < end_; ++i)
#else
#define FOR_EACH_ELEMENT(i, n) for (long i = get_global_id(0); i < (long)(n); i += get_global_size(0))
#endif
// GPUs also load and store f32 data REDUCE_VW elements at a time (the reductions' vector width,
// one decision for both): with single-element accesses f32 axpy reached 85 % of copy bandwidth
// on an H100 through NVIDIA's OpenCL, packs of 4 reach 99 % on an H200; f64 stays one element
// per access (103 % that way; double4 packs fell to 71 %). FOR_EACH_PACK walks packs k of
// STREAM_VW elements (vloadn(k, p): elements k * STREAM_VW ..., aligned to the element only,
// so any view offset works), FOR_EACH_TAIL the n % STREAM_VW elements after them.
#if VECTOR_CHUNK == 1 && defined(REDUCE_VW) && REDUCE_VW > 1 && !defined(TESSERA_FP64)
#define STREAM_VW REDUCE_VW
#define VREAL REALV(STREAM_VW)
#define VLOAD VLOADN(STREAM_VW)
#define VSTORE VSTOREN(STREAM_VW)
#define FOR_EACH_PACK(k, n) \
  for (long k = get_global_id(0); k < (long)(n) / STREAM_VW; k += get_global_size(0))
#define FOR_EACH_TAIL(i, n)                                                                         \
  for (long i = (long)(n) / STREAM_VW * STREAM_VW + get_global_id(0); i < (long)(n); i += get_global_size(0))
#else
#define STREAM_VW 1
#endif
// The fused dots' element order: GPUs: grid-stride (neighbouring work-items read neighbouring
// elements); CPUs (VECTOR_CHUNK > 1): each work-item a contiguous range, which stays in its core's
// caches and prefetchers. INDEX(base, u): the element of pass `base`, slot u.
#if VECTOR_CHUNK > 1
#define FUSED_SETUP(n)                                                  \
  const long len = ((n) + get_global_size(0) - 1) / get_global_size(0); \
  const long g = get_global_id(0) * len, stride = 1;                    \
  const long lim = min(g + len, (long)(n));
#else
#define FUSED_SETUP(n)                                                  \
  const long g = get_global_id(0), stride = get_global_size(0);         \
  const long lim = (n);
#endif
// Elements per work-item and pass of the fused dots' loop, all loaded before any is
// stored: the loads of one pass are in flight together (without restrict the compiler may not
// move a load of x past a store to y).
#define FUSED_UNROLL 4


// A coefficient (Coef on the host): value * num0 * num1 / (den0 * den1), each factor an element
// of a device buffer or absent (a NULL buffer argument). Formed once per work-item, in ACC
// (double for float data where the device has it), then rounded to REAL.
#define COEF_PARAMS(c)                                                                                \
  REAL c##_v, __global const REAL *c##_n0, long c##_n0o, __global const REAL *c##_n1, long c##_n1o, \
      __global const REAL *c##_d0, long c##_d0o, __global const REAL *c##_d1, long c##_d1o
#define COEF(c) coef(c##_v, c##_n0, c##_n0o, c##_n1, c##_n1o, c##_d0, c##_d0o, c##_d1, c##_d1o)
inline REAL coef(REAL v, __global const REAL* n0, long n0o, __global const REAL* n1, long n1o,
                 __global const REAL* d0, long d0o, __global const REAL* d1, long d1o) {
  ACC num = v, den = 1;
  if (n0) num *= n0[n0o];
  if (n1) num *= n1[n1o];
  if (d0) den *= d0[d0o];
  if (d1) den *= d1[d1o];
  return (REAL)(num / den);
}

// y = x converted from the other float type (OTHER_REAL: f64 into f32 data, f32 into f64),
// rounded to nearest even as a C++ cast (a float conversion without _sat: out of f32's range
// gives +-inf). Only on devices with doubles: either side is one (backends/opencl/vector.cpp
// refuses the call elsewhere). One element per access: the two sides' packs differ in width.
#if defined(TESSERA_FP64) || defined(TESSERA_ACC_FP64)
#ifdef TESSERA_FP64
#define OTHER_REAL float
#else
#define OTHER_REAL double
#endif
__kernel void vector_convert(__global const OTHER_REAL* x, long xoff, __global REAL* y, long yoff, long n) {
  x += xoff;
  y += yoff;
  FOR_EACH_ELEMENT(i, n) y[i] = TS_CAT(TS_CAT(convert_, REAL), _rte)(x[i]);
}
#undef OTHER_REAL
#endif

// y[i] = value. The coefficient is read before the element is written, so a one-element y may
// be one of its own factors.
__kernel void vector_fill(COEF_PARAMS(value), __global REAL* y, long yoff, long n) {
  const REAL v = COEF(value);
  y += yoff;
#if STREAM_VW > 1
  FOR_EACH_PACK(k, n) VSTORE((VREAL)(v), k, y);
  FOR_EACH_TAIL(i, n) y[i] = v;
#else
  FOR_EACH_ELEMENT(i, n) y[i] = v;
#endif
}

// y = alpha x + beta y; read_y = 0 (beta a host zero): y is only written. x may be y.
__kernel void vector_axpby(COEF_PARAMS(alpha), __global const REAL* x, long xoff, COEF_PARAMS(beta),
                           __global REAL* y, long yoff, long n, int read_y) {
  const REAL a = COEF(alpha), b = COEF(beta);
  x += xoff;
  y += yoff;
#if STREAM_VW > 1
  if (read_y) {
    FOR_EACH_PACK(k, n) VSTORE(a * VLOAD(k, x) + b * VLOAD(k, y), k, y);
    FOR_EACH_TAIL(i, n) y[i] = a * x[i] + b * y[i];
  } else {
    FOR_EACH_PACK(k, n) VSTORE(a * VLOAD(k, x), k, y);
    FOR_EACH_TAIL(i, n) y[i] = a * x[i];
  }
#else
  if (read_y)
    FOR_EACH_ELEMENT(i, n) y[i] = a * x[i] + b * y[i];
  else
    FOR_EACH_ELEMENT(i, n) y[i] = a * x[i];
#endif
}

// y1 = alpha1 x1 + beta1 y1, then y2 = alpha2 x2 + beta2 y2 (read_y*: as vector_axpby), at each
// element every load before either store: y2 may be x1 (CG's x += alpha p; p = z + beta p).
#define PAIR_STEP(LOAD, STORE, k)                                                   \
  {                                                                                 \
    const VALUE v1 = read_y1 ? a1 * LOAD(k, x1) + b1 * LOAD(k, y1) : a1 * LOAD(k, x1); \
    const VALUE v2 = read_y2 ? a2 * LOAD(k, x2) + b2 * LOAD(k, y2) : a2 * LOAD(k, x2); \
    STORE(v1, k, y1);                                                               \
    STORE(v2, k, y2);                                                               \
  }
#define ELEMENT_LOAD(k, p) (p)[k]
#define ELEMENT_STORE(v, k, p) (p)[k] = (v)
__kernel void vector_axpby_pair(COEF_PARAMS(alpha1), __global const REAL* x1, long x1off, COEF_PARAMS(beta1),
                                __global REAL* y1, long y1off, int read_y1, COEF_PARAMS(alpha2),
                                __global const REAL* x2, long x2off, COEF_PARAMS(beta2), __global REAL* y2,
                                long y2off, int read_y2, long n) {
  const REAL a1 = COEF(alpha1), b1 = COEF(beta1), a2 = COEF(alpha2), b2 = COEF(beta2);
  x1 += x1off;
  y1 += y1off;
  x2 += x2off;
  y2 += y2off;
#if STREAM_VW > 1
#define VALUE VREAL
  FOR_EACH_PACK(k, n) PAIR_STEP(VLOAD, VSTORE, k)
#undef VALUE
#define VALUE REAL
  FOR_EACH_TAIL(i, n) PAIR_STEP(ELEMENT_LOAD, ELEMENT_STORE, i)
#else
#define VALUE REAL
  FOR_EACH_ELEMENT(i, n) PAIR_STEP(ELEMENT_LOAD, ELEMENT_STORE, i)
#endif
#undef VALUE
}

// z = x * y (op 0), x / y (op 1) or 1 / x (op 2, y unread); z may be x or y.
__kernel void vector_elementwise(int op, __global const REAL* x, long xoff, __global const REAL* y, long yoff,
                                 __global REAL* z, long zoff, long n) {
  x += xoff;
  y += yoff;
  z += zoff;
#if STREAM_VW > 1
  if (op == 0) {
    FOR_EACH_PACK(k, n) VSTORE(VLOAD(k, x) * VLOAD(k, y), k, z);
    FOR_EACH_TAIL(i, n) z[i] = x[i] * y[i];
  } else if (op == 1) {
    FOR_EACH_PACK(k, n) VSTORE(VLOAD(k, x) / VLOAD(k, y), k, z);
    FOR_EACH_TAIL(i, n) z[i] = x[i] / y[i];
  } else {
    FOR_EACH_PACK(k, n) VSTORE((VREAL)(1) / VLOAD(k, x), k, z);
    FOR_EACH_TAIL(i, n) z[i] = (REAL)1 / x[i];
  }
#else
  if (op == 0)
    FOR_EACH_ELEMENT(i, n) z[i] = x[i] * y[i];
  else if (op == 1)
    FOR_EACH_ELEMENT(i, n) z[i] = x[i] / y[i];
  else
    FOR_EACH_ELEMENT(i, n) z[i] = (REAL)1 / x[i];
#endif
}

// The kernels with two sums: partials [0, groups) and [groups, 2 groups); with
// REDUCE_SINGLE_PASS the last group writes both results (out1, out2) and resets the ticket.
#define TWO_RESULTS_PARAMS __global int *ticket, __global REAL *out1, long out1_off, __global REAL *out2, long out2_off
#define FINISH_TWO_RESULTS(partial, part, last)                                  \
  if (REDUCE_SINGLE_PASS && last_group_arrived(ticket, &last)) {                \
    sum_partials(partial, get_num_groups(0), part, out1, out1_off, 0);           \
    sum_partials(partial + get_num_groups(0), get_num_groups(0), part, out2, out2_off, 0); \
    if (get_local_id(0) == 0) *ticket = 0;                                       \
  }

// y = alpha x + beta y, and this group's part of y . w (w_is_y: w is y, not read again).
__kernel __attribute__((reqd_work_group_size(REDUCE_WG, 1, 1))) void vector_axpby_dot(
    COEF_PARAMS(alpha), __global const REAL* x, long xoff, COEF_PARAMS(beta), __global REAL* y, long yoff,
    __global const REAL* w, long woff, int w_is_y, long n, int read_y, __global ACC* partial, __global int* ticket,
    __global REAL* out, long out_off) {
  __local ACC part[REDUCE_WG];
  __local int last;
  const REAL a = COEF(alpha), b = COEF(beta);
  x += xoff;
  y += yoff;
  w += woff;
  FUSED_SETUP(n)
  ACC s = 0;
  for (long base = g; base < lim; base += stride * FUSED_UNROLL) {
    REAL xv[FUSED_UNROLL], yv[FUSED_UNROLL], wv[FUSED_UNROLL];
#pragma unroll
    for (int u = 0; u < FUSED_UNROLL; ++u) {
      const long i = base + u * stride;
      xv[u] = i < lim ? x[i] : 0;
      yv[u] = i < lim && read_y ? y[i] : 0;
      wv[u] = i < lim && !w_is_y ? w[i] : 0;
    }
#pragma unroll
    for (int u = 0; u < FUSED_UNROLL; ++u) {
      const long i = base + u * stride;
      if (i < lim) {
        const REAL r = read_y ? a * xv[u] + b * yv[u] : a * xv[u];
        y[i] = r;
        s += (ACC)r * (ACC)(w_is_y ? r : wv[u]);
      }
    }
  }
  group_sum(s, part, partial, get_group_id(0));
  finish_single_pass(partial, part, ticket, &last, out, out_off, 0);
}

// This group's parts of x . y (partial[group]) and x . z (partial[groups + group]).
__kernel __attribute__((reqd_work_group_size(REDUCE_WG, 1, 1))) void vector_dot2(
    __global const REAL* x, long xoff, __global const REAL* y, long yoff, __global const REAL* z, long zoff, long n,
    __global ACC* partial, TWO_RESULTS_PARAMS) {
  __local ACC part[REDUCE_WG];
  __local int last;
  x += xoff;
  y += yoff;
  z += zoff;
  FUSED_SETUP(n)
  ACC sy = 0, sz = 0;
  for (long base = g; base < lim; base += stride * FUSED_UNROLL) {
    REAL xv[FUSED_UNROLL], yv[FUSED_UNROLL], zv[FUSED_UNROLL];
#pragma unroll
    for (int u = 0; u < FUSED_UNROLL; ++u) {
      const long i = base + u * stride;
      xv[u] = i < lim ? x[i] : 0;
      yv[u] = i < lim ? y[i] : 0;
      zv[u] = i < lim ? z[i] : 0;
    }
#pragma unroll
    for (int u = 0; u < FUSED_UNROLL; ++u) {
      sy += (ACC)xv[u] * (ACC)yv[u];
      sz += (ACC)xv[u] * (ACC)zv[u];
    }
  }
  group_sum(sy, part, partial, get_group_id(0));
  barrier(CLK_LOCAL_MEM_FENCE);  // part is reused
  group_sum(sz, part, partial, get_num_groups(0) + get_group_id(0));
  FINISH_TWO_RESULTS(partial, part, last);
}

// With update: r = r + alpha x first (axpy_multiply_dot2; else x and alpha are unread). Then
// z = d * r, and this group's parts of r . z (partial[group]) and r . r (partial[groups + group]).
__kernel __attribute__((reqd_work_group_size(REDUCE_WG, 1, 1))) void vector_multiply_dot2(
    COEF_PARAMS(alpha), __global const REAL* x, long xoff, int update, __global const REAL* d, long doff,
    __global REAL* r, long roff, __global REAL* z, long zoff, long n, __global ACC* partial, TWO_RESULTS_PARAMS) {
  __local ACC part[REDUCE_WG];
  __local int last;
  const REAL a = update ? COEF(alpha) : 0;
  x += xoff;
  d += doff;
  r += roff;
  z += zoff;
  FUSED_SETUP(n)
  ACC sz = 0, sr = 0;
  for (long base = g; base < lim; base += stride * FUSED_UNROLL) {
    REAL dv[FUSED_UNROLL], rv[FUSED_UNROLL];
#pragma unroll
    for (int u = 0; u < FUSED_UNROLL; ++u) {
      const long i = base + u * stride;
      dv[u] = i < lim ? d[i] : 0;
      rv[u] = i < lim ? r[i] : 0;
      if (update) rv[u] += i < lim ? a * x[i] : 0;
    }
#pragma unroll
    for (int u = 0; u < FUSED_UNROLL; ++u) {
      const long i = base + u * stride;
      const REAL zu = dv[u] * rv[u];
      if (update && i < lim) r[i] = rv[u];
      if (i < lim) z[i] = zu;
      sz += (ACC)rv[u] * (ACC)zu;
      sr += (ACC)rv[u] * (ACC)rv[u];
    }
  }
  group_sum(sz, part, partial, get_group_id(0));
  barrier(CLK_LOCAL_MEM_FENCE);  // part is reused
  group_sum(sr, part, partial, get_num_groups(0) + get_group_id(0));
  FINISH_TWO_RESULTS(partial, part, last);
}
