// gemm and conv_layer on NVIDIA GPUs through inline PTX (NVIDIA's OpenCL compiler only: the
// host selects these kernels when gemm.kernels = 2 and the platform is NVIDIA's,
// -DTESSERA_NVIDIA_PTX=1). The same design as the CUDA backend's gemm (gemm_async.cuh):
//  - tiles reach local memory through cp.async (sm_80+), STAGES k-tiles in flight: the copy of
//    tile t + STAGES - 1 overlaps the arithmetic on tile t, with no staging registers and one
//    barrier per k-tile;
//  - f64: the FP64 tensor cores, mma.sync m16n8k4 .f64 (sm_90; IEEE double FMAs, exact like
//    the FFMA path); 2 x 2 warps, each a WM x WN tile of 8 x 8 accumulator fragments;
//  - f32: FFMA, 16 x 16 work-items of 8 x 8 outputs in two 4 x 4 groups (rows ty * 4 and
//    BM / 2 + ty * 4, likewise the columns), read from local memory as float4: 4 vector reads
//    per 64 FMAs;
//  - f32 under MathMode::tf32 (MATH = 1; contract in tessera/types.hpp): the TF32 tensor cores
//    as the CUDA backend's mma.sync kernels (kernels/cuda/gemm_tf32.cuh), whose fragment layouts
//    and rounding this follows: mma.sync m16n8k8 .tf32, FP32 accumulators, 2 x 4 warps of
//    64 x 32 outputs; operands rounded (cvt.rna: to nearest, ties away) as they leave local
//    memory. Local rows padded to 8 mod 32 words (PAD 8): a fragment read is conflict-free.
//    tf32x3 runs the FFMA path: its three products per fragment here measured no faster than
//    FFMA (H100, n = 4096: 3.806 against 3.807 ms) at 11x its error (3.1e-5 against 2.8e-6).
// A is always gemm.cl's packed panels (width BM, Kp rows, Kp % BK == 0): a k-tile of a panel is
// BK * BM contiguous elements, copied in 16-byte pieces. B is either packed panels (width BN)
// or, with CONV_GATHER, the im2col matrix of a convolution gathered element by element from
// the NCHW input inside the tile copy (implicit GEMM: no im2col buffer); elements outside the
// image (padding) and past the last column are zero-filled by the copy itself (src-size 0).
// C's columns come in groups as in gemm.cl (one output image of P * Q columns per group).

#if !TESSERA_NVIDIA_PTX
#error "gemm_ptx.cl needs NVIDIA's OpenCL compiler (inline PTX); other devices run gemm.cl"
#endif

#ifndef BM
#define BM 128  // rows of C per work-group
#endif
#ifndef BN
#define BN 64   // columns of C per work-group
#endif
#ifndef BK
#define BK 8    // k per pipeline stage
#endif
#ifndef STAGES
#define STAGES 3  // k-tiles in flight (2, 3 or 4)
#endif
#ifndef PAD
#define PAD 0   // local row padding in elements (f64: 4, so a warp's fragment reads hit distinct banks)
#endif
#ifndef CONV_GATHER
#define CONV_GATHER 0
#endif
#ifndef MATH
#define MATH 0  // f32: 0 FFMA (exact, tf32x3), 1 TF32 tensor cores (tf32)
#endif

#define LDA_S (BM + PAD)
#define LDB_S (BN + PAD)
#define A_STAGE (BK * LDA_S)
#define B_STAGE (BK * LDB_S)
#define VEC (16 / (int)sizeof(REAL))  // elements per 16-byte copy

// The tensor-core paths (f64, f32 under MATH): warps of WM x WN outputs, WARPS_N across the
// tile, accumulators as 8 x 8 fragments acc[MT][NT][2] (an m16 mma's two halves are rows i and
// i + 1), so both store alike.
#if defined(TESSERA_FP64) || MATH
#define TENSOR_CORES 1
#else
#define TENSOR_CORES 0
#endif
#ifdef TESSERA_FP64
#define THREADS 128  // 2 x 2 warps
#define WM (BM / 2)
#define WN (BN / 2)
#define ELEM_BYTES "8"
#elif MATH
#define THREADS 256  // 2 x 4 warps
#define WM 64
#define WN 32
#define ELEM_BYTES "4"
#else
#define THREADS 256  // 16 x 16 work-items
#define TM 8
#define TN 8
#define ELEM_BYTES "4"
#endif
#if TENSOR_CORES
#define WARPS_N (BN / WN)
#define MT (WM / 8)  // 8-row fragments per warp
#define NT (WN / 8)  // 8-column fragments per warp
#endif

