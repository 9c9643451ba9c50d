// CSR SpMV. Memory bound: per nonzero one value and one index (int32, or int16 in the narrow
// storage) are streamed, x is gathered
// (mostly from cache), so the kernel's job is to keep loads in flight, not to save flops.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <type_traits>

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/cpu/spmv.cpp"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/cache_control.h>
#include <hwy/highway.h>

#include "kernels/cpu/csr_row.hpp"

#include "kernels/cpu/spmv.hpp"

HWY_BEFORE_NAMESPACE();
namespace tessera::cpu::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// Software prefetch of the streamed arrays, ~1-2 KiB ahead: the hardware prefetchers lose
// track of three interleaved streams of short rows; measured +5% (f32) to +35% (f64) on the
// 7-point Laplacian on a Sapphire Rapids VM. A prefetch past the end is harmless (no fault).
// Only where the arrays come from memory (the caller decides): on a matrix that stays in cache
// the two prefetches per row are only work (cpu/row_split.hpp, prefetch_streams).
constexpr std::int64_t kPrefetchAhead = 256;
// And of x itself, kPrefetchX nonzeros ahead, when x is large (the caller decides): with
// scattered columns every x load then misses the caches and often the TLB, and the core alone
// keeps too few of them in flight; a prefetch per nonzero, issued that far ahead, overlaps
// them. Measured on a Zen 5 VM, one thread: 2.4x on random 4M rows with 5-8 nonzeros (f32),
// 1.6x on power-law rows; 64 and 256 ahead were slower. With x in the caches the extra loads
// only cost, hence the switch. The column indices it reads are read again a row or two later.
constexpr std::int64_t kPrefetchX = 128;

// The short rows (kShortGather) as RowDotShortQuads where eight entries from the row's start
// are in the range: f64 with int32 columns on x86 where gathers are not used (kNoGathers).
template <class T, class Idx>
constexpr bool kShortQuads = TESSERA_ROW_DOT_QUADS && sizeof(T) == 8 && !kNarrow<Idx>;

template <bool kReadY, bool kPrefetchXOn, bool kShortGather, class T, class Idx>
TESSERA_NO_AUTOVECTORIZE void Rows(const std::int32_t* HWY_RESTRICT row_ptr, const Idx* HWY_RESTRICT col,
                                   const T* HWY_RESTRICT val, const T* HWY_RESTRICT x, T alpha, T beta,
                                   T* HWY_RESTRICT y, std::int64_t row_begin, std::int64_t row_end,
                                   std::int64_t gather_min_len, bool prefetch_streams) {
  const bool short_quads = kShortQuads<T, Idx> && kShortGather && gather_min_len == ::tessera::cpu::kNoGathers;
  const std::int64_t short_max = static_cast<std::int64_t>(ShortRowMax<T>());
  const std::int64_t nnz_end = row_ptr[row_end];  // col is not read past the range
  std::int64_t x_ahead = std::min(row_ptr[row_begin] + kPrefetchX, nnz_end);
  for (std::int64_t i = row_begin; i < row_end; ++i) {
    const std::int64_t b = row_ptr[i], len = row_ptr[i + 1] - b;
    if (prefetch_streams) {
      hwy::Prefetch(val + b + kPrefetchAhead);
      hwy::Prefetch(col + b + kPrefetchAhead);
    }
    if constexpr (kPrefetchXOn && !kNarrow<Idx>) {
      for (const std::int64_t to = std::min(b + len + kPrefetchX, nnz_end); x_ahead < to; ++x_ahead)
        hwy::Prefetch(x + col[x_ahead]);
    }
    const std::int32_t base = kNarrow<Idx> ? static_cast<std::int32_t>(i) : 0;
    constexpr auto kQuadsMax = static_cast<std::int64_t>(kShortQuadsMax);
    T s;
    if (short_quads && len <= kQuadsMax && b + kQuadsMax <= nnz_end)
      s = ShortQuadsDot(col + b, val + b, x, static_cast<std::size_t>(len));
    else if (kShortGather && !short_quads && len <= short_max)
      s = RowDotShort(col + b, val + b, x, static_cast<std::size_t>(len), base);
    else
      s = RowDot(col + b, val + b, x, static_cast<std::size_t>(len), static_cast<std::size_t>(gather_min_len), base);
    if constexpr (kReadY)
      y[i] = alpha * s + beta * y[i];
    else
      y[i] = alpha * s;
  }
}

template <class T, class Idx>
void SpmvT(const std::int32_t* row_ptr, const Idx* col, const T* val, const T* x, T alpha, T beta, T* y,
           std::int64_t row_begin, std::int64_t row_end, std::int64_t gather_min_len, bool prefetch_x,
           bool short_gather, bool prefetch_streams) {
  const auto run = [&](auto read_y, auto pf, auto sg) {
    Rows<decltype(read_y)::value, decltype(pf)::value, decltype(sg)::value>(row_ptr, col, val, x, alpha, beta, y,
                                                                            row_begin, row_end, gather_min_len,
                                                                            prefetch_streams);
  };
  const auto with_y = [&](auto read_y) {
    using No = std::false_type;
    if constexpr (kHasGather) {
      using Yes = std::true_type;
      if (short_gather) return prefetch_x ? run(read_y, Yes(), Yes()) : run(read_y, No(), Yes());
    }
    prefetch_x ? run(read_y, std::true_type(), No()) : run(read_y, No(), No());
  };
  if (beta == T(0))
    with_y(std::false_type());
  else
    with_y(std::true_type());
}

