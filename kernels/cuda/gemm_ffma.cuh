// Exact f32 gemm on the FFMA units with the fragments of the next k-step always in flight.
//
// gemm_async.cuh's loop loads a k-step's fragments from shared memory, then multiplies them; the
// barrier of each k-tile comes before its first loads. Here (as cuBLAS's sm80 FFMA kernels do,
// read in their SASS) the fragments live in two register sets: those of step kk + 1 are loaded
// while step kk's products issue, and the barrier that makes the next k-tile readable sits
// before the tile's last step, so the first fragments of the next tile are loaded behind the
// products of this one. STAGES k-tiles are in shared memory; at the barrier of tile t the copy of
// tile t + STAGES goes into tile t's stage (every read of it has been issued by then).
//
// Thread tile TM x TN in groups of four rows (columns), the groups BM / (TM / 4) apart: a warp's
// 16-byte fragment loads fall on consecutive words (one wavefront each). Interior k-tiles of
// interior blocks take the loaders' unpredicated copies (load_full).
#pragma once

#include "kernels/cuda/gemm_async.cuh"

namespace tessera::cuda {

template <int BM_, int BN_, int BK_, int STAGES_, int TM_, int TN_, int MIN_BLOCKS_>
struct FfmaCfg {
  using T = float;
  static constexpr int BM = BM_, BN = BN_, BK = BK_, STAGES = STAGES_, TM = TM_, TN = TN_;
  static constexpr int THREADS = (BM / TM) * (BN / TN);
  static constexpr int MIN_BLOCKS = MIN_BLOCKS_;
  static constexpr int GM = TM / 4, GN = TN / 4;          // groups of four rows / columns
  static constexpr int GM_STEP = BM / GM, GN_STEP = BN / GN;  // their distance in the tile
  using ATile = OperandTile<T, BM, BK, THREADS>;
  using BTile = OperandTile<T, BN, BK, THREADS>;
  static constexpr int STAGE = ATile::ELEMS + BTile::ELEMS;
  static constexpr int SMEM_BYTES = STAGES * STAGE * static_cast<int>(sizeof(T));
  static_assert(TM % 4 == 0 && TN % 4 == 0 && BK % 2 == 0, "groups of four, an even number of k-steps");
};

// Step kk's fragments: `as` / `bs` point at this thread's first row / column of a stage.
template <class Cfg>
__device__ __forceinline__ void ffma_frags(const float* as, const float* bs, int kk, float (&a)[Cfg::TM],
                                           float (&b)[Cfg::TN]) {
#pragma unroll
  for (int g = 0; g < Cfg::GM; ++g) load_frag<float, 4>(as + kk * Cfg::ATile::LD + g * Cfg::GM_STEP, a + 4 * g);
#pragma unroll
  for (int g = 0; g < Cfg::GN; ++g) load_frag<float, 4>(bs + kk * Cfg::BTile::LD + g * Cfg::GN_STEP, b + 4 * g);
}

template <class Cfg, class AL, class BL>
__device__ __forceinline__ void ffma_copy(const AL& al, const BL& bl, bool interior, std::int64_t K, float* stage,
                                          int tile) {
  const int k0 = tile * Cfg::BK;
  if (interior && k0 + Cfg::BK <= K) {
    al.load_full(stage, k0);
    bl.load_full(stage + Cfg::ATile::ELEMS, k0);
  } else {
    al.load(stage, k0);
    bl.load(stage + Cfg::ATile::ELEMS, k0);
  }
}

template <class Cfg, class AL, class BL>
__device__ __forceinline__ void ffma_mainloop(const AL& al, const BL& bl, std::int64_t K, float* smem,
                                              float (&acc)[Cfg::TM][Cfg::TN]) {
  constexpr int S = Cfg::STAGES, BK = Cfg::BK;
  const int tiles = static_cast<int>((K + BK - 1) / BK);
  const bool interior = al.interior() && bl.interior();
#pragma unroll
  for (int s = 0; s < S; ++s) {
    if (s < tiles) ffma_copy<Cfg>(al, bl, interior, K, smem + s * Cfg::STAGE, s);
    cp_async_commit();
  }
  cp_async_wait<S - 1>();
  __syncthreads();

  const int tx = threadIdx.x % (Cfg::BN / Cfg::TN), ty = threadIdx.x / (Cfg::BN / Cfg::TN);
  const float* const a0 = smem + ty * 4;
  const float* const b0 = smem + Cfg::ATile::ELEMS + tx * 4;
  int rd = 0;  // the stage being read
  float fa[2][Cfg::TM], fb[2][Cfg::TN];
  ffma_frags<Cfg>(a0, b0, 0, fa[0], fb[0]);
  for (int t = 0; t < tiles; ++t) {
#pragma unroll
    for (int kk = 0; kk < BK; ++kk) {
      if (kk == BK - 1) {
        cp_async_wait<S - 2>();  // this thread's copies of tile t + 1 have landed
        __syncthreads();         // everyone's have; every read of tile t has been issued
        if (t + S < tiles) ffma_copy<Cfg>(al, bl, interior, K, smem + rd * Cfg::STAGE, t + S);
        cp_async_commit();
        rd = rd + 1 == S ? 0 : rd + 1;
      }
      if (kk + 1 < BK || t + 1 < tiles)
        ffma_frags<Cfg>(a0 + rd * Cfg::STAGE, b0 + rd * Cfg::STAGE, (kk + 1) % BK, fa[(kk + 1) % 2],
                        fb[(kk + 1) % 2]);
#pragma unroll
      for (int i = 0; i < Cfg::TM; ++i)
#pragma unroll
        for (int j = 0; j < Cfg::TN; ++j) acc[i][j] = fmaf(fa[kk % 2][i], fb[kk % 2][j], acc[i][j]);
    }
  }
  cp_async_wait<0>();
}

template <class Cfg, bool TA, bool TB, int VEC>
__global__ __launch_bounds__(Cfg::THREADS, Cfg::MIN_BLOCKS) void gemm_ffma_kernel(
    GemmProblem s, float alpha, const float* __restrict__ A, const float* __restrict__ B, float beta,
    float* __restrict__ C) {
  extern __shared__ __align__(16) unsigned char gemm_smem[];
  float* smem = reinterpret_cast<float*>(gemm_smem);
  std::int64_t row0, col0;
  block_start<Cfg>(s, A, B, C, row0, col0);
  const ALoaderOf<Cfg, TA, VEC> al(A, s.lda, s.m, s.k, row0);
  const BLoaderOf<Cfg, TB, VEC> bl(B, s.ldb, s.n, s.k, col0);
  float acc[Cfg::TM][Cfg::TN];
#pragma unroll
  for (int i = 0; i < Cfg::TM; ++i)
#pragma unroll
    for (int j = 0; j < Cfg::TN; ++j) acc[i][j] = 0.f;
  ffma_mainloop<Cfg>(al, bl, s.k, smem, acc);

  const int tx = threadIdx.x % (Cfg::BN / Cfg::TN), ty = threadIdx.x / (Cfg::BN / Cfg::TN);
#pragma unroll
  for (int i = 0; i < Cfg::TM; ++i) {
    const std::int64_t row = row0 + tile_row<Cfg>(ty, i);
    if (row >= s.m) continue;
#pragma unroll
    for (int j = 0; j < Cfg::TN; ++j) {
      const std::int64_t col = col0 + tile_col<Cfg>(tx, j);
      if (col < s.n) store_out(s, C, row, col, alpha, beta, acc[i][j]);
    }
  }
}

// The f32 gemm's tiles (launch.hpp's GemmTile), also the f32 convolution layer's.
template <bool NARROW, bool DEEP = false>
using FfmaTileCfg = FfmaCfg<GemmTile<float, NARROW, DEEP>::BM, GemmTile<float, NARROW, DEEP>::BN,
                            GemmTile<float, NARROW, DEEP>::BK, GemmTile<float, NARROW, DEEP>::STAGES,
                            GemmTile<float, NARROW, DEEP>::TM, GemmTile<float, NARROW, DEEP>::TN,
                            GemmTile<float, NARROW, DEEP>::BLOCKS_PER_SM>;

template <int BM, int BN, int BK, int ST, int TM, int TN, int MB, bool TA, bool TB, int VEC>
struct GemmKernel<FfmaCfg<BM, BN, BK, ST, TM, TN, MB>, TA, TB, VEC> {
  static auto get() { return gemm_ffma_kernel<FfmaCfg<BM, BN, BK, ST, TM, TN, MB>, TA, TB, VEC>; }
};

}  // namespace tessera::cuda
