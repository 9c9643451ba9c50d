// Dense triangular solves on the cpu device (kernels/cpu/trsv.cpp).
#include "cpu/cpu_backend.hpp"
#include "kernels/cpu/trsv.hpp"

namespace tessera {

void CpuBackend::trsv(DType t, Uplo uplo, Trans trans, Diag diag, const MatView& A, const VecView& x) {
  const bool up = uplo == Uplo::upper, tr = trans == Trans::T, unit = diag == Diag::unit;
  if (t == DType::f32) {
    cpu::trsv(up, tr, unit, A.rows, static_cast<const float*>(A.data), A.ld, static_cast<float*>(x.data));
  } else {
    cpu::trsv(up, tr, unit, A.rows, static_cast<const double*>(A.data), A.ld, static_cast<double*>(x.data));
  }
}

void CpuBackend::trsm(DType t, Uplo uplo, Trans trans, Diag diag, double alpha, const MatView& A, const MatView& B) {
  const bool up = uplo == Uplo::upper, tr = trans == Trans::T, unit = diag == Diag::unit;
  if (t == DType::f32) {
    cpu::trsm(up, tr, unit, B.rows, B.cols, static_cast<float>(alpha), static_cast<const float*>(A.data), A.ld,
              static_cast<float*>(B.data), B.ld);
  } else {
    cpu::trsm(up, tr, unit, B.rows, B.cols, alpha, static_cast<const double*>(A.data), A.ld,
              static_cast<double*>(B.data), B.ld);
  }
}

}  // namespace tessera
