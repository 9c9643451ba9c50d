// The register-staged GEMM main loop of the f64 implicit-GEMM convolution layer (gemm itself and
// the f32 layer run on gemm_async.cuh's cp.async loaders: gemm_ffma.cuh, gemm_tf32.cuh,
// gemm_dmma.cuh), and helpers they all use.
//
// Hierarchy: a block of 256 threads owns a BM x BN tile of C and walks K in steps of BK; each
// thread owns TM x TN outputs in registers (ConvGemmTile: f64 64x64x8, 4x4 per thread). Per step, a
// thread issues TM + TN shared loads (as 16-byte vectors) for TM * TN FMAs, so the FMA units,
// not shared memory, set the pace. Each thread's rows are two groups of TM/2 (ty * TM/2 and
// BM/2 + ty * TM/2), and likewise its columns, so a warp's vector loads of one k-row of the tile
// touch consecutive 16-byte words (no bank conflicts) and the two row groups are broadcasts.
// Double buffering: the next k-tile is loaded from global memory into registers while the
// current one is multiplied, then stored to the other shared buffer (one barrier per k-tile).
// Loaders are policies (plain matrices, the implicit im2col of the convolution) that map
// element e of a tile to memory; out-of-range elements load as 0, so edge tiles need no other
// care.
#pragma once

#include <type_traits>

#include "kernels/cuda/common.cuh"

