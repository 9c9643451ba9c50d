// The gemm kernels: tiles of op(A) and op(B) brought into shared memory by cp.async, STAGES
// k-tiles in flight (the copy of tile t + STAGES - 1 overlaps the arithmetic on tile t, with no
// staging registers and one barrier per k-tile).
//
// Shared memory holds every operand tile as S[k][x] (x = row of op(A) or column of op(B)),
// whatever the layout in global memory:
//   x-contiguous (op(A) = A^T, op(B) = B): 16-byte copies along x when the leading dimension and
//     the base allow it, element copies otherwise;
//   k-contiguous (op(A) = A, op(B) = B^T): element copies that transpose on the way in; a warp
//     covers 8 x-rows x 4 consecutive k, so its global reads are 16- or 32-byte runs and its
//     shared-memory stores fall in distinct banks (row pitch = 8 mod 32 words).
// Out-of-range elements are zero-filled by the copy itself (src-size 0 or a short vector), so
// edge tiles need no other care and nothing outside the matrices is read.
//
// f32 (exact FFMA): the loaders here feed gemm_ffma.cuh's loop (the gemm tiles and the f32
// convolution layer's), which keeps the next k-step's fragments in flight.
// f32 under MathMode::tf32 / tf32x3: the TF32 tensor cores on the same pipeline (gemm_tf32.cuh).
// f64 runs on the FP64 tensor cores with its own loaders and layouts (gemm_dmma.cuh).
#pragma once

#include <type_traits>

#include "kernels/cuda/gemm_core.cuh"

