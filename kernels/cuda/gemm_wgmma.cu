// f32 gemm on Hopper's TF32 tensor cores through wgmma (MathMode::tf32 / tf32x3, contract in
// types.hpp), built for sm_90a only (backends/cuda/CMakeLists.txt): the machine code runs on
// compute capability 9.0; the backend falls back to gemm_tf32.cuh's mma.sync kernels elsewhere
// and where gemm_wgmma_applies() says no.
//
// Roles. wgmma multiplies a 64 x 8 slice P (the "A" of the instruction: registers or shared
// memory) by an 8 x N slice Q (its "B": shared memory only) and, for tf32, reads both K-major
// (k contiguous) from shared memory. So the operand that is K-major in global memory goes to
// shared memory as Q, in the 128-byte swizzle the instruction reads; the other one, P, comes
// through the copy engine (TMA) and is read from shared memory into registers in any layout:
//   op(B) = B^T (B stored n x k, K-major): Q = B, P = op(A);        D = C
//   op(A) = A, op(B) = B (A stored m x k): Q = A, P = B^T (k x n);  D = C^T (stored transposed)
// op(A) = A^T with op(B) = B has no K-major operand: not applicable (mma.sync path).
//
// Rounding (the contract: inputs rounded to nearest TF32, ties away): P is rounded (and split
// into hi + lo for tf32x3) in registers as gemm_tf32.cuh does. Q must be rounded before the tensor
// cores read it (they drop its low 13 bits: truncation, measured: 4.2e-4 max error against 2.5e-4),
// and for tf32x3 its lo part written beside it. By default both modes round (tf32x3: and split)
// Q beforehand into a per-queue workspace (round_q_kernel, a pass at copy speed), in chunks of
// its rows that fit the workspace, and the copy engine brings every tile (Q_ROUNDED). Rounding in
// the kernel instead (where not even one tile's rows fit the workspace, or gemm.tf32_round_mb=0),
// one way per mode (WgCfg):
//   tf32 (Q_TMA): the copy engine brings Q; warps 1-3 round each tile in place. That pass takes
//     the shared-memory bandwidth the products need: 0.670 against 0.416 ms at n = 4096 on an
//     H200 (bench/RESULTS.md, session 25).
//   tf32x3: the load warpgroup reads Q into registers, rounds and splits it, and stores hi and
//     lo (the copy engine's write and the pass's read of shared memory saved: the three products
//     already load it most).
//
// Block: 384 threads = 3 warpgroups; warpgroup 0 loads, warpgroups 1 and 2 each own 64 rows of P
// x BN rows of Q (wgmma m64nBNk8). Stages of 32 k pass through a ring of mbarriers: (landed ->)
// full -> empty (both math warpgroups done with the stage). Edges: the copy engine zero-fills
// outside the matrices, the loaders likewise (so K needs no multiple of 32), the epilogue stores
// only inside C.
#include <algorithm>
#include <climits>

#include "kernels/cuda/gemm_async.cuh"
#include "kernels/cuda/launch.hpp"
#include "kernels/cuda/sm90.cuh"
#include "kernels/cuda/tensor_map.hpp"

