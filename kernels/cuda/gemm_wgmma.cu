// f32 gemm on Hopper's TF32 tensor cores through wgmma (MathMode::tf32 / tf32x3, contract in
// types.hpp), built for sm_90a only (backends/cuda/CMakeLists.txt): the machine code runs on
// compute capability 9.0; the backend falls back to gemm_tf32.cuh's mma.sync kernels elsewhere
// and where gemm_wgmma_applies() says no.
//
// Roles. wgmma multiplies a 64 x 8 slice P (the "A" of the instruction: registers or shared
// memory) by an 8 x N slice Q (its "B": shared memory only) and, for tf32, reads both K-major
// (k contiguous) from shared memory. So the operand that is K-major in global memory goes to
// shared memory as Q, through the copy engine with the 128-byte swizzle the instruction reads;
// the other one, P, is read from shared memory into registers in any layout:
//   op(B) = B^T (B stored n x k, K-major): Q = B, P = op(A);        D = C
//   op(A) = A, op(B) = B (A stored m x k): Q = A, P = B^T (k x n);  D = C^T (stored transposed)
// op(A) = A^T with op(B) = B has no K-major operand: not applicable (mma.sync path).
//
// Rounding (the contract: inputs rounded to nearest TF32, ties away): P is rounded (and split
// into hi + lo for tf32x3) in registers as gemm_tf32.cuh does. Q is rounded in shared memory by a
// pass over each tile before the tensor cores read it (the tensor cores would otherwise drop the
// low 13 bits: truncation), and for tf32x3 its lo part is written beside it.
//
// Block: 384 threads = 3 warpgroups. Warp 0 issues the copies (one thread), warps 1-3 round the
// Q tiles, warpgroups 1 and 2 each own 64 rows (of P) x 256 columns (of Q) of the 128 x 256
// block tile: wgmma m64n256k8, 128 FP32 accumulators a thread. Stages of 32 k pass through a
// ring of mbarriers: full (copy landed) -> ready (Q rounded) -> empty (both warpgroups' wgmmas
// done with the stage). Edges: the copy engine zero-fills outside the matrices (so K needs no
// multiple of 32), the epilogue stores only inside C.
#include <cudaTypedefs.h>

#include <climits>

#include "kernels/cuda/gemm_async.cuh"
#include "kernels/cuda/launch.hpp"
#include "kernels/cuda/sm90.cuh"

