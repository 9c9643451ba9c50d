// CSR SpMV over a row range on the calling thread; backends/cpu/spmv.cpp gives each thread a
// range with an equal share of the nonzeros.
#pragma once

#include <cstdint>

namespace tessera::cpu {

// gather_min_len for "no gathers of x".
constexpr std::int64_t kNoGathers = INT64_MAX;

// y[i] = alpha * (A x)[i] + beta * y[i] for i in [row_begin, row_end); beta == 0: y not read.
// Rows with at least gather_min_len nonzeros use SIMD gathers of x, shorter rows a scalar loop
// (a gather only pays off once it fills a vector); kNoGathers: no gathers of x at all (where
// they do not pay: the cpu backend's spmv.gathers), short rows then included.
// prefetch_x: prefetch x[col[k]] some nonzeros ahead, for an x that does not fit the L2.
// short_gather: rows of up to 8 nonzeros (fewer where a vector is shorter) without a branch, for
// matrices whose short rows vary in length: one masked gather, or under kNoGathers (f64, int32
// columns, x86) eight entries as quads of scalar loads; needs cols >= 1 (x[0] is read) and is
// ignored on targets without hardware gathers.
// prefetch_streams: prefetch the values and column indices ahead, for arrays beyond the caches.
void spmv_f32(const std::int32_t* row_ptr, const std::int32_t* col_idx, const float* values, const float* x,
              float alpha, float beta, float* y, std::int64_t row_begin, std::int64_t row_end,
              std::int64_t gather_min_len, bool prefetch_x, bool short_gather, bool prefetch_streams);
void spmv_f64(const std::int32_t* row_ptr, const std::int32_t* col_idx, const double* values, const double* x,
              double alpha, double beta, double* y, std::int64_t row_begin, std::int64_t row_end,
              std::int64_t gather_min_len, bool prefetch_x, bool short_gather, bool prefetch_streams);

// The same with narrow columns (plan/csr_columns.hpp): column = row + col_offset[k]. x is
// not prefetched (its reads stay near the row). col_offset must be readable 8 elements past
// the last row's end (plan::narrow_columns pads it): short rows load a whole vector.
void spmv_narrow_f32(const std::int32_t* row_ptr, const std::int16_t* col_offset, const float* values, const float* x,
                     float alpha, float beta, float* y, std::int64_t row_begin, std::int64_t row_end,
                     std::int64_t gather_min_len, bool short_gather, bool prefetch_streams);
void spmv_narrow_f64(const std::int32_t* row_ptr, const std::int16_t* col_offset, const double* values,
                     const double* x, double alpha, double beta, double* y, std::int64_t row_begin,
                     std::int64_t row_end, std::int64_t gather_min_len, bool short_gather, bool prefetch_streams);

// Whether the running target has hardware gathers (AVX2, AVX-512, SVE; elsewhere Highway
// emulates them lane by lane and the scalar loop is as fast). Whether the CPU runs them faster
// than scalar loads is the tuning class's (spmv.gathers, backends/cpu/gathers.hpp).
bool spmv_target_has_gather();

}  // namespace tessera::cpu