namespace tessera::cuda {

namespace {

constexpr int kBM = kGemmWgmmaTileM;  // rows of P (and of D) per block: two warpgroups of 64
constexpr int kBK = 32;               // k per stage: one 128-byte swizzle row of f32
constexpr int kThreads = 384;
constexpr int kLaunchRegs = 168;  // registers a thread at launch: 65536 / 384, in units of 8
static_assert(kBM == 128, "the warpgroup roles are written for two warpgroups of 64 rows");

// tf32: 128 x 256 tiles (m64n256: 128 accumulators a thread), Q through the copy engine and
// rounded in place. tf32x3: 128 x 128 (m64n128), Q through registers, and the products promoted
// every stage (PROMOTE): the tensor cores' FP32 additions truncate, and over a long k their bias
// grows with the partial sum (3e-5 max error at k = 4096 unpromoted, against cuBLAS FP32's 2.8e-6),
// so each stage's 12 products start from zero and are added to a second set of accumulators in
// round-to-nearest FP32 (64 + 64 registers).
// setmaxnreg: warpgroup 0 gives registers back, the math warpgroups take them, and the new counts
// must fit what the block holds (asking for more waits for registers no one frees: a hang).
template <bool SPLIT>
struct WgCfg {
  static constexpr int BN = gemm_wgmma_tile_n(SPLIT ? MathMode::tf32x3 : MathMode::tf32);
  static constexpr bool Q_TMA = !SPLIT, PROMOTE = SPLIT;
  static constexpr int ACC = BN / 2;  // accumulators a thread
  static constexpr int STAGES = 4;
  static constexpr int LOAD_REGS = Q_TMA ? 40 : 120, MATH_REGS = Q_TMA ? 232 : 192;
  static constexpr int Q_BYTES = BN * kBK * 4;
  static constexpr int P_BYTES = kBM * kBK * 4;  // 16 KB
  static constexpr int LO_BYTES = SPLIT ? Q_BYTES : 0;
  static constexpr int STAGE_BYTES = Q_BYTES + LO_BYTES + P_BYTES;
  static constexpr int SMEM_BYTES = STAGES * STAGE_BYTES + 1024 /* alignment */ + 3 * STAGES * 8;
  static_assert(Q_BYTES % 1024 == 0 && P_BYTES % 1024 == 0, "swizzle atoms stay 1024-byte aligned");
  static_assert(BN == 128 || BN == 256, "wgmma_tf32_rs shapes");
  static_assert(128 * LOAD_REGS + 256 * MATH_REGS <= kThreads * kLaunchRegs, "setmaxnreg beyond the block's registers");
  static_assert(SMEM_BYTES <= 227 * 1024, "shared memory of one block");
};

// Round to nearest TF32 (ties away), low bits cleared: the value the tensor cores then read as is.
__device__ __forceinline__ float tf32_round(float x) {
  unsigned r;
  asm("cvt.rna.tf32.f32 %0, %1;\n" : "=r"(r) : "f"(x));
  return __uint_as_float(r & 0xffffe000u);
}
__device__ __forceinline__ float4 tf32_round(float4 x) {
  return make_float4(tf32_round(x.x), tf32_round(x.y), tf32_round(x.z), tf32_round(x.w));
}

// Element (row, k) of a K-major tile in the 128-byte swizzle: 128-byte rows of 32 k, 16-byte
// chunk c of row r at chunk c ^ (r % 8) (what wgmma's descriptor and the copy engine both use).
__device__ __forceinline__ int swizzled(int row, int k) { return row * 32 + ((((k >> 2) ^ row) & 7) << 2) + (k & 3); }

// Element (row, k) of the P tile in shared memory. K-major: 128 swizzled rows. Otherwise 4 boxes
// of 32 rows, each k a swizzled 128-byte line of 32 rows.
template <bool P_KMAJOR>
__device__ __forceinline__ float p_at(const float* p, int row, int k) {
  if constexpr (P_KMAJOR)
    return p[swizzled(row, k)];
  else
    return p[(row >> 5) * 1024 + swizzled(k, row & 31)];
}

struct WgArgs {
  int mp, nq, k;  // rows of P (D), rows of Q (columns of D), inner dimension
  std::int64_t ldc;
  float alpha, beta;
  float* C;
  const float* Q;  // K-major: element (row, k) at Q[row * ldq + k]
  std::int64_t ldq;
  // The batch (GemmProblem::batch, grid.z): the z-th Q and C at these strides.
  std::int64_t stride_q, stride_c;
};

// A tile's copy from the block's matrix of the batch. The maps are 3D even for one matrix: a
// branch between 2D and 3D copies cost the tf32x3 kernels spills.
__device__ __forceinline__ void tma_tile(void* dst, const CUtensorMap* map, int c0, int c1, std::uint64_t* bar) {
  sm90::tma_load_3d(dst, map, c0, c1, static_cast<int>(blockIdx.z), bar);
}

// Q_ROUNDED: Q was rounded (and for tf32x3 split: its lo parts through lo_map) beforehand
// (round_q_kernel); the copy engine brings every tile, completing on `full` directly.
template <bool SPLIT, bool P_KMAJOR, bool SWAP, bool Q_ROUNDED>
__global__ __launch_bounds__(kThreads, 1) void gemm_wgmma_kernel(const __grid_constant__ CUtensorMap p_map,
                                                                 const __grid_constant__ CUtensorMap q_map,
                                                                 const __grid_constant__ CUtensorMap lo_map, WgArgs s) {
#if defined(__CUDA_ARCH__) && defined(__CUDA_ARCH_FEAT_SM90_ALL)
  using Cfg = WgCfg<SPLIT>;
  constexpr int S = Cfg::STAGES, BN = Cfg::BN, ACC = Cfg::ACC;
  extern __shared__ unsigned char wg_smem_raw[];
  unsigned char* smem =
      reinterpret_cast<unsigned char*>((reinterpret_cast<std::uintptr_t>(wg_smem_raw) + 1023) & ~std::uintptr_t{1023});
  auto q_tile = [&](int st) { return reinterpret_cast<float*>(smem + st * Cfg::STAGE_BYTES); };
  auto lo_tile = [&](int st) { return reinterpret_cast<float*>(smem + st * Cfg::STAGE_BYTES + Cfg::Q_BYTES); };
  auto p_tile = [&](int st) {
    return reinterpret_cast<float*>(smem + st * Cfg::STAGE_BYTES + Cfg::Q_BYTES + Cfg::LO_BYTES);
  };
  // landed: the copies (Q_TMA); full: the stage ready for wgmma; empty: the math done with it.
  std::uint64_t* landed = reinterpret_cast<std::uint64_t*>(smem + S * Cfg::STAGE_BYTES);
  std::uint64_t* full = landed + S;
  std::uint64_t* empty = full + S;

  const int tid = threadIdx.x, wg = tid / 128;
  if (tid == 0) {
    for (int st = 0; st < S; ++st) {
      sm90::mbar_init(&landed[st], 1);
      // Q_ROUNDED: the copies (with their bytes); Q_TMA: warps 1-3 after rounding; else P's
      // copy (with its bytes) and the 128 loaders.
      sm90::mbar_init(&full[st], Q_ROUNDED ? 1 : (Cfg::Q_TMA ? 96 : 1 + 128));
      sm90::mbar_init(&empty[st], 256);
    }
    sm90::mbar_init_fence();
  }
  __syncthreads();

  int tile_m, tile_n;
  block_tile(tile_m, tile_n);
  const int p0 = tile_m * kBM, q0 = tile_n * BN;
  const int tiles = (s.k + kBK - 1) / kBK;
  // P's copy into stage st, completing on bar.
  auto copy_p = [&](int t, int st, std::uint64_t* bar) {
    if constexpr (P_KMAJOR)
      tma_tile(p_tile(st), &p_map, t * kBK, p0, bar);
    else
      for (int j = 0; j < kBM / 32; ++j) tma_tile(p_tile(st) + j * 1024, &p_map, p0 + 32 * j, t * kBK, bar);
  };

  if (wg == 0) {
    sm90::setmaxnreg_dec<Cfg::LOAD_REGS>();
    if constexpr (Q_ROUNDED) {
      if (tid == 0)  // every copy
        for (int t = 0; t < tiles; ++t) {
          const int st = t % S;
          sm90::mbar_wait(&empty[st], ((t / S) & 1) ^ 1);
          sm90::mbar_arrive_expect_tx(&full[st], Cfg::Q_BYTES + Cfg::LO_BYTES + Cfg::P_BYTES);
          tma_tile(q_tile(st), &q_map, t * kBK, q0, &full[st]);
          if constexpr (SPLIT) tma_tile(lo_tile(st), &lo_map, t * kBK, q0, &full[st]);
          copy_p(t, st, &full[st]);
        }
    } else if constexpr (Cfg::Q_TMA) {
      if (tid == 0) {  // both copies
        for (int t = 0; t < tiles; ++t) {
          const int st = t % S;
          sm90::mbar_wait(&empty[st], ((t / S) & 1) ^ 1);
          sm90::mbar_arrive_expect_tx(&landed[st], Cfg::Q_BYTES + Cfg::P_BYTES);
          tma_tile(q_tile(st), &q_map, t * kBK, q0, &landed[st]);
          copy_p(t, st, &landed[st]);
        }
      } else if (tid >= 32) {  // warps 1-3: Q rounded in place
        for (int t = 0; t < tiles; ++t) {
          const int st = t % S;
          sm90::mbar_wait(&landed[st], (t / S) & 1);
          float4* q = reinterpret_cast<float4*>(q_tile(st));
          for (int i = tid - 32; i < BN * kBK / 4; i += 96) q[i] = tf32_round(q[i]);
          sm90::fence_proxy_async();  // the stores, before wgmma reads them
          sm90::mbar_arrive(&full[st]);
        }
      }
    } else {
      // Q through registers, rounded and split on the way; thread 0 also hands P to the copy
      // engine. Thread r: the 16-byte chunk r % 8 of rows r / 8 + 16 u of the tile (a warp reads 4
      // rows of 128 bytes at a time; the stores fall in distinct banks, chunk ^ row % 8 being a
      // permutation). Two register sets: stage t + 1's loads (and P's copy) are in flight while
      // stage t is stored (one set: a memory latency per stage, 3.5x slower in tf32).
      constexpr int ROW_STEP = 128 / 8, PER = BN / ROW_STEP;
      const int r = tid, chunk = r % 8, row0 = r / 8;
      const int rows_left = s.nq - q0 - row0;  // rows of Q from this thread's first on
      const float* qb = s.Q + blockIdx.z * s.stride_q + static_cast<std::int64_t>(q0 + row0) * s.ldq + 4 * chunk;
      const std::int64_t step = ROW_STEP * s.ldq;
      auto load = [&](int t, float4(&v)[PER]) {
        const int st = t % S, k0 = t * kBK + 4 * chunk;
        sm90::mbar_wait(&empty[st], ((t / S) & 1) ^ 1);
        if (r == 0) {
          sm90::mbar_arrive_expect_tx(&full[st], Cfg::P_BYTES);
          copy_p(t, st, &full[st]);
        }
        const bool whole = k0 + 4 <= s.k;
        const float* g = qb + t * kBK;
#pragma unroll
        for (int u = 0; u < PER; ++u, g += step) {
          // Opaque to the compiler: it would otherwise keep every row's pointer live across
          // stages (2 registers each), more than the loaders' share.
          asm volatile("" : "+l"(g));
          v[u] = make_float4(0.f, 0.f, 0.f, 0.f);
          if (ROW_STEP * u < rows_left && k0 < s.k) {
            if (whole)
              v[u] = __ldg(reinterpret_cast<const float4*>(g));
            else  // the last chunk of a k not a multiple of 4
              v[u] = make_float4(__ldg(g), k0 + 1 < s.k ? __ldg(g + 1) : 0.f, k0 + 2 < s.k ? __ldg(g + 2) : 0.f, 0.f);
          }
        }
      };
      auto store = [&](int t, const float4(&v)[PER]) {
        const int st = t % S;
        float* q = q_tile(st);
        float* lo = lo_tile(st);
#pragma unroll
        for (int u = 0; u < PER; ++u) {
          const int at = swizzled(row0 + ROW_STEP * u, 4 * chunk);
          const float4 h = tf32_round(v[u]);
          *reinterpret_cast<float4*>(q + at) = h;
          if constexpr (SPLIT)
            *reinterpret_cast<float4*>(lo + at) =
                tf32_round(make_float4(v[u].x - h.x, v[u].y - h.y, v[u].z - h.z, v[u].w - h.w));
        }
        sm90::fence_proxy_async();  // the stores, before wgmma reads them
        sm90::mbar_arrive(&full[st]);
      };
      float4 va[PER], vb[PER];
      if (tiles > 0) load(0, va);
      for (int t = 0; t < tiles; t += 2) {
        if (t + 1 < tiles) load(t + 1, vb);
        store(t, va);
        if (t + 1 >= tiles) break;
        if (t + 2 < tiles) load(t + 2, va);
        store(t + 1, vb);
      }
    }
    return;
  }

  // The two math warpgroups.
  sm90::setmaxnreg_inc<Cfg::MATH_REGS>();
  const int c = wg - 1, w = (tid / 32) % 4, l = tid % 32, g = l / 4, tq = l % 4;
  const int prow = 64 * c + 16 * w + g;  // this thread's first row of P in the tile (and +8)
  float acc[ACC], sum[Cfg::PROMOTE ? ACC : 1];
#pragma unroll
  for (int i = 0; i < ACC; ++i) acc[i] = 0.f;
  if constexpr (Cfg::PROMOTE)
#pragma unroll
    for (int i = 0; i < ACC; ++i) sum[i] = 0.f;

  // Per stage: P's fragments into registers (rounded, split), the stage's wgmmas, and a wait for
  // them. wgmma reads its register operands while it runs, so the next stage's fragments may not
  // be written before the group completes (two alternating sets with one group in flight: ptxas
  // serialises the wgmmas, C7513); the other warpgroup's products keep the tensor cores busy.
  // (Reading the next stage's raw P values during the products measured slower.)
  for (int t = 0; t < tiles; ++t) {
    const int st = t % S;
    // The stage: P's copy landed (seen by the rounders, whose arrival carries it, or counted on
    // full itself) and Q stored.
    sm90::mbar_wait(&full[st], (t / S) & 1);
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
      // +2 per k8: 32 bytes along the swizzled line, in the descriptor's 16-byte units. Promoted
      // stages start from zero (scale_d 0 on their first product).
      const int keep = Cfg::PROMOTE && kk == 0 ? 0 : 1;
      if constexpr (SPLIT) {
        sm90::wgmma_tf32_rs<BN>(acc, lo[kk], dq + 2 * kk, keep);
        sm90::wgmma_tf32_rs<BN>(acc, hi[kk], dlo + 2 * kk, 1);
        sm90::wgmma_tf32_rs<BN>(acc, hi[kk], dq + 2 * kk, 1);
      } else {
        sm90::wgmma_tf32_rs<BN>(acc, hi[kk], dq + 2 * kk, keep);
      }
    }
    sm90::wgmma_commit();
    sm90::wgmma_wait<0>();
    sm90::mbar_arrive(&empty[st]);
    if constexpr (Cfg::PROMOTE)
#pragma unroll
      for (int i = 0; i < ACC; ++i) sum[i] += acc[i];
  }
  const float* out = Cfg::PROMOTE ? sum : acc;
  float* C = s.C + blockIdx.z * s.stride_c;

