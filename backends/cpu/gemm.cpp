// gemm on the cpu device: the Highway kernels of kernels/cpu/gemm.cpp on OpenMP threads.
#include "cpu/cpu_backend.hpp"
#include "kernels/cpu/gemm.hpp"

namespace tessera {

void CpuBackend::gemm(DType t, Trans ta, Trans tb, double alpha, const MatView& A, const MatView& B, double beta,
                      const MatView& C) {
  const bool at = ta == Trans::T, bt = tb == Trans::T;
  const std::int64_t m = C.rows, n = C.cols, k = at ? A.rows : A.cols;
  if (t == DType::f32) {
    cpu::gemm(at, bt, m, n, k, static_cast<float>(alpha), static_cast<const float*>(A.data), A.ld,
              static_cast<const float*>(B.data), B.ld, static_cast<float>(beta), static_cast<float*>(C.data), C.ld);
  } else {
    cpu::gemm(at, bt, m, n, k, alpha, static_cast<const double*>(A.data), A.ld, static_cast<const double*>(B.data),
              B.ld, beta, static_cast<double*>(C.data), C.ld);
  }
}

}  // namespace tessera
