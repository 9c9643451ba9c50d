// gemm on the cpu device: the Highway kernels of kernels/cpu/gemm.cpp on OpenMP threads.
#include "cpu/cpu_backend.hpp"
#include "kernels/cpu/gemm.hpp"

namespace tessera {

template <class T>
void CpuBackend::gemm(QueueImpl&, Trans ta, Trans tb, double alpha, const MatView& A, const MatView& B, double beta,
                      const MatView& C, MathMode) {
  // Every MathMode runs in exact FP32: no TF32 units here, and exact meets the modes' bounds.
  const bool at = ta == Trans::T, bt = tb == Trans::T;
  const std::int64_t m = C.rows, n = C.cols, k = at ? A.rows : A.cols;
  cpu::gemm(at, bt, m, n, k, static_cast<T>(alpha), host_ptr<const T>(A), A.ld,
            host_ptr<const T>(B), B.ld, static_cast<T>(beta), host_ptr<T>(C), C.ld,
            tune_["gemm.min_flops_per_thread"]);
}

TESSERA_INSTANTIATE_TYPED_OP(CpuBackend, gemm)

}  // namespace tessera