  // out[4 j + 2 h + e] is D(prow + 8 h, 8 j + 2 tq + e) of the block tile.
#pragma unroll
  for (int h = 0; h < 2; ++h) {
    const int i = p0 + prow + 8 * h;
    if (i >= s.mp) continue;
#pragma unroll
    for (int j = 0; j < BN / 8; ++j)
#pragma unroll
      for (int e = 0; e < 2; ++e) {
        const int q = q0 + 8 * j + 2 * tq + e;
        if (q >= s.nq) continue;
        if constexpr (SWAP)
          store_c(C, s.ldc, q, i, s.alpha, s.beta, out[4 * j + 2 * h + e]);
        else
          store_c(C, s.ldc, i, q, s.alpha, s.beta, out[4 * j + 2 * h + e]);
      }
  }
#endif
}

// Q's rows [0, rows) of `batch` matrices (leading dimension ldq, stride_q apart) rounded to TF32
// into W: each matrix rows x ldw (ldw = k rounded up to 4, so rows stay 16-byte aligned for the
// copy engine; the padding is never read), one after the other; lo (tf32x3, else null) alike:
// each value less its rounded part, rounded (the split gemm_tf32.cuh makes in registers).
__global__ void round_q_kernel(const float* __restrict__ Q, std::int64_t ldq, std::int64_t stride_q, int rows, int k,
                               float* __restrict__ W, std::int64_t ldw, float* __restrict__ lo) {
  const int k4 = (k + 3) / 4;
  const std::int64_t per = static_cast<std::int64_t>(rows) * k4;
  const float* q = Q + blockIdx.y * stride_q;
  float* w = W + blockIdx.y * ldw * rows;
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < per;
       i += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    const std::int64_t r = i / k4;
    const int c = static_cast<int>(i - r * k4) * 4;
    const float* src = q + r * ldq + c;
    float4 v;
    if (c + 4 <= k)  // ldq % 4 == 0 and Q 16-byte aligned (tma_ok)
      v = __ldg(reinterpret_cast<const float4*>(src));
    else  // a row's last chunk: nothing read past k (it may be the allocation's end)
      v = make_float4(__ldg(src), c + 1 < k ? __ldg(src + 1) : 0.f, c + 2 < k ? __ldg(src + 2) : 0.f, 0.f);
    const float4 h = tf32_round(v);
    *reinterpret_cast<float4*>(w + r * ldw + c) = h;
    if (lo)  // tf32x3: the rest, rounded too
      *reinterpret_cast<float4*>(lo + blockIdx.y * ldw * rows + r * ldw + c) =
          tf32_round(make_float4(v.x - h.x, v.y - h.y, v.z - h.z, v.w - h.w));
  }
}

