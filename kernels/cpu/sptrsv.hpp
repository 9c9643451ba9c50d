// Sparse triangular substitution over a level-ordered copy of the triangle (built by
// backends/cpu/sptrsv.cpp's analysis), on the calling thread.
#pragma once

#include <cstdint>

namespace tessera::cpu {

// For p in [p0, p1), in order: x[row[p]] = (b[row[p]] - sum_k val[k] * x[col[k]]) / diag[p],
// k in [ptr[p], ptr[p+1]) (the strict triangle only); diag == nullptr means unit diagonal.
// x may equal b: each row reads its own b before writing its x.
void sptrsv_rows_f32(const std::int32_t* row, const std::int32_t* ptr, const std::int32_t* col, const float* val,
                     const float* diag, const float* b, float* x, std::int64_t p0, std::int64_t p1,
                     std::int64_t gather_min_len);
void sptrsv_rows_f64(const std::int32_t* row, const std::int32_t* ptr, const std::int32_t* col, const double* val,
                     const double* diag, const double* b, double* x, std::int64_t p0, std::int64_t p1,
                     std::int64_t gather_min_len);

}  // namespace tessera::cpu