namespace tessera::cuda {

template <class T_, bool NARROW>
struct GemmCfg {
  using T = T_;
  using S = ConvGemmTile<T, NARROW>;
  static constexpr int BM = S::BM, BN = S::BN, BK = S::BK, TM = S::TM, TN = S::TN;
  static constexpr int THREADS = (BM / TM) * (BN / TN);
  static constexpr int PAD = 16 / sizeof(T);  // keeps rows 16-byte aligned, skews the banks
  static constexpr int LDA_S = BM + PAD, LDB_S = BN + PAD;
  static constexpr int A_PER = BM * BK / THREADS;  // A elements each thread loads per k-tile
  static constexpr int B_PER = BN * BK / THREADS;
  static constexpr int SMEM_ELEMS = 2 * BK * (LDA_S + LDB_S);
  static_assert(THREADS == 256, "the loaders assume 256 threads");
  static_assert(BM * BK % THREADS == 0 && BN * BK % THREADS == 0, "tile not divisible");
  static_assert(THREADS % BM == 0 && THREADS % BN == 0 && THREADS % BK == 0, "fixed per-thread rows/cols");
};

// Loaders keep only a per-thread base pointer and a few bounds live across the K loop (the
// f32 kernel sits at the 128-register cap of two blocks per SM); everything else is folded
// into the base once.
//
// op(A) tile (BM x BK) -> As[kk][i]. Element e = tid + p * THREADS of the tile:
//   A row-major (no transpose): i = e / BK, kk = e % BK: kk is the same for all p, rows step by
//   THREADS / BK; consecutive threads read consecutive k of a row.
//   TRANS (op(A)(i, k) = A[k * lda + i]): i = e % BM, the same for all p, kk steps by THREADS / BM;
//   consecutive threads read consecutive i.
template <class C, bool TRANS>
struct MatrixALoader {
  using T = typename C::T;
  const T* base;             // element (first i, first kk) of this thread at k0 = 0
  std::int64_t lda;
  int fixed_left;            // rows (no transpose) or 1/0 column-in-range (TRANS) budget
  int k_left;                // K - first kk of this thread
  __device__ __forceinline__ MatrixALoader(const T* A, std::int64_t lda_, std::int64_t m, std::int64_t K,
                                           std::int64_t row0)
      : lda(lda_) {
    const int t = threadIdx.x;
    if constexpr (!TRANS) {
      const std::int64_t i = row0 + t / C::BK;
      base = A + i * lda + t % C::BK;
      fixed_left = static_cast<int>(m - i > 0x40000000 ? 0x40000000 : (m - i < 0 ? 0 : m - i));
      k_left = static_cast<int>(K - t % C::BK);
    } else {
      const std::int64_t i = row0 + t % C::BM;
      base = A + (t / C::BM) * lda + i;
      fixed_left = i < m ? 1 : 0;
      k_left = static_cast<int>(K - t / C::BM);
    }
  }
  __device__ __forceinline__ void fetch(int k0, T (&r)[C::A_PER]) const {
#pragma unroll
    for (int p = 0; p < C::A_PER; ++p) {
      if constexpr (!TRANS) {
        constexpr int RSTEP = C::THREADS / C::BK;
        r[p] = p * RSTEP < fixed_left && k0 < k_left ? base[p * RSTEP * lda + k0] : T(0);
      } else {
        constexpr int KSTEP = C::THREADS / C::BM;
        const int kk = k0 + p * KSTEP;
        r[p] = fixed_left && kk < k_left ? base[kk * lda] : T(0);
      }
    }
  }
  __device__ __forceinline__ void commit(T* As, const T (&r)[C::A_PER]) const {
    const int t = threadIdx.x;
#pragma unroll
    for (int p = 0; p < C::A_PER; ++p) {
      if constexpr (!TRANS) As[(t % C::BK) * C::LDA_S + t / C::BK + p * (C::THREADS / C::BK)] = r[p];
      else As[(t / C::BM + p * (C::THREADS / C::BM)) * C::LDA_S + t % C::BM] = r[p];
    }
  }
};

// op(B) tile (BK x BN) -> Bs[kk][j].
//   B row-major (no transpose): j = e % BN (same for all p), kk = e / BN steps by THREADS / BN.
//   TRANS (op(B)(k, j) = B[j * ldb + k]): j = e / BK steps by THREADS / BK, kk = e % BK fixed.
template <class C, bool TRANS>
struct MatrixBLoader {
  using T = typename C::T;
  const T* base;
  std::int64_t ldb;
  int fixed_left;
  int k_left;
  __device__ __forceinline__ MatrixBLoader(const T* B, std::int64_t ldb_, std::int64_t n, std::int64_t K,
                                           std::int64_t col0)
      : ldb(ldb_) {
    const int t = threadIdx.x;
    if constexpr (!TRANS) {
      const std::int64_t j = col0 + t % C::BN;
      base = B + (t / C::BN) * ldb + j;
      fixed_left = j < n ? 1 : 0;
      k_left = static_cast<int>(K - t / C::BN);
    } else {
      const std::int64_t j = col0 + t / C::BK;
      base = B + j * ldb + t % C::BK;
      fixed_left = static_cast<int>(n - j > 0x40000000 ? 0x40000000 : (n - j < 0 ? 0 : n - j));
      k_left = static_cast<int>(K - t % C::BK);
    }
  }
  __device__ __forceinline__ void fetch(int k0, T (&r)[C::B_PER]) const {
#pragma unroll
    for (int p = 0; p < C::B_PER; ++p) {
      if constexpr (!TRANS) {
        constexpr int KSTEP = C::THREADS / C::BN;
        const int kk = k0 + p * KSTEP;
        r[p] = fixed_left && kk < k_left ? base[kk * ldb] : T(0);
      } else {
        constexpr int JSTEP = C::THREADS / C::BK;
        r[p] = p * JSTEP < fixed_left && k0 < k_left ? base[p * JSTEP * ldb + k0] : T(0);
      }
    }
  }
  __device__ __forceinline__ void commit(T* Bs, const T (&r)[C::B_PER]) const {
    const int t = threadIdx.x;
#pragma unroll
    for (int p = 0; p < C::B_PER; ++p) {
      if constexpr (!TRANS) Bs[(t / C::BN + p * (C::THREADS / C::BN)) * C::LDB_S + t % C::BN] = r[p];
      else Bs[(t % C::BK) * C::LDB_S + t / C::BK + p * (C::THREADS / C::BK)] = r[p];
    }
  }
};

// The row (within the block tile) of a thread's i-th output row; columns alike. A thread's rows
// come in groups of four GM_STEP apart where the configuration says so (gemm_ffma.cuh: its
// fragments are 16-byte loads), else in two halves BM / 2 apart.
template <class C, class = void>
struct InFours : std::false_type {};
template <class C>
struct InFours<C, std::void_t<decltype(C::GM_STEP)>> : std::true_type {};
template <class C>
__device__ __forceinline__ int tile_row(int ty, int i) {
  if constexpr (InFours<C>::value) return (i / 4) * C::GM_STEP + ty * 4 + i % 4;
  else return i < C::TM / 2 ? ty * (C::TM / 2) + i : C::BM / 2 + ty * (C::TM / 2) + (i - C::TM / 2);
}
template <class C>
__device__ __forceinline__ int tile_col(int tx, int j) {
  if constexpr (InFours<C>::value) return (j / 4) * C::GN_STEP + tx * 4 + j % 4;
  else return j < C::TN / 2 ? tx * (C::TN / 2) + j : C::BN / 2 + tx * (C::TN / 2) + (j - C::TN / 2);
}

// The tile a block computes: consecutive blocks walk down groups of 8 tile rows before moving
// right, so the A and B panels they share are still in L2 (plain row order would stream all of
// B through L2 once per tile row).
__device__ __forceinline__ void block_tile(int& tile_m, int& tile_n) {
  constexpr int GROUP = 8;
  const int tiles_m = gridDim.y, tiles_n = gridDim.x;
  const int id = blockIdx.y * tiles_n + blockIdx.x;
  const int first_m = id / (GROUP * tiles_n) * GROUP;
  const int group_m = min(tiles_m - first_m, GROUP);
  const int in_group = id % (GROUP * tiles_n);
  tile_m = first_m + in_group % group_m;
  tile_n = in_group / group_m;
}

// The product of a batched call this block computes (GemmProblem::batch: grid.z), and under
// split-k its part of the sum over k: s.k becomes that part's length.
template <class S, class PA, class PB, class PC>
__device__ __forceinline__ void batch_offsets(S& s, PA& A, PB& B, PC& C) {
  const std::int64_t z = blockIdx.z;
  C += z * s.stride_c;  // split-k: each part has its own C (the workspace)
  if (s.splits == 1) {
    A += z * s.stride_a;
    B += z * s.stride_b;
    return;
  }
  const std::int64_t b = z / s.splits, p = z % s.splits;
  A += b * s.stride_a + p * s.split_a;
  B += b * s.stride_b + p * s.split_b;
  const std::int64_t left = s.k - p * s.k_chunk;
  s.k = left < s.k_chunk ? left : s.k_chunk;
}

// Fragments of N consecutive shared-memory elements, loaded as one vector (16 or 8 bytes) and
// spread into registers component by component (a cast of the register array itself could push
// it to local memory).
template <class T, int N>
__device__ __forceinline__ void load_frag(const T* p, T* d) {
  if constexpr (N * sizeof(T) == 16 && sizeof(T) == 4) {
    const float4 v = *reinterpret_cast<const float4*>(p);
    d[0] = v.x, d[1] = v.y, d[2] = v.z, d[3] = v.w;
  } else if constexpr (N * sizeof(T) == 16) {
    const double2 v = *reinterpret_cast<const double2*>(p);
    d[0] = v.x, d[1] = v.y;
  } else if constexpr (N == 2 && sizeof(T) == 4) {
    const float2 v = *reinterpret_cast<const float2*>(p);
    d[0] = v.x, d[1] = v.y;
  } else {
#pragma unroll
    for (int k = 0; k < N; ++k) d[k] = p[k];
  }
}

template <class C, class AL, class BL>
__device__ __forceinline__ void gemm_mainloop(const AL& al, const BL& bl, std::int64_t K,
                                              typename C::T (&acc)[C::TM][C::TN], typename C::T* smem) {
  using T = typename C::T;
  // Buffers: A0 A1 B0 B1 (pointer arithmetic, not an array of pointers: that would live in
  // local memory once indexed by the loop's parity).
  constexpr int ASZ = C::BK * C::LDA_S, BSZ = C::BK * C::LDB_S;
  T* const As0 = smem;
  T* const Bs0 = smem + 2 * ASZ;
  const int tx = threadIdx.x % (C::BN / C::TN), ty = threadIdx.x / (C::BN / C::TN);

#pragma unroll
  for (int i = 0; i < C::TM; ++i)
#pragma unroll
    for (int j = 0; j < C::TN; ++j) acc[i][j] = 0;

  T ra[C::A_PER], rb[C::B_PER];
  al.fetch(0, ra);
  bl.fetch(0, rb);
  al.commit(As0, ra);
  bl.commit(Bs0, rb);
  __syncthreads();

  const int tiles = static_cast<int>((K + C::BK - 1) / C::BK);
  for (int t = 0; t < tiles; ++t) {
    const int cur = t & 1;
    const bool more = t + 1 < tiles;
    if (more) {
      al.fetch((t + 1) * C::BK, ra);
      bl.fetch((t + 1) * C::BK, rb);
    }
    const T* as = As0 + cur * ASZ;
    const T* bs = Bs0 + cur * BSZ;
#pragma unroll
    for (int kk = 0; kk < C::BK; ++kk) {
      T a[C::TM], b[C::TN];
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        load_frag<T, C::TM / 2>(as + kk * C::LDA_S + h * (C::BM / 2) + ty * (C::TM / 2), a + h * (C::TM / 2));
        load_frag<T, C::TN / 2>(bs + kk * C::LDB_S + h * (C::BN / 2) + tx * (C::TN / 2), b + h * (C::TN / 2));
      }
#pragma unroll
      for (int i = 0; i < C::TM; ++i)
#pragma unroll
        for (int j = 0; j < C::TN; ++j) acc[i][j] = fma(a[i], b[j], acc[i][j]);
    }
    if (more) {
      al.commit(As0 + (cur ^ 1) * ASZ, ra);
      bl.commit(Bs0 + (cur ^ 1) * BSZ, rb);
    }
    __syncthreads();
  }
}

}  // namespace tessera::cuda