namespace tessera::cuda {

namespace {

constexpr int kBM = kGemmWgmmaTileM;  // rows of P (and of D) per block: two warpgroups of 64
constexpr int kBN = kGemmWgmmaTileN;  // rows of Q (columns of D) per block: one m64n256 per k8
static_assert(kBM == 128 && kBN == 256, "the warpgroup roles and the wgmma shape are written for 128 x 256");
constexpr int kBK = 32;   // k per stage: one 128-byte swizzle row of f32
constexpr int kThreads = 384;
constexpr int kRoundThreads = 96;  // warps 1-3

template <bool SPLIT>
struct WgCfg {
  static constexpr int STAGES = SPLIT ? 2 : 4;
  static constexpr int Q_BYTES = kBN * kBK * 4;  // 32 KB
  static constexpr int P_BYTES = kBM * kBK * 4;  // 16 KB
  static constexpr int LO_BYTES = SPLIT ? Q_BYTES : 0;
  static constexpr int STAGE_BYTES = Q_BYTES + LO_BYTES + P_BYTES;
  static constexpr int SMEM_BYTES = STAGES * STAGE_BYTES + 1024 /* alignment */ + 3 * STAGES * 8;
  static_assert(Q_BYTES % 1024 == 0 && P_BYTES % 1024 == 0, "swizzle atoms stay 1024-byte aligned");
};

// Round to nearest TF32 (ties away), low bits cleared: the value the tensor cores then read as is.
__device__ __forceinline__ float tf32_round(float x) {
  unsigned r;
  asm("cvt.rna.tf32.f32 %0, %1;\n" : "=r"(r) : "f"(x));
  return __uint_as_float(r & 0xffffe000u);
}

// Element (row, k) of the P tile in shared memory. K-major: 128 rows of one swizzled 128-byte
// line (16-byte chunk c of row r at c ^ (r % 8)). Otherwise 4 boxes of 32 rows, each k a swizzled
// 128-byte line of 32 rows.
template <bool P_KMAJOR>
__device__ __forceinline__ float p_at(const float* p, int row, int k) {
  if constexpr (P_KMAJOR)
    return p[row * 32 + ((((k >> 2) ^ row) & 7) << 2) + (k & 3)];
  else
    return p[(row >> 5) * 1024 + k * 32 + (((((row & 31) >> 2) ^ k) & 7) << 2) + (row & 3)];
}

struct WgArgs {
  int mp, nq, k;           // rows of P (D), rows of Q (columns of D), inner dimension
  std::int64_t ldc;
  float alpha, beta;
  float* C;
};

template <bool SPLIT, bool P_KMAJOR, bool SWAP>
__global__ __launch_bounds__(kThreads, 1) void gemm_wgmma_kernel(const __grid_constant__ CUtensorMap q_map,
                                                                 const __grid_constant__ CUtensorMap p_map,
                                                                 WgArgs s) {
#if defined(__CUDA_ARCH__) && defined(__CUDA_ARCH_FEAT_SM90_ALL)
  using Cfg = WgCfg<SPLIT>;
  constexpr int S = Cfg::STAGES;
  extern __shared__ unsigned char wg_smem_raw[];
  unsigned char* smem =
      reinterpret_cast<unsigned char*>((reinterpret_cast<std::uintptr_t>(wg_smem_raw) + 1023) & ~std::uintptr_t{1023});
  auto q_tile = [&](int st) { return reinterpret_cast<float*>(smem + st * Cfg::STAGE_BYTES); };
  auto lo_tile = [&](int st) { return reinterpret_cast<float*>(smem + st * Cfg::STAGE_BYTES + Cfg::Q_BYTES); };
  auto p_tile = [&](int st) {
    return reinterpret_cast<float*>(smem + st * Cfg::STAGE_BYTES + Cfg::Q_BYTES + Cfg::LO_BYTES);
  };
  std::uint64_t* full = reinterpret_cast<std::uint64_t*>(smem + S * Cfg::STAGE_BYTES);
  std::uint64_t* ready = full + S;
  std::uint64_t* empty = ready + S;

  const int tid = threadIdx.x, wg = tid / 128;
  if (tid == 0) {
    for (int st = 0; st < S; ++st) {
      sm90::mbar_init(&full[st], 1);
      sm90::mbar_init(&ready[st], kRoundThreads);
      sm90::mbar_init(&empty[st], 256);
    }
    sm90::mbar_init_fence();
  }
  __syncthreads();

  int tile_m, tile_n;
  block_tile(tile_m, tile_n);
  const int p0 = tile_m * kBM, q0 = tile_n * kBN;
  const int tiles = (s.k + kBK - 1) / kBK;

  if (wg == 0) {
    sm90::setmaxnreg_dec<56>();
    if (tid == 0) {  // the copies
      for (int t = 0; t < tiles; ++t) {
        const int st = t % S;
        sm90::mbar_wait(&empty[st], ((t / S) & 1) ^ 1);
        sm90::mbar_arrive_expect_tx(&full[st], Cfg::Q_BYTES + Cfg::P_BYTES);
        sm90::tma_load_2d(q_tile(st), &q_map, t * kBK, q0, &full[st]);
        if constexpr (P_KMAJOR)
          sm90::tma_load_2d(p_tile(st), &p_map, t * kBK, p0, &full[st]);
        else
          for (int j = 0; j < kBM / 32; ++j) sm90::tma_load_2d(p_tile(st) + j * 1024, &p_map, p0 + 32 * j, t * kBK, &full[st]);
      }
    } else if (tid >= 32) {  // rounding Q in place (and its lo part)
      const int r = tid - 32;
      for (int t = 0; t < tiles; ++t) {
        const int st = t % S;
        sm90::mbar_wait(&full[st], (t / S) & 1);
        float4* q = reinterpret_cast<float4*>(q_tile(st));
        float4* lo = reinterpret_cast<float4*>(lo_tile(st));
        for (int i = r; i < kBN * kBK / 4; i += kRoundThreads) {
          const float4 x = q[i];
          const float4 h = make_float4(tf32_round(x.x), tf32_round(x.y), tf32_round(x.z), tf32_round(x.w));
          q[i] = h;
          if constexpr (SPLIT)
            lo[i] = make_float4(tf32_round(x.x - h.x), tf32_round(x.y - h.y), tf32_round(x.z - h.z),
                                tf32_round(x.w - h.w));
        }
        sm90::fence_proxy_async();
        sm90::mbar_arrive(&ready[st]);
      }
    }
    return;
  }

  // The two math warpgroups.
  sm90::setmaxnreg_inc<224>();
  const int c = wg - 1, w = (tid / 32) % 4, l = tid % 32, g = l / 4, tq = l % 4;
  const int prow = 64 * c + 16 * w + g;  // this thread's first row of P in the tile (and +8)
  float acc[128];
#pragma unroll
  for (int i = 0; i < 128; ++i) acc[i] = 0.f;

  // Per stage: P's fragments into registers (rounded, split), the stage's wgmmas, and a wait for
  // them. wgmma reads its register operands while it runs, so the next stage's fragments may not
  // be written before the group completes; the other warpgroup's products keep the tensor cores
  // busy meanwhile. (Two fragment sets alternating with one group in flight: ptxas serialises the
  // wgmmas (C7513) in tf32 and spills in tf32x3, at 168 registers a thread.)
  for (int t = 0; t < tiles; ++t) {
    const int st = t % S;
    sm90::mbar_wait(&full[st], (t / S) & 1);   // P landed (the rounders saw it too: cheap)
    sm90::mbar_wait(&ready[st], (t / S) & 1);  // Q rounded
    const float* p = p_tile(st);
    unsigned hi[4][4], lo[4][4];
#pragma unroll
    for (int kk = 0; kk < 4; ++kk) {
      const float x[4] = {p_at<P_KMAJOR>(p, prow, 8 * kk + tq), p_at<P_KMAJOR>(p, prow + 8, 8 * kk + tq),
                          p_at<P_KMAJOR>(p, prow, 8 * kk + tq + 4), p_at<P_KMAJOR>(p, prow + 8, 8 * kk + tq + 4)};
#pragma unroll
      for (int e = 0; e < 4; ++e) {
        const float h = tf32_round(x[e]);
        hi[kk][e] = __float_as_uint(h);
        if constexpr (SPLIT) lo[kk][e] = __float_as_uint(tf32_round(x[e] - h));
      }
    }
    const std::uint64_t dq = sm90::desc_k_major_sw128(q_tile(st));
    const std::uint64_t dlo = SPLIT ? sm90::desc_k_major_sw128(lo_tile(st)) : 0;
    sm90::wgmma_fence();
#pragma unroll
    for (int kk = 0; kk < 4; ++kk) {
      // +2 per k8: 32 bytes along the swizzled line, in the descriptor's 16-byte units.
      if constexpr (SPLIT) {
        sm90::wgmma_m64n256k8_tf32_rs(acc, lo[kk], dq + 2 * kk, 1);
        sm90::wgmma_m64n256k8_tf32_rs(acc, hi[kk], dlo + 2 * kk, 1);
      }
      sm90::wgmma_m64n256k8_tf32_rs(acc, hi[kk], dq + 2 * kk, 1);
    }
    sm90::wgmma_commit();
    sm90::wgmma_wait<0>();
    sm90::mbar_arrive(&empty[st]);
  }

  // acc[4 j + 2 h + e] is D(prow + 8 h, 8 j + 2 tq + e) of the block tile.
#pragma unroll
  for (int h = 0; h < 2; ++h) {
    const int i = p0 + prow + 8 * h;
    if (i >= s.mp) continue;
#pragma unroll
    for (int j = 0; j < 32; ++j)
#pragma unroll
      for (int e = 0; e < 2; ++e) {
        const int q = q0 + 8 * j + 2 * tq + e;
        if (q >= s.nq) continue;
        if constexpr (SWAP)
          store_c(s.C, s.ldc, q, i, s.alpha, s.beta, acc[4 * j + 2 * h + e]);
        else
          store_c(s.C, s.ldc, i, q, s.alpha, s.beta, acc[4 * j + 2 * h + e]);
      }
  }
#endif
}

// cuTensorMapEncodeTiled from the driver, found once through the runtime (no link to libcuda).
PFN_cuTensorMapEncodeTiled_v12000 tensor_map_encoder() {
  static PFN_cuTensorMapEncodeTiled_v12000 fn = [] {
    void* f = nullptr;
    cudaDriverEntryPointQueryResult q{};
    if (cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &f, 12000, cudaEnableDefault, &q) != cudaSuccess ||
        q != cudaDriverEntryPointSuccess)
      f = nullptr;
    return reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(f);
  }();
  return fn;
}

// A rows x inner f32 matrix (leading dimension ld) in boxes of 32 (inner) x box_rows, 128-byte swizzle.
bool encode(CUtensorMap& map, const float* base, std::int64_t inner, std::int64_t rows, std::int64_t ld,
            int box_rows) {
  auto fn = tensor_map_encoder();
  if (!fn) return false;
  const cuuint64_t dims[2] = {static_cast<cuuint64_t>(inner), static_cast<cuuint64_t>(rows)};
  const cuuint64_t strides[1] = {static_cast<cuuint64_t>(ld) * 4};
  const cuuint32_t box[2] = {32, static_cast<cuuint32_t>(box_rows)};
  const cuuint32_t elem_strides[2] = {1, 1};
  return fn(&map, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 2, const_cast<float*>(base), dims, strides, box, elem_strides,
            CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
            CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) == CUDA_SUCCESS;
}

bool tma_ok(const float* p, std::int64_t ld) { return reinterpret_cast<std::uintptr_t>(p) % 16 == 0 && ld % 4 == 0; }

template <bool SPLIT, bool P_KMAJOR, bool SWAP>
cudaError_t launch(const CUtensorMap& q, const CUtensorMap& p, const WgArgs& a, cudaStream_t stream) {
  auto kernel = gemm_wgmma_kernel<SPLIT, P_KMAJOR, SWAP>;
  constexpr int smem = WgCfg<SPLIT>::SMEM_BYTES;
  if (cudaError_t e = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem); e != cudaSuccess)
    return e;
  const dim3 grid(static_cast<unsigned>((a.nq + kBN - 1) / kBN), static_cast<unsigned>((a.mp + kBM - 1) / kBM));
  if (grid.y > 65535u) return cudaErrorInvalidConfiguration;
  kernel<<<grid, kThreads, smem, stream>>>(q, p, a);
  return cudaGetLastError();
}