// batch rows x inner f32 matrices (leading dimension ld, `stride` elements apart; one matrix:
// stride ignored) in boxes of 32 (inner) x box_rows x 1, 128-byte swizzle.
bool encode(CUtensorMap& map, const float* base, std::int64_t inner, std::int64_t rows, std::int64_t ld,
            int box_rows, std::int64_t batch, std::int64_t stride) {
  auto fn = tensor_map_encoder();
  if (!fn) return false;
  const cuuint64_t dims[3] = {static_cast<cuuint64_t>(inner), static_cast<cuuint64_t>(rows),
                              static_cast<cuuint64_t>(batch)};
  if (batch == 1) stride = ld * rows;  // a valid stride the copies never use
  const cuuint64_t strides[2] = {static_cast<cuuint64_t>(ld) * 4, static_cast<cuuint64_t>(stride) * 4};
  const cuuint32_t box[3] = {32, static_cast<cuuint32_t>(box_rows), 1};
  const cuuint32_t elem_strides[3] = {1, 1, 1};
  return fn(&map, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 3, const_cast<float*>(base), dims, strides, box,
            elem_strides, CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
            CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) == CUDA_SUCCESS;
}

bool tma_ok(const float* p, std::int64_t ld) { return reinterpret_cast<std::uintptr_t>(p) % 16 == 0 && ld % 4 == 0; }

