// gemm: one kernel per (op(A), op(B)) and tile shape (GemmKernelShape<T, narrow>); exact FMAs.
// The narrow tiles are picked when they fill the SMs' last wave clearly better.
#include <climits>
#include <string>

#include "cuda_backend.hpp"
#include "kernels/cuda/launch.hpp"

namespace tessera::cuda {

void CudaBackend::gemm(DType t, Trans ta, Trans tb, double alpha, const MatView& A, const MatView& B, double beta,
                       const MatView& C) {
  make_current();
  GemmShape s;
  s.m = C.rows;
  s.n = C.cols;
  s.k = ta == Trans::N ? A.cols : A.rows;
  s.ta = ta == Trans::T;
  s.tb = tb == Trans::T;
  s.lda = A.ld;
  s.ldb = B.ld;
  s.ldc = C.ld;
  if (s.m == 0 || s.n == 0) return;
  if (s.k > INT_MAX - 64)
    throw NotImplemented("cuda: gemm with an inner dimension k = " + std::to_string(s.k) + " >= 2^31 is not supported");
  s.narrow = t == DType::f32 ? profile_.narrow_gemm_tiles<float, GemmKernelShape>(s.m, s.n)
                              : profile_.narrow_gemm_tiles<double, GemmKernelShape>(s.m, s.n);
  if (t == DType::f32)
    TESSERA_CUDA_CHECK(launch_gemm<float>(s, static_cast<float>(alpha), static_cast<const float*>(A.data),
                                          static_cast<const float*>(B.data), static_cast<float>(beta),
                                          static_cast<float*>(C.data), stream_));
  else
    TESSERA_CUDA_CHECK(launch_gemm<double>(s, alpha, static_cast<const double*>(A.data),
                                           static_cast<const double*>(B.data), beta, static_cast<double*>(C.data),
                                           stream_));
}

}  // namespace tessera::cuda
