// Reductions: sum, sum of squares, dot (additive) and min, max, max |x| (selective), in two
// passes: pass 1 leaves one partial per work-group (gpu) or per work-item (cpu); pass 2 is one
// work-group over those partials (reduce_sum_final: common.cl's sum_partials; the selective ones:
// their tree kernel). With REDUCE_SINGLE_PASS the gpu additive kernels end with pass 2
// themselves, in their last group (common.cl's last_group_arrived).
//
// Accuracy of float sums: each partial is either a compensated (Kahan) sum, whose error does
// not grow with its length, or a sequential run short enough (cpu: REDUCE_CHUNK / (2 REDUCE_VW)
// additions per lane) that the whole reduction is a tree with short leaves. The additive
// reductions accumulate in ACC: double whenever the device has cl_khr_fp64 (the host passes
// -DTESSERA_ACC_FP64 for float data), so float sums whose partial sums pass FLT_MAX, and
// squares and products of floats, do not overflow (the contract all devices share; README);
// the partials of the additive reductions are ACC too. min, max and max |x| are exact in REAL.

#ifndef REDUCE_CHUNK
#define REDUCE_CHUNK 4096  // cpu kernels: elements per work-item, a multiple of 2 * REDUCE_VW
#endif
#ifndef REDUCE_VW
#define REDUCE_VW 8               // vector width of the loads and accumulators
#endif

#define ACCV(n) TS_CAT(ACC, n)

// ---- the six reductions as data: term of element i, how partials combine, the identity ----
// TERM_*: one element, widened to AT (the accumulator type); VTERM_*: a vector, already widened.
#define TERM_ID(AT, x, y, i) ((AT)(x)[i])
#define TERM_SQ(AT, x, y, i) ((AT)(x)[i] * (AT)(x)[i])
#define TERM_XY(AT, x, y, i) ((AT)(x)[i] * (AT)(y)[i])
#define TERM_ABS(AT, x, y, i) fabs((AT)(x)[i])
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
//      elements go one per work-item; then a tree in local memory. The selective kernels, run
//      with one group over the partials, are also pass 2 of both kernel variants. ----
// VEC(AT): a REDUCE_VW-wide vector of AT; LOADV(AT, i, p): vector i of p, converted to AT when
// p's elements are of another type (WIDEN(AT, v)): a plain load otherwise, so the f64 kernels
// and the min/max kernels compile exactly as without the wide accumulators.
#if REDUCE_VW == 1
#define VEC(AT) AT
#define LOADV(AT, i, p) ((AT)(p)[i])
#else
#define VEC(AT) TS_CAT(AT, REDUCE_VW)
#define LOADV(AT, i, p) WIDEN(AT, VLOADN(REDUCE_VW)(i, p))
#endif
#if defined(TESSERA_ACC_FP64) && REDUCE_VW > 1
#define WIDEN(AT, v) TS_CAT(convert_, VEC(AT))(v)
#else
#define WIDEN(AT, v) (v)
#endif
// Kahan compensation where the accumulator is the data's own type; double accumulators of float
// data need none (their rounding stays far below a float's for any length that fits memory),
// and leaving it out keeps the widened kernels at the loads' pace.
#ifdef TESSERA_ACC_FP64
#define COMPENSATED 0
#else
#define COMPENSATED 1
#endif

