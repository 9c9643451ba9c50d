// SpMM rows, vectorised over the k columns: a row of Y is a few vectors of accumulators, and each
// stored entry a_ij adds a_ij times row j of X (contiguous: unit-stride vector loads, no gather).
// A pass over the row's entries fills up to four full vectors (4 N columns); columns past the
// last full vector go in passes of narrower vectors (CappedTag 8, 4, 2, 1), so k = 8 on a
// 16-lane target is one 8-lane pass, not eight scalar ones. Four accumulators are the most
// that keep the loads of X in flight without spilling (16 or 32 vector registers).
#include <cstddef>
#include <cstdint>

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/cpu/spmm.cpp"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/cache_control.h>
#include <hwy/highway.h>

HWY_BEFORE_NAMESPACE();
namespace tessera::cpu::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// Columns [j0, j0 + V * Lanes(d)) of rows [r0, r1). No arrays of vectors: sizeless on SVE.
template <int V, class D, class T = hn::TFromD<D>>
HWY_INLINE void Pass(D d, const std::int32_t* HWY_RESTRICT row_ptr, const std::int32_t* HWY_RESTRICT col,
                     const T* HWY_RESTRICT val, const T* HWY_RESTRICT X, std::int64_t ldx, T alpha, T beta,
                     T* HWY_RESTRICT Y, std::int64_t ldy, std::int64_t j0, std::int64_t r0, std::int64_t r1,
                     std::int64_t pf) {
  const std::int64_t N = static_cast<std::int64_t>(hn::Lanes(d));
  const std::int32_t last = row_ptr[r1];  // prefetches stay within this thread's entries
  const auto va = hn::Set(d, alpha), vb = hn::Set(d, beta);
  for (std::int64_t i = r0; i < r1; ++i) {
    auto a0 = hn::Zero(d), a1 = hn::Zero(d), a2 = hn::Zero(d), a3 = hn::Zero(d);
    for (std::int32_t p = row_ptr[i]; p < row_ptr[i + 1]; ++p) {
      // The row of X that the entry pf places ahead needs (across row ends): random rows of a
      // large X miss the caches, and the core does not run that far ahead by itself.
      if (pf > 0 && p + pf < last) {
        const char* ahead = reinterpret_cast<const char*>(X + static_cast<std::int64_t>(col[p + pf]) * ldx + j0);
        for (std::int64_t b = 0; b < V * N * static_cast<std::int64_t>(sizeof(T)); b += 64) hwy::Prefetch(ahead + b);
      }
      const auto v = hn::Set(d, val[p]);
      const T* x = X + static_cast<std::int64_t>(col[p]) * ldx + j0;
      a0 = hn::MulAdd(v, hn::LoadU(d, x), a0);
      if constexpr (V > 1) a1 = hn::MulAdd(v, hn::LoadU(d, x + N), a1);
      if constexpr (V > 2) a2 = hn::MulAdd(v, hn::LoadU(d, x + 2 * N), a2);
      if constexpr (V > 3) a3 = hn::MulAdd(v, hn::LoadU(d, x + 3 * N), a3);
    }
    T* y = Y + i * ldy + j0;
    auto out = [&](decltype(a0) acc, std::int64_t at) {
      auto r = hn::Mul(va, acc);
      if (beta != T(0)) r = hn::MulAdd(vb, hn::LoadU(d, y + at), r);  // beta == 0: Y not read
      hn::StoreU(r, d, y + at);
    };
    out(a0, 0);
    if constexpr (V > 1) out(a1, N);
    if constexpr (V > 2) out(a2, 2 * N);
    if constexpr (V > 3) out(a3, 3 * N);
  }
}

