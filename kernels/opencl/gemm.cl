// C = alpha * op(A) * op(B) + beta * C (beta == 0: read_c = 0, C only written), in two steps:
//  1. gemm_pack copies op(A) and op(B) into panels: a panel holds W consecutive rows of op(A)
//     (or columns of op(B)) for every k, k-major, zero-padded to whole panels and to Kp. The
//     compute kernels then read one layout only, with no bounds checks and contiguous loads,
//     whatever the transposes and leading dimensions (the cost is O(mk + kn), next to O(mnk)).
//  2. gemm_tiled (gpu) or gemm_regblock (cpu) computes C tile by tile.
// Panel p of a packed operand with width W starts at p * Kp * W; element (k, w) is at k * W + w.
// C's columns come in groups of `group_cols` (conv_layer: one output image of P * Q columns
// per group, the images side by side in one wide product), group g starting at C + g *
// group_stride: element (i, j) is at (j / group_cols) * group_stride + i * ldc + j % group_cols.
// A plain gemm has one group (group_cols = n).

#ifndef GEMM_MWG
#define GEMM_MWG 64     // rows of C per work-group
#endif
#ifndef GEMM_NWG
#define GEMM_NWG 64     // columns of C per work-group
#endif
#ifndef GEMM_KWG
#define GEMM_KWG 16     // gpu: k-step through local memory
#endif
#ifndef GEMM_MDIMC
#define GEMM_MDIMC 16   // work-items per group along m
#endif
#ifndef GEMM_NDIMC
#define GEMM_NDIMC 16   // work-items per group along n
#endif
#ifndef GEMM_VW
#define GEMM_VW 1       // cpu: vector width along n
#endif

#define MWI (GEMM_MWG / GEMM_MDIMC)  // rows of C per work-item
#define NWI (GEMM_NWG / GEMM_NDIMC)  // columns of C per work-item
#define NV (NWI / GEMM_VW)      // vectors per row of a work-item's block

#if GEMM_VW == 1
#define VECT REAL
#define LOADV(off, p) ((p)[off])
#define STOREV(v, off, p) ((p)[off] = (v))
#else
#define VECT REALV(GEMM_VW)
#define LOADV(off, p) VLOADN(GEMM_VW)(off, p)
#define STOREV(v, off, p) VSTOREN(GEMM_VW)(v, off, p)
#endif

// Panel widths of packed A and B, compile-time so that the index arithmetic below is shifts
// and multiplications, not divisions: (GEMM_MWG, GEMM_NWG) on gpus (a group's tile), (MWI, NWI) on cpus
// (a work-item's block). The host passes both.
#ifndef PANEL_A
#define PANEL_A GEMM_MWG
#endif
#ifndef PANEL_B
#define PANEL_B GEMM_NWG
#endif

// dst <- op(S)(i, k) for i < rows, k < K, zero elsewhere up to (padded_rows, Kp), in panels of
// width W. op(S)(i, k) = S[k * ld + i] when src_i_contiguous, else S[i * ld + k]. Global
// dimension 0 runs along the source's contiguous index, so reads are coalesced (gpu) or
// streamed (cpu).
#define PACK_BODY(W)                                                                             \
  const long g0 = get_global_id(0), g1 = get_global_id(1);                                       \
  const long i = src_i_contiguous ? g0 : g1;                                                     \
  const long k = src_i_contiguous ? g1 : g0;                                                     \
  if (i >= padded_rows || k >= Kp) return;                                                       \
  REAL v = 0;                                                                                    \
  if (i < rows && k < K) v = src_i_contiguous ? S[k * ld + i] : S[i * ld + k];                   \
  dst[(i / (W)) * Kp * (W) + k * (W) + (i % (W))] = v;

__kernel void gemm_pack_a(__global const REAL* S, long S_off, long ld, long rows, long K, int src_i_contiguous,
                          __global REAL* dst, long padded_rows, long Kp) {
  S += S_off;
  PACK_BODY(PANEL_A)
}

__kernel void gemm_pack_b(__global const REAL* S, long S_off, long ld, long rows, long K, int src_i_contiguous,
                          __global REAL* dst, long padded_rows, long Kp) {
  S += S_off;
  PACK_BODY(PANEL_B)
}

// Writes one element of C: alpha * acc (+ beta * C).
#define C_INDEX(i, j) (((j) / group_cols) * group_stride + (i) * ldc + (j) % group_cols)
#define STORE_C(idx, v) C[idx] = read_c ? alpha * (v) + beta * C[idx] : alpha * (v)