#if STAGES == 2
#define WAIT_PENDING "0"
#elif STAGES == 3
#define WAIT_PENDING "1"
#elif STAGES == 4
#define WAIT_PENDING "2"
#else
#error "STAGES must be 2, 3 or 4"
#endif

// A local pointer as a .shared address (what cp.async's destination takes): on NVIDIA's
// compiler a __local pointer's value is its offset in the shared window.
#define SHARED_ADDR(p) ((uint)(size_t)(p))

// 16 bytes global -> local, bypassing L1 (each tile element is read once per group).
#define CP_ASYNC_16(dst, src) \
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(SHARED_ADDR(dst)), "l"((ulong)(src)) : "memory")
// One element; only `bytes` (0 or sizeof(REAL)) are read, the rest is zero-filled.
#define CP_ASYNC_ELEM(dst, src, bytes)                                                                  \
  asm volatile("cp.async.ca.shared.global [%0], [%1], " ELEM_BYTES ", %2;" ::"r"(SHARED_ADDR(dst)), \
               "l"((ulong)(src)), "r"(bytes)                                                          \
               : "memory")
#define CP_ASYNC_COMMIT() asm volatile("cp.async.commit_group;" ::: "memory")
#define CP_ASYNC_WAIT(n) asm volatile("cp.async.wait_group " n ";" ::: "memory")

// k-tile k0 of a packed panel of width W into S[k][x] (row pitch LD).
#define COPY_PANEL_TILE(S, panel, k0, W, LD)                                  \
  for (int e = tid; e < BK * (W) / VEC; e += THREADS) {                       \
    const int kk = e / ((W) / VEC), x = (e % ((W) / VEC)) * VEC;              \
    CP_ASYNC_16((S) + kk * (LD) + x, (panel) + (long)((k0) + kk) * (W) + x);  \
  }

#if CONV_GATHER
// The convolution's B: row k = (c, r, s) of CRS, column j = (b, p, q) of images x P x Q.
// ktab[k] = (c * H * W + r * W + s, r, s) for k < CRS; r = -2^30 beyond (always outside).
// Work-item tid gathers column j = col0 + tid % BN for rows tid / BN + m * (THREADS / BN):
// neighbouring work-items read neighbouring q (coalesced) and write neighbouring words.
#define GATHER_ROWS (THREADS / BN)
#endif

#ifdef TESSERA_FP64
// acc (c0 c1 | c2 c3) += A (a0 | a1: rows l/4 and l/4 + 8, k l%4) * B (k l%4, column l/4).
#define DMMA16(c01, c23, a0, a1, b)                                                                            \
  asm("mma.sync.aligned.m16n8k4.row.col.f64.f64.f64.f64 {%0, %1, %2, %3}, {%4, %5}, {%6}, {%7, %8, %9, %10};" \
      : "=d"(c01[0]), "=d"(c01[1]), "=d"(c23[0]), "=d"(c23[1])                                                  \
      : "d"(a0), "d"(a1), "d"(b), "d"(c01[0]), "d"(c01[1]), "d"(c23[0]), "d"(c23[1]))
#endif

#if !defined(TESSERA_FP64) && MATH
// x rounded to TF32, as the bit pattern the mma reads (low 13 bits cleared).
inline uint tf32_bits(float x) {
  uint r;
  asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(r) : "f"(x));
  return r & 0xffffe000u;
}
// acc (c01: rows g, c23: rows g + 8, columns 2t, 2t + 1) += a (16 x 8, row) * b (8 x 8, col).
#define MMA_TF32(c01, c23, a, b)                                                                                 \
  asm("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "      \
      "{%10, %11, %12, %13};"                                                                                  \
      : "=f"(c01[0]), "=f"(c01[1]), "=f"(c23[0]), "=f"(c23[1])                                                 \
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "f"(c01[0]), "f"(c01[1]),           \
        "f"(c23[0]), "f"(c23[1]))
#endif

