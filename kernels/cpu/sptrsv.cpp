// Sparse triangular substitution over rows of one level set (or a run of small levels).
#include <cstddef>
#include <cstdint>

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/cpu/sptrsv.cpp"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

#include "kernels/cpu/csr_row.hpp"

HWY_BEFORE_NAMESPACE();
namespace tessera::cpu::HWY_NAMESPACE {

// b and x may alias, so neither is HWY_RESTRICT.
template <bool kUnit, class T>
TESSERA_NO_AUTOVECTORIZE void RowsT(const std::int32_t* HWY_RESTRICT row, const std::int32_t* HWY_RESTRICT ptr,
                                    const std::int32_t* HWY_RESTRICT col, const T* HWY_RESTRICT val,
                                    const T* HWY_RESTRICT diag, const T* b, T* x, std::int64_t p0, std::int64_t p1,
                                    std::int64_t gather_min_len) {
  for (std::int64_t p = p0; p < p1; ++p) {
    const std::int64_t i = row[p], k = ptr[p], len = ptr[p + 1] - k;
    const T s =
        b[i] - RowDot(col + k, val + k, x, static_cast<std::size_t>(len), static_cast<std::size_t>(gather_min_len));
    x[i] = kUnit ? s : s / diag[p];
  }
}

template <class T>
void SolveT(const std::int32_t* row, const std::int32_t* ptr, const std::int32_t* col, const T* val, const T* diag,
            const T* b, T* x, std::int64_t p0, std::int64_t p1, std::int64_t gather_min_len) {
  if (diag == nullptr)
    RowsT<true>(row, ptr, col, val, diag, b, x, p0, p1, gather_min_len);
  else
    RowsT<false>(row, ptr, col, val, diag, b, x, p0, p1, gather_min_len);
}

void SolveF32(const std::int32_t* row, const std::int32_t* ptr, const std::int32_t* col, const float* val,
              const float* diag, const float* b, float* x, std::int64_t p0, std::int64_t p1,
              std::int64_t gather_min_len) {
  SolveT(row, ptr, col, val, diag, b, x, p0, p1, gather_min_len);
}
void SolveF64(const std::int32_t* row, const std::int32_t* ptr, const std::int32_t* col, const double* val,
              const double* diag, const double* b, double* x, std::int64_t p0, std::int64_t p1,
              std::int64_t gather_min_len) {
  SolveT(row, ptr, col, val, diag, b, x, p0, p1, gather_min_len);
}

}  // namespace tessera::cpu::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
#include "kernels/cpu/sptrsv.hpp"

namespace tessera::cpu {
HWY_EXPORT(SolveF32);
HWY_EXPORT(SolveF64);

void sptrsv_rows_f32(const std::int32_t* row, const std::int32_t* ptr, const std::int32_t* col, const float* val,
                     const float* diag, const float* b, float* x, std::int64_t p0, std::int64_t p1,
                     std::int64_t gather_min_len) {
  HWY_DYNAMIC_DISPATCH(SolveF32)(row, ptr, col, val, diag, b, x, p0, p1, gather_min_len);
}
void sptrsv_rows_f64(const std::int32_t* row, const std::int32_t* ptr, const std::int32_t* col, const double* val,
                     const double* diag, const double* b, double* x, std::int64_t p0, std::int64_t p1,
                     std::int64_t gather_min_len) {
  HWY_DYNAMIC_DISPATCH(SolveF64)(row, ptr, col, val, diag, b, x, p0, p1, gather_min_len);
}
}  // namespace tessera::cpu
#endif  // HWY_ONCE