namespace tessera::cuda {

// One operand: a BK x BX tile at S[k * LD + x] per stage.
template <class T, int BX, int BK, int THREADS>
struct OperandTile {
  static_assert(sizeof(T) == 4, "f32 tiles (f64: gemm_dmma.cuh)");
  static constexpr int PAD = 8;  // row pitch 8 mod 32 words
  static constexpr int LD = BX + PAD;
  static constexpr int ELEMS = BK * LD;
};

// x-contiguous global layout: element (k, x) at P[k * ld + x]. VEC elements per copy.
template <class T, int BX, int BK, int THREADS, int VEC>
struct XContiguousLoader {
  using Tile = OperandTile<T, BX, BK, THREADS>;
  static constexpr int PER_ROW = BX / VEC;                 // copies per k-row
  static constexpr int ROWS_PER_PASS = THREADS / PER_ROW;  // k-rows per pass of all threads
  static constexpr int PASSES = BK / ROWS_PER_PASS;
  static_assert(THREADS % PER_ROW == 0 && BK % ROWS_PER_PASS == 0, "tile not divisible");
  const T* P;      // matrix base (the source of zero-fill copies: always a valid address)
  const T* base;   // this thread's first element at k0 = 0
  std::int64_t ld;
  int x_left;      // valid elements from this thread's x on (clamped to [0, VEC])
  int k_left;      // K - this thread's first k
  int soff;        // this thread's first shared-memory element
  __device__ __forceinline__ XContiguousLoader(const T* P_, std::int64_t ld_, std::int64_t xlim, std::int64_t K,
                                               std::int64_t x0)
      : P(P_), ld(ld_) {
    const int t = threadIdx.x;
    const int k = t / PER_ROW, x = (t % PER_ROW) * VEC;
    base = P + k * ld + x0 + x;
    const std::int64_t xl = xlim - x0 - x;
    x_left = xl <= 0 ? 0 : (xl >= VEC ? VEC : static_cast<int>(xl));
    k_left = static_cast<int>(K - k);
    soff = k * Tile::LD + x;
    if (x_left == 0) base = P + k * ld;  // load_full's copies of nothing still name a valid address
  }
  // Columns past the edge are zero-filled by every copy; load_full needs no block-wide condition.
  __device__ __forceinline__ bool interior() const { return true; }
  // The copies of a k-tile wholly inside K, without the k tests.
  __device__ __forceinline__ void load_full(T* S, int k0) const {
    const unsigned s0 = smem_u32(S + soff);
#pragma unroll
    for (int p = 0; p < PASSES; ++p)
      cp_async<VEC * sizeof(T)>(s0 + p * ROWS_PER_PASS * Tile::LD * sizeof(T),
                                base + static_cast<std::int64_t>(k0 + p * ROWS_PER_PASS) * ld,
                                x_left * static_cast<int>(sizeof(T)));
  }
  __device__ __forceinline__ void load(T* S, int k0) const {
    const unsigned s0 = smem_u32(S + soff);
#pragma unroll
    for (int p = 0; p < PASSES; ++p) {
      const int kk = k0 + p * ROWS_PER_PASS;
      const bool ok = kk < k_left && x_left > 0;
      const T* src = ok ? base + static_cast<std::int64_t>(kk) * ld : P;
      cp_async<VEC * sizeof(T)>(s0 + p * ROWS_PER_PASS * Tile::LD * sizeof(T), src,
                                ok ? x_left * static_cast<int>(sizeof(T)) : 0);
    }
  }
};

// k-contiguous global layout: element (k, x) at P[x * ld + k]; transposed by element copies.
// Lane l of warp w: k = 4 (w % KG) + l % 4, x = 8 (w / KG) + l / 4 + pass * XSTEP.
template <class T, int BX, int BK, int THREADS>
struct KContiguousLoader {
  using Tile = OperandTile<T, BX, BK, THREADS>;
  static constexpr int WARPS = THREADS / 32;
  static constexpr int KG = BK / 4;  // groups of 4 k
  static_assert(BK % 4 == 0 && WARPS % KG == 0, "BK must be 4..4*warps");
  static constexpr int XSTEP = 8 * (WARPS / KG);
  static constexpr int PASSES = BX / XSTEP;
  static_assert(BX % XSTEP == 0, "tile not divisible");
  const T* P;
  const T* base;
  std::int64_t ld;
  std::int64_t xstride;  // XSTEP rows
  int x_left;
  int k_left;
  int soff;
  bool full;
  __device__ __forceinline__ KContiguousLoader(const T* P_, std::int64_t ld_, std::int64_t xlim, std::int64_t K,
                                               std::int64_t x0)
      : P(P_), ld(ld_) {
    const int w = threadIdx.x / 32, l = threadIdx.x % 32;
    const int k = 4 * (w % KG) + l % 4, x = 8 * (w / KG) + l / 4;
    base = P + (x0 + x) * ld + k;
    const std::int64_t xl = xlim - x0 - x;
    x_left = xl <= 0 ? 0 : (xl > 0x40000000 ? 0x40000000 : static_cast<int>(xl));
    k_left = static_cast<int>(K - k);
    soff = k * Tile::LD + x;
    full = x0 + BX <= xlim;
    xstride = static_cast<std::int64_t>(XSTEP) * ld;
  }
  // Every row of the block's tile inside the operand: load_full may be used.
  __device__ __forceinline__ bool interior() const { return full; }
  // The copies of a k-tile wholly inside K for an interior block: no tests, one address step a copy.
  __device__ __forceinline__ void load_full(T* S, int k0) const {
    const unsigned s0 = smem_u32(S + soff);
    const T* q = base + k0;
#pragma unroll
    for (int p = 0; p < PASSES; ++p, q += xstride) cp_async_all<sizeof(T)>(s0 + p * XSTEP * sizeof(T), q);
  }
  __device__ __forceinline__ void load(T* S, int k0) const {
    const unsigned s0 = smem_u32(S + soff);
    const bool kok = k0 < k_left;
#pragma unroll
    for (int p = 0; p < PASSES; ++p) {
      const bool ok = kok && p * XSTEP < x_left;
      const T* src = ok ? base + static_cast<std::int64_t>(p * XSTEP) * ld + k0 : P;
      cp_async<sizeof(T)>(s0 + p * XSTEP * sizeof(T), src, ok ? static_cast<int>(sizeof(T)) : 0);
    }
  }
};

// The pipeline: STAGES k-tiles of both operands in flight. `compute(as, bs)` multiplies one
// k-tile from shared memory.
template <int STAGES, int A_ELEMS, int B_ELEMS, class T, class AL, class BL, class F>
__device__ __forceinline__ void async_pipeline(const AL& al, const BL& bl, int tiles, int BK, T* smem, F&& compute) {
  constexpr int STAGE = A_ELEMS + B_ELEMS;
#pragma unroll
  for (int s = 0; s < STAGES - 1; ++s) {
    if (s < tiles) {
      al.load(smem + s * STAGE, s * BK);
      bl.load(smem + s * STAGE + A_ELEMS, s * BK);
    }
    cp_async_commit();
  }
  int read = 0, write = STAGES - 1;
  for (int t = 0; t < tiles; ++t) {
    cp_async_wait<STAGES - 2>();  // this thread's copies of tile t have landed
    __syncthreads();              // everyone's have; everyone is done with tile t - 1
    if (t + STAGES - 1 < tiles) {
      al.load(smem + write * STAGE, (t + STAGES - 1) * BK);
      bl.load(smem + write * STAGE + A_ELEMS, (t + STAGES - 1) * BK);
    }
    cp_async_commit();
    compute(smem + read * STAGE, smem + read * STAGE + A_ELEMS);
    read = read + 1 == STAGES ? 0 : read + 1;
    write = write + 1 == STAGES ? 0 : write + 1;
  }
  cp_async_wait<0>();
}

// ------------------------------------------------------------------ the kernels
// Loaders of op(A) (x = rows of C) and op(B) (x = columns of C); VEC: elements per copy of the
// x-contiguous operands (16 bytes when their leading dimensions and bases allow, else 1).
template <class Cfg, bool TA, int VEC>
using ALoaderOf = std::conditional_t<TA, XContiguousLoader<typename Cfg::T, Cfg::BM, Cfg::BK, Cfg::THREADS, VEC>,
                                     KContiguousLoader<typename Cfg::T, Cfg::BM, Cfg::BK, Cfg::THREADS>>;
template <class Cfg, bool TB, int VEC>
using BLoaderOf = std::conditional_t<TB, KContiguousLoader<typename Cfg::T, Cfg::BN, Cfg::BK, Cfg::THREADS>,
                                     XContiguousLoader<typename Cfg::T, Cfg::BN, Cfg::BK, Cfg::THREADS, VEC>>;

// Where every gemm kernel starts: its product of the batch (and part of k under split-k) and
// the first row and column of its tile of C.
template <class Cfg, class PA, class PB, class PC>
__device__ __forceinline__ void block_start(GemmProblem& s, PA& A, PB& B, PC& C, std::int64_t& row0,
                                            std::int64_t& col0) {
  int tile_m, tile_n;
  block_tile(tile_m, tile_n);
  batch_offsets(s, A, B, C);
  row0 = static_cast<std::int64_t>(tile_m) * Cfg::BM;
  col0 = static_cast<std::int64_t>(tile_n) * Cfg::BN;
}

template <class T>
__device__ __forceinline__ void store_c(T* C, std::int64_t ldc, std::int64_t row, std::int64_t col, T alpha, T beta,
                                        T v) {
  T* c = C + row * ldc + col;
  *c = beta == T(0) ? alpha * v : fma(beta, *c, alpha * v);  // beta == 0: C is not read
}
// Element (row, col) of the kernel's product, into C or, under GemmProblem::c_trans, into C^T.
template <class T>
__device__ __forceinline__ void store_out(const GemmProblem& s, T* C, std::int64_t row, std::int64_t col, T alpha,
                                          T beta, T v) {
  if (s.c_trans)
    store_c(C, s.ldc, col, row, alpha, beta, v);
  else
    store_c(C, s.ldc, row, col, alpha, beta, v);
}

// The kernel of a configuration, by its family: FfmaCfg (FFMA) in gemm_ffma.cuh, TmmaCfg (TF32
// tensor cores) in gemm_tf32.cuh.
template <class Cfg, bool TA, bool TB, int VEC>
struct GemmKernel;

// Launches a gemm kernel on a grid of `cols` x `rows` tiles per product (grid.z: the batch), its
// dynamic shared memory raised past 48 KB.
template <class Kernel, class T>
cudaError_t launch_gemm_grid(Kernel kernel, unsigned cols, unsigned rows, int threads, int smem, const GemmProblem& s,
                             T alpha, const T* A, const T* B, T beta, T* C, cudaStream_t stream) {
  const dim3 grid(cols, rows, static_cast<unsigned>(s.batch));
  if (grid.y > 65535u || s.batch < 1 || s.batch > 65535 || static_cast<std::uint64_t>(grid.x) * grid.y > 0x7fffffffu)
    return cudaErrorInvalidConfiguration;
  if (cudaError_t e = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem); e != cudaSuccess)
    return e;
  kernel<<<grid, threads, smem, stream>>>(s, alpha, A, B, beta, C);
  return cudaGetLastError();
}