// The rounded operand's workspace: rows of k rounded up to 4 floats (16-byte rows for the copy
// engine), one set of them for tf32, two for tf32x3 (hi, then lo).
std::int64_t workspace_ld(const GemmProblem& s) { return (s.k + 3) / 4 * 4; }
std::int64_t workspace_parts(const GemmProblem& s) { return s.math == MathMode::tf32x3 ? 2 : 1; }

template <bool SPLIT, bool P_KMAJOR, bool SWAP, bool Q_ROUNDED>
cudaError_t launch(const CUtensorMap& p, const CUtensorMap& q, const CUtensorMap& lo, const WgArgs& a,
                   std::int64_t batch, cudaStream_t stream) {
  auto kernel = gemm_wgmma_kernel<SPLIT, P_KMAJOR, SWAP, Q_ROUNDED>;
  constexpr int smem = WgCfg<SPLIT>::SMEM_BYTES;
  if (cudaError_t e = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem); e != cudaSuccess)
    return e;
  constexpr int BN = WgCfg<SPLIT>::BN;
  const dim3 grid(static_cast<unsigned>((a.nq + BN - 1) / BN), static_cast<unsigned>((a.mp + kBM - 1) / kBM),
                  static_cast<unsigned>(batch));
  if (grid.y > 65535u || batch < 1 || batch > 65535) return cudaErrorInvalidConfiguration;
  kernel<<<grid, kThreads, smem, stream>>>(p, q, lo, a);
  return cudaGetLastError();
}

