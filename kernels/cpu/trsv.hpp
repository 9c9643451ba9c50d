// Entry points of the cpu device's dense triangular solves. Row-major A (n x n, leading
// dimension lda); only the triangle named by `upper` is read, and with `unit` not its diagonal.
// `trans` solves with A^T. Zero diagonals are not checked (BLAS semantics: inf/NaN result).
#pragma once

#include <cstdint>

namespace tessera::cpu {

// op(A) x = b in place (x holds b on entry).
void trsv(bool upper, bool trans, bool unit, std::int64_t n, const float* A, std::int64_t lda, float* x);
void trsv(bool upper, bool trans, bool unit, std::int64_t n, const double* A, std::int64_t lda, double* x);

// op(A) X = alpha B in place, B n x nrhs with leading dimension ldb.
void trsm(bool upper, bool trans, bool unit, std::int64_t n, std::int64_t nrhs, float alpha, const float* A,
          std::int64_t lda, float* B, std::int64_t ldb);
void trsm(bool upper, bool trans, bool unit, std::int64_t n, std::int64_t nrhs, double alpha, const double* A,
          std::int64_t lda, double* B, std::int64_t ldb);

}  // namespace tessera::cpu
