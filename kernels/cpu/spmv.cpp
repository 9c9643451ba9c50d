// CSR SpMV. Memory bound: per nonzero one value and one int32 index are streamed, x is gathered
// (mostly from cache), so the kernel's job is to keep loads in flight, not to save flops.
#include <cstddef>
#include <cstdint>

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/cpu/spmv.cpp"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/cache_control.h>
#include <hwy/highway.h>

#include "kernels/cpu/csr_row.hpp"

HWY_BEFORE_NAMESPACE();
namespace tessera::cpu::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// Software prefetch of the streamed arrays, ~1-2 KiB ahead: the hardware prefetchers lose
// track of three interleaved streams of short rows; measured +5% (f32) to +35% (f64) on the
// 7-point Laplacian on a Sapphire Rapids VM. A prefetch past the end is harmless (no fault).
constexpr std::int64_t kPrefetchAhead = 256;

template <bool kReadY, class T>
TESSERA_NO_AUTOVECTORIZE void Rows(const std::int32_t* HWY_RESTRICT row_ptr, const std::int32_t* HWY_RESTRICT col,
                                   const T* HWY_RESTRICT val, const T* HWY_RESTRICT x, T alpha, T beta,
                                   T* HWY_RESTRICT y, std::int64_t row_begin, std::int64_t row_end,
                                   std::int64_t gather_min_len) {
  for (std::int64_t i = row_begin; i < row_end; ++i) {
    const std::int64_t b = row_ptr[i], len = row_ptr[i + 1] - b;
    hwy::Prefetch(val + b + kPrefetchAhead);
    hwy::Prefetch(col + b + kPrefetchAhead);
    const T s = RowDot(col + b, val + b, x, static_cast<std::size_t>(len), static_cast<std::size_t>(gather_min_len));
    if constexpr (kReadY)
      y[i] = alpha * s + beta * y[i];
    else
      y[i] = alpha * s;
  }
}

template <class T>
void SpmvT(const std::int32_t* row_ptr, const std::int32_t* col, const T* val, const T* x, T alpha, T beta, T* y,
           std::int64_t row_begin, std::int64_t row_end, std::int64_t gather_min_len) {
  if (beta == T(0))
    Rows<false>(row_ptr, col, val, x, alpha, beta, y, row_begin, row_end, gather_min_len);
  else
    Rows<true>(row_ptr, col, val, x, alpha, beta, y, row_begin, row_end, gather_min_len);
}

void SpmvF32(const std::int32_t* row_ptr, const std::int32_t* col, const float* val, const float* x, float alpha,
             float beta, float* y, std::int64_t row_begin, std::int64_t row_end, std::int64_t gather_min_len) {
  SpmvT(row_ptr, col, val, x, alpha, beta, y, row_begin, row_end, gather_min_len);
}
void SpmvF64(const std::int32_t* row_ptr, const std::int32_t* col, const double* val, const double* x, double alpha,
             double beta, double* y, std::int64_t row_begin, std::int64_t row_end, std::int64_t gather_min_len) {
  SpmvT(row_ptr, col, val, x, alpha, beta, y, row_begin, row_end, gather_min_len);
}

bool HasGather() { return kHasGather; }

}  // namespace tessera::cpu::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
#include "kernels/cpu/spmv.hpp"

namespace tessera::cpu {
HWY_EXPORT(SpmvF32);
HWY_EXPORT(SpmvF64);
HWY_EXPORT(HasGather);

void spmv_f32(const std::int32_t* row_ptr, const std::int32_t* col_idx, const float* values, const float* x,
              float alpha, float beta, float* y, std::int64_t row_begin, std::int64_t row_end,
              std::int64_t gather_min_len) {
  HWY_DYNAMIC_DISPATCH(SpmvF32)(row_ptr, col_idx, values, x, alpha, beta, y, row_begin, row_end, gather_min_len);
}
void spmv_f64(const std::int32_t* row_ptr, const std::int32_t* col_idx, const double* values, const double* x,
              double alpha, double beta, double* y, std::int64_t row_begin, std::int64_t row_end,
              std::int64_t gather_min_len) {
  HWY_DYNAMIC_DISPATCH(SpmvF64)(row_ptr, col_idx, values, x, alpha, beta, y, row_begin, row_end, gather_min_len);
}
bool spmv_has_gather() { return HWY_DYNAMIC_DISPATCH(HasGather)(); }
}  // namespace tessera::cpu
#endif  // HWY_ONCE
