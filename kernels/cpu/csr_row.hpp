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
#include <cstring>

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

// A row's column indices come in one of two storages: int32 columns, or int16 offsets from the
// row's own index (narrow storage of a banded matrix: plan/csr_columns.hpp), which stream
// half the bytes. `base` is the row (0 for int32 columns, which are absolute).
template <class Idx>
constexpr bool kNarrow = sizeof(Idx) == 2;

// col[0..N) as int32 lane indices into x.
template <class D32, class Idx>
HWY_INLINE hn::VFromD<D32> LoadColumns(D32 d32, const Idx* HWY_RESTRICT col, std::int32_t base) {
  if constexpr (kNarrow<Idx>) {
    const hn::Rebind<std::int16_t, D32> d16;
    return hn::Add(hn::PromoteTo(d32, hn::LoadU(d16, col)), hn::Set(d32, base));
  } else {
    return hn::LoadU(d32, col);
  }
}

// x[col[0..N)] as one vector; doubles need the int32 indices widened to int64 lanes.
template <class D, class Idx, class T = hn::TFromD<D>>
HWY_INLINE hn::VFromD<D> GatherX(D d, const T* x, const Idx* HWY_RESTRICT col, std::int32_t base = 0) {
  const hn::RebindToSigned<D> di;
  const hn::Rebind<std::int32_t, D> d32;
  if constexpr (sizeof(T) == 4) {
    return hn::GatherIndex(d, x, LoadColumns(d32, col, base));
  } else {
    return hn::GatherIndex(d, x, hn::PromoteTo(di, LoadColumns(d32, col, base)));
  }
}

// sum val[k] * x[col[k]] over k < len with vector gathers. Two accumulators: a gather has a
// long latency, and back-to-back FMAs into one register would serialise on it.
template <class T, class Idx>
HWY_INLINE T RowDotGather(const Idx* HWY_RESTRICT col, const T* HWY_RESTRICT val, const T* x, std::size_t len,
                          std::int32_t base) {
  const hn::ScalableTag<T> d;
  const std::size_t N = hn::Lanes(d);
  auto a0 = hn::Zero(d), a1 = a0;
  std::size_t k = 0;
  for (; k + 2 * N <= len; k += 2 * N) {
    a0 = hn::MulAdd(hn::LoadU(d, val + k), GatherX(d, x, col + k, base), a0);
    a1 = hn::MulAdd(hn::LoadU(d, val + k + N), GatherX(d, x, col + k + N, base), a1);
  }
  if (k + N <= len) {
    a0 = hn::MulAdd(hn::LoadU(d, val + k), GatherX(d, x, col + k, base), a0);
    k += N;
  }
  T s = hn::GetLane(hn::SumOfLanes(d, hn::Add(a0, a1)));
  const T* xb = x + base;
  for (; k < len; ++k) s += val[k] * xb[col[k]];
  return s;
}

// f64 rows without vector gathers on x86 (AVX2, AVX-512): four entries a step as one 256-bit
// FMA. The scalar loop below issues three loads an entry (value, column, x) and runs at about an
// entry a cycle on a Zen 5 core, as does Eigen's; here two columns come in one 8-byte load, four
// values in one vector load, and only x is loaded an element at a time, its pairs interleaved and
// two pairs joined (shuffles, not loads): 1.75 loads an entry. Measured on the Zen 5 VM (bench/
// RESULTS.md, session 32), one thread, f64: Dubcova1 0.097 -> 0.075 ms, EX5 0.106 -> 0.066,
// bcsstk16 0.089 -> 0.063, cage11 0.237 -> 0.180; a 128-bit form (pairs only) gained half as
// much and a 512-bit one (two quads joined) lost 5 % against this; taking rows shorter than 4 or
// 8 on the scalar loop instead changed nothing measurable (dblp-2010, 3.7 entries a row, varies
// +-20 % from run to run either way). Two accumulators for rows of 8 or more; the rest a quad, a
// pair and one entry.
#undef TESSERA_ROW_DOT_QUADS
#if HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX2
#define TESSERA_ROW_DOT_QUADS 1
// x[col[0]], x[col[1]] as one vector, both columns from one 8-byte load (x86: little endian);
// XQuad: col[0..4) likewise.
template <class T>
HWY_INLINE hn::Vec<hn::FixedTag<T, 2>> XPair(const std::int32_t* HWY_RESTRICT col, const T* x) {
  const hn::FixedTag<T, 2> d2;
  std::uint64_t c;
  std::memcpy(&c, col, sizeof c);
  return hn::InterleaveLower(d2, hn::Set(d2, x[static_cast<std::uint32_t>(c)]),
                             hn::Set(d2, x[static_cast<std::uint32_t>(c >> 32)]));
}
template <class T>
HWY_INLINE hn::Vec<hn::FixedTag<T, 4>> XQuad(const std::int32_t* HWY_RESTRICT col, const T* x) {
  return hn::Combine(hn::FixedTag<T, 4>(), XPair(col + 2, x), XPair(col, x));
}
template <class T>
HWY_INLINE T RowDotQuads(const std::int32_t* HWY_RESTRICT col, const T* HWY_RESTRICT val, const T* xb,
                         std::size_t len) {
  const hn::FixedTag<T, 2> d2;
  const hn::FixedTag<T, 4> d4;
  const auto pair = [&](std::size_t k) { return XPair(col + k, xb); };
  const auto quad = [&](std::size_t k) { return XQuad(col + k, xb); };
  auto a0 = hn::Zero(d4), a1 = a0;
  std::size_t k = 0;
  for (; k + 8 <= len; k += 8) {
    a0 = hn::MulAdd(hn::LoadU(d4, val + k), quad(k), a0);
    a1 = hn::MulAdd(hn::LoadU(d4, val + k + 4), quad(k + 4), a1);
  }
  if (k + 4 <= len) {
    a0 = hn::MulAdd(hn::LoadU(d4, val + k), quad(k), a0);
    k += 4;
  }
  const auto a = hn::Add(a0, a1);
  auto p = hn::Add(hn::LowerHalf(d2, a), hn::UpperHalf(d2, a));
  if (k + 2 <= len) {
    p = hn::MulAdd(hn::LoadU(d2, val + k), pair(k), p);
    k += 2;
  }
  T s = hn::GetLane(hn::SumOfLanes(d2, p));
  if (k < len) s += val[k] * xb[col[k]];
  return s;
}