void SpmvF32(const std::int32_t* row_ptr, const std::int32_t* col, const float* val, const float* x, float alpha,
             float beta, float* y, std::int64_t row_begin, std::int64_t row_end, std::int64_t gather_min_len,
             bool prefetch_x, bool short_gather, bool prefetch_streams) {
  SpmvT(row_ptr, col, val, x, alpha, beta, y, row_begin, row_end, gather_min_len, prefetch_x, short_gather,
        prefetch_streams);
}
void SpmvF64(const std::int32_t* row_ptr, const std::int32_t* col, const double* val, const double* x, double alpha,
             double beta, double* y, std::int64_t row_begin, std::int64_t row_end, std::int64_t gather_min_len,
             bool prefetch_x, bool short_gather, bool prefetch_streams) {
  SpmvT(row_ptr, col, val, x, alpha, beta, y, row_begin, row_end, gather_min_len, prefetch_x, short_gather,
        prefetch_streams);
}

// Narrow columns: x is read within +-32767 elements of the row, a window the caches and the
// hardware prefetchers follow, so x is never prefetched by hand.
void SpmvNarrowF32(const std::int32_t* row_ptr, const std::int16_t* col, const float* val, const float* x,
                   float alpha, float beta, float* y, std::int64_t row_begin, std::int64_t row_end,
                   std::int64_t gather_min_len, bool short_gather, bool prefetch_streams) {
  SpmvT(row_ptr, col, val, x, alpha, beta, y, row_begin, row_end, gather_min_len, false, short_gather,
        prefetch_streams);
}
void SpmvNarrowF64(const std::int32_t* row_ptr, const std::int16_t* col, const double* val, const double* x,
                   double alpha, double beta, double* y, std::int64_t row_begin, std::int64_t row_end,
                   std::int64_t gather_min_len, bool short_gather, bool prefetch_streams) {
  SpmvT(row_ptr, col, val, x, alpha, beta, y, row_begin, row_end, gather_min_len, false, short_gather,
        prefetch_streams);
}

bool HasGather() { return kHasGather; }

}  // namespace tessera::cpu::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
#include "kernels/cpu/spmv.hpp"

namespace tessera::cpu {
HWY_EXPORT(SpmvF32);
HWY_EXPORT(SpmvF64);
HWY_EXPORT(SpmvNarrowF32);
HWY_EXPORT(SpmvNarrowF64);
HWY_EXPORT(HasGather);

void spmv_f32(const std::int32_t* row_ptr, const std::int32_t* col_idx, const float* values, const float* x,
              float alpha, float beta, float* y, std::int64_t row_begin, std::int64_t row_end,
              std::int64_t gather_min_len, bool prefetch_x, bool short_gather, bool prefetch_streams) {
  HWY_DYNAMIC_DISPATCH(SpmvF32)(row_ptr, col_idx, values, x, alpha, beta, y, row_begin, row_end, gather_min_len,
                                prefetch_x, short_gather, prefetch_streams);
}
void spmv_f64(const std::int32_t* row_ptr, const std::int32_t* col_idx, const double* values, const double* x,
              double alpha, double beta, double* y, std::int64_t row_begin, std::int64_t row_end,
              std::int64_t gather_min_len, bool prefetch_x, bool short_gather, bool prefetch_streams) {
  HWY_DYNAMIC_DISPATCH(SpmvF64)(row_ptr, col_idx, values, x, alpha, beta, y, row_begin, row_end, gather_min_len,
                                prefetch_x, short_gather, prefetch_streams);
}

void spmv_narrow_f32(const std::int32_t* row_ptr, const std::int16_t* col_offset, const float* values, const float* x,
                     float alpha, float beta, float* y, std::int64_t row_begin, std::int64_t row_end,
                     std::int64_t gather_min_len, bool short_gather, bool prefetch_streams) {
  HWY_DYNAMIC_DISPATCH(SpmvNarrowF32)(row_ptr, col_offset, values, x, alpha, beta, y, row_begin, row_end,
                                      gather_min_len, short_gather, prefetch_streams);
}
void spmv_narrow_f64(const std::int32_t* row_ptr, const std::int16_t* col_offset, const double* values,
                     const double* x, double alpha, double beta, double* y, std::int64_t row_begin,
                     std::int64_t row_end, std::int64_t gather_min_len, bool short_gather, bool prefetch_streams) {
  HWY_DYNAMIC_DISPATCH(SpmvNarrowF64)(row_ptr, col_offset, values, x, alpha, beta, y, row_begin, row_end,
                                      gather_min_len, short_gather, prefetch_streams);
}

bool spmv_target_has_gather() { return HWY_DYNAMIC_DISPATCH(HasGather)(); }
}  // namespace tessera::cpu
#endif  // HWY_ONCE
