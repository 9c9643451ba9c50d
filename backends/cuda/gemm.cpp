// gemm: one kernel per (op(A), op(B)) and tile shape (GemmTile<T, narrow>); exact FMAs, or for
// f32 under MathMode::tf32 / tf32x3 the TF32 tensor cores (Tf32GemmTile; on compute capability
// 9.0 Hopper's wgmma kernel where it applies, gemm_tiles.hpp's use_wgmma). The grid (narrow tiles,
// split-k over long k, f32's transposed product) is picked by plan/gemm_grid.hpp's wave model.
// k == 0 is C = beta C (lib/ runs BLAS's alpha == 0 as such a call).
#include <climits>
#include <string>

#include "cuda_backend.hpp"
#include "gemm_tiles.hpp"
#include "kernels/cuda/launch.hpp"
#include "queue.hpp"

namespace tessera::cuda {

template <class T>
void CudaBackend::gemm(QueueImpl& q, Trans ta, Trans tb, double alpha, const MatView& A, const MatView& B, double beta,
                       const MatView& C, MathMode math) {
  GemmProblem s;
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
  s.math = sizeof(T) == 4 ? math : MathMode::exact;  // lib/ passes exact for f64 already
  enqueue_gemm<T>(q, s, static_cast<T>(alpha), dev_ptr<const T>(A), dev_ptr<const T>(B), static_cast<T>(beta),
                  dev_ptr<T>(C));
}

TESSERA_INSTANTIATE_TYPED_OP(CudaBackend, gemm)

}  // namespace tessera::cuda