template <bool SPLIT, bool Q_ROUNDED>
cudaError_t launch_roles(bool p_kmajor, bool swap, const CUtensorMap& p, const CUtensorMap& q, const CUtensorMap& lo,
                         const WgArgs& a, std::int64_t batch, cudaStream_t stream) {
  if (swap) return launch<SPLIT, false, true, Q_ROUNDED>(p, q, lo, a, batch, stream);  // P = B^T is never K-major
  return p_kmajor ? launch<SPLIT, true, false, Q_ROUNDED>(p, q, lo, a, batch, stream)
                  : launch<SPLIT, false, false, Q_ROUNDED>(p, q, lo, a, batch, stream);
}

}  // namespace

bool gemm_wgmma_applies(const GemmProblem& s, const float* A, const float* B) {
  if (s.math == MathMode::exact || s.k == 0 || s.m > INT_MAX || s.n > INT_MAX) return false;
  if (s.ta && !s.tb) return false;  // no K-major operand
  // A batch's matrices must start 16 bytes apart too.
  if (s.batch > 1 && (s.batch > 65535 || s.stride_a % 4 != 0 || s.stride_b % 4 != 0)) return false;
  return tma_ok(A, s.lda) && tma_ok(B, s.ldb) && tensor_map_encoder() != nullptr;
}

