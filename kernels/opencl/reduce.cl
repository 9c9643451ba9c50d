// Reductions: sum, sum of squares, dot (additive) and min, max, max |x| (selective), in two
// passes: pass 1 leaves one partial per work-group (gpu) or per work-item (cpu); pass 2 is
// the gpu tree kernel run as a single work-group over those partials.
//
// Accuracy of float sums: each partial is either a compensated (Kahan) sum, whose error does
// not grow with its length, or a sequential run short enough (cpu: REDUCE_CHUNK / (2 REDUCE_VW)
// additions per lane) that the whole reduction is a tree with short leaves.

#ifndef REDUCE_WG
#define REDUCE_WG 256        // gpu tree kernels: work-group size, a power of two
#endif
#ifndef REDUCE_CHUNK
#define REDUCE_CHUNK 4096  // cpu kernels: elements per work-item, a multiple of 2 * REDUCE_VW
#endif
#ifndef REDUCE_VW
#define REDUCE_VW 8               // vector width of the loads and accumulators
#endif

// ---- the six reductions as data: term of element i, how partials combine, the identity ----
#define TERM_ID(x, y, i) (x)[i]
#define TERM_SQ(x, y, i) ((x)[i] * (x)[i])
#define TERM_XY(x, y, i) ((x)[i] * (y)[i])
#define TERM_ABS(x, y, i) fabs((x)[i])
#define VTERM_ID(vx, vy) (vx)
#define VTERM_SQ(vx, vy) ((vx) * (vx))
#define VTERM_XY(vx, vy) ((vx) * (vy))
#define VTERM_ABS(vx, vy) fabs(vx)
// The ternary works lane-wise on vectors too (OpenCL C 1.2, 6.3.i). min keeps the earlier
// value on ties, as the reference's strict comparison does.
#define COMBINE_MIN(a, b) ((b) < (a) ? (b) : (a))
#define COMBINE_MAX(a, b) ((b) > (a) ? (b) : (a))
#define COMBINE_ADD(a, b) ((a) + (b))

// ---- horizontal combination of a REDUCE_VW-wide vector (a tree over the lanes) ----
#define HCOMB2(C, v) C((v).s0, (v).s1)
#define HCOMB4(C, v) HCOMB2(C, C((v).s01, (v).s23))
#define HCOMB8(C, v) HCOMB4(C, C((v).s0123, (v).s4567))
#define HCOMB16(C, v) HCOMB8(C, C((v).s01234567, (v).s89abcdef))
#if REDUCE_VW == 1
#define HCOMB(C, v) (v)
#else
#define HCOMB(C, v) TS_CAT(HCOMB, REDUCE_VW)(C, v)
#endif

// ---- gpu: grid-stride loop over REDUCE_VW-wide vectors (neighbouring work-items read neighbouring
//      vectors: coalesced, and REDUCE_VW x the bytes in flight per load, which f32 needs to reach the
//      memory bandwidth), Kahan-compensated lane by lane for the additive ops; the n % REDUCE_VW tail
//      elements go one per work-item; then a tree in local memory. Run with one group over the
//      partials, it is pass 2 for both kernel variants. ----
#if REDUCE_VW == 1
#define VECT REAL
#define LOADV(i, p) ((p)[i])
#else
#define VECT REALV(REDUCE_VW)
#define LOADV(i, p) VLOADN(REDUCE_VW)(i, p)
#endif

#define TREE_KERNEL_ADD(NAME, TERM, VTERM)                                                         \
  __kernel __attribute__((reqd_work_group_size(REDUCE_WG, 1, 1))) void NAME(                         \
      __global const REAL* x, __global const REAL* y, long n, __global REAL* partial) {            \
    __local REAL part[REDUCE_WG];                                                                    \
    VECT s = 0, c = 0; /* c: the low-order part lost so far, negated (Kahan) */                    \
    const long nv = n / REDUCE_VW;                                                                        \
    for (long v = get_global_id(0); v < nv; v += get_global_size(0)) {                             \
      const VECT xv = LOADV(v, x);                                                                 \
      const VECT yv = HAS_Y ? LOADV(v, y) : xv;                                                    \
      const VECT t = VTERM(xv, yv) - c;                                                            \
      const VECT u = s + t;                                                                        \
      c = (u - s) - t;                                                                             \
      s = u;                                                                                       \
    }                                                                                              \
    s -= c;                                                                                        \
    REAL r = HCOMB(COMBINE_ADD, s);                                                                \
    const long tail = nv * REDUCE_VW + get_global_id(0);                                                  \
    if (tail < n) r += TERM(x, y, tail);                                                           \
    const int l = get_local_id(0);                                                                 \
    part[l] = r;                                                                                   \
    barrier(CLK_LOCAL_MEM_FENCE);                                                                  \
    for (int off = REDUCE_WG / 2; off > 0; off >>= 1) {                                              \
      if (l < off) part[l] += part[l + off];                                                       \
      barrier(CLK_LOCAL_MEM_FENCE);                                                                \
    }                                                                                              \
    if (l == 0) partial[get_group_id(0)] = part[0];                                                \
  }