__kernel __attribute__((reqd_work_group_size(THREADS, 1, 1))) void gemm_ptx(
    __global const REAL* Ap, __global const REAL* Bsrc, __global REAL* C, long c_offset, long ldc, long M, int N,
    int Kp, REAL alpha, REAL beta, int read_c, int group_cols, long group_stride
#if CONV_GATHER
    ,
    __global const int4* ktab, int H, int W_in, int P, int Q, int stride_h, int stride_w, int pad_h, int pad_w,
    long image0, long image_elems
#endif
) {
  __local REAL smem[STAGES * (A_STAGE + B_STAGE)] __attribute__((aligned(16)));
  const int tid = get_local_id(0);
  const long row0 = (long)get_group_id(1) * BM;
  const int col0 = get_group_id(0) * BN;
  const __global REAL* a_panel = Ap + (long)get_group_id(1) * Kp * BM;
#if CONV_GATHER
  // This work-item's column: its image, and the input's top-left corner under its window.
  const int j = col0 + tid % BN;
  int h0 = -(1 << 30), w0 = 0;
  long base = 0;
  if (j < N) {
    const int b = j / (P * Q), pq = j - b * (P * Q), p = pq / Q, q = pq - p * Q;
    h0 = p * stride_h - pad_h;
    w0 = q * stride_w - pad_w;
    base = (image0 + b) * image_elems + (long)h0 * W_in + w0;
  }
#else
  const __global REAL* b_panel = Bsrc + (long)get_group_id(0) * Kp * BN;
#endif

  // Copies k-tile t into stage st.
#if CONV_GATHER
#define LOAD_B_TILE(Bs, k0)                                                                          \
  for (int m = 0; m < BK / GATHER_ROWS; ++m) {                                                      \
    const int kk = tid / BN + m * GATHER_ROWS;                                                      \
    const int4 kt = ktab[(k0) + kk];                                                                \
    const int ok = (uint)(h0 + kt.y) < (uint)H && (uint)(w0 + kt.z) < (uint)W_in;                  \
    CP_ASYNC_ELEM((Bs) + kk * LDB_S + tid % BN, ok ? Bsrc + base + kt.x : Bsrc, ok ? (int)sizeof(REAL) : 0); \
  }
#else
#define LOAD_B_TILE(Bs, k0) COPY_PANEL_TILE(Bs, b_panel, k0, BN, LDB_S)
#endif
#define LOAD_STAGE(st, k0)                                             \
  {                                                                    \
    __local REAL* As_ = smem + (st) * (A_STAGE + B_STAGE);             \
    __local REAL* Bs_ = As_ + A_STAGE;                                 \
    COPY_PANEL_TILE(As_, a_panel, k0, BM, LDA_S)                       \
    LOAD_B_TILE(Bs_, k0)                                               \
  }

#if TENSOR_CORES
  const int warp = tid / 32, lane = tid % 32;
  const int wm0 = (warp / WARPS_N) * WM, wn0 = (warp % WARPS_N) * WN;
  REAL acc[MT][NT][2];
#pragma unroll
  for (int i = 0; i < MT; ++i)
#pragma unroll
    for (int jn = 0; jn < NT; ++jn) acc[i][jn][0] = acc[i][jn][1] = 0;
#else
  const int tx = tid % 16, ty = tid / 16;
  REAL acc[TM][TN];
#pragma unroll
  for (int i = 0; i < TM; ++i)
#pragma unroll
    for (int jn = 0; jn < TN; ++jn) acc[i][jn] = 0;
#endif

  const int tiles = Kp / BK;
#pragma unroll
  for (int s = 0; s < STAGES - 1; ++s) {
    if (s < tiles) LOAD_STAGE(s, s * BK)
    CP_ASYNC_COMMIT();
  }
  int read = 0, write = STAGES - 1;
  for (int t = 0; t < tiles; ++t) {
    CP_ASYNC_WAIT(WAIT_PENDING);  // this work-item's copies of tile t have landed
    barrier(CLK_LOCAL_MEM_FENCE);  // everyone's have; everyone is done with tile t - 1
    if (t + STAGES - 1 < tiles) LOAD_STAGE(write, (t + STAGES - 1) * BK)
    CP_ASYNC_COMMIT();
    const __local REAL* as = smem + read * (A_STAGE + B_STAGE);
    const __local REAL* bs = as + A_STAGE;
#ifdef TESSERA_FP64
    const __local REAL* ap = as + (lane % 4) * LDA_S + wm0 + lane / 4;
    const __local REAL* bp = bs + (lane % 4) * LDB_S + wn0 + lane / 4;
#pragma unroll
    for (int kk = 0; kk < BK; kk += 4) {
      REAL a[MT], b[NT];
#pragma unroll
      for (int i = 0; i < MT; ++i) a[i] = ap[kk * LDA_S + i * 8];
#pragma unroll
      for (int jn = 0; jn < NT; ++jn) b[jn] = bp[kk * LDB_S + jn * 8];
#pragma unroll
      for (int jn = 0; jn < NT; ++jn)
#pragma unroll
        for (int i = 0; i < MT; i += 2) DMMA16(acc[i][jn], acc[i + 1][jn], a[i], a[i + 1], b[jn]);
    }
#elif MATH
    // Fragments (g = lane / 4, t = lane % 4): A a0 (g, t), a1 (g + 8, t), a2 (g, t + 4),
    // a3 (g + 8, t + 4); B b0 (k = t, n = g), b1 (k = t + 4, n = g); local memory is [k][x].
    const __local REAL* ap = as + (lane % 4) * LDA_S + wm0 + lane / 4;
    const __local REAL* bp = bs + (lane % 4) * LDB_S + wn0 + lane / 4;
#pragma unroll
    for (int kk = 0; kk < BK; kk += 8) {
      uint a[MT / 2][4];  // one per m16 fragment
#pragma unroll
      for (int i = 0; i < MT / 2; ++i) {
        const __local REAL* p = ap + kk * LDA_S + 16 * i;
        a[i][0] = tf32_bits(p[0]);
        a[i][1] = tf32_bits(p[8]);
        a[i][2] = tf32_bits(p[4 * LDA_S]);
        a[i][3] = tf32_bits(p[4 * LDA_S + 8]);
      }
#pragma unroll
      for (int jn = 0; jn < NT; ++jn) {
        const __local REAL* p = bp + kk * LDB_S + 8 * jn;
        const uint b[2] = {tf32_bits(p[0]), tf32_bits(p[4 * LDB_S])};
#pragma unroll
        for (int i = 0; i < MT; i += 2) MMA_TF32(acc[i][jn], acc[i + 1][jn], a[i / 2], b);
      }
    }
#else
#pragma unroll
    for (int kk = 0; kk < BK; ++kk) {
      // 16-byte aligned (rows of BM, BN floats): one ld.shared.v4 each.
      const float4 a_lo = *(const __local float4*)(as + kk * LDA_S + ty * 4);
      const float4 a_hi = *(const __local float4*)(as + kk * LDA_S + BM / 2 + ty * 4);
      const float4 b_lo = *(const __local float4*)(bs + kk * LDB_S + tx * 4);
      const float4 b_hi = *(const __local float4*)(bs + kk * LDB_S + BN / 2 + tx * 4);
      const REAL a[TM] = {a_lo.x, a_lo.y, a_lo.z, a_lo.w, a_hi.x, a_hi.y, a_hi.z, a_hi.w};
      const REAL b[TN] = {b_lo.x, b_lo.y, b_lo.z, b_lo.w, b_hi.x, b_hi.y, b_hi.z, b_hi.w};
#pragma unroll
      for (int i = 0; i < TM; ++i)
#pragma unroll
        for (int jn = 0; jn < TN; ++jn) acc[i][jn] = fma(a[i], b[jn], acc[i][jn]);
    }
#endif
    read = read + 1 == STAGES ? 0 : read + 1;
    write = write + 1 == STAGES ? 0 : write + 1;
  }
  CP_ASYNC_WAIT("0");

  // Stores: a column's offset in C (its group) once per column, then rows.
  C += c_offset;
#if TENSOR_CORES
  // acc[i][jn][e] is C(wm0 + 8 i + g, wn0 + 8 jn + 2 t + e).
  const long r0 = row0 + wm0 + lane / 4;
  const int cbase = col0 + wn0 + 2 * (lane % 4);
#pragma unroll
  for (int jn = 0; jn < NT; ++jn)
#pragma unroll
    for (int e = 0; e < 2; ++e) {
      const int col = cbase + 8 * jn + e;
      if (col >= N) continue;
      const long coff = (long)(col / group_cols) * group_stride + col % group_cols;
#pragma unroll
      for (int i = 0; i < MT; ++i) {
        const long row = r0 + 8 * i;
        if (row >= M) continue;
        __global REAL* c = C + coff + row * ldc;
        *c = read_c ? alpha * acc[i][jn][e] + beta * *c : alpha * acc[i][jn][e];
      }
    }
#else
#pragma unroll
  for (int jn = 0; jn < TN; ++jn) {
    const int col = col0 + (jn < 4 ? tx * 4 + jn : BN / 2 + tx * 4 + jn - 4);
    if (col >= N) continue;
    const long coff = (long)(col / group_cols) * group_stride + col % group_cols;
#pragma unroll
    for (int i = 0; i < TM; ++i) {
      const long row = row0 + (i < 4 ? ty * 4 + i : BM / 2 + ty * 4 + i - 4);
      if (row >= M) continue;
      __global REAL* c = C + coff + row * ldc;
      *c = read_c ? alpha * acc[i][jn] + beta * *c : alpha * acc[i][jn];
    }
  }
#endif
}