// Pass 1 of the additive reductions: x and y start xoff and yoff elements into their buffers
// (views' offsets); one ACC partial per group into partial[group]. The n % REDUCE_VW tail
// elements go one per work-item: the grid must have at least REDUCE_VW - 1 work-items, which
// validate_tuning guarantees (reduce.wg >= reduce.vw). A loop over the tail instead cost the f64
// dot a quarter of its bandwidth on NVIDIA (registers: occupancy). With REDUCE_SINGLE_PASS the
// last group writes the REAL result to out[out_off] (root: its square root) and resets `ticket`.
#define TREE_KERNEL_ADD(NAME, TERM, VTERM)                                                         \
  __kernel __attribute__((reqd_work_group_size(REDUCE_WG, 1, 1))) void NAME(                       \
      __global const REAL* x, long xoff, __global const REAL* y, long yoff, long n,                \
      __global ACC* partial, __global int* ticket, __global REAL* out, long out_off, int root) {   \
    __local ACC part[REDUCE_WG];                                                                   \
    __local int last;                                                                              \
    x += xoff;                                                                                     \
    y += yoff;                                                                                     \
    VEC(ACC) s = 0, c = 0; /* c: the low-order part lost so far, negated (Kahan) */                \
    const long nv = n / REDUCE_VW;                                                                 \
    for (long v = get_global_id(0); v < nv; v += get_global_size(0)) {                             \
      const VEC(ACC) xv = LOADV(ACC, v, x);                                                        \
      const VEC(ACC) yv = HAS_Y ? LOADV(ACC, v, y) : xv;                                           \
      if (COMPENSATED) {                                                                           \
        const VEC(ACC) t = VTERM(xv, yv) - c;                                                      \
        const VEC(ACC) u = s + t;                                                                  \
        c = (u - s) - t;                                                                           \
        s = u;                                                                                     \
      } else {                                                                                     \
        s += VTERM(xv, yv);                                                                        \
      }                                                                                            \
    }                                                                                              \
    s -= c;                                                                                        \
    ACC r = HCOMB(COMBINE_ADD, s);                                                                 \
    const long tail = nv * REDUCE_VW + get_global_id(0);                                           \
    if (tail < n) r += TERM(ACC, x, y, tail);                                                      \
    group_sum(r, part, partial, get_group_id(0));                                                  \
    finish_single_pass(partial, part, ticket, &last, out, out_off, root);                          \
  }

#define TREE_KERNEL_SEL(NAME, TERM, VTERM, COMBINE, IDENTITY)                                      \
  __kernel __attribute__((reqd_work_group_size(REDUCE_WG, 1, 1))) void NAME(                       \
      __global const REAL* x, long xoff, __global const REAL* y, long yoff, long n,                \
      __global REAL* out, long out_off, int root) {                                                \
    __local REAL part[REDUCE_WG];                                                                  \
    x += xoff;                                                                                     \
    VEC(REAL) s = (VEC(REAL))(IDENTITY);                                                           \
    const long nv = n / REDUCE_VW;                                                                 \
    for (long v = get_global_id(0); v < nv; v += get_global_size(0)) {                             \
      const VEC(REAL) xv = LOADV(REAL, v, x);                                                      \
      s = COMBINE(s, VTERM(xv, xv));                                                               \
    }                                                                                              \
    REAL r = HCOMB(COMBINE, s);                                                                    \
    const long tail = nv * REDUCE_VW + get_global_id(0);                                           \
    if (tail < n) r = COMBINE(r, TERM(REAL, x, y, tail));                                          \
    const int l = get_local_id(0);                                                                 \
    part[l] = r;                                                                                   \
    barrier(CLK_LOCAL_MEM_FENCE);                                                                  \
    for (int off = REDUCE_WG / 2; off > 0; off >>= 1) {                                            \
      if (l < off) part[l] = COMBINE(part[l], part[l + off]);                                      \
      barrier(CLK_LOCAL_MEM_FENCE);                                                                \
    }                                                                                              \
    if (l == 0) out[out_off + get_group_id(0)] = part[0];                                          \
  }