WgmmaRoundPlan gemm_wgmma_round_plan(const GemmProblem& s, std::size_t workspace_bytes) {
  WgmmaRoundPlan plan;
  if (s.math == MathMode::exact || s.k == 0) return plan;
  const std::int64_t nq = gemm_wgmma_swaps(s) ? s.m : s.n;
  const std::int64_t row_bytes = workspace_parts(s) * workspace_ld(s) * static_cast<std::int64_t>(sizeof(float));
  const std::int64_t budget = static_cast<std::int64_t>(std::min<std::size_t>(workspace_bytes, INT64_MAX));
  if (nq * row_bytes <= budget) {  // whole matrices, as many of the batch as fit
    plan.rows = nq;
    plan.batch = std::min<std::int64_t>({s.batch, budget / (nq * row_bytes), 65535});
  } else {  // one matrix at a time, in whole tiles' rows of Q
    const std::int64_t tile = gemm_wgmma_tile_n(s.math);
    plan.rows = budget / row_bytes / tile * tile;
    plan.batch = plan.rows > 0 ? 1 : 0;
  }
  return plan;
}

std::size_t gemm_wgmma_round_bytes(const GemmProblem& s, const WgmmaRoundPlan& plan) {
  return static_cast<std::size_t>(workspace_parts(s) * plan.batch * plan.rows * workspace_ld(s)) * sizeof(float);
}

