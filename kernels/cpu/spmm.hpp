// SpMM rows on the calling thread: Y = alpha * A * X + beta * Y for rows [r0, r1) of a CSR
// matrix, X and Y row-major (leading dimensions ldx, ldy), k columns; backends/cpu/spmm.cpp
// splits the rows among threads.
#pragma once

#include <cstdint>

namespace tessera::cpu {

// beta == 0: Y is only written. Each entry's products are summed in stored order (one FMA each).
// pf > 0: prefetch the row of X needed pf entries ahead (for an X beyond the caches); 0: none.
void spmm_f32(const std::int32_t* row_ptr, const std::int32_t* col, const float* val, const float* X,
              std::int64_t ldx, float alpha, float beta, float* Y, std::int64_t ldy, std::int64_t k, std::int64_t r0,
              std::int64_t r1, std::int64_t pf);
void spmm_f64(const std::int32_t* row_ptr, const std::int32_t* col, const double* val, const double* X,
              std::int64_t ldx, double alpha, double beta, double* Y, std::int64_t ldy, std::int64_t k,
              std::int64_t r0, std::int64_t r1, std::int64_t pf);

}  // namespace tessera::cpu
