// C = alpha op(A) op(B) + beta C, row-major, exact FP32/FP64 FMAs (no TF32). Bound: FMA
// throughput (2 m n k flops); the main loop is in gemm_core.cuh. One kernel per (ta, tb); the
// loaders read any leading dimension and sub-matrix offset (trsm passes panels of larger
// matrices), so no alignment is assumed in global memory.
#include "kernels/cuda/gemm_core.cuh"

namespace tessera::cuda {

namespace {

template <class Cfg, bool TA, bool TB>
__global__ __launch_bounds__(256, Cfg::S::BLOCKS_PER_SM) void gemm_kernel(GemmShape s, typename Cfg::T alpha,
                                                                          const typename Cfg::T* __restrict__ A,
                                                                          const typename Cfg::T* __restrict__ B,
                                                                          typename Cfg::T beta,
                                                                          typename Cfg::T* __restrict__ C) {
  using T = typename Cfg::T;
  __shared__ __align__(16) T smem[Cfg::SMEM_ELEMS];
  int tile_m, tile_n;
  block_tile(tile_m, tile_n);
  const std::int64_t row0 = static_cast<std::int64_t>(tile_m) * Cfg::BM;
  const std::int64_t col0 = static_cast<std::int64_t>(tile_n) * Cfg::BN;
  const MatrixALoader<Cfg, TA> al(A, s.lda, s.m, s.k, row0);
  const MatrixBLoader<Cfg, TB> bl(B, s.ldb, s.n, s.k, col0);
  T acc[Cfg::TM][Cfg::TN];
  gemm_mainloop<Cfg>(al, bl, s.k, acc, smem);

  const int tx = threadIdx.x % (Cfg::BN / Cfg::TN), ty = threadIdx.x / (Cfg::BN / Cfg::TN);
#pragma unroll
  for (int i = 0; i < Cfg::TM; ++i) {
    const std::int64_t row = row0 + tile_row<Cfg>(ty, i);
    if (row >= s.m) continue;
    T* crow = C + row * s.ldc;
#pragma unroll
    for (int j = 0; j < Cfg::TN; ++j) {
      const std::int64_t col = col0 + tile_col<Cfg>(tx, j);
      if (col >= s.n) continue;
      const T v = alpha * acc[i][j];
      crow[col] = beta == T(0) ? v : fma(beta, crow[col], v);  // beta == 0: C is not read
    }
  }
}

template <class Cfg, bool TA, bool TB>
cudaError_t launch(const GemmShape& s, typename Cfg::T alpha, const typename Cfg::T* A, const typename Cfg::T* B,
                   typename Cfg::T beta, typename Cfg::T* C, cudaStream_t stream) {
  const dim3 grid(blocks_for(s.n, Cfg::BN), blocks_for(s.m, Cfg::BM));
  if (grid.y > 65535u || static_cast<std::uint64_t>(grid.x) * grid.y > 0x7fffffffu)
    return cudaErrorInvalidConfiguration;
  gemm_kernel<Cfg, TA, TB><<<grid, Cfg::THREADS, 0, stream>>>(s, alpha, A, B, beta, C);
  return cudaGetLastError();
}

template <class T, bool NARROW>
cudaError_t launch_shape(const GemmShape& s, T alpha, const T* A, const T* B, T beta, T* C, cudaStream_t stream) {
  using Cfg = GemmCfg<T, NARROW>;
  if (s.ta) return s.tb ? launch<Cfg, true, true>(s, alpha, A, B, beta, C, stream)
                        : launch<Cfg, true, false>(s, alpha, A, B, beta, C, stream);
  return s.tb ? launch<Cfg, false, true>(s, alpha, A, B, beta, C, stream)
              : launch<Cfg, false, false>(s, alpha, A, B, beta, C, stream);
}

}  // namespace

template <class T>
cudaError_t launch_gemm(const GemmShape& s, T alpha, const T* A, const T* B, T beta, T* C, cudaStream_t stream) {
  return s.narrow ? launch_shape<T, true>(s, alpha, A, B, beta, C, stream)
                  : launch_shape<T, false>(s, alpha, A, B, beta, C, stream);
}

template cudaError_t launch_gemm<float>(const GemmShape&, float, const float*, const float*, float, float*,
                                        cudaStream_t);
template cudaError_t launch_gemm<double>(const GemmShape&, double, const double*, const double*, double, double*,
                                         cudaStream_t);

}  // namespace tessera::cuda