template <bool SPLIT>
cudaError_t launch_split(bool p_kmajor, bool swap, const CUtensorMap& q, const CUtensorMap& p, const WgArgs& a,
                         cudaStream_t stream) {
  if (swap) return launch<SPLIT, false, true>(q, p, a, stream);  // P = B^T is never K-major
  return p_kmajor ? launch<SPLIT, true, false>(q, p, a, stream) : launch<SPLIT, false, false>(q, p, a, stream);
}

}  // namespace

bool gemm_wgmma_applies(const GemmProblem& s, const float* A, const float* B) {
  if (s.math == MathMode::exact || s.k == 0 || s.m > INT_MAX || s.n > INT_MAX) return false;
  if (s.ta && !s.tb) return false;  // no K-major operand
  return tma_ok(A, s.lda) && tma_ok(B, s.ldb) && tensor_map_encoder() != nullptr;
}

cudaError_t launch_gemm_wgmma(const GemmProblem& s, float alpha, const float* A, const float* B, float beta, float* C,
                              cudaStream_t stream) {
  const bool swap = !s.tb;  // Q = A, P = B^T, D = C^T
  WgArgs a;
  a.mp = static_cast<int>(swap ? s.n : s.m);
  a.nq = static_cast<int>(swap ? s.m : s.n);
  a.k = static_cast<int>(s.k);
  a.ldc = s.ldc;
  a.alpha = alpha;
  a.beta = beta;
  a.C = C;
  CUtensorMap q{}, p{};
  bool ok;
  bool p_kmajor = false;
  if (swap) {  // Q = A (m x k, K-major); P = B (k x n, rows of P contiguous)
    ok = encode(q, A, s.k, s.m, s.lda, kBN) && encode(p, B, s.n, s.k, s.ldb, kBK);
  } else {  // Q = B stored n x k; P = op(A)
    p_kmajor = !s.ta;
    ok = encode(q, B, s.k, s.n, s.ldb, kBN) &&
         (p_kmajor ? encode(p, A, s.k, s.m, s.lda, kBM) : encode(p, A, s.m, s.k, s.lda, kBK));
  }
  if (!ok) return cudaErrorInvalidValue;
  return s.math == MathMode::tf32x3 ? launch_split<true>(p_kmajor, swap, q, p, a, stream)
                                    : launch_split<false>(p_kmajor, swap, q, p, a, stream);
}

}  // namespace tessera::cuda
