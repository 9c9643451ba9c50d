// Per-target GEMM building blocks, Goto/BLIS style: op(B) is packed into KC x NC panels of
// NR-wide micro-panels, op(A) into MC x KC blocks of MR-tall micro-panels, and an MR x NR
// register-blocked micro-kernel does all the arithmetic on packed data (so transposes, alpha
// and ragged edges are the packers' business). Included, like a Highway -inl header, by every
// kernels/cpu/*.cpp that needs a GEMM after <hwy/highway.h>; gemm.cpp packs plain matrices,
// conv.cpp packs an implicit im2col, trsv.cpp uses the plain one for trsm's updates.
//
// Loop nest (per thread team): jc (NC columns) -> pc (KC depth; the team packs B together into
// one of two buffers) -> ic (MC rows; each thread packs its own A block) -> jr (NR) -> ir (MR).
// The B micro-panel (KC x NR) is reused from L1 by all MR micro-panels of the A block, which
// streams from L2; the B panel is shared by the team from L3.

// Per-target include guard (Highway's -inl convention): toggles once per foreach_target pass.
#if defined(TESSERA_KERNELS_CPU_GEMM_KERNEL_HPP_) == defined(HWY_TARGET_TOGGLE)
#ifdef TESSERA_KERNELS_CPU_GEMM_KERNEL_HPP_
#undef TESSERA_KERNELS_CPU_GEMM_KERNEL_HPP_
#else
#define TESSERA_KERNELS_CPU_GEMM_KERNEL_HPP_
#endif

#include <omp.h>

#include <algorithm>
#include <cstddef>
#include <hwy/highway.h>

#include "kernels/cpu/dispatch.hpp"
#include "kernels/cpu/gemm.hpp"

HWY_BEFORE_NAMESPACE();
namespace tessera::cpu::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// Architectural vector registers: AVX-512 and AArch64 (NEON, SVE) have 32, SSE4/AVX2 16.
// The scalar fallback's "vectors" are plain registers; 16 is a fair model there too.
#if (HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX3) || \
    (HWY_ARCH_ARM_A64 && HWY_TARGET != HWY_SCALAR && HWY_TARGET != HWY_EMU128)
inline constexpr std::size_t kVectorRegisters = 32;
#else
inline constexpr std::size_t kVectorRegisters = 16;
#endif

// Micro-tile: MR rows of C x kGemmNV vectors. Each k step loads kGemmNV vectors of B, then for
// each of the MR rows broadcasts one A value and issues kGemmNV FMAs into accumulators. The
// MR * NV accumulators, the NV B vectors and one broadcast must all stay in registers, so
// MR = (registers - NV - 1) / NV. With 32 registers, 9 x 3 (27 FMAs per 3 loads + 9
// broadcasts) measured ~10% faster end to end than 14 x 2 (28 per 2 + 14) on an AVX-512 Xeon;
// with 16 it is the classic 6 x 2 (Haswell). Either way there are far more independent chains
// than the 2 FMA pipes x 4 cycles of latency need.
#ifdef TESSERA_GEMM_NV  // for tuning experiments only
inline constexpr std::size_t kGemmNV = TESSERA_GEMM_NV;
#else
inline constexpr std::size_t kGemmNV = kVectorRegisters >= 32 ? 3 : 2;
#endif
inline constexpr std::size_t kGemmMR = (kVectorRegisters - kGemmNV - 1) / kGemmNV;
static_assert(kGemmNV >= 1 && kGemmNV <= 4 && kGemmMR <= 14, "the micro-kernel is unrolled for <= 4 x <= 14");

template <class T>
using GemmTag = hn::ScalableTag<T>;

// Largest NR of any target of this build (SVE: up to 2048-bit vectors), for edge-tile buffers.
template <class T>
inline constexpr std::size_t kGemmMaxNR = kGemmNV * HWY_MAX_BYTES / sizeof(T);

inline std::size_t DivCeil(std::size_t a, std::size_t b) { return (a + b - 1) / b; }

