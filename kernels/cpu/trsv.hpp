// Entry points of the cpu device's dense triangular solves. Row-major A (n x n, leading
// dimension lda); only the triangle named by `upper` is read, and with `unit` not its diagonal.
// `trans` solves with A^T. Zero diagonals are not checked (BLAS semantics: inf/NaN result).
// Fewer threads run where each would get less than min_elems_per_thread elements of A (tuning
// key trsv.min_elems_per_thread) or, for trsm's GEMM updates, min_flops_per_thread (gemm.*).
// alpha == 0 is lib/'s business (ops.cpp: B = 0 without reading A); here it scales B as any.
#pragma once

#include <cstdint>

namespace tessera::cpu {

// op(A) x = b in place (x holds b on entry).
void trsv(bool upper, bool trans, bool unit, std::int64_t n, const float* A, std::int64_t lda, float* x,
          std::int64_t min_elems_per_thread);
void trsv(bool upper, bool trans, bool unit, std::int64_t n, const double* A, std::int64_t lda, double* x,
          std::int64_t min_elems_per_thread);

// op(A) X = alpha B in place, B n x nrhs with leading dimension ldb.
void trsm(bool upper, bool trans, bool unit, std::int64_t n, std::int64_t nrhs, float alpha, const float* A,
          std::int64_t lda, float* B, std::int64_t ldb, std::int64_t min_flops_per_thread);
void trsm(bool upper, bool trans, bool unit, std::int64_t n, std::int64_t nrhs, double alpha, const double* A,
          std::int64_t lda, double* B, std::int64_t ldb, std::int64_t min_flops_per_thread);

}  // namespace tessera::cpu