cudaError_t launch_gemm_wgmma(const GemmProblem& s, float alpha, const float* A, const float* B, float beta, float* C,
                              const WgmmaRoundPlan& plan, float* workspace, cudaStream_t stream) {
  const bool swap = gemm_wgmma_swaps(s);  // Q = A, P = B^T, D = C^T
  WgArgs a;
  a.mp = static_cast<int>(swap ? s.n : s.m);
  a.nq = static_cast<int>(swap ? s.m : s.n);
  a.k = static_cast<int>(s.k);
  a.ldc = s.ldc;
  a.alpha = alpha;
  a.beta = beta;
  a.C = C;
  a.Q = swap ? A : B;  // A stored m x k, or B stored n x k
  a.ldq = swap ? s.lda : s.ldb;
  a.stride_q = s.batch > 1 ? (swap ? s.stride_a : s.stride_b) : 0;
  a.stride_c = s.batch > 1 ? s.stride_c : 0;
  const std::int64_t nb = s.batch, stride_p = swap ? s.stride_b : s.stride_a;
  const float* P = swap ? B : A;
  const bool split = s.math == MathMode::tf32x3;
  // P's copy for the matrices [b0, b0 + count) of the batch.
  auto encode_p = [&](CUtensorMap& p, std::int64_t b0, std::int64_t count, bool& p_kmajor) {
    const float* base = P + b0 * stride_p;
    p_kmajor = false;
    if (swap) return encode(p, base, s.n, s.k, s.ldb, kBK, count, stride_p);  // P = B (k x n: rows of P contiguous)
    p_kmajor = !s.ta;  // P = op(A)
    return p_kmajor ? encode(p, base, s.k, s.m, s.lda, kBM, count, stride_p)
                    : encode(p, base, s.m, s.k, s.lda, kBK, count, stride_p);
  };
  CUtensorMap p{}, q{}, lo{};  // q: Q's copy (tf32, or where Q was rounded beforehand); lo: tf32x3's
  bool p_kmajor = false;
  if (plan.rows > 0 && workspace != nullptr) {
    // Chunks of Q's rows (or of the batch), each rounded into the workspace, then its products:
    // the kernel sees Q = the chunk, C's columns (rows where D = C^T) from the chunk's first on.
    const std::int64_t ldw = workspace_ld(s);
    for (std::int64_t b0 = 0; b0 < nb; b0 += plan.batch)
      for (std::int64_t r0 = 0; r0 < a.nq; r0 += plan.rows) {
        const std::int64_t count = std::min(plan.batch, nb - b0), rows = std::min<std::int64_t>(plan.rows, a.nq - r0);
        const std::int64_t work = rows * (ldw / 4);
        const dim3 g(static_cast<unsigned>(std::min<std::int64_t>((work + 255) / 256, 4096)),
                     static_cast<unsigned>(count));
        float* w_lo = split ? workspace + count * rows * ldw : nullptr;
        round_q_kernel<<<g, 256, 0, stream>>>(a.Q + b0 * a.stride_q + r0 * a.ldq, a.ldq, a.stride_q,
                                              static_cast<int>(rows), a.k, workspace, ldw, w_lo);
        if (cudaError_t e = cudaGetLastError(); e != cudaSuccess) return e;
        const int box = gemm_wgmma_tile_n(s.math);
        if (!encode(q, workspace, s.k, rows, ldw, box, count, rows * ldw) ||
            (split && !encode(lo, w_lo, s.k, rows, ldw, box, count, rows * ldw)) || !encode_p(p, b0, count, p_kmajor))
          return cudaErrorInvalidValue;
        WgArgs c = a;
        c.nq = static_cast<int>(rows);
        c.C = C + b0 * s.stride_c + (swap ? r0 * s.ldc : r0);
        const cudaError_t e = split ? launch_roles<true, true>(p_kmajor, swap, p, q, lo, c, count, stream)
                                    : launch_roles<false, true>(p_kmajor, swap, p, q, lo, c, count, stream);
        if (e != cudaSuccess) return e;
      }
    return cudaSuccess;
  }
  bool ok = split || encode(q, a.Q, s.k, a.nq, a.ldq, gemm_wgmma_tile_n(s.math), nb, a.stride_q);
  ok = ok && encode_p(p, 0, nb, p_kmajor);
  if (!ok) return cudaErrorInvalidValue;
  return split ? launch_roles<true, false>(p_kmajor, swap, p, q, lo, a, nb, stream)
               : launch_roles<false, false>(p_kmajor, swap, p, q, lo, a, nb, stream);
}

}  // namespace tessera::cuda
