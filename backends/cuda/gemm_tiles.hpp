// The gemm grid's choices, asked here once: wide or narrow tiles (Tile<T, false> / Tile<T, true>,
// kernels/cuda/launch.hpp) for gemm, trsm's updates and the convolution layer; split-k and the
// transposed product for gemm (the model: plan/gemm_grid.hpp); and for f32 gemm under the TF32
// modes, Hopper's wgmma kernel or the mma.sync tiles.
#pragma once

#include <algorithm>
#include <cstdint>
#include <utility>

#include "cuda_backend.hpp"
#include "kernels/cuda/launch.hpp"
#include "plan/gemm_grid.hpp"
#include "queue.hpp"

namespace tessera::cuda {

// Tf32GemmTile in the shape narrow_tiles takes (the element type is always float).
template <class T, bool NARROW>
using Tf32TileOf = Tf32GemmTile<NARROW>;

// The grid of one gemm (or batch of them) on Tile<T, narrow>: plan/gemm_grid.hpp's model, told
// this device's SM count, the tiles' measured constants and the tuning overrides (gemm.tiles,
// gemm.splits; gemm.c_trans where may_transpose: CUDA's f32 kernels store C^T).
template <class T, template <class, bool> class Tile>
plan::GemmGridChoice CudaBackend::gemm_grid(std::int64_t m, std::int64_t n, std::int64_t k, std::int64_t batch,
                                            MathMode math, bool may_transpose) const {
  using W = Tile<T, false>;
  using N = Tile<T, true>;
  static_assert(plan::kSplitAlign % W::BK == 0 && plan::kSplitAlign % N::BK == 0 && plan::kSplitAlign % 4 == 0,
                "split-k's parts start on k-tile and 16-byte boundaries");
  plan::GemmGridQuery q;
  q.m = m;
  q.n = n;
  q.k = k;
  q.batch = batch;
  q.sms = sm_count();
  q.wide = {W::BM, W::BN, W::BLOCKS_PER_SM, W::ALONE, 1.0};
  q.narrow = {N::BM, N::BN, N::BLOCKS_PER_SM, N::ALONE, N::NARROW_MARGIN};
  q.elem_bytes = sizeof(T);
  q.balance = gemm_split_balance(math);
  q.may_transpose = may_transpose;
  q.forced_tiles = tune_.get("gemm.tiles");
  q.forced_splits = tune_.get("gemm.splits");
  q.forced_trans = tune_.get("gemm.c_trans");
  return plan::choose_gemm_grid(q);
}

template <class T, template <class, bool> class Tile>
bool CudaBackend::narrow_tiles(std::int64_t m, std::int64_t n, std::int64_t batch) const {
  return gemm_grid<T, Tile>(m, n, 1, batch, MathMode::exact, false).narrow;
}

inline bool CudaBackend::deep_tiles(std::int64_t k) const { return k >= tune_.get("gemm.deep_k"); }

// wgmma (gemm.tf32_kernel): built for sm_90a, so only on compute capability 9.0; where the
// operands allow (gemm_wgmma_applies) and, by default, where its tiles (one block per SM) give
// every SM one (fewer leave SMs idle that mma.sync's 128 x 128 tiles, two per SM, would use) and
// its wide Q tile is not mostly empty: a product with few rows of Q (the conv layer's Winograd
// products with K = 64 filters fill a quarter of a 256-row tile) runs faster on mma.sync's tiles,
// which fit it (64 wide along n). wgmma's rate over mma.sync's on full tiles, measured at n =
// 4096 (bench/RESULTS.md): tf32 0.451 against 1.602 ms (H200, session 25: its operand rounded
// before the products), tf32x3 1.565 against 2.809 (H100, session 13).
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
  const double speedup = s.math == MathMode::tf32 ? 1.602 / 0.451 : 2.809 / 1.565;
  const std::int64_t mma_tile = swap ? Tf32GemmTile<>::BM : Tf32GemmTile<true>::BN;  // along Q's rows
  return speedup * fill(bn) >= fill(mma_tile);
#else
  (void)s, (void)A, (void)B;
  return false;
#endif
}

