// SELL-C-sigma SpMV: a slice is C = 2 SIMD vectors of rows; step j of the slice loads the j-th
// entries of all its rows as two contiguous vectors of values and of column indices, gathers x
// and adds into two accumulators (independent chains). Rows shorter than the slice's longest
// are masked (their padding holds column 0 and value 0; the gathered x is zeroed so Inf/NaN in
// x[0] stays out).
#include <algorithm>
#include <cstddef>
#include <cstdint>

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/cpu/spmv_sell.cpp"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/cache_control.h>
#include <hwy/highway.h>

#include "kernels/cpu/csr_row.hpp"
#include "kernels/cpu/spmv_sell.hpp"

HWY_BEFORE_NAMESPACE();
namespace tessera::cpu::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// Software prefetch of the value and column streams, this many elements ahead (as CSR's
// kPrefetchAhead in spmv.cpp: the hardware prefetchers alone leave DRAM bandwidth unused).
constexpr std::int64_t kPrefetchAhead = 256;

template <class T>
int SellC() {
  return static_cast<int>(2 * hn::Lanes(hn::ScalableTag<T>()));
}

// x[col[0..N)] with the lanes outside m zeroed.
template <class D, class M, class T = hn::TFromD<D>>
HWY_INLINE hn::VFromD<D> GatherMasked(D d, M m, const T* x, const std::int32_t* HWY_RESTRICT col) {
  return hn::IfThenElseZero(m, GatherX(d, x, col));
}

// The row lengths of N slots as lanes of the signed type of T's width (a mask of them then
// rebinds to T's lanes).
template <class D>
HWY_INLINE hn::VFromD<hn::RebindToSigned<D>> LoadLengths(D d, const std::int32_t* HWY_RESTRICT len) {
  const hn::RebindToSigned<D> di;
  (void)d;
  if constexpr (sizeof(hn::TFromD<D>) == 4) {
    return hn::LoadU(di, len);
  } else {
    return hn::PromoteTo(di, hn::LoadU(hn::Rebind<std::int32_t, D>(), len));
  }
}

template <bool kReadY, class T>
void Slices(const SellArrays<T>& a, const T* HWY_RESTRICT x, T alpha, T beta, T* HWY_RESTRICT y, std::int64_t s0,
            std::int64_t s1) {
  const hn::ScalableTag<T> d;
  const hn::RebindToSigned<decltype(d)> di;
  using TI = hn::TFromD<decltype(di)>;
  const std::size_t N = hn::Lanes(d);
  const std::int64_t C = a.c;
  HWY_ALIGN T out[2 * hn::MaxLanes(d)];
  for (std::int64_t s = s0; s < s1; ++s) {
    const std::int64_t base = a.slice_ptr[s], width = (a.slice_ptr[s + 1] - base) / C;
    const std::int32_t* len = a.row_len + s * C;
    const auto len0 = LoadLengths(d, len), len1 = LoadLengths(d, len + N);
    // Steps every row of the slice has need no mask.
    const std::int64_t full = hn::GetLane(hn::MinOfLanes(di, hn::Min(len0, len1)));
    auto acc0 = hn::Zero(d), acc1 = hn::Zero(d);
    const T* v = a.val + base;
    const std::int32_t* c = a.col + base;
    std::int64_t j = 0;
    for (; j < full; ++j, v += C, c += C) {
      // A step reads 2N values and 2N indices: a line or two of each.
      hwy::Prefetch(v + kPrefetchAhead);
      hwy::Prefetch(v + N + kPrefetchAhead);
      hwy::Prefetch(c + kPrefetchAhead);
      acc0 = hn::MulAdd(hn::LoadU(d, v), GatherX(d, x, c), acc0);
      acc1 = hn::MulAdd(hn::LoadU(d, v + N), GatherX(d, x, c + N), acc1);
    }
    for (; j < width; ++j, v += C, c += C) {
      const auto step = hn::Set(di, static_cast<TI>(j));
      const auto m0 = hn::RebindMask(d, hn::Lt(step, len0)), m1 = hn::RebindMask(d, hn::Lt(step, len1));
      acc0 = hn::MulAdd(hn::LoadU(d, v), GatherMasked(d, m0, x, c), acc0);
      acc1 = hn::MulAdd(hn::LoadU(d, v + N), GatherMasked(d, m1, x, c + N), acc1);
    }
    hn::Store(acc0, d, out);
    hn::Store(acc1, d, out + N);
    const std::int64_t first = s * C, n = std::min<std::int64_t>(C, a.rows - first);
    for (std::int64_t l = 0; l < n; ++l) {
      const std::int64_t r = a.perm != nullptr ? a.perm[first + l] : first + l;
      if constexpr (kReadY)
        y[r] = alpha * out[l] + beta * y[r];
      else
        y[r] = alpha * out[l];
    }
  }
}

// Any C (a layout built for another target): one slot at a time.
template <class T>
void SlicesScalar(const SellArrays<T>& a, const T* x, T alpha, T beta, T* y, std::int64_t s0, std::int64_t s1) {
  for (std::int64_t slot = s0 * a.c; slot < std::min(s1 * a.c, a.rows); ++slot) {
    const std::int64_t s = slot / a.c, lane = slot % a.c;
    T sum = 0;
    for (std::int64_t j = 0; j < a.row_len[slot]; ++j) {
      const std::int64_t k = a.slice_ptr[s] + j * a.c + lane;
      sum += a.val[k] * x[a.col[k]];
    }
    const std::int64_t r = a.perm != nullptr ? a.perm[slot] : slot;
    y[r] = beta == T(0) ? alpha * sum : alpha * sum + beta * y[r];
  }
}

template <class T>
void SellT(const SellArrays<T>& a, const T* x, T alpha, T beta, T* y, std::int64_t s0, std::int64_t s1) {
  if (a.c != SellC<T>())
    SlicesScalar(a, x, alpha, beta, y, s0, s1);
  else if (beta == T(0))
    Slices<false>(a, x, alpha, beta, y, s0, s1);
  else
    Slices<true>(a, x, alpha, beta, y, s0, s1);
}

void SellF32(const SellArrays<float>& a, const float* x, float alpha, float beta, float* y, std::int64_t s0,
             std::int64_t s1) {
  SellT(a, x, alpha, beta, y, s0, s1);
}
void SellF64(const SellArrays<double>& a, const double* x, double alpha, double beta, double* y, std::int64_t s0,
             std::int64_t s1) {
  SellT(a, x, alpha, beta, y, s0, s1);
}
int SellCF32() { return SellC<float>(); }
int SellCF64() { return SellC<double>(); }

}  // namespace tessera::cpu::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace tessera::cpu {
HWY_EXPORT(SellF32);
HWY_EXPORT(SellF64);
HWY_EXPORT(SellCF32);
HWY_EXPORT(SellCF64);

void spmv_sell_f32(const SellArrays<float>& a, const float* x, float alpha, float beta, float* y, std::int64_t s0,
                   std::int64_t s1) {
  HWY_DYNAMIC_DISPATCH(SellF32)(a, x, alpha, beta, y, s0, s1);
}
void spmv_sell_f64(const SellArrays<double>& a, const double* x, double alpha, double beta, double* y,
                   std::int64_t s0, std::int64_t s1) {
  HWY_DYNAMIC_DISPATCH(SellF64)(a, x, alpha, beta, y, s0, s1);
}
int sell_c_f32() { return HWY_DYNAMIC_DISPATCH(SellCF32)(); }
int sell_c_f64() { return HWY_DYNAMIC_DISPATCH(SellCF64)(); }
}  // namespace tessera::cpu
#endif  // HWY_ONCE
