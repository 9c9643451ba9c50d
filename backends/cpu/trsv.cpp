// Dense triangular solves on the cpu device (kernels/cpu/trsv.cpp).
#include "cpu/cpu_backend.hpp"
#include "kernels/cpu/trsv.hpp"

namespace tessera {

template <class T>
void CpuBackend::trsv(QueueImpl&, Uplo uplo, Trans trans, Diag diag, const MatView& A, const VecView& x) {
  cpu::trsv(uplo == Uplo::upper, trans == Trans::T, diag == Diag::unit, A.rows, host_ptr<const T>(A), A.ld,
            host_ptr<T>(x), tune_["trsv.min_elems_per_thread"]);
}

template <class T>
void CpuBackend::trsm(QueueImpl&, Uplo uplo, Trans trans, Diag diag, double alpha, const MatView& A, const MatView& B) {
  cpu::trsm(uplo == Uplo::upper, trans == Trans::T, diag == Diag::unit, B.rows, B.cols, static_cast<T>(alpha),
            host_ptr<const T>(A), A.ld, host_ptr<T>(B), B.ld, tune_["gemm.min_flops_per_thread"]);
}

TESSERA_INSTANTIATE_TYPED_OP(CpuBackend, trsv)
TESSERA_INSTANTIATE_TYPED_OP(CpuBackend, trsm)

}  // namespace tessera
