// The one choice between the wide and the narrow GEMM tiles (Tile<T, false> / Tile<T, true>,
// kernels/cuda/launch.hpp), for gemm, trsm's updates and the convolution layer; and for f32
// gemm under the TF32 modes, between Hopper's wgmma kernel and the mma.sync tiles.
#pragma once

#include <cstdint>

#include "cuda_backend.hpp"
#include "kernels/cuda/launch.hpp"

namespace tessera::cuda {

// Tf32GemmTile in the shape narrow_tiles takes (the element type is always float).
template <class T, bool NARROW>
using Tf32TileOf = Tf32GemmTile<NARROW>;

// Narrow tiles when the wide tiles would leave the SMs noticeably idle (a partly filled last
// wave, or n much narrower than a wide tile). Narrow tiles reuse each A fragment half as often,
// so they must win clearly (Tile::NARROW_MARGIN). gemm.tiles forces one: 0 wide, 1 narrow.
// batch: that many m x n products side by side in the waves (each with its own edge tiles).
template <class T, template <class, bool> class Tile>
bool CudaBackend::narrow_tiles(std::int64_t m, std::int64_t n, std::int64_t batch) const {
  const int forced = tune_.get("gemm.tiles");
  if (forced >= 0) return forced == 1;
  // Useful share of the block-slots the grid occupies: partial edge tiles and a partly filled
  // last wave both count as idle.
  auto efficiency = [&](std::int64_t bm, std::int64_t bn, int per_sm) {
    const std::int64_t tiles = ((m + bm - 1) / bm) * ((n + bn - 1) / bn) * batch;
    const std::int64_t slots = static_cast<std::int64_t>(per_sm) * (sm_count() > 0 ? sm_count() : 1);
    const std::int64_t waves = (tiles + slots - 1) / slots;
    return static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(batch) /
           static_cast<double>(waves * slots * bm * bn);
  };
  using W = Tile<T, false>;
  using N = Tile<T, true>;
  return efficiency(N::BM, N::BN, N::BLOCKS_PER_SM) > N::NARROW_MARGIN * efficiency(W::BM, W::BN, W::BLOCKS_PER_SM);
}

// wgmma (gemm.tf32_kernel): built for sm_90a, so only on compute capability 9.0; where the
// operands allow (gemm_wgmma_applies) and, by default, where its tiles (one block per SM) give
// every SM one (fewer leave SMs idle that mma.sync's 128 x 128 tiles, two per SM, would use) and
// its wide Q tile is not mostly empty: a product with few rows of Q (the conv layer's Winograd
// products with K = 64 filters fill a quarter of a 256-row tile) runs faster on mma.sync's tiles,
// which fit it (64 wide along n). wgmma's rate over mma.sync's on full tiles, measured at n =
// 4096 (H100, bench/RESULTS.md session 13): tf32 0.657 against 1.588 ms, tf32x3 1.565 against 2.809.
inline bool CudaBackend::use_wgmma(const GemmProblem& s, const float* A, const float* B) const {
#ifdef TESSERA_CUDA_SM90A
  const int forced = tune_.get("gemm.tf32_kernel");
  if (forced == 0 || s.math == MathMode::exact || !has_sm90a()) return false;
  if (!gemm_wgmma_applies(s, A, B)) return false;
  if (forced == 1) return true;
  const bool swap = gemm_wgmma_swaps(s);
  const std::int64_t p = swap ? s.n : s.m, q = swap ? s.m : s.n;  // rows of P and of Q
  const std::int64_t bn = gemm_wgmma_tile_n(s.math);
  const std::int64_t tiles = ((p + kGemmWgmmaTileM - 1) / kGemmWgmmaTileM) * ((q + bn - 1) / bn) * s.batch;
  if (tiles < sm_count()) return false;
  auto fill = [q](std::int64_t tile) { return static_cast<double>(q) / static_cast<double>((q + tile - 1) / tile * tile); };
  const double speedup = s.math == MathMode::tf32 ? 1.588 / 0.657 : 2.809 / 1.565;
  const std::int64_t mma_tile = swap ? Tf32GemmTile<>::BM : Tf32GemmTile<true>::BN;  // along Q's rows
  return speedup * fill(bn) >= fill(mma_tile);
#else
  (void)s, (void)A, (void)B;
  return false;
#endif
}

// One gemm (or batch of them) on the kernel the two choices above pick: gemm and the conv
// layer's Winograd products.
template <class T>
void CudaBackend::enqueue_gemm(GemmProblem& s, T alpha, const T* A, const T* B, T beta, T* C, cudaStream_t stream) const {
#ifdef TESSERA_CUDA_SM90A  // gemm_wgmma.cu is built
  if constexpr (sizeof(T) == 4) {
    if (use_wgmma(s, A, B)) {
      TESSERA_CUDA_CHECK(launch_gemm_wgmma(s, alpha, A, B, beta, C, stream));
      return;
    }
  }
#endif
  const bool swap = sizeof(T) == 8 && dmma_swaps(s.ta, s.tb);  // f64 tiles along C's columns first
  s.narrow = s.math == MathMode::exact ? narrow_tiles<T, GemmTile>(swap ? s.n : s.m, swap ? s.m : s.n, s.batch)
                                       : narrow_tiles<T, Tf32TileOf>(s.m, s.n, s.batch);
  // launch_gemm picks 16-byte copies only where the offset pointers and leading dimensions allow.
  TESSERA_CUDA_CHECK(launch_gemm<T>(s, alpha, A, B, beta, C, stream));
}

}  // namespace tessera::cuda
