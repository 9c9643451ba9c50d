// f32 gemm on the TF32 tensor cores (MathMode::tf32 and tf32x3, contract in types.hpp):
// mma.sync.aligned.m16n8k8 .tf32 with FP32 accumulators, on gemm_async.cuh's cp.async pipeline
// and loaders unchanged (shared memory S[k][x], any transpose, leading dimension and offset,
// zero-filled edges). Operands stay FP32 in shared memory; each fragment is converted when it
// is read into registers:
//   tf32:   x -> tf32(x) (cvt.rna: round to nearest, ties away from zero, as the reference's
//           round_to_tf32 in backends/reference/tf32.hpp), one mma per fragment pair;
//   tf32x3: x -> hi = tf32(x), lo = tf32(x - hi) (x - hi is exact in FP32), and three mmas,
//           lo*hi and hi*lo before hi*hi (the small terms first, so they are not rounded away
//           against the large one before they have summed), into a zeroed accumulator per 8-k
//           step that is then added to the running sum in FP32.
// Fragment layouts (PTX ISA, m16n8k8 .tf32; g = lane / 4, t = lane % 4):
//   A (16 x 8, row): a0 (g, t), a1 (g + 8, t), a2 (g, t + 4), a3 (g + 8, t + 4)
//   B (8 x 8, col):  b0 (k = t, n = g), b1 (k = t + 4, n = g)
//   C (16 x 8):      c0 (g, 2t), c1 (g, 2t + 1), c2 (g + 8, 2t), c3 (g + 8, 2t + 1)
// In S[k][x] with a row pitch of 8 mod 32 words, a warp's 32 reads of one fragment register
// fall in banks 8t + g: all distinct (no conflicts), for A and B alike.
#pragma once

#include <cassert>

#include "kernels/cuda/gemm_async.cuh"

