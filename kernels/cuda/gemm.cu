// C = alpha op(A) op(B) + beta C, row-major: exact FP32/FP64 arithmetic by default, f32 on the
// FFMA units, f64 on the FP64 tensor cores (DMMA: IEEE double FMAs); f32 under MathMode::tf32 or
// tf32x3 on the TF32 tensor cores (gemm_tf32.cuh). Bound: FMA / MMA throughput (2 m n k flops,
// 3 x that in mma work for tf32x3); the kernels and their cp.async pipeline are in gemm_async.cuh
// (f64: gemm_dmma.cuh). One kernel per (op(A), op(B), tile shape, copy width); the loaders read
// any leading dimension and sub-matrix offset (trsm passes panels of larger matrices).
#include "kernels/cuda/gemm_dmma.cuh"
#include "kernels/cuda/gemm_ffma.cuh"
#include "kernels/cuda/gemm_tf32.cuh"

namespace tessera::cuda {

namespace {

// 2 x 2 warps of TM x TN outputs: 128 x 64 blocks, 64 x 64 narrow.
template <bool NARROW>
using F64Cfg = DmmaCfg<GemmTile<double, NARROW>::BM, GemmTile<double, NARROW>::BN, GemmTile<double, NARROW>::BK,
                       GemmTile<double, NARROW>::STAGES, GemmTile<double, NARROW>::TM, GemmTile<double, NARROW>::TN,
                       GemmTile<double, NARROW>::BLOCKS_PER_SM, GemmTile<double, NARROW>::DMMA_PIPELINE>;

// TF32 tensor cores: one mma per product (tf32) or three (tf32x3, SPLIT).
template <bool NARROW, bool SPLIT>
using Tf32Cfg = TmmaCfg<Tf32GemmTile<NARROW>::BM, Tf32GemmTile<NARROW>::BN, Tf32GemmTile<NARROW>::BK,
                        Tf32GemmTile<NARROW>::STAGES, Tf32GemmTile<NARROW>::WM, Tf32GemmTile<NARROW>::WN, SPLIT,
                        Tf32GemmTile<NARROW>::BLOCKS_PER_SM>;

}  // namespace

template <class T>
cudaError_t launch_gemm(const GemmProblem& s, T alpha, const T* A, const T* B, T beta, T* C, cudaStream_t stream) {
  if constexpr (sizeof(T) == 4) {
    if (s.math == MathMode::tf32x3)
      return s.narrow ? launch_gemm_any<Tf32Cfg<true, true>>(s, alpha, A, B, beta, C, stream)
                      : launch_gemm_any<Tf32Cfg<false, true>>(s, alpha, A, B, beta, C, stream);
    if (s.math == MathMode::tf32)
      return s.narrow ? launch_gemm_any<Tf32Cfg<true, false>>(s, alpha, A, B, beta, C, stream)
                      : launch_gemm_any<Tf32Cfg<false, false>>(s, alpha, A, B, beta, C, stream);
    if (s.narrow) return launch_gemm_any<FfmaTileCfg<true>>(s, alpha, A, B, beta, C, stream);
    if (s.deep) return launch_gemm_any<FfmaTileCfg<false, true>>(s, alpha, A, B, beta, C, stream);
    return launch_gemm_any<FfmaTileCfg<false>>(s, alpha, A, B, beta, C, stream);
  } else {
    return s.narrow ? launch_dmma_any<F64Cfg<true>>(s, alpha, A, B, beta, C, stream)
                    : launch_dmma_any<F64Cfg<false>>(s, alpha, A, B, beta, C, stream);
  }
}

template cudaError_t launch_gemm<float>(const GemmProblem&, float, const float*, const float*, float, float*,
                                        cudaStream_t);
template cudaError_t launch_gemm<double>(const GemmProblem&, double, const double*, const double*, double, double*,
                                         cudaStream_t);

}  // namespace tessera::cuda
