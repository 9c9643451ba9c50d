// The GEMM micro-kernel and its blocking, per SIMD target (Goto/BLIS style; the packers are in
// gemm_pack.hpp, the loops around them in gemm_driver.hpp, which is what kernels include).
//
// C = op(A) op(B) + beta C is computed as: op(B) packed into KC x NC panels of NR-wide
// micro-panels, op(A) into MC x KC blocks of MR-tall micro-panels, and an MR x NR register-
// blocked micro-kernel doing all the arithmetic on packed data, so transposes, alpha and ragged
// edges are the packers' business and the kernel sees one layout.

// Per-target include guard (Highway's -inl convention): toggles once per foreach_target pass.
#if defined(TESSERA_KERNELS_CPU_GEMM_KERNEL_HPP_) == defined(HWY_TARGET_TOGGLE)
#ifdef TESSERA_KERNELS_CPU_GEMM_KERNEL_HPP_
#undef TESSERA_KERNELS_CPU_GEMM_KERNEL_HPP_
#else
#define TESSERA_KERNELS_CPU_GEMM_KERNEL_HPP_
#endif

#include <algorithm>
#include <cstddef>
#include <hwy/highway.h>

#include "host_machine.hpp"
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
// than the 2 FMA pipes x 4 cycles of latency need. Compile-time constants, not tuning values:
// they fix the micro-kernel's unrolled accumulators (a register allocation), per target.
inline constexpr std::size_t kGemmNV = kVectorRegisters >= 32 ? 3 : 2;
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
// KC 512, MC 252, NC 4080 and f64 NR 24, KC 512, MC 126, NC 4080):
//  - KC: C's tile is loaded and stored once per KC step, from L3/DRAM, and that traffic, not the
//    FMAs, is what a small KC pays for (192 -> 512 measured +15% on 1 and 2 threads). So KC is
//    large, bounded by the A micro-panel (MR x KC), which every kernel call streams once and
//    should find in L1: at most 3/4 of L1, and at most kGemmKcMax. The B micro-panel (KC x NR)
//    then outgrows L1 and streams from L2, which has ~4x the bandwidth a micro-kernel draws.
//  - MC: the A block (MC x KC) owns half of L2, the rest is for B micro-panels coming in.
//  - NC: A is packed once per NC columns, so NC is wide: the two B panel buffers (KC x NC each)
//    may fill L3, capped at kGemmNcMax. Even from DRAM a B panel would keep up, as each packed
//    element feeds 2 MC flops per visit.
inline constexpr std::size_t kGemmKcMin = 64, kGemmKcMax = 512, kGemmNcMax = 4096;
template <class T>
GemmBlocking MakeGemmBlocking() {
  const host::CacheSizes& cs = host::machine().caches;
  GemmBlocking b;
  b.nr = kGemmNV * hn::Lanes(GemmTag<T>());
  b.kc = std::clamp<std::size_t>(cs.l1d * 3 / 4 / (kGemmMR * sizeof(T)) / 8 * 8, kGemmKcMin, kGemmKcMax);
  b.mc = std::max<std::size_t>(cs.l2 / 2 / (b.kc * sizeof(T)) / kGemmMR, 1) * kGemmMR;
  b.nc = std::clamp<std::size_t>(cs.l3 / 2 / (b.kc * sizeof(T)), b.nr, kGemmNcMax) / b.nr * b.nr;
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

}  // namespace tessera::cpu::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // per-target include guard