// ---- cpu: work-item w reduces elements [w * CHUNK, (w + 1) * CHUNK) with two REDUCE_VW-wide
//      accumulators (two independent dependency chains keep the FP adder busy), no local
//      memory, no barrier. Only the last work-item has a ragged end. ----
// AT: the accumulator and partial type (ACC for the additive reductions, REAL for the others).
#define CHUNK_KERNEL(NAME, AT, TERM, VTERM, COMBINE, IDENTITY)                                     \
  __kernel void NAME(__global const REAL* x, long xoff, __global const REAL* y, long yoff, long n,  \
                     __global AT* partial) {                                                       \
    const long w = get_global_id(0);                                                               \
    x += xoff;                                                                                     \
    y += yoff;                                                                                     \
    const long begin = w * REDUCE_CHUNK;                                                           \
    const long end = min(begin + (long)REDUCE_CHUNK, n);                                           \
    VEC(AT) a0 = (VEC(AT))(IDENTITY), a1 = a0;                                                     \
    long i = begin;                                                                                \
    for (; i + 2 * REDUCE_VW <= end; i += 2 * REDUCE_VW) {                                         \
      const VEC(AT) x0 = LOADV(AT, 0, x + i), x1 = LOADV(AT, 0, x + i + REDUCE_VW);                \
      VEC(AT) y0 = x0, y1 = x1;                                                                    \
      if (HAS_Y) {                                                                                 \
        y0 = LOADV(AT, 0, y + i);                                                                  \
        y1 = LOADV(AT, 0, y + i + REDUCE_VW);                                                      \
      }                                                                                            \
      a0 = COMBINE(a0, VTERM(x0, y0));                                                             \
      a1 = COMBINE(a1, VTERM(x1, y1));                                                             \
    }                                                                                              \
    a0 = COMBINE(a0, a1);                                                                          \
    AT s = HCOMB(COMBINE, a0);                                                                     \
    for (; i < end; ++i) s = COMBINE(s, TERM(AT, x, y, i));                                        \
    if (begin < n) partial[w] = s;                                                                 \
  }

// Pass 2 over the partials: reduce_sum_final sums ACC partials (every additive reduction, and the
// fused dots of vector.cl) into the REAL result; min and max run on REAL partials (max |x|'s
// partials are already absolute values).
#define HAS_Y 0
__kernel __attribute__((reqd_work_group_size(REDUCE_WG, 1, 1))) void reduce_sum_final(
    __global const ACC* partial, long first, long count, __global REAL* out, long out_off, int root) {
  __local ACC part[REDUCE_WG];
  sum_partials(partial + first, count, part, out, out_off, root);
}
TREE_KERNEL_SEL(reduce_min_tree, TERM_ID, VTERM_ID, COMBINE_MIN, INFINITY)
TREE_KERNEL_SEL(reduce_max_tree, TERM_ID, VTERM_ID, COMBINE_MAX, -INFINITY)
#if TESSERA_GPU_KERNELS
TREE_KERNEL_ADD(reduce_sum_tree, TERM_ID, VTERM_ID)
TREE_KERNEL_ADD(reduce_sum_squares_tree, TERM_SQ, VTERM_SQ)
TREE_KERNEL_SEL(reduce_max_abs_tree, TERM_ABS, VTERM_ABS, COMBINE_MAX, 0)
#endif
#if TESSERA_CPU_KERNELS
CHUNK_KERNEL(reduce_sum_chunks, ACC, TERM_ID, VTERM_ID, COMBINE_ADD, 0)
CHUNK_KERNEL(reduce_sum_squares_chunks, ACC, TERM_SQ, VTERM_SQ, COMBINE_ADD, 0)
CHUNK_KERNEL(reduce_min_chunks, REAL, TERM_ID, VTERM_ID, COMBINE_MIN, INFINITY)
CHUNK_KERNEL(reduce_max_chunks, REAL, TERM_ID, VTERM_ID, COMBINE_MAX, -INFINITY)
CHUNK_KERNEL(reduce_max_abs_chunks, REAL, TERM_ABS, VTERM_ABS, COMBINE_MAX, 0)
#endif
#undef HAS_Y
#define HAS_Y 1
#if TESSERA_GPU_KERNELS
TREE_KERNEL_ADD(reduce_dot_tree, TERM_XY, VTERM_XY)
#endif
#if TESSERA_CPU_KERNELS
CHUNK_KERNEL(reduce_dot_chunks, ACC, TERM_XY, VTERM_XY, COMBINE_ADD, 0)
#endif
