// The GEMM driver, per SIMD target: the loops around the micro-kernel, the thread team and
// the entry points the kernels use (GemmMatrices for plain matrices; GemmTeam / GemmParallel
// with any packers, as conv.cpp's im2col and trsv.cpp's trsm do). Include after
// <hwy/highway.h> in a foreach_target file.
//
// Loop nest per team: jc (NC columns) -> pc (KC depth; the team packs the B panel together, into
// one of two buffers) -> ic (MC rows; each thread packs its own A block) -> jr (NR) -> ir (MR).
// A B micro-panel is reused by all MR micro-panels of the A block (from L1/L2), the A block
// stays in L2, and the B panel is shared by the team from L3.

// Per-target include guard (Highway's -inl convention): toggles once per foreach_target pass.
#if defined(TESSERA_KERNELS_CPU_GEMM_DRIVER_HPP_) == defined(HWY_TARGET_TOGGLE)
#ifdef TESSERA_KERNELS_CPU_GEMM_DRIVER_HPP_
#undef TESSERA_KERNELS_CPU_GEMM_DRIVER_HPP_
#else
#define TESSERA_KERNELS_CPU_GEMM_DRIVER_HPP_
#endif

#include <omp.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <hwy/highway.h>

#include "kernels/cpu/dispatch.hpp"
#include "kernels/cpu/gemm.hpp"
#include "kernels/cpu/gemm_pack.hpp"

