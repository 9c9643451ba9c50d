// Dense triangular solves on the cpu device (kernels/cpu/trsv.cpp).
#include "cpu/cpu_backend.hpp"
#include "kernels/cpu/trsv.hpp"

namespace tessera {

template <class T>
void CpuBackend::trsv(Uplo uplo, Trans trans, Diag diag, const MatView& A, const VecView& x) {
  cpu::trsv(uplo == Uplo::upper, trans == Trans::T, diag == Diag::unit, A.rows, static_cast<const T*>(A.data), A.ld,
            static_cast<T*>(x.data), tune_["trsv.min_elems_per_thread"]);
}

template <class T>
void CpuBackend::trsm(Uplo uplo, Trans trans, Diag diag, double alpha, const MatView& A, const MatView& B) {
  cpu::trsm(uplo == Uplo::upper, trans == Trans::T, diag == Diag::unit, B.rows, B.cols, static_cast<T>(alpha),
            static_cast<const T*>(A.data), A.ld, static_cast<T*>(B.data), B.ld, tune_["gemm.min_flops_per_thread"]);
}

TESSERA_INSTANTIATE_TYPED_OP(CpuBackend, trsv)
TESSERA_INSTANTIATE_TYPED_OP(CpuBackend, trsm)

}  // namespace tessera
