// Dense triangular solves by forward or backward substitution. The right-hand side is copied
// to double and solved there, so no intermediate x(i) is rounded to T before it is used by the
// rows below; only the solution is rounded, once.
#include <cstdint>
#include <vector>

#include "reference/reference_backend.hpp"

namespace tessera {

namespace {

// Solves op(A) w = w in place. op(A) is lower triangular when A is lower and not transposed,
// or upper and transposed; element (i, j) of op(A) is A(j, i) under Trans::T, so the loop
// below reads only the triangle uplo names.
template <class T>
void solve_in_double(Uplo uplo, Trans trans, Diag diag, const MatView& A, std::vector<double>& w) {
  const T* a = host_ptr<const T>(A);
  const std::int64_t n = A.rows;
  auto op_a = [&](std::int64_t i, std::int64_t j) {
    return static_cast<double>(trans == Trans::N ? a[i * A.ld + j] : a[j * A.ld + i]);
  };
  const bool forward = (uplo == Uplo::lower) == (trans == Trans::N);
  for (std::int64_t step = 0; step < n; ++step) {
    const std::int64_t i = forward ? step : n - 1 - step;
    double s = w[static_cast<std::size_t>(i)];
    // The solved unknowns are j < i going forward, j > i going backward.
    const std::int64_t j_begin = forward ? 0 : i + 1;
    const std::int64_t j_end = forward ? i : n;
    for (std::int64_t j = j_begin; j < j_end; ++j) s -= op_a(i, j) * w[static_cast<std::size_t>(j)];
    // A zero diagonal is not checked (BLAS semantics): IEEE division gives inf/NaN.
    if (diag == Diag::non_unit) s /= op_a(i, i);
    w[static_cast<std::size_t>(i)] = s;
  }
}

}  // namespace

template <class T>
void ReferenceBackend::trsv(QueueImpl&, Uplo uplo, Trans trans, Diag diag, const MatView& A, const VecView& xv) {
  T* x = host_ptr<T>(xv);
  std::vector<double> w(x, x + xv.n);
  solve_in_double<T>(uplo, trans, diag, A, w);
  for (std::int64_t i = 0; i < xv.n; ++i) x[i] = static_cast<T>(w[static_cast<std::size_t>(i)]);
}

// Column by column: each column of B is an independent right-hand side.
template <class T>
void ReferenceBackend::trsm(QueueImpl&, Uplo uplo, Trans trans, Diag diag, double alpha, const MatView& A, const MatView& Bv) {
  T* B = host_ptr<T>(Bv);
  std::vector<double> w(static_cast<std::size_t>(Bv.rows));
  for (std::int64_t c = 0; c < Bv.cols; ++c) {
    for (std::int64_t i = 0; i < Bv.rows; ++i)
      w[static_cast<std::size_t>(i)] = alpha * static_cast<double>(B[i * Bv.ld + c]);
    solve_in_double<T>(uplo, trans, diag, A, w);
    for (std::int64_t i = 0; i < Bv.rows; ++i) B[i * Bv.ld + c] = static_cast<T>(w[static_cast<std::size_t>(i)]);
  }
}

TESSERA_INSTANTIATE_TYPED_OP(ReferenceBackend, trsv)
TESSERA_INSTANTIATE_TYPED_OP(ReferenceBackend, trsm)

}  // namespace tessera