struct GemmBlocking {
  std::size_t nr = 0, kc = 0, mc = 0, nc = 0;  // mr is kGemmMR
};

// Blocking (here, Zen 5: L1d 48 KiB, L2 1 MiB per core, 32 MiB L3; AVX-512 gives f32 NR 48,
// KC 512, MC 252, NC 2048 and f64 NR 24, KC 512, MC 126, NC 1024):
//  - KC: C's tile is loaded and stored once per KC step, from L3/DRAM, and that traffic, not the
//    FMAs, is what a small KC pays for (192 -> 512 measured +15% on 1 and 2 threads). So KC is
//    large, bounded by the A micro-panel (MR x KC), which every kernel call streams once and
//    should find in L1: at most 3/4 of L1, and at most kGemmKcMax. The B micro-panel (KC x NR)
//    then outgrows L1 and streams from L2, which has ~4x the bandwidth a micro-kernel draws.
//  - MC: the A block (MC x KC) owns half of L2, the rest is for B micro-panels coming in.
//  - NC: the two B panel buffers (KC x NC each) use at most a quarter of L3, and NC is capped
//    since beyond a few thousand columns a wider panel buys nothing but memory.
inline constexpr std::size_t kGemmKcMin = 64, kGemmKcMax = 512, kGemmNcMax = 4096;
template <class T>
GemmBlocking MakeGemmBlocking() {
  const CacheSizes& cs = cache_sizes();
  GemmBlocking b;
  b.nr = kGemmNV * hn::Lanes(GemmTag<T>());
  b.kc = std::clamp<std::size_t>(cs.l1d * 3 / 4 / (kGemmMR * sizeof(T)) / 8 * 8, kGemmKcMin, kGemmKcMax);
  b.mc = std::max<std::size_t>(cs.l2 / 2 / (b.kc * sizeof(T)) / kGemmMR, 1) * kGemmMR;
  b.nc = std::clamp<std::size_t>(cs.l3 / 4 / 2 / (b.kc * sizeof(T)), b.nr, kGemmNcMax) / b.nr * b.nr;
#ifdef TESSERA_GEMM_TUNING
  if (const char* e = getenv("TESSERA_GEMM_KC")) b.kc = std::size_t(atoi(e));
  if (const char* e = getenv("TESSERA_GEMM_MC")) b.mc = std::size_t(atoi(e)) / kGemmMR * kGemmMR;
  if (const char* e = getenv("TESSERA_GEMM_NC")) b.nc = std::size_t(atoi(e)) / b.nr * b.nr;
#endif
  return b;
}

// Elements rounded up to whole 64-byte units (scratch()'s alignment, the widest x86 vector;
// SVE loads need none): scratch carved into pieces keeps every piece aligned for the kernel's
// aligned loads of packed B.
template <class T>
inline std::size_t Aligned(std::size_t elems) {
  constexpr std::size_t kUnit = 64 / sizeof(T);
  return DivCeil(elems, kUnit) * kUnit;
}

// Scratch elements: one thread's A block; the team's B panel buffers for an n-column C (two
// for a team that overlaps packing with computing, one for a lone thread).
template <class T>
inline std::size_t GemmABufElems(const GemmBlocking& b) {
  return Aligned<T>(b.mc * b.kc);
}
inline std::size_t GemmPanelElems(const GemmBlocking& b, std::size_t n) {
  return b.kc * std::min(b.nc, DivCeil(n, b.nr) * b.nr);
}
template <class T>
inline std::size_t GemmBBufElems(const GemmBlocking& b, std::size_t n, int threads) {
  return Aligned<T>((threads > 1 ? 2 : 1) * GemmPanelElems(b, n));
}

// How C is written back: C = acc (beta == 0: C never read), C = acc + beta C, C += acc.
enum class CStore { overwrite, scale, accumulate };

