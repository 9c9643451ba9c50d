// C = alpha * op(A) * op(B) + beta * C (beta == 0: read_c = 0, C only written), in two steps:
//  1. gemm_pack copies op(A) and op(B) into panels: a panel holds W consecutive rows of op(A)
//     (or columns of op(B)) for every k, k-major, zero-padded to whole panels and to Kp. The
//     compute kernels then read one layout only, with no bounds checks and contiguous loads,
//     whatever the transposes and leading dimensions (the cost is O(mk + kn), next to O(mnk)).
//  2. gemm_tiled (gpu) or gemm_regblock (cpu) computes C tile by tile.
// Panel p of a packed operand with width W starts at p * Kp * W; element (k, w) is at k * W + w.
// A batch dimension (global dimension 2) serves conv_layer: B and C advance by their strides.

#ifndef MWG
#define MWG 64     // rows of C per work-group
#endif
#ifndef NWG
#define NWG 64     // columns of C per work-group
#endif
#ifndef KWG
#define KWG 16     // gpu: k-step through local memory
#endif
#ifndef MDIMC
#define MDIMC 16   // work-items per group along m
#endif
#ifndef NDIMC
#define NDIMC 16   // work-items per group along n
#endif
#ifndef VW
#define VW 1       // cpu: vector width along n
#endif

#define MWI (MWG / MDIMC)  // rows of C per work-item
#define NWI (NWG / NDIMC)  // columns of C per work-item
#define NV (NWI / VW)      // vectors per row of a work-item's block

#if VW == 1
#define VECT REAL
#define LOADV(off, p) ((p)[off])
#define STOREV(v, off, p) ((p)[off] = (v))
#else
#define VECT REALV(VW)
#define LOADV(off, p) VLOADN(VW)(off, p)
#define STOREV(v, off, p) VSTOREN(VW)(v, off, p)
#endif

// Panel widths of packed A and B, compile-time so that the index arithmetic below is shifts
// and multiplications, not divisions: (MWG, NWG) on gpus (a group's tile), (MWI, NWI) on cpus
// (a work-item's block). The host passes both.
#ifndef PANEL_A
#define PANEL_A MWG
#endif
#ifndef PANEL_B
#define PANEL_B NWG
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

__kernel void gemm_pack_a(__global const REAL* S, long ld, long rows, long K, int src_i_contiguous,
                          __global REAL* dst, long padded_rows, long Kp) {
  PACK_BODY(PANEL_A)
}

__kernel void gemm_pack_b(__global const REAL* S, long ld, long rows, long K, int src_i_contiguous,
                          __global REAL* dst, long padded_rows, long Kp) {
  PACK_BODY(PANEL_B)
}

// Writes one element of C: alpha * acc (+ beta * C).
#define STORE_C(idx, v) C[idx] = read_c ? alpha * (v) + beta * C[idx] : alpha * (v)
#define STORE_C_ROW(row, j, v) (row)[j] = read_c ? alpha * (v) + beta * (row)[j] : alpha * (v)