// The per-queue workspaces: split-k's parts, tf32's and tf32x3's rounded operand (gemm.tf32_round_mb).
struct CudaBackend::GemmState {
  DeviceBuffer parts, rounded;
  static GemmState& of(CudaQueue& q) {
    if (!q.state.gemm) q.state.gemm = std::make_shared<GemmState>();
    return *q.state.gemm;
  }
};

// One gemm (or batch of them) on the kernel the choices above pick: gemm, trsm's updates and the
// conv layer's Winograd products.
template <class T>
void CudaBackend::enqueue_gemm(QueueImpl& q, GemmProblem& s, T alpha, const T* A, const T* B, T beta, T* C) const {
  const cudaStream_t stream = stream_of(q);
#ifdef TESSERA_CUDA_SM90A  // gemm_wgmma.cu is built
  if constexpr (sizeof(T) == 4) {
    if (use_wgmma(s, A, B)) {
      const auto mb = static_cast<std::size_t>(tune_.get("gemm.tf32_round_mb"));
      const WgmmaRoundPlan plan = gemm_wgmma_round_plan(s, mb << 20);
      float* W = plan.rows > 0
                     ? static_cast<float*>(GemmState::of(queue_of(q)).rounded.ensure(gemm_wgmma_round_bytes(s, plan)))
                     : nullptr;
      TESSERA_CUDA_CHECK(launch_gemm_wgmma(s, alpha, A, B, beta, C, plan, W, stream));
      return;
    }
  }
#endif
  // f64 tiles run along C's columns first (dmma_swaps); f32 may compute C^T.
  const bool swap = sizeof(T) == 8 && dmma_swaps(s.ta, s.tb);
  const plan::GemmGridChoice g = s.math == MathMode::exact
                         ? gemm_grid<T, GemmTile>(swap ? s.n : s.m, swap ? s.m : s.n, s.k, s.batch, s.math,
                                                  sizeof(T) == 4)
                         : gemm_grid<T, Tf32TileOf>(s.m, s.n, s.k, s.batch, s.math, true);
  GemmProblem run = s;  // as the kernel sees it
  run.narrow = s.narrow = g.narrow;
  run.deep = sizeof(T) == 4 && s.math == MathMode::exact && !g.narrow && deep_tiles(g.splits > 1 ? g.k_chunk : s.k);
  if (g.c_trans) {  // C^T = op(B)^T op(A)^T
    run.m = s.n;
    run.n = s.m;
    run.ta = !s.tb;
    run.tb = !s.ta;
    run.lda = s.ldb;
    run.ldb = s.lda;
    run.stride_a = s.stride_b;
    run.stride_b = s.stride_a;
    run.c_trans = true;
    std::swap(A, B);
  }
  if (g.splits == 1) {
    // launch_gemm picks 16-byte copies only where the offset pointers and leading dimensions allow.
    TESSERA_CUDA_CHECK(launch_gemm<T>(run, alpha, A, B, beta, C, stream));
    return;
  }
  // The parts into the workspace, each laid out as C (m x n, leading dimension n), then their sum.
  run.splits = g.splits;
  run.k_chunk = g.k_chunk;
  run.split_a = run.ta ? g.k_chunk * run.lda : g.k_chunk;  // k_chunk rows of A^T, or columns of A
  run.split_b = run.tb ? g.k_chunk : g.k_chunk * run.ldb;
  run.batch = s.batch * g.splits;
  run.ldc = s.n;
  run.stride_c = s.m * s.n;
  const std::size_t bytes = static_cast<std::size_t>(s.batch * g.splits * s.m * s.n) * sizeof(T);
  T* W = static_cast<T*>(GemmState::of(queue_of(q)).parts.ensure(bytes));
  TESSERA_CUDA_CHECK(launch_gemm<T>(run, T(1), A, B, T(0), W, stream));
  TESSERA_CUDA_CHECK(
      launch_gemm_split_sum<T>(s.m, s.n, s.batch, g.splits, W, alpha, beta, C, s.ldc, s.stride_c, stream));
}

}  // namespace tessera::cuda