#if TESSERA_GPU_KERNELS  // gpu variant
// gpu: a group stages GEMM_KWG x GEMM_MWG of A and GEMM_KWG x GEMM_NWG of B in local memory per step (contiguous
// copies, thanks to the panel layout), and each work-item accumulates an MWI x NWI block in
// registers. Work-item (tn, tm) owns rows tm + GEMM_MDIMC * mi and columns tn + GEMM_NDIMC * ni: at each
// local read, neighbouring work-items touch neighbouring words (no bank conflicts), and the
// stores of C are coalesced along rows. Panels: width GEMM_MWG (A) and GEMM_NWG (B); Kp % GEMM_KWG == 0.
__kernel __attribute__((reqd_work_group_size(GEMM_NDIMC, GEMM_MDIMC, 1))) void gemm_tiled(
    __global const REAL* Ap, __global const REAL* Bp, __global REAL* C, long c_offset, long ldc, long M, int N,
    int Kp, REAL alpha, REAL beta, int read_c, int group_cols, long group_stride) {
  __local REAL As[GEMM_KWG * GEMM_MWG];
  __local REAL Bs[GEMM_KWG * GEMM_NWG];
  const int tn = get_local_id(0), tm = get_local_id(1);
  const int tid = tm * GEMM_NDIMC + tn;
  const __global REAL* a = Ap + (long)get_group_id(1) * Kp * GEMM_MWG;
  const __global REAL* b = Bp + (long)get_group_id(0) * Kp * GEMM_NWG;
  REAL acc[MWI][NWI];
  #pragma unroll
  for (int mi = 0; mi < MWI; ++mi)
    #pragma unroll
    for (int ni = 0; ni < NWI; ++ni) acc[mi][ni] = 0;

  for (int k0 = 0; k0 < Kp; k0 += GEMM_KWG) {
    for (int e = tid; e < GEMM_KWG * GEMM_MWG; e += GEMM_MDIMC * GEMM_NDIMC) As[e] = a[(long)k0 * GEMM_MWG + e];
    for (int e = tid; e < GEMM_KWG * GEMM_NWG; e += GEMM_MDIMC * GEMM_NDIMC) Bs[e] = b[(long)k0 * GEMM_NWG + e];
    barrier(CLK_LOCAL_MEM_FENCE);
    #pragma unroll
    for (int kk = 0; kk < GEMM_KWG; ++kk) {
      REAL av[MWI], bv[NWI];
      #pragma unroll
      for (int mi = 0; mi < MWI; ++mi) av[mi] = As[kk * GEMM_MWG + tm + mi * GEMM_MDIMC];
      #pragma unroll
      for (int ni = 0; ni < NWI; ++ni) bv[ni] = Bs[kk * GEMM_NWG + tn + ni * GEMM_NDIMC];
      #pragma unroll
      for (int mi = 0; mi < MWI; ++mi)
        #pragma unroll
        for (int ni = 0; ni < NWI; ++ni) acc[mi][ni] = fma(av[mi], bv[ni], acc[mi][ni]);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
  }

  C += c_offset;
  #pragma unroll
  for (int mi = 0; mi < MWI; ++mi) {
    const long i = (long)get_group_id(1) * GEMM_MWG + tm + mi * GEMM_MDIMC;
    if (i >= M) continue;
    #pragma unroll
    for (int ni = 0; ni < NWI; ++ni) {
      const int j = get_group_id(0) * GEMM_NWG + tn + ni * GEMM_NDIMC;
      if (j < N) STORE_C(C_INDEX(i, j), acc[mi][ni]);
    }
  }
}
#endif

#if TESSERA_CPU_KERNELS  // cpu variant
// cpu: no local memory. Work-item (pn, pm) computes rows [pm * MWI, +MWI) and columns
// [pn * NWI, +NWI) of C: per k it loads NV vectors of B's panel and broadcasts MWI values of
// A's panel, MWI * NV independent FMA chains in registers (the micro-kernel of a CPU BLAS).
// Panels: width MWI (A) and NWI (B), Kp = K. A CPU driver runs a group's GEMM_MDIMC x GEMM_NDIMC
// work-items one after another on one core, so they share their panels through its caches.
// No barrier: k-slices separated by barriers (cache blocking) measured no faster on PoCL and
// made its compile of this kernel 5x slower (it must keep the accumulators of every work-item
// alive across each barrier).
// vec_type_hint: the kernel is vectorised by hand (Intel's CPU compiler then does not vectorise
// across work-items on top of it).
__kernel __attribute__((reqd_work_group_size(GEMM_NDIMC, GEMM_MDIMC, 1))) __attribute__((vec_type_hint(VECT)))
void gemm_regblock(
    __global const REAL* Ap, __global const REAL* Bp, __global REAL* C, long c_offset, long ldc, long M, int N,
    int K, REAL alpha, REAL beta, int read_c, int group_cols, long group_stride, int panels_m, int panels_n) {
  const int pn = get_global_id(0), pm = get_global_id(1);
  if (pn >= panels_n || pm >= panels_m) return;
  const __global REAL* a = Ap + (long)pm * K * MWI;
  const __global REAL* b = Bp + (long)pn * K * NWI;
  VECT acc[MWI][NV];
#pragma unroll
  for (int mi = 0; mi < MWI; ++mi)
#pragma unroll
    for (int v = 0; v < NV; ++v) acc[mi][v] = 0;

  for (int k = 0; k < K; ++k) {
    VECT bv[NV];
#pragma unroll
    for (int v = 0; v < NV; ++v) bv[v] = LOADV(v, b + (long)k * NWI);
#pragma unroll
    for (int mi = 0; mi < MWI; ++mi) {
      const VECT av = (VECT)(a[(long)k * MWI + mi]);
#pragma unroll
      for (int v = 0; v < NV; ++v) acc[mi][v] = fma(av, bv[v], acc[mi][v]);
    }
  }

  C += c_offset;
  const long i0 = (long)pm * MWI;
  const int j0 = pn * NWI;
#pragma unroll
  for (int mi = 0; mi < MWI; ++mi) {
    const long i = i0 + mi;
    if (i >= M) break;
#pragma unroll
    for (int v = 0; v < NV; ++v) {
      const int j = j0 + v * GEMM_VW;
      if (j + GEMM_VW <= N && j % group_cols + GEMM_VW <= group_cols) {  // GEMM_VW contiguous elements of C
        __global REAL* c = C + C_INDEX(i, j);
        VECT r = alpha * acc[mi][v];
        if (read_c) r += beta * LOADV(0, c);
        STOREV(r, 0, c);
      } else {
        REAL lanes[GEMM_VW];
        STOREV(acc[mi][v], 0, lanes);
        for (int l = 0; l < GEMM_VW && j + l < N; ++l) STORE_C(C_INDEX(i, j + l), lanes[l]);
      }
    }
  }
}
#endif
