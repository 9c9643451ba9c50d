// GEMM packers, per SIMD target: they turn an operand into the micro-panel layout the
// micro-kernel of gemm_kernel.hpp reads. Plain matrices (with op = N or T, and alpha folded into
// A) live here; conv.cpp adds an im2col packer of its own.

// Per-target include guard (Highway's -inl convention): toggles once per foreach_target pass.
#if defined(TESSERA_KERNELS_CPU_GEMM_PACK_HPP_) == defined(HWY_TARGET_TOGGLE)
#ifdef TESSERA_KERNELS_CPU_GEMM_PACK_HPP_
#undef TESSERA_KERNELS_CPU_GEMM_PACK_HPP_
#else
#define TESSERA_KERNELS_CPU_GEMM_PACK_HPP_
#endif

#include <algorithm>
#include <cstddef>
#include <hwy/highway.h>

#include "kernels/cpu/gemm_kernel.hpp"

HWY_BEFORE_NAMESPACE();
namespace tessera::cpu::HWY_NAMESPACE {
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

}  // namespace tessera::cpu::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // per-target include guard