// gpu: a group stages KWG x MWG of A and KWG x NWG of B in local memory per step (contiguous
// copies, thanks to the panel layout), and each work-item accumulates an MWI x NWI block in
// registers. Work-item (tn, tm) owns rows tm + MDIMC * mi and columns tn + NDIMC * ni: at each
// local read, neighbouring work-items touch neighbouring words (no bank conflicts), and the
// stores of C are coalesced along rows. Panels: width MWG (A) and NWG (B); Kp % KWG == 0.
__kernel __attribute__((reqd_work_group_size(NDIMC, MDIMC, 1))) void gemm_tiled(
    __global const REAL* Ap, __global const REAL* Bp, long b_batch_stride, __global REAL* C, long c_offset,
    long c_batch_stride, long ldc, long M, long N, int Kp, REAL alpha, REAL beta, int read_c) {
  __local REAL As[KWG * MWG];
  __local REAL Bs[KWG * NWG];
  const int tn = get_local_id(0), tm = get_local_id(1);
  const int tid = tm * NDIMC + tn;
  const long batch = get_global_id(2);
  const __global REAL* a = Ap + (long)get_group_id(1) * Kp * MWG;
  const __global REAL* b = Bp + batch * b_batch_stride + (long)get_group_id(0) * Kp * NWG;
  REAL acc[MWI][NWI];
  #pragma unroll
  for (int mi = 0; mi < MWI; ++mi)
    #pragma unroll
    for (int ni = 0; ni < NWI; ++ni) acc[mi][ni] = 0;

  for (int k0 = 0; k0 < Kp; k0 += KWG) {
    for (int e = tid; e < KWG * MWG; e += MDIMC * NDIMC) As[e] = a[(long)k0 * MWG + e];
    for (int e = tid; e < KWG * NWG; e += MDIMC * NDIMC) Bs[e] = b[(long)k0 * NWG + e];
    barrier(CLK_LOCAL_MEM_FENCE);
    #pragma unroll
    for (int kk = 0; kk < KWG; ++kk) {
      REAL av[MWI], bv[NWI];
      #pragma unroll
      for (int mi = 0; mi < MWI; ++mi) av[mi] = As[kk * MWG + tm + mi * MDIMC];
      #pragma unroll
      for (int ni = 0; ni < NWI; ++ni) bv[ni] = Bs[kk * NWG + tn + ni * NDIMC];
      #pragma unroll
      for (int mi = 0; mi < MWI; ++mi)
        #pragma unroll
        for (int ni = 0; ni < NWI; ++ni) acc[mi][ni] = fma(av[mi], bv[ni], acc[mi][ni]);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
  }

  C += c_offset + batch * c_batch_stride;
  #pragma unroll
  for (int mi = 0; mi < MWI; ++mi) {
    const long i = (long)get_group_id(1) * MWG + tm + mi * MDIMC;
    if (i >= M) continue;
    #pragma unroll
    for (int ni = 0; ni < NWI; ++ni) {
      const long j = (long)get_group_id(0) * NWG + tn + ni * NDIMC;
      if (j < N) STORE_C(i * ldc + j, acc[mi][ni]);
    }
  }
}

// cpu: no local memory. Work-item (pn, pm) computes rows [pm * MWI, +MWI) and columns
// [pn * NWI, +NWI) of C: per k it loads NV vectors of B's panel and broadcasts MWI values of
// A's panel, MWI * NV independent FMA chains in registers (the micro-kernel of a CPU BLAS).
// Panels: width MWI (A) and NWI (B), Kp = K. A CPU driver runs a group's work-items one after
// another on one core; the barrier after each KWG-long slice of k makes all of them finish the
// slice before any starts the next, so the group's slices of A and B (MWG x KWG + KWG x NWG)
// are read from cache by every work-item but the first (cache blocking, without local memory).
// Work-items past the edge compute a clamped copy and store nothing: every work-item must
// reach every barrier.
__kernel __attribute__((reqd_work_group_size(NDIMC, MDIMC, 1))) void gemm_regblock(
    __global const REAL* Ap, __global const REAL* Bp, long b_batch_stride, __global REAL* C, long c_offset,
    long c_batch_stride, long ldc, long M, long N, int K, REAL alpha, REAL beta, int read_c, int panels_m,
    int panels_n) {
  const int pn = min((int)get_global_id(0), panels_n - 1), pm = min((int)get_global_id(1), panels_m - 1);
  const bool owner = get_global_id(0) < panels_n && get_global_id(1) < panels_m;
  const long batch = get_global_id(2);
  const __global REAL* a = Ap + (long)pm * K * MWI;
  const __global REAL* b = Bp + batch * b_batch_stride + (long)pn * K * NWI;
  VECT acc[MWI][NV];
#pragma unroll
  for (int mi = 0; mi < MWI; ++mi)
#pragma unroll
    for (int v = 0; v < NV; ++v) acc[mi][v] = 0;

  for (int k0 = 0; k0 < K; k0 += KWG) {
    const int k1 = min(k0 + KWG, K);
    for (int k = k0; k < k1; ++k) {
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
    barrier(CLK_GLOBAL_MEM_FENCE);
  }
  if (!owner) return;

  C += c_offset + batch * c_batch_stride;
  const long i0 = (long)pm * MWI, j0 = (long)pn * NWI;
#pragma unroll
  for (int mi = 0; mi < MWI; ++mi) {
    const long i = i0 + mi;
    if (i >= M) break;
    __global REAL* row = C + i * ldc;
#pragma unroll
    for (int v = 0; v < NV; ++v) {
      const long j = j0 + v * VW;
      if (j + VW <= N) {
        VECT r = alpha * acc[mi][v];
        if (read_c) r += beta * LOADV(0, row + j);
        STOREV(r, 0, row + j);
      } else {
        REAL lanes[VW];
        STOREV(acc[mi][v], 0, lanes);
        for (int l = 0; l < VW && j + l < N; ++l) STORE_C_ROW(row, j + l, lanes[l]);
      }
    }
  }
}