template <class D, class V, class T = hn::TFromD<D>>
HWY_INLINE void GemmStoreC(D d, CStore mode, V vbeta, V acc, T* HWY_RESTRICT c) {
  switch (mode) {
    case CStore::overwrite: return hn::StoreU(acc, d, c);
    case CStore::scale: return hn::StoreU(hn::MulAdd(vbeta, hn::LoadU(d, c), acc), d, c);
    case CStore::accumulate: return hn::StoreU(hn::Add(hn::LoadU(d, c), acc), d, c);
  }
}

#define TESSERA_GEMM_ROWS(X) X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7) X(8) X(9) X(10) X(11) X(12) X(13)

// C[0:MR, 0:NR] (op)= sum_p pa[p][0:MR]^T pb[p][0:NR]. pa: kc x MR packed, pb: kc x NR packed
// and vector-aligned. Accumulators are named variables, not an array: SVE vectors are sizeless
// and cannot form arrays, and named values are what the register allocator handles best.
template <class D, class T = hn::TFromD<D>>
HWY_INLINE void GemmMicroKernel(D d, std::size_t kc, const T* HWY_RESTRICT pa, const T* HWY_RESTRICT pb,
                                T* HWY_RESTRICT c, std::size_t ldc, CStore mode, T beta) {
  constexpr std::size_t MR = kGemmMR, NV = kGemmNV;
  const std::size_t N = hn::Lanes(d);
  // C's tile is touched only after all kc steps, and between two visits the whole C block went
  // by, so its lines come from L3 or DRAM: ask for them now and the k loop hides the latency.
  for (std::size_t r = 0; r < MR; ++r) {
    __builtin_prefetch(c + r * ldc, 1, 3);
    __builtin_prefetch(c + r * ldc + NV * N - 1, 1, 3);
  }
#define TESSERA_GEMM_DECL(r)                                              \
  [[maybe_unused]] auto acc##r##0 = hn::Zero(d), acc##r##1 = acc##r##0; \
  [[maybe_unused]] auto acc##r##2 = acc##r##0, acc##r##3 = acc##r##0;
  TESSERA_GEMM_ROWS(TESSERA_GEMM_DECL)
#undef TESSERA_GEMM_DECL
  for (std::size_t p = 0; p < kc; ++p) {
    const auto b0 = hn::Load(d, pb);
    [[maybe_unused]] auto b1 = b0, b2 = b0, b3 = b0;
    if constexpr (NV > 1) b1 = hn::Load(d, pb + N);
    if constexpr (NV > 2) b2 = hn::Load(d, pb + 2 * N);
    if constexpr (NV > 3) b3 = hn::Load(d, pb + 3 * N);
#define TESSERA_GEMM_FMA(r)                                              \
  if constexpr ((r) < MR) {                                              \
    const auto a = hn::Set(d, pa[r]);                                    \
    acc##r##0 = hn::MulAdd(a, b0, acc##r##0);                            \
    if constexpr (NV > 1) acc##r##1 = hn::MulAdd(a, b1, acc##r##1);      \
    if constexpr (NV > 2) acc##r##2 = hn::MulAdd(a, b2, acc##r##2);      \
    if constexpr (NV > 3) acc##r##3 = hn::MulAdd(a, b3, acc##r##3);      \
  }
    TESSERA_GEMM_ROWS(TESSERA_GEMM_FMA)
#undef TESSERA_GEMM_FMA
    pa += MR;
    pb += NV * N;
  }
  const auto vbeta = hn::Set(d, beta);
#define TESSERA_GEMM_STORE(r)                                                        \
  if constexpr ((r) < MR) {                                                          \
    T* cr = c + (r) * ldc;                                                           \
    GemmStoreC(d, mode, vbeta, acc##r##0, cr);                                       \
    if constexpr (NV > 1) GemmStoreC(d, mode, vbeta, acc##r##1, cr + N);             \
    if constexpr (NV > 2) GemmStoreC(d, mode, vbeta, acc##r##2, cr + 2 * N);         \
    if constexpr (NV > 3) GemmStoreC(d, mode, vbeta, acc##r##3, cr + 3 * N);         \
  }
  TESSERA_GEMM_ROWS(TESSERA_GEMM_STORE)
#undef TESSERA_GEMM_STORE
}
#undef TESSERA_GEMM_ROWS

// A ragged tile (mr < MR or nr < NR): the micro-kernel writes a full tile to the stack and only
// the valid part reaches C, so the kernel itself never needs masks.
template <class D, class T = hn::TFromD<D>>
HWY_NOINLINE void GemmEdgeTile(D d, std::size_t kc, const T* pa, const T* pb, T* c, std::size_t ldc, std::size_t mr,
                               std::size_t nr, CStore mode, T beta) {
  const std::size_t NR = kGemmNV * hn::Lanes(d);
  HWY_ALIGN T tile[kGemmMR * kGemmMaxNR<T>];
  GemmMicroKernel(d, kc, pa, pb, tile, NR, CStore::overwrite, T(0));
  for (std::size_t i = 0; i < mr; ++i) {
    T* ci = c + i * ldc;
    const T* ti = tile + i * NR;
    for (std::size_t j = 0; j < nr; ++j) {
      ci[j] = mode == CStore::overwrite ? ti[j] : mode == CStore::scale ? ti[j] + beta * ci[j] : ti[j] + ci[j];
    }
  }
}

// A packers return the packed block op(A)[i0:i0+mc, p0:p0+kc] (i0 a multiple of MR): written
// into `dst`, or found already packed elsewhere (conv.cpp packs its filters once per call).
// Layout: MR-tall micro-panels, p-major, MR values per p; rows past mc zero-filled so edge
// tiles compute harmless zeros.
template <class T>
struct MatrixPackA {
  const T* a;
  std::size_t lda;
  bool trans;
  T alpha;
  const T* operator()(T* HWY_RESTRICT dst, std::size_t i0, std::size_t mc, std::size_t p0, std::size_t kc) const {
    const T* packed = dst;
    constexpr std::size_t MR = kGemmMR;
    for (std::size_t ir = 0; ir < mc; ir += MR, dst += MR * kc) {
      const std::size_t mr = std::min(MR, mc - ir);
      if (!trans && mr == MR) {  // rows of A: MR read streams, one contiguous write stream
        const T* src = a + (i0 + ir) * lda + p0;
        for (std::size_t p = 0; p < kc; ++p)
          for (std::size_t i = 0; i < MR; ++i) dst[p * MR + i] = alpha * src[i * lda + p];
        continue;
      }
      if (!trans) {
        for (std::size_t i = 0; i < mr; ++i) {
          const T* src = a + (i0 + ir + i) * lda + p0;
          for (std::size_t p = 0; p < kc; ++p) dst[p * MR + i] = alpha * src[p];
        }
      } else {  // column i of A: each p contributes MR contiguous values of row p of A
        for (std::size_t p = 0; p < kc; ++p) {
          const T* src = a + (p0 + p) * lda + i0 + ir;
          for (std::size_t i = 0; i < mr; ++i) dst[p * MR + i] = alpha * src[i];
        }
      }
      for (std::size_t i = mr; i < MR; ++i)
        for (std::size_t p = 0; p < kc; ++p) dst[p * MR + i] = T(0);
    }
    return packed;
  }
};

// op(A) packed once for every KC step, for an A that multiplies many B's (conv.cpp's filters):
// the block for rows i0.. (a multiple of MR) of KC step p0 sits at p0 * mpad + i0 * kc.
template <class T>
struct PrepackedA {
  const T* data;
  std::size_t mpad;  // m rounded up to MR
  const T* operator()(T*, std::size_t i0, std::size_t, std::size_t p0, std::size_t kc) const {
    return data + p0 * mpad + i0 * kc;
  }
};
inline std::size_t PrepackedAElems(std::size_t m, std::size_t k) { return DivCeil(m, kGemmMR) * kGemmMR * k; }
template <class T, class PackA>
PrepackedA<T> PrepackA(const GemmBlocking& bk, std::size_t m, std::size_t k, const PackA& pack_a, T* dst) {
  const std::size_t mpad = DivCeil(m, kGemmMR) * kGemmMR;
  for (std::size_t pc = 0; pc < k; pc += bk.kc) pack_a(dst + pc * mpad, 0, m, pc, std::min(bk.kc, k - pc));
  return {dst, mpad};
}

// Packs op(B)[p0:p0+kc, j0:j0+nc] as NR-wide micro-panels (p-major, NR values per p), columns
// past nc zero-filled.
template <class T>
struct MatrixPackB {
  const T* b;
  std::size_t ldb;
  bool trans;
  void operator()(T* HWY_RESTRICT dst, std::size_t p0, std::size_t kc, std::size_t j0, std::size_t nc) const {
    const GemmTag<T> d;
    const std::size_t N = hn::Lanes(d), NR = kGemmNV * N;
    for (std::size_t jr = 0; jr < nc; jr += NR, dst += NR * kc) {
      const std::size_t nr = std::min(NR, nc - jr);
      if (!trans) {  // rows of op(B) are rows of B: vector copies
        for (std::size_t p = 0; p < kc; ++p) {
          const T* src = b + (p0 + p) * ldb + j0 + jr;
          T* out = dst + p * NR;
          if (nr == NR) {
            for (std::size_t v = 0; v < kGemmNV; ++v) hn::Store(hn::LoadU(d, src + v * N), d, out + v * N);
          } else {
            for (std::size_t j = 0; j < nr; ++j) out[j] = src[j];
            for (std::size_t j = nr; j < NR; ++j) out[j] = T(0);
          }
        }
      } else if (nr == NR) {  // column j of op(B) is row j of B: NR read streams, contiguous writes
        const T* src = b + (j0 + jr) * ldb + p0;
        for (std::size_t p = 0; p < kc; ++p)
          for (std::size_t j = 0; j < NR; ++j) dst[p * NR + j] = src[j * ldb + p];
      } else {
        for (std::size_t j = 0; j < nr; ++j) {
          const T* src = b + (j0 + jr + j) * ldb + p0;
          for (std::size_t p = 0; p < kc; ++p) dst[p * NR + j] = src[p];
        }
        for (std::size_t j = nr; j < NR; ++j)
          for (std::size_t p = 0; p < kc; ++p) dst[p * NR + j] = T(0);
      }
    }
  }
};

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
  std::size_t step = 0;
  for (std::size_t jc = 0; jc < n; jc += bk.nc) {
    const std::size_t nc = std::min(bk.nc, n - jc), npanels = DivCeil(nc, NR);
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

// Below this many flops per thread a GEMM stays on fewer threads: a fork/join costs a few
// microseconds, i.e. ~1 MFLOP of one core's FMA throughput.
inline constexpr std::int64_t kGemmMinFlopsPerThread = std::int64_t(1) << 21;

// C = op(A) op(B) + beta C on a thread team of its own (as many threads as the flops pay for),
// with the packing buffers from this thread's scratch. k >= 1.
template <class T, class PackA, class PackB>
void GemmParallel(const GemmBlocking& bk, std::size_t m, std::size_t n, std::size_t k, const PackA& pack_a,
                  const PackB& pack_b, T beta, T* c, std::size_t ldc) {
  const double flops = 2.0 * double(m) * double(n) * double(k);
  const int threads = threads_for(static_cast<std::int64_t>(flops), kGemmMinFlopsPerThread);
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
                  std::size_t lda, const T* b, std::size_t ldb, T beta, T* c, std::size_t ldc) {
  if (m == 0 || n == 0) return;
  if (k == 0 || alpha == T(0)) return GemmScaleC(m, n, beta, c, ldc);
  GemmParallel(MakeGemmBlocking<T>(), m, n, k, MatrixPackA<T>{a, lda, ta, alpha}, MatrixPackB<T>{b, ldb, tb}, beta,
               c, ldc);
}

}  // namespace tessera::cpu::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // per-target include guard