HWY_BEFORE_NAMESPACE();
namespace tessera::cpu::HWY_NAMESPACE {
// Thread grid tm x tn (tm * tn = threads): threads in one grid row share C rows, in one grid
// column share C columns. Picks the shape with the least work on the busiest thread (in micro-
// tiles); ties go to more row-splitting, where each thread packs a different A block.
struct TeamShape {
  int tm = 1, tn = 1;
};
inline TeamShape MakeTeamShape(std::size_t mtiles, std::size_t ntiles, int threads) {
  TeamShape best{threads, 1};
  std::size_t best_cost = ~std::size_t(0);
  for (int tm = threads; tm >= 1; --tm) {
    if (threads % tm != 0) continue;
    const int tn = threads / tm;
    const std::size_t cost = DivCeil(mtiles, tm) * DivCeil(ntiles, tn);
    if (cost < best_cost) best_cost = cost, best = {tm, tn};
  }
  return best;
}

// One thread's part of C = op(A) op(B) + beta C (alpha lives in pack_a), called by every thread
// of a team of `threads` (tid = 0..threads-1) with the same arguments except abuf, its own
// GemmABufElems scratch; bbuf (GemmBBufElems) is shared by the team. k >= 1.
// One barrier per KC step: B panels alternate between two buffers, so a thread packing step t
// cannot overwrite the panel another thread still computes on (step t-1); the one from step
// t-2 is free because everybody passed step t-1's barrier.
template <class T, class PackA, class PackB>
void GemmTeam(const GemmBlocking& bk, std::size_t m, std::size_t n, std::size_t k, const PackA& pack_a,
              const PackB& pack_b, T beta, T* c, std::size_t ldc, T* abuf, T* bbuf, int tid, int threads) {
  const GemmTag<T> d;
  constexpr std::size_t MR = kGemmMR;
  const std::size_t NR = bk.nr;
  const TeamShape shape = MakeTeamShape(DivCeil(m, MR), DivCeil(n, NR), threads);
  const Range rows = split(static_cast<std::int64_t>(m), shape.tm, tid / shape.tn, MR);
  const std::size_t row0 = static_cast<std::size_t>(rows.begin), nrows = static_cast<std::size_t>(rows.end) - row0;
  // Equal MC blocks (rounded to MR) rather than full ones plus a sliver.
  const std::size_t mblocks = DivCeil(nrows, bk.mc);
  const std::size_t mc_step = mblocks ? DivCeil(DivCeil(nrows, mblocks), MR) * MR : MR;
  const std::size_t panel = GemmPanelElems(bk, n), buffers = threads > 1 ? 2 : 1;
  // Equal NC panels too: a last panel of a few columns would cost a whole A packing.
  const std::size_t nc_step = DivCeil(DivCeil(n, DivCeil(n, bk.nc)), NR) * NR;
  std::size_t step = 0;
  for (std::size_t jc = 0; jc < n; jc += nc_step) {
    const std::size_t nc = std::min(nc_step, n - jc), npanels = DivCeil(nc, NR);
    const Range mine = split(static_cast<std::int64_t>(npanels), shape.tn, tid % shape.tn);
    for (std::size_t pc = 0; pc < k; pc += bk.kc, ++step) {
      const std::size_t kc = std::min(bk.kc, k - pc);
      T* bp = bbuf + (step % buffers) * panel;
      const Range packed = split(static_cast<std::int64_t>(npanels), threads, tid);
      if (packed.end > packed.begin) {
        const std::size_t q0 = static_cast<std::size_t>(packed.begin), q1 = static_cast<std::size_t>(packed.end);
        pack_b(bp + q0 * kc * NR, pc, kc, jc + q0 * NR, std::min(nc, q1 * NR) - q0 * NR);
      }
      if (threads > 1) {
#pragma omp barrier
      }
      const CStore mode = pc > 0 || beta == T(1) ? CStore::accumulate
                          : beta == T(0)          ? CStore::overwrite
                                                  : CStore::scale;
      for (std::size_t ic = 0; ic < nrows; ic += mc_step) {
        const std::size_t mc = std::min(mc_step, nrows - ic);
        const T* pa = pack_a(abuf, row0 + ic, mc, pc, kc);
        for (auto q = static_cast<std::size_t>(mine.begin); q < static_cast<std::size_t>(mine.end); ++q) {
          const std::size_t nr = std::min(NR, nc - q * NR);
          const T* pb = bp + q * kc * NR;
          T* cq = c + (row0 + ic) * ldc + jc + q * NR;
          for (std::size_t ir = 0; ir < mc; ir += MR) {
            const std::size_t mr = std::min(MR, mc - ir);
            if (mr == MR && nr == NR) {
              GemmMicroKernel(d, kc, pa + ir * kc, pb, cq + ir * ldc, ldc, mode, beta);
            } else {
              GemmEdgeTile(d, kc, pa + ir * kc, pb, cq + ir * ldc, ldc, mr, nr, mode, beta);
            }
          }
        }
      }
    }
  }
}

// C = beta C over m x n (beta == 0: C only written), for k == 0 or alpha == 0.
template <class T>
void GemmScaleC(std::size_t m, std::size_t n, T beta, T* c, std::size_t ldc) {
  for (std::size_t i = 0; i < m; ++i) {
    T* ci = c + i * ldc;
    if (beta == T(0)) {
      std::fill(ci, ci + n, T(0));
    } else if (beta != T(1)) {
      for (std::size_t j = 0; j < n; ++j) ci[j] *= beta;
    }
  }
}

// C = op(A) op(B) + beta C on a thread team of its own (as many threads as the flops pay for:
// min_flops per thread, the cpu device's gemm.min_flops_per_thread), with the packing buffers
// from this thread's scratch. k >= 1.
template <class T, class PackA, class PackB>
void GemmParallel(const GemmBlocking& bk, std::size_t m, std::size_t n, std::size_t k, const PackA& pack_a,
                  const PackB& pack_b, T beta, T* c, std::size_t ldc, std::int64_t min_flops) {
  const double flops = 2.0 * double(m) * double(n) * double(k);
  const int threads = threads_for(static_cast<std::int64_t>(flops), min_flops);
  const std::size_t abuf_elems = GemmABufElems<T>(bk);
  T* abuf = static_cast<T*>(scratch(ScratchSlot::gemm_a, threads * abuf_elems * sizeof(T)));
  T* bbuf = static_cast<T*>(scratch(ScratchSlot::gemm_b, GemmBBufElems<T>(bk, n, threads) * sizeof(T)));
  if (threads == 1) return GemmTeam(bk, m, n, k, pack_a, pack_b, beta, c, ldc, abuf, bbuf, 0, 1);
#pragma omp parallel num_threads(threads)
  {
    const int tid = omp_get_thread_num(), team = omp_get_num_threads();
    GemmTeam(bk, m, n, k, pack_a, pack_b, beta, c, ldc, abuf + tid * abuf_elems, bbuf, tid, team);
  }
}

// C = alpha op(A) op(B) + beta C for plain row-major matrices.
template <class T>
void GemmMatrices(bool ta, bool tb, std::size_t m, std::size_t n, std::size_t k, T alpha, const T* a,
                  std::size_t lda, const T* b, std::size_t ldb, T beta, T* c, std::size_t ldc, std::int64_t min_flops) {
  if (m == 0 || n == 0) return;
  if (k == 0) return GemmScaleC(m, n, beta, c, ldc);  // alpha == 0: lib/ calls with k == 0
  GemmParallel(MakeGemmBlocking<T>(), m, n, k, MatrixPackA<T>{a, lda, ta, alpha}, MatrixPackB<T>{b, ldb, tb}, beta,
               c, ldc, min_flops);
}

}  // namespace tessera::cpu::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // per-target include guard
