// Dense triangular solve op(A) x = b, row-major A with leading dimension lda.
//
// Bound: reading the n^2/2 stored entries once (n = 16384 f32: 537 MB, ~0.15 ms at 3.5 TB/s);
// the serial part is the chain of diagonal blocks. The solve is blocked by NB rows:
//  1. invert every NB x NB diagonal block of op(A) at once (one block of threads each, in
//     shared memory): the chain step becomes a matrix-vector product instead of NB dependent
//     substitution steps;
//  2. one launch walks the block rows: block row b (taken in dependency order from an atomic
//     ticket, so every block it waits for is already running) streams its row panel of op(A)
//     against the solved pieces of x as they are published, keeping the panel's loads in flight
//     while it waits, then x_b = inv(A_bb) (b_b - sum_j A_bj x_j) and it publishes "b solved"
//     with a release store. Solves complete in ticket order, so one counter is the only flag.
#include "kernels/cuda/common.cuh"

namespace tessera::cuda {

namespace {

template <class T>
__device__ __forceinline__ T op_a(const T* A, std::int64_t lda, bool trans, std::int64_t i, std::int64_t k) {
  return trans ? A[k * lda + i] : A[i * lda + k];
}

// One block of NB threads per diagonal block; thread c forms column c of the inverse by
// substitution against the identity. Shared: op(A_bb) and the inverse's transpose, both padded
// by one column against bank conflicts.
template <class T, int NB>
__global__ __launch_bounds__(NB) void invert_diag_kernel(TriangularShape s, const T* __restrict__ A, T* __restrict__ W) {
  extern __shared__ unsigned char smem_raw[];
  T* L = reinterpret_cast<T*>(smem_raw);  // L[i * LD + k] = op(A_bb)(i, k)
  T* XT = L + NB * (NB + 1);              // XT[c * LD + i] = inv(i, c)
  constexpr int LD = NB + 1;
  const int b = blockIdx.x, c = threadIdx.x;
  const std::int64_t r0 = static_cast<std::int64_t>(b) * NB;
  const int rb = static_cast<int>(imin64(NB, s.n - r0));

  for (int e = c; e < NB * NB; e += NB) {
    // Consecutive threads read consecutive addresses of A in both cases.
    const int i = s.trans ? e % NB : e / NB;
    const int k = s.trans ? e / NB : e % NB;
    T v;
    if (i >= rb || k >= rb) v = i == k ? T(1) : T(0);  // identity padding of the last block
    else if (i == k) v = s.unit ? T(1) : op_a(A, s.lda, s.trans, r0 + i, r0 + k);
    else if (s.eff_lower ? k < i : k > i) v = op_a(A, s.lda, s.trans, r0 + i, r0 + k);
    else v = T(0);
    L[i * LD + k] = v;
  }
  __syncthreads();

  T* xc = XT + c * LD;
  if (s.eff_lower) {
    for (int i = 0; i < NB; ++i) {
      T v;
      if (i < c) v = T(0);
      else if (i == c) v = T(1) / L[i * LD + i];
      else {
        T acc = 0;
        for (int k = c; k < i; ++k) acc += L[i * LD + k] * xc[k];
        v = -acc / L[i * LD + i];
      }
      xc[i] = v;
    }
  } else {
    for (int i = NB - 1; i >= 0; --i) {
      T v;
      if (i > c) v = T(0);
      else if (i == c) v = T(1) / L[i * LD + i];
      else {
        T acc = 0;
        for (int k = i + 1; k <= c; ++k) acc += L[i * LD + k] * xc[k];
        v = -acc / L[i * LD + i];
      }
      xc[i] = v;
    }
  }
  __syncthreads();
  T* out = W + static_cast<std::int64_t>(b) * NB * NB;
  for (int e = c; e < NB * NB; e += NB) out[e] = XT[(e / NB) * LD + e % NB];  // out[k*NB + i] = inv(i, k)
}

// TRANS_ACCESS: op(A) = A^T, so a tile of op(A) is read as rows of A (columns of op(A)).
template <class T, int NB, bool TRANS_ACCESS>
__global__ __launch_bounds__(kTrsvThreads, 2) void trsv_solve_kernel(TriangularShape s, const T* __restrict__ A,
                                                                     const T* __restrict__ W, T* x, int* sync) {
  constexpr int WARPS = kTrsvThreads / 32;
  constexpr int RPW = NB / WARPS;  // tile rows (of A) per warp
  constexpr int CPL = NB / 32;     // tile columns (of A) per lane, strided by 32: coalesced rows
  constexpr int PARTS = kTrsvThreads / NB;
  static_assert(RPW <= 32 && CPL >= 1 && PARTS >= 1, "tile shape");
  extern __shared__ unsigned char smem_raw[];
  T* invT = reinterpret_cast<T*>(smem_raw);  // invT[k * NB + i] = inv(i, k)
  T* rhs = invT + NB * NB;                   // NB
  T* part = rhs + NB;                        // WARPS * NB partial sums
  __shared__ int s_ticket, s_ready;

  const int tid = threadIdx.x, lane = tid % 32, warp = tid / 32;
  if (tid == 0) s_ticket = atomicAdd(sync, 1);
  __syncthreads();
  const int t = s_ticket;
  const int nb = (s.n + NB - 1) / NB;
  const int b = s.eff_lower ? t : nb - 1 - t;
  const std::int64_t r0 = static_cast<std::int64_t>(b) * NB;
  const int rb = static_cast<int>(imin64(NB, s.n - r0));

  const T* Wb = W + static_cast<std::int64_t>(b) * NB * NB;
  for (int e = tid; e < NB * NB; e += kTrsvThreads) invT[e] = Wb[e];
  if (tid < NB) rhs[tid] = tid < rb ? __ldcg(x + r0 + tid) : T(0);

  T acc[TRANS_ACCESS ? CPL : RPW];
#pragma unroll
  for (int q = 0; q < (TRANS_ACCESS ? CPL : RPW); ++q) acc[q] = 0;

  int ready = 0;  // solved block rows known to this block (uniform)
  for (int tt = 0; tt < t; ++tt) {
    const int j = s.eff_lower ? tt : nb - 1 - tt;
    const std::int64_t c0 = static_cast<std::int64_t>(j) * NB;
    // The tile's loads go out before the wait, so the last tile is in flight while x_j is solved.
    T a[RPW][CPL];
#pragma unroll
    for (int rr = 0; rr < RPW; ++rr) {
#pragma unroll
      for (int q = 0; q < CPL; ++q) {
        const std::int64_t arow = (TRANS_ACCESS ? c0 : r0) + warp * RPW + rr;
        const std::int64_t acol = (TRANS_ACCESS ? r0 : c0) + lane + 32 * q;
        a[rr][q] = arow < s.n && acol < s.n ? A[arow * s.lda + acol] : T(0);
      }
    }
    if (tt >= ready) {
      if (tid == 0) {
        int d;
        while ((d = load_acquire(sync + 1)) <= tt) {
        }
        s_ready = d;
      }
      __syncthreads();
      ready = s_ready;
      __syncthreads();  // s_ready is rewritten at the next wait
    }
    if constexpr (!TRANS_ACCESS) {
      T xv[CPL];
#pragma unroll
      for (int q = 0; q < CPL; ++q) {
        const std::int64_t col = c0 + lane + 32 * q;
        xv[q] = col < s.n ? __ldcg(x + col) : T(0);
      }
#pragma unroll
      for (int rr = 0; rr < RPW; ++rr)
#pragma unroll
        for (int q = 0; q < CPL; ++q) acc[rr] += a[rr][q] * xv[q];
    } else {
      const std::int64_t xr = c0 + warp * RPW + lane % RPW;
      const T xmine = xr < s.n ? __ldcg(x + xr) : T(0);
#pragma unroll
      for (int rr = 0; rr < RPW; ++rr) {
        const T xv = __shfl_sync(kFullMask, xmine, rr);
#pragma unroll
        for (int q = 0; q < CPL; ++q) acc[q] += a[rr][q] * xv;
      }
    }
  }

  // rhs -= sum over the panel.
  if constexpr (!TRANS_ACCESS) {
#pragma unroll
    for (int rr = 0; rr < RPW; ++rr) {
      const T v = warp_sum(acc[rr]);
      if (lane == 0) part[warp * RPW + rr] = v;
    }
  } else {
#pragma unroll
    for (int q = 0; q < CPL; ++q) part[warp * NB + lane + 32 * q] = acc[q];
  }
  __syncthreads();
  if (tid < NB) {
    T tot = 0;
    if constexpr (!TRANS_ACCESS) tot = part[tid];
    else {
#pragma unroll
      for (int w = 0; w < WARPS; ++w) tot += part[w * NB + tid];
    }
    rhs[tid] -= tot;
  }
  __syncthreads();
  // x_b = inv * rhs: PARTS threads per row, each a slice of k (invT rows: conflict-free).
  {
    const int i = tid % NB, h = tid / NB;
    constexpr int KPER = NB / PARTS;
    T v = 0;
#pragma unroll 8
    for (int kk = 0; kk < KPER; ++kk) {
      const int k = h * KPER + kk;
      v += invT[k * NB + i] * rhs[k];
    }
    part[h * NB + i] = v;
  }
  __syncthreads();
  if (tid < rb) {
    T v = 0;
#pragma unroll
    for (int h = 0; h < PARTS; ++h) v += part[h * NB + tid];
    x[r0 + tid] = v;
  }
  __threadfence();
  __syncthreads();
  if (tid == 0) store_release(sync + 1, t + 1);
}

template <class T, int NB>
constexpr std::size_t invert_smem() {
  return 2u * NB * (NB + 1) * sizeof(T);
}
template <class T, int NB>
constexpr std::size_t solve_smem() {
  return (static_cast<std::size_t>(NB) * NB + NB + (kTrsvThreads / 32) * NB) * sizeof(T);
}

template <class T>
__global__ void scale_kernel(T* B, std::int64_t rows, std::int64_t cols, std::int64_t ld, T alpha) {
  const std::int64_t total = rows * cols;
  for (std::int64_t e = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; e < total;
       e += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    const std::int64_t r = e / cols, c = e % cols;
    B[r * ld + c] *= alpha;
  }
}

}  // namespace

template <class T>
cudaError_t launch_trsv_invert_diag(const TriangularShape& s, const T* A, T* W, cudaStream_t stream) {
  constexpr int NB = kTrsvBlock<T>;
  constexpr std::size_t smem = invert_smem<T, NB>();
  if (cudaError_t e = allow_dynamic_smem(invert_diag_kernel<T, NB>, smem); e != cudaSuccess) return e;
  const int nb = (s.n + NB - 1) / NB;
  invert_diag_kernel<T, NB><<<nb, NB, smem, stream>>>(s, A, W);
  return cudaGetLastError();
}

template <class T>
cudaError_t launch_trsv_solve(const TriangularShape& s, const T* A, const T* W, T* x, int* sync,
                              cudaStream_t stream) {
  constexpr int NB = kTrsvBlock<T>;
  constexpr std::size_t smem = solve_smem<T, NB>();
  const int nb = (s.n + NB - 1) / NB;
  if (s.trans) {
    if (cudaError_t e = allow_dynamic_smem(trsv_solve_kernel<T, NB, true>, smem); e != cudaSuccess) return e;
    trsv_solve_kernel<T, NB, true><<<nb, kTrsvThreads, smem, stream>>>(s, A, W, x, sync);
  } else {
    if (cudaError_t e = allow_dynamic_smem(trsv_solve_kernel<T, NB, false>, smem); e != cudaSuccess) return e;
    trsv_solve_kernel<T, NB, false><<<nb, kTrsvThreads, smem, stream>>>(s, A, W, x, sync);
  }
  return cudaGetLastError();
}

template <class T>
cudaError_t launch_scale_matrix(T* B, std::int64_t rows, std::int64_t cols, std::int64_t ld, T alpha,
                                cudaStream_t stream) {
  const std::int64_t total = rows * cols;
  const unsigned int grid = static_cast<unsigned int>(imin64((total + 255) / 256, 4096));
  scale_kernel<T><<<grid, 256, 0, stream>>>(B, rows, cols, ld, alpha);
  return cudaGetLastError();
}

#define TESSERA_TRSV_INSTANTIATE(T)                                                                          \
  template cudaError_t launch_trsv_invert_diag<T>(const TriangularShape&, const T*, T*, cudaStream_t);       \
  template cudaError_t launch_trsv_solve<T>(const TriangularShape&, const T*, const T*, T*, int*, cudaStream_t); \
  template cudaError_t launch_scale_matrix<T>(T*, std::int64_t, std::int64_t, std::int64_t, T, cudaStream_t);
TESSERA_TRSV_INSTANTIATE(float)
TESSERA_TRSV_INSTANTIATE(double)

}  // namespace tessera::cuda
