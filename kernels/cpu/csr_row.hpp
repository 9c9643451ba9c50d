// Per-target helpers for one CSR row's inner product, shared by spmv.cpp and sptrsv.cpp.
// Included after hwy/highway.h inside a foreach_target.h file; the toggle guard (Highway's
// "-inl.h" pattern) lets it be compiled once per target.
#if defined(TESSERA_KERNELS_CPU_CSR_ROW_HPP_) == defined(HWY_TARGET_TOGGLE)
#ifdef TESSERA_KERNELS_CPU_CSR_ROW_HPP_
#undef TESSERA_KERNELS_CPU_CSR_ROW_HPP_
#else
#define TESSERA_KERNELS_CPU_CSR_ROW_HPP_
#endif

#include <cstddef>
#include <cstdint>

#include <hwy/highway.h>

// For the loops that call RowDot: GCC would otherwise "vectorise" RowDotScalar into emulated
// gathers with in-order adds, a slow path whose register pressure also spills the short-row
// path. The vector work is written out explicitly (RowDotGather) anyway.
#ifndef TESSERA_NO_AUTOVECTORIZE
#if defined(__GNUC__) && !defined(__clang__)
#define TESSERA_NO_AUTOVECTORIZE __attribute__((optimize("no-tree-vectorize")))
#else
#define TESSERA_NO_AUTOVECTORIZE
#endif
#endif

HWY_BEFORE_NAMESPACE();
namespace tessera::cpu::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// x[col[0..N)] as one vector; doubles need the int32 indices widened to int64 lanes.
template <class D, class T = hn::TFromD<D>>
HWY_INLINE hn::VFromD<D> GatherX(D d, const T* x, const std::int32_t* HWY_RESTRICT col) {
  const hn::RebindToSigned<D> di;
  if constexpr (sizeof(T) == 4) {
    return hn::GatherIndex(d, x, hn::LoadU(di, col));
  } else {
    const hn::Rebind<std::int32_t, D> d32;
    return hn::GatherIndex(d, x, hn::PromoteTo(di, hn::LoadU(d32, col)));
  }
}

// sum val[k] * x[col[k]] over k < len with vector gathers. Two accumulators: a gather has a
// long latency, and back-to-back FMAs into one register would serialise on it.
template <class T>
HWY_INLINE T RowDotGather(const std::int32_t* HWY_RESTRICT col, const T* HWY_RESTRICT val, const T* x,
                          std::size_t len) {
  const hn::ScalableTag<T> d;
  const std::size_t N = hn::Lanes(d);
  auto a0 = hn::Zero(d), a1 = a0;
  std::size_t k = 0;
  for (; k + 2 * N <= len; k += 2 * N) {
    a0 = hn::MulAdd(hn::LoadU(d, val + k), GatherX(d, x, col + k), a0);
    a1 = hn::MulAdd(hn::LoadU(d, val + k + N), GatherX(d, x, col + k + N), a1);
  }
  if (k + N <= len) {
    a0 = hn::MulAdd(hn::LoadU(d, val + k), GatherX(d, x, col + k), a0);
    k += N;
  }
  T s = hn::GetLane(hn::SumOfLanes(d, hn::Add(a0, a1)));
  for (; k < len; ++k) s += val[k] * x[col[k]];
  return s;
}

// The same in scalar code, for rows too short to fill a vector; two chains so that rows of
// 5-10 entries are not bound by the FMA latency.
template <class T>
HWY_INLINE T RowDotScalar(const std::int32_t* HWY_RESTRICT col, const T* HWY_RESTRICT val, const T* x,
                          std::size_t len) {
  T s0 = 0, s1 = 0;
  std::size_t k = 0;
  for (; k + 2 <= len; k += 2) {
    s0 += val[k] * x[col[k]];
    s1 += val[k + 1] * x[col[k + 1]];
  }
  if (k < len) s0 += val[k] * x[col[k]];
  return s0 + s1;
}

template <class T>
HWY_INLINE T RowDot(const std::int32_t* HWY_RESTRICT col, const T* HWY_RESTRICT val, const T* x, std::size_t len,
                    std::size_t gather_min_len) {
  return len >= gather_min_len ? RowDotGather(col, val, x, len) : RowDotScalar(col, val, x, len);
}

// Rows of at most ShortRowMax<T>() nonzeros as one masked gather, without a loop: where row
// lengths vary from row to row the scalar loop's exit branch is mispredicted about once per
// row (~15 cycles, more than the row's work); this path has no branch at all. Lanes past len
// load nothing (masked loads do not fault) and gather x[0], which the caller guarantees to
// exist (cols >= 1); IfThenElseZero drops them even if x[0] is Inf or NaN.
// Lanes(), not MaxLanes(): on SVE the vector length is known only at run time (a 128-bit SVE
// vector holds 2 doubles although the tag allows 8).
template <class T>
HWY_INLINE std::size_t ShortRowMax() {
  return hn::Lanes(hn::CappedTag<T, 8>());
}

template <class T>
HWY_INLINE T RowDotShort(const std::int32_t* HWY_RESTRICT col, const T* HWY_RESTRICT val, const T* x,
                         std::size_t len) {
  const hn::CappedTag<T, 8> d;
  const hn::RebindToSigned<decltype(d)> di;
  const hn::Rebind<std::int32_t, decltype(d)> d32;
  const auto m = hn::FirstN(d, len);
  const auto c32 = hn::MaskedLoad(hn::FirstN(d32, len), d32, col);
  hn::VFromD<decltype(di)> idx;
  if constexpr (sizeof(T) == 4) {
    idx = c32;
  } else {
    idx = hn::PromoteTo(di, c32);
  }
  const auto prod = hn::Mul(hn::MaskedLoad(m, d, val), hn::GatherIndex(d, x, idx));
  return hn::GetLane(hn::SumOfLanes(d, hn::IfThenElseZero(m, prod)));
}

// Whether this target has hardware gathers; elsewhere Highway emulates them lane by lane and
// the scalar loop is as fast.
constexpr bool kHasGather = HWY_TARGET == HWY_AVX2 || HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL ||
                            HWY_TARGET == HWY_SVE || HWY_TARGET == HWY_SVE2 || HWY_TARGET == HWY_SVE_256 ||
                            HWY_TARGET == HWY_SVE2_128;

}  // namespace tessera::cpu::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // toggle guard
