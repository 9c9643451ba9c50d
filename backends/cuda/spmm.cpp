// SpMM on CUDA: one launch of kernels/cuda/spmm.cu, spmm.block threads a block (tuning/spmm.cpp).
#include "cuda_backend.hpp"
#include "kernels/cuda/launch.hpp"
#include "queue.hpp"

namespace tessera::cuda {

template <class T>
void CudaBackend::spmm(QueueImpl& q, double alpha, const CsrView& A, const MatView& X, double beta,
                       const MatView& Y) {
  TESSERA_CUDA_CHECK(launch_spmm<T>(A.rows, Y.cols, static_cast<const int*>(A.row_ptr),
                                    static_cast<const int*>(A.col_idx), static_cast<const T*>(A.values),
                                    dev_ptr<const T>(X), X.ld, static_cast<T>(alpha), static_cast<T>(beta),
                                    beta != 0.0, dev_ptr<T>(Y), Y.ld, tune_.get("spmm.block"), stream_of(q)));
}

TESSERA_INSTANTIATE_TYPED_OP(CudaBackend, spmm)

}  // namespace tessera::cuda