namespace tessera::cuda {

template <int BM_, int BN_, int BK_, int STAGES_, int WM_, int WN_, bool SPLIT_, int MIN_BLOCKS_>
struct TmmaCfg {
  using T = float;
  static constexpr int BM = BM_, BN = BN_, BK = BK_, STAGES = STAGES_, WM = WM_, WN = WN_;
  static constexpr bool SPLIT = SPLIT_;  // tf32x3
  static constexpr int MIN_BLOCKS = MIN_BLOCKS_;
  static constexpr int WARPS_N = BN / WN, WARPS = (BM / WM) * (BN / WN);
  static constexpr int THREADS = 32 * WARPS;
  static constexpr int MT = WM / 16, NT = WN / 8;  // m16n8 fragments per warp
  using ATile = OperandTile<T, BM, BK, THREADS>;
  using BTile = OperandTile<T, BN, BK, THREADS>;
  static constexpr int SMEM_BYTES = STAGES * (ATile::ELEMS + BTile::ELEMS) * static_cast<int>(sizeof(T));
  static_assert(BK % 8 == 0 && WM % 16 == 0 && WN % 8 == 0 && BM % WM == 0 && BN % WN == 0, "fragment shapes");
  static_assert(ATile::LD % 32 == 8 && BTile::LD % 32 == 8, "fragment reads are conflict-free at pitch 8 mod 32");
};

// x rounded to TF32 (round to nearest, ties away), as the 32-bit pattern the mma reads. The
// low 13 bits are cleared explicitly: the split below reads the result back as a float.
__device__ __forceinline__ unsigned tf32_bits(float x) {
  unsigned r;
  asm("cvt.rna.tf32.f32 %0, %1;\n" : "=r"(r) : "f"(x));
  return r & 0xffffe000u;
}
// The TF32 operand(s) of x: hi alone (tf32) or hi and lo = tf32(x - hi) (tf32x3).
template <bool SPLIT>
__device__ __forceinline__ void tf32_split(float x, unsigned& hi, unsigned& lo) {
  hi = tf32_bits(x);
  if constexpr (SPLIT) lo = tf32_bits(x - __uint_as_float(hi));
}

__device__ __forceinline__ void mma_tf32(float (&c)[4], const unsigned (&a)[4], const unsigned (&b)[2]) {
  asm("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
      "{%0, %1, %2, %3};\n"
      : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

// tf32x3's k-step (the order of its products: the head of this file): into a fresh accumulator,
// then added in FP32 (round to nearest): the tensor cores' own additions truncate, and into the
// running sum they drifted with k (1.4e-4 at k = 16384, against cuBLAS FP32's 1.8e-6). Also the
// direct convolution's (conv_direct_tc.cu).
__device__ __forceinline__ void mma_tf32x3_step(float (&acc)[4], const unsigned (&ahi)[4], const unsigned (&alo)[4],
                                                const unsigned (&bhi)[2], const unsigned (&blo)[2]) {
  float step[4] = {0.f, 0.f, 0.f, 0.f};
  mma_tf32(step, alo, bhi);
  mma_tf32(step, ahi, blo);
  mma_tf32(step, ahi, bhi);
#pragma unroll
  for (int e = 0; e < 4; ++e) acc[e] += step[e];
}

// One k-tile from shared memory: each warp's WM x WN outputs, BK / 8 mma k-steps.
template <class Cfg>
__device__ __forceinline__ void tmma_tile(const float* as, const float* bs, float (&acc)[Cfg::MT][Cfg::NT][4]) {
  constexpr int LDA = Cfg::ATile::LD, LDB = Cfg::BTile::LD;
  const int w = threadIdx.x / 32, l = threadIdx.x % 32;
  const int g = l / 4, t = l % 4;
  const int wm0 = (w / Cfg::WARPS_N) * Cfg::WM, wn0 = (w % Cfg::WARPS_N) * Cfg::WN;
  const float* ap = as + t * LDA + wm0 + g;  // (k = t, row g) of the warp's first fragment
  const float* bp = bs + t * LDB + wn0 + g;  // (k = t, col g)
#pragma unroll
  for (int kk = 0; kk < Cfg::BK; kk += 8) {
    // All of A's fragments for this k-step stay live; B's are converted one column block at a
    // time (tf32x3's hi/lo pairs of both would not fit the 128 registers of 2 blocks per SM).
    unsigned ahi[Cfg::MT][4], alo[Cfg::MT][4];
#pragma unroll
    for (int i = 0; i < Cfg::MT; ++i) {
      const float* p = ap + kk * LDA + 16 * i;
      tf32_split<Cfg::SPLIT>(p[0], ahi[i][0], alo[i][0]);
      tf32_split<Cfg::SPLIT>(p[8], ahi[i][1], alo[i][1]);
      tf32_split<Cfg::SPLIT>(p[4 * LDA], ahi[i][2], alo[i][2]);
      tf32_split<Cfg::SPLIT>(p[4 * LDA + 8], ahi[i][3], alo[i][3]);
    }
#pragma unroll
    for (int j = 0; j < Cfg::NT; ++j) {
      unsigned bhi[2], blo[2];
      const float* p = bp + kk * LDB + 8 * j;
      tf32_split<Cfg::SPLIT>(p[0], bhi[0], blo[0]);
      tf32_split<Cfg::SPLIT>(p[4 * LDB], bhi[1], blo[1]);
#pragma unroll
      for (int i = 0; i < Cfg::MT; ++i) {
        if constexpr (Cfg::SPLIT) {
          mma_tf32x3_step(acc[i][j], ahi[i], alo[i], bhi, blo);
        } else {
          mma_tf32(acc[i][j], ahi[i], bhi);
        }
      }
    }
  }
}

template <class Cfg, bool TA, bool TB, int VEC>
__global__ __launch_bounds__(Cfg::THREADS, Cfg::MIN_BLOCKS) void gemm_tmma_kernel(
    GemmProblem s, float alpha, const float* __restrict__ A, const float* __restrict__ B, float beta,
    float* __restrict__ C) {
#ifndef NDEBUG
  assert(blockDim.x == Cfg::THREADS);
#endif
  extern __shared__ __align__(16) unsigned char gemm_smem[];
  float* smem = reinterpret_cast<float*>(gemm_smem);
  std::int64_t row0, col0;
  block_start<Cfg>(s, A, B, C, row0, col0);
  const ALoaderOf<Cfg, TA, VEC> al(A, s.lda, s.m, s.k, row0);
  const BLoaderOf<Cfg, TB, VEC> bl(B, s.ldb, s.n, s.k, col0);
  float acc[Cfg::MT][Cfg::NT][4];
#pragma unroll
  for (int i = 0; i < Cfg::MT; ++i)
#pragma unroll
    for (int j = 0; j < Cfg::NT; ++j)
#pragma unroll
      for (int e = 0; e < 4; ++e) acc[i][j][e] = 0.f;
  const int tiles = static_cast<int>((s.k + Cfg::BK - 1) / Cfg::BK);
  async_pipeline<Cfg::STAGES, Cfg::ATile::ELEMS, Cfg::BTile::ELEMS>(
      al, bl, tiles, Cfg::BK, smem, [&](const float* as, const float* bs) { tmma_tile<Cfg>(as, bs, acc); });

  // acc[i][j][2h + e] is C(16 i + 8 h + g, 8 j + 2 t + e) of the warp's tile.
  const int w = threadIdx.x / 32, l = threadIdx.x % 32;
  const std::int64_t r0 = row0 + (w / Cfg::WARPS_N) * Cfg::WM + l / 4;
  const std::int64_t c0 = col0 + (w % Cfg::WARPS_N) * Cfg::WN + 2 * (l % 4);
#pragma unroll
  for (int i = 0; i < Cfg::MT; ++i)
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const std::int64_t row = r0 + 16 * i + 8 * h;
      if (row >= s.m) continue;
#pragma unroll
      for (int j = 0; j < Cfg::NT; ++j)
#pragma unroll
        for (int e = 0; e < 2; ++e) {
          const std::int64_t col = c0 + 8 * j + e;
          if (col < s.n) store_out(s, C, row, col, alpha, beta, acc[i][j][2 * h + e]);
        }
    }
}

template <int BM, int BN, int BK, int ST, int WM, int WN, bool SPLIT, int MB, bool TA, bool TB, int VEC>
struct GemmKernel<TmmaCfg<BM, BN, BK, ST, WM, WN, SPLIT, MB>, TA, TB, VEC> {
  static auto get() { return gemm_tmma_kernel<TmmaCfg<BM, BN, BK, ST, WM, WN, SPLIT, MB>, TA, TB, VEC>; }
};

}  // namespace tessera::cuda