// The columns from j0 on, fewer than a full vector of D: halving capped vectors.
template <class T, std::size_t kCap>
HWY_INLINE void Tail(const std::int32_t* row_ptr, const std::int32_t* col, const T* val, const T* X, std::int64_t ldx,
                     T alpha, T beta, T* Y, std::int64_t ldy, std::int64_t j0, std::int64_t k, std::int64_t r0,
                     std::int64_t r1, std::int64_t pf) {
  const hn::CappedTag<T, kCap> d;
  const std::int64_t n = static_cast<std::int64_t>(hn::Lanes(d));
  if (k - j0 >= n) {
    Pass<1>(d, row_ptr, col, val, X, ldx, alpha, beta, Y, ldy, j0, r0, r1, pf);
    j0 += n;
  }
  if constexpr (kCap > 1) Tail<T, kCap / 2>(row_ptr, col, val, X, ldx, alpha, beta, Y, ldy, j0, k, r0, r1, pf);
}

template <class T>
void RowsT(const std::int32_t* row_ptr, const std::int32_t* col, const T* val, const T* X, std::int64_t ldx, T alpha,
           T beta, T* Y, std::int64_t ldy, std::int64_t k, std::int64_t r0, std::int64_t r1, std::int64_t pf) {
  const hn::ScalableTag<T> d;
  const std::int64_t N = static_cast<std::int64_t>(hn::Lanes(d));
  std::int64_t j = 0;
  for (; j + 4 * N <= k; j += 4 * N) Pass<4>(d, row_ptr, col, val, X, ldx, alpha, beta, Y, ldy, j, r0, r1, pf);
  if (j + 3 * N <= k) {
    Pass<3>(d, row_ptr, col, val, X, ldx, alpha, beta, Y, ldy, j, r0, r1, pf);
    j += 3 * N;
  } else if (j + 2 * N <= k) {
    Pass<2>(d, row_ptr, col, val, X, ldx, alpha, beta, Y, ldy, j, r0, r1, pf);
    j += 2 * N;
  } else if (j + N <= k) {
    Pass<1>(d, row_ptr, col, val, X, ldx, alpha, beta, Y, ldy, j, r0, r1, pf);
    j += N;
  }
  // Fewer than N columns left: at most one pass per power of two below N (capped at 32 lanes).
  if (j < k) Tail<T, 32>(row_ptr, col, val, X, ldx, alpha, beta, Y, ldy, j, k, r0, r1, pf);
}

void RowsF32(const std::int32_t* row_ptr, const std::int32_t* col, const float* val, const float* X, std::int64_t ldx,
             float alpha, float beta, float* Y, std::int64_t ldy, std::int64_t k, std::int64_t r0, std::int64_t r1, std::int64_t pf) {
  RowsT(row_ptr, col, val, X, ldx, alpha, beta, Y, ldy, k, r0, r1, pf);
}
void RowsF64(const std::int32_t* row_ptr, const std::int32_t* col, const double* val, const double* X,
             std::int64_t ldx, double alpha, double beta, double* Y, std::int64_t ldy, std::int64_t k, std::int64_t r0,
             std::int64_t r1, std::int64_t pf) {
  RowsT(row_ptr, col, val, X, ldx, alpha, beta, Y, ldy, k, r0, r1, pf);
}

}  // namespace tessera::cpu::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
#include "kernels/cpu/spmm.hpp"

namespace tessera::cpu {
HWY_EXPORT(RowsF32);
HWY_EXPORT(RowsF64);

void spmm_f32(const std::int32_t* row_ptr, const std::int32_t* col, const float* val, const float* X,
              std::int64_t ldx, float alpha, float beta, float* Y, std::int64_t ldy, std::int64_t k, std::int64_t r0,
              std::int64_t r1, std::int64_t pf) {
  HWY_DYNAMIC_DISPATCH(RowsF32)(row_ptr, col, val, X, ldx, alpha, beta, Y, ldy, k, r0, r1, pf);
}
void spmm_f64(const std::int32_t* row_ptr, const std::int32_t* col, const double* val, const double* X,
              std::int64_t ldx, double alpha, double beta, double* Y, std::int64_t ldy, std::int64_t k,
              std::int64_t r0, std::int64_t r1, std::int64_t pf) {
  HWY_DYNAMIC_DISPATCH(RowsF64)(row_ptr, col, val, X, ldx, alpha, beta, Y, ldy, k, r0, r1, pf);
}
}  // namespace tessera::cpu
#endif  // HWY_ONCE