#define TREE_KERNEL_SEL(NAME, TERM, VTERM, COMBINE, IDENTITY)                                      \
  __kernel __attribute__((reqd_work_group_size(REDUCE_WG, 1, 1))) void NAME(                         \
      __global const REAL* x, __global const REAL* y, long n, __global REAL* partial) {            \
    __local REAL part[REDUCE_WG];                                                                    \
    VECT s = (VECT)(IDENTITY);                                                                     \
    const long nv = n / REDUCE_VW;                                                                        \
    for (long v = get_global_id(0); v < nv; v += get_global_size(0)) {                             \
      const VECT xv = LOADV(v, x);                                                                 \
      s = COMBINE(s, VTERM(xv, xv));                                                               \
    }                                                                                              \
    REAL r = HCOMB(COMBINE, s);                                                                    \
    const long tail = nv * REDUCE_VW + get_global_id(0);                                                  \
    if (tail < n) r = COMBINE(r, TERM(x, y, tail));                                                \
    const int l = get_local_id(0);                                                                 \
    part[l] = r;                                                                                   \
    barrier(CLK_LOCAL_MEM_FENCE);                                                                  \
    for (int off = REDUCE_WG / 2; off > 0; off >>= 1) {                                              \
      if (l < off) part[l] = COMBINE(part[l], part[l + off]);                                      \
      barrier(CLK_LOCAL_MEM_FENCE);                                                                \
    }                                                                                              \
    if (l == 0) partial[get_group_id(0)] = part[0];                                                \
  }

// ---- cpu: work-item w reduces elements [w * CHUNK, (w + 1) * CHUNK) with two REDUCE_VW-wide
//      accumulators (two independent dependency chains keep the FP adder busy), no local
//      memory, no barrier. Only the last work-item has a ragged end. ----
#define CHUNK_KERNEL(NAME, TERM, VTERM, COMBINE, IDENTITY)                                         \
  __kernel void NAME(__global const REAL* x, __global const REAL* y, long n,                       \
                     __global REAL* partial) {                                                     \
    const long w = get_global_id(0);                                                               \
    const long begin = w * REDUCE_CHUNK;                                                           \
    const long end = min(begin + (long)REDUCE_CHUNK, n);                                           \
    VECT a0 = (VECT)(IDENTITY), a1 = a0;                                                           \
    long i = begin;                                                                                \
    for (; i + 2 * REDUCE_VW <= end; i += 2 * REDUCE_VW) {                                                       \
      const VECT x0 = LOADV(0, x + i), x1 = LOADV(0, x + i + REDUCE_VW);                                  \
      VECT y0 = x0, y1 = x1;                                                                       \
      if (HAS_Y) {                                                                                 \
        y0 = LOADV(0, y + i);                                                                      \
        y1 = LOADV(0, y + i + REDUCE_VW);                                                                 \
      }                                                                                            \
      a0 = COMBINE(a0, VTERM(x0, y0));                                                             \
      a1 = COMBINE(a1, VTERM(x1, y1));                                                             \
    }                                                                                              \
    a0 = COMBINE(a0, a1);                                                                          \
    REAL s = HCOMB(COMBINE, a0);                                                                   \
    for (; i < end; ++i) s = COMBINE(s, TERM(x, y, i));                                            \
    if (begin < n) partial[w] = s;                                                                 \
  }

// The pass-2 kernels (sum, min, max over partials) exist for both kernel variants.
#define HAS_Y 0
TREE_KERNEL_ADD(reduce_sum_tree, TERM_ID, VTERM_ID)
TREE_KERNEL_SEL(reduce_min_tree, TERM_ID, VTERM_ID, COMBINE_MIN, INFINITY)
TREE_KERNEL_SEL(reduce_max_tree, TERM_ID, VTERM_ID, COMBINE_MAX, -INFINITY)
#if TESSERA_GPU_KERNELS
TREE_KERNEL_ADD(reduce_sum_squares_tree, TERM_SQ, VTERM_SQ)
TREE_KERNEL_SEL(reduce_max_abs_tree, TERM_ABS, VTERM_ABS, COMBINE_MAX, 0)
#endif
#if TESSERA_CPU_KERNELS
CHUNK_KERNEL(reduce_sum_chunks, TERM_ID, VTERM_ID, COMBINE_ADD, 0)
CHUNK_KERNEL(reduce_sum_squares_chunks, TERM_SQ, VTERM_SQ, COMBINE_ADD, 0)
CHUNK_KERNEL(reduce_min_chunks, TERM_ID, VTERM_ID, COMBINE_MIN, INFINITY)
CHUNK_KERNEL(reduce_max_chunks, TERM_ID, VTERM_ID, COMBINE_MAX, -INFINITY)
CHUNK_KERNEL(reduce_max_abs_chunks, TERM_ABS, VTERM_ABS, COMBINE_MAX, 0)
#endif
#undef HAS_Y
#define HAS_Y 1
#if TESSERA_GPU_KERNELS
TREE_KERNEL_ADD(reduce_dot_tree, TERM_XY, VTERM_XY)
#endif
#if TESSERA_CPU_KERNELS
CHUNK_KERNEL(reduce_dot_chunks, TERM_XY, VTERM_XY, COMBINE_ADD, 0)
#endif