// Launch one configuration: the grid in tiles of C.
template <class Cfg, bool TA, bool TB, int VEC, class T>
cudaError_t launch_gemm_cfg(const GemmProblem& s, T alpha, const T* A, const T* B, T beta, T* C, cudaStream_t stream) {
  return launch_gemm_grid(GemmKernel<Cfg, TA, TB, VEC>::get(), blocks_for(s.n, Cfg::BN), blocks_for(s.m, Cfg::BM),
                          Cfg::THREADS, Cfg::SMEM_BYTES, s, alpha, A, B, beta, C, stream);
}

// Picks the copy width: 16-byte copies of the x-contiguous operands when every such operand's
// base is 16-byte aligned and its leading dimension a multiple of the vector.
template <class Cfg, bool TA, bool TB, class T>
cudaError_t launch_gemm_trans(const GemmProblem& s, T alpha, const T* A, const T* B, T beta, T* C,
                              cudaStream_t stream) {
  constexpr int V = 16 / sizeof(T);
  auto aligned = [&](const T* p, std::int64_t ld, std::int64_t stride) {
    return reinterpret_cast<std::uintptr_t>(p) % 16 == 0 && ld % V == 0 && (s.batch == 1 || stride % V == 0);
  };
  const bool vec = (!TA || aligned(A, s.lda, s.stride_a)) && (TB || aligned(B, s.ldb, s.stride_b));
  if constexpr (!TA && TB)  // no x-contiguous operand
    return launch_gemm_cfg<Cfg, TA, TB, 1>(s, alpha, A, B, beta, C, stream);
  else
    return vec ? launch_gemm_cfg<Cfg, TA, TB, V>(s, alpha, A, B, beta, C, stream)
               : launch_gemm_cfg<Cfg, TA, TB, 1>(s, alpha, A, B, beta, C, stream);
}

template <class Cfg, class T>
cudaError_t launch_gemm_any(const GemmProblem& s, T alpha, const T* A, const T* B, T beta, T* C, cudaStream_t stream) {
  if (s.ta) return s.tb ? launch_gemm_trans<Cfg, true, true>(s, alpha, A, B, beta, C, stream)
                        : launch_gemm_trans<Cfg, true, false>(s, alpha, A, B, beta, C, stream);
  return s.tb ? launch_gemm_trans<Cfg, false, true>(s, alpha, A, B, beta, C, stream)
              : launch_gemm_trans<Cfg, false, false>(s, alpha, A, B, beta, C, stream);
}

}  // namespace tessera::cuda