// Rows of at most kShortQuadsMax f64 entries the same way, without a loop or a branch (the
// short-row path where gathers do not pay, as RowDotShort is where they do): always eight
// columns and values from the row's start; the lanes past len hold the next rows' entries, whose
// products are dropped (IfThenElseZero, so an Inf or NaN in x there stays out). The caller
// guarantees eight readable entries. On the Zen 5 VM (2 threads, f64) vsp_model1 0.149-0.154 ->
// 0.100-0.101 ms against the masked gather. Every row this way (whole steps of eight, then the
// rest as two masked quads) lost to RowDotQuads's tail branches: Dubcova1 0.035 -> 0.047 ms,
// cage11 0.080 -> 0.107 (bench/RESULTS.md, session 33).
HWY_INLINE double RowDotShortQuads(const std::int32_t* HWY_RESTRICT col, const double* HWY_RESTRICT val,
                                   const double* x, std::size_t len) {
  const hn::FixedTag<double, 4> d4;
  const auto p0 = hn::Mul(hn::LoadU(d4, val), XQuad(col, x));
  const auto p1 = hn::Mul(hn::LoadU(d4, val + 4), XQuad(col + 4, x));
  const auto sum = hn::Add(hn::IfThenElseZero(hn::FirstN(d4, len), p0),
                           hn::IfThenElseZero(hn::FirstN(d4, len > 4 ? len - 4 : 0), p1));
  return hn::GetLane(hn::SumOfLanes(d4, sum));
}
#else
#define TESSERA_ROW_DOT_QUADS 0
#endif

// RowDotShortQuads's longest row (and the entries it reads), and the call for any type: the
// scalar loop where it does not exist (the callers take it only where it does: kShortQuads in
// spmv.cpp).
constexpr std::size_t kShortQuadsMax = 8;
template <class T, class Idx>
HWY_INLINE T RowDotScalar(const Idx* HWY_RESTRICT col, const T* HWY_RESTRICT val, const T* x, std::size_t len,
                          std::int32_t base);
template <class T, class Idx>
HWY_INLINE T ShortQuadsDot(const Idx* HWY_RESTRICT col, const T* HWY_RESTRICT val, const T* x, std::size_t len) {
#if TESSERA_ROW_DOT_QUADS
  if constexpr (sizeof(T) == 8 && !kNarrow<Idx>) return RowDotShortQuads(col, val, x, len);
#endif
  return RowDotScalar(col, val, x, len, 0);
}

// The same in scalar code, for rows too short to fill a vector; two chains so that rows of
// 5-10 entries are not bound by the FMA latency. x + base: the narrow offsets index from the
// row's own element.
template <class T, class Idx>
HWY_INLINE T RowDotScalar(const Idx* HWY_RESTRICT col, const T* HWY_RESTRICT val, const T* x, std::size_t len,
                          std::int32_t base) {
  const T* xb = x + base;
#if TESSERA_ROW_DOT_QUADS
  if constexpr (sizeof(T) == 8 && !kNarrow<Idx>) return RowDotQuads(col, val, xb, len);
#endif
  T s0 = 0, s1 = 0;
  std::size_t k = 0;
  for (; k + 2 <= len; k += 2) {
    s0 += val[k] * xb[col[k]];
    s1 += val[k + 1] * xb[col[k + 1]];
  }
  if (k < len) s0 += val[k] * xb[col[k]];
  return s0 + s1;
}

template <class T, class Idx>
HWY_INLINE T RowDot(const Idx* HWY_RESTRICT col, const T* HWY_RESTRICT val, const T* x, std::size_t len,
                    std::size_t gather_min_len, std::int32_t base = 0) {
  return len >= gather_min_len ? RowDotGather(col, val, x, len, base) : RowDotScalar(col, val, x, len, base);
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

template <class T, class Idx>
HWY_INLINE T RowDotShort(const Idx* HWY_RESTRICT col, const T* HWY_RESTRICT val, const T* x, std::size_t len,
                         std::int32_t base) {
  const hn::CappedTag<T, 8> d;
  const hn::RebindToSigned<decltype(d)> di;
  const hn::Rebind<std::int32_t, decltype(d)> d32;
  const auto m = hn::FirstN(d, len);
  hn::VFromD<decltype(d32)> c32;
  if constexpr (kNarrow<Idx>) {
    // A whole vector of offsets (AVX2 has no 16-bit masked load: Highway's MaskedLoad would be
    // an aligned full load there); the narrow array is padded so that it stays inside it
    // (plan/csr_columns.hpp). Idle lanes hold the next row's offsets: index 0 instead.
    const hn::Rebind<std::int16_t, decltype(d)> d16;
    const auto off = hn::PromoteTo(d32, hn::LoadU(d16, col));
    c32 = hn::IfThenElseZero(hn::FirstN(d32, len), hn::Add(off, hn::Set(d32, base)));
  } else {
    c32 = hn::MaskedLoad(hn::FirstN(d32, len), d32, col);
  }
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
