// f64 gemm on the FP64 tensor cores (DMMA: mma.sync m16n8k8 .f64, IEEE double FMAs, exact like
// the FFMA path), on gemm_async.cuh's cp.async copies: BM x BN x 16 blocks of 2 x 2 warps, 3 stages.
//
// What bounds it: an m16n8k8 holds the FP64 tensor pipe of its SM sub-partition for 32 cycles,
// and two warps share each pipe, so everything else a warp issues must hide behind the other's
// products. The previous kernel (m16n8k4 on S[k][x] tiles) spent 7 instructions per m16n8k4 and
// kept the pipe 69 % busy (H200, ncu, n = 4096: 0.77x cuBLAS): op(A) = A came in by 8-byte copies
// transposed on the way, 14 instructions of address and bounds arithmetic each. cuBLAS's kernel
// (sm90_xmma_gemm_f64..._tilesize128x64x16_stage3_warpsize2x2x1_tensor16x8x8: the same tiles and
// occupancy) spends 3.2 per m16n8k4-equivalent at 97 %.
//
// Here (bench/RESULTS.md, session 21):
// - Copies run along each operand's contiguous dimension (16 bytes where the bases and leading
//   dimensions allow), from a running pointer; a thread whose copies all lie inside the matrix
//   issues them unpredicated.
// - Fragments come in 16-byte loads that land in the registers the mma reads, with no moves
//   between (packing two 8-byte halves into an mma's register quad cost 200 moves a tile):
//   * the M side's tile is k-major and the mma's rows g and g + 8 of a 16-row block are its rows
//     2 g and 2 g + 1, adjacent in memory;
//   * the N side's tile is x-major when its operand is k-contiguous, and the mma's k-slots t and
//     t + 4 are its k 2 t and 2 t + 1, adjacent in memory. The same slot permutation on both
//     sides leaves the sum over k unchanged.
//   Hence the roles: the x-contiguous operand on the M side; for C = A B (op(B) x-contiguous,
//   op(A) k-contiguous) that is B, and the kernel writes its tile of C transposed (SWAP).
// - Bank conflicts: an x-major row's 16-byte chunk q sits at q ^ 4 (x & 1), so a quarter warp's two
//   rows fall in different halves of the banks; k-major rows have pitch BX + 2 (== 4 mod 32 words).
// - The next tile's copies go out between the two 8-k steps of a tile.
// - Wide tiles (session 28): the main loop is a software pipeline across the barrier, as in
//   cuBLAS's kernel (its SASS crosses BAR.SYNC with DMMAs in flight): each step's fragments are
//   loaded, row block by row block, while the step before issues its products, and the barrier
//   comes after the first row block of a tile's last step; 233 registers, no spills, 11 DMMAs
//   issued before the barrier. ncu, n = 4096, H200: SM throughput 75 -> 80 %, 12.5 -> 11.7 cycles
//   between a warp's instructions; bench 0.85 -> 0.87x cuBLAS. The narrow tiles (two row blocks a
//   warp, too few products to cover the barrier) keep the plain loop: pipelined they lost 8 %.
//   The pipelined loop is unrolled by the stage count, so that each stage's fragment addresses
//   are constant offsets (the per-tile multiply-adds before the loads were gone): 2.59 ms, SM
//   82 %, 0.89x cuBLAS. The steps' fragments then alternate between two register sets, so that
//   no load waits for a queued product to read the registers it overwrites: 255 registers (at
//   the limit; no spills with CUDA 13.0), 1-1.5 % faster on the wide tiles.
// Tried and dropped (session 21, on the plain loop): the whole next step's fragments loaded at
// the top of each step, before any of its products (CUTLASS's order): spills, 0.83x against
// 0.87x; 4 stages: no gain.
#pragma once

#include "kernels/cuda/gemm_async.cuh"

namespace tessera::cuda {

// One operand's BK x BX tile in shared memory (x = the operand's row of the product: along the mma's
// M side or its N side). XMAJOR: row x holds BK consecutive k, its 16-byte chunk q (two k) at
// q ^ 4 (x & 1); else row k holds BX consecutive x, pitch BX + 2 (== 4 mod 32 words).
template <int BX, int BK, bool XMAJOR>
struct DmmaTile {
  static_assert(BK % 16 == 0, "the swizzle flips bit 2 of the chunk index: 8 chunks a row at least");
  static constexpr bool X_MAJOR = XMAJOR;
  static constexpr int LD = XMAJOR ? BK : BX + 2;
  static constexpr int ELEMS = XMAJOR ? BX * BK : BK * LD;
  __device__ __forceinline__ static int at(int x, int k) {
    if constexpr (XMAJOR)
      return x * BK + ((((k >> 1) ^ ((x & 1) << 2)) << 1) | (k & 1));
    else
      return k * LD + x;
  }
  // Two consecutive elements as one 16-byte load: (x, k) and (x, k + 1) (XMAJOR, k even) or
  // (x, k) and (x + 1, k) (x even).
  __device__ __forceinline__ static double2 pair(const double* S, int x, int k) {
    return *reinterpret_cast<const double2*>(S + at(x, k));
  }
};

// Copies one operand's tiles, one after another (load() moves on to the next k-tile), along its
// contiguous dimension in memory: MEMK (element (x, k) at P[x ld + k]) or not (at P[k ld + x]).
// VEC elements (1 or 2) per copy; out-of-range ones are zero-filled. A k-contiguous operand
// goes into a k-major tile (XMAJOR false) by element copies.
template <int BX, int BK, int THREADS, int VEC, bool MEMK, bool XMAJOR>
struct DmmaLoader {
  using Tile = DmmaTile<BX, BK, XMAJOR>;
  static_assert(MEMK || !XMAJOR, "an x-contiguous operand goes into a k-major tile");
  static_assert(MEMK == XMAJOR || VEC == 1, "transposing copies move one element");
  static constexpr int ALONG = MEMK ? BK : BX;  // elements of a line (the contiguous dimension)
  static constexpr int LINES = MEMK ? BX : BK;
  static constexpr int PER_LINE = ALONG / VEC;
  static constexpr int LINES_PER_PASS = THREADS / PER_LINE;
  static constexpr int PASSES = LINES / LINES_PER_PASS;
  static_assert(THREADS % PER_LINE == 0 && LINES % LINES_PER_PASS == 0, "tile not divisible");
  static_assert(!XMAJOR || LINES_PER_PASS % 2 == 0, "each pass keeps the row parity of the swizzle");
  // A pass moves LINES_PER_PASS lines on: rows of x (MEMK) or of k.
  static constexpr int PASS_SMEM = MEMK ? LINES_PER_PASS * (XMAJOR ? BK : 1) : LINES_PER_PASS * Tile::LD;
  const double* P;    // the matrix: the source of zero-fill copies, always a valid address
  const double* cur;  // this thread's first element of the next tile
  std::int64_t pass_stride;
  int lines_left;     // lines of this thread's first on that lie inside the matrix
  int along_left;     // elements from this thread's first along the line that lie inside
  int soff;
  __device__ __forceinline__ DmmaLoader(const double* P_, std::int64_t ld, std::int64_t xlim, std::int64_t K,
                                        std::int64_t x0)
      : P(P_), pass_stride(LINES_PER_PASS * ld) {
    const int t = threadIdx.x;
    const int line = t / PER_LINE, e = (t % PER_LINE) * VEC;
    const int x = MEMK ? line : e, k = MEMK ? e : line;
    auto clamp = [](std::int64_t v) { return static_cast<int>(v < 0 ? 0 : (v > 0x40000000 ? 0x40000000 : v)); };
    const std::int64_t xl = xlim - x0 - x, kl = K - k;
    lines_left = clamp(MEMK ? xl : kl);
    along_left = clamp(MEMK ? kl : xl);
    cur = MEMK ? P + (x0 + x) * ld + k : P + k * ld + x0 + x;
    soff = Tile::at(x, k);
  }
  // tile_stride: elements from one k-tile to the next (BK, or BK ld). Where every copy of this
  // thread lies inside the matrix (all tiles but the edges) the copies are plain, their addresses
  // one add apart; elsewhere each is bounded and zero-filled.
  __device__ __forceinline__ void load(double* S, std::int64_t tile_stride) {
    const unsigned s0 = smem_u32(S + soff);
    if ((PASSES - 1) * LINES_PER_PASS < lines_left && along_left >= VEC) {
      const double* src = cur;
#pragma unroll
      for (int p = 0; p < PASSES; ++p, src += pass_stride) cp_async_all<VEC * 8>(s0 + p * PASS_SMEM * 8, src);
    } else {
      const int bytes = (along_left >= VEC ? VEC : (along_left > 0 ? along_left : 0)) * 8;
#pragma unroll
      for (int p = 0; p < PASSES; ++p) {
        const bool ok = p * LINES_PER_PASS < lines_left && bytes > 0;
        cp_async<VEC * 8>(s0 + p * PASS_SMEM * 8, ok ? cur + p * pass_stride : P, ok ? bytes : 0);
      }
    }
    cur += tile_stride;
    if constexpr (MEMK)
      along_left -= BK;
    else
      lines_left -= BK;
  }
};

// PIPELINED: the main loop as a software pipeline across the barrier (below), else each tile's
// fragments loaded after its barrier.
template <int BM_, int BN_, int BK_, int STAGES_, int WM_, int WN_, int MIN_BLOCKS_, bool PIPELINED_>
struct DmmaCfg {
  using T = double;
  static constexpr int BM = BM_, BN = BN_, BK = BK_, STAGES = STAGES_, WM = WM_, WN = WN_;
  static constexpr int MIN_BLOCKS = MIN_BLOCKS_;
  static constexpr bool PIPELINED = PIPELINED_;
  static constexpr int WARPS_N = BN / WN, WARPS = (BM / WM) * (BN / WN);
  static constexpr int THREADS = 32 * WARPS;
  static constexpr int MT = WM / 16, NT = WN / 8;  // m16n8 products per warp and 8-k step
  static_assert(BK % 16 == 0 && WM % 16 == 0 && WN % 8 == 0, "fragment shapes");
  using MTile = DmmaTile<BM, BK, false>;
  template <bool NKC>
  using NTile = DmmaTile<BN, BK, NKC>;
  template <bool NKC>
  static constexpr int smem_bytes() {
    return STAGES * (MTile::ELEMS + NTile<NKC>::ELEMS) * static_cast<int>(sizeof(double));
  }
};

// c[0..1]: row g, columns 2 t and 2 t + 1; c[2..3]: row g + 8 (g = lane / 4, t = lane % 4). A: rows
// g (a0) and g + 8 (a1) at k-slot t, m16n8k8 adds slot t + 4 (a2, a3; b1). Fragment layouts: PTX
// ISA, "Matrix Fragments for mma.m16n8k4 / m16n8k8" (.f64). Sm_80 has only m8n8k4 for f64: the
// halves are issued one by one there.
__device__ __forceinline__ void dmma_k4(double (&c)[4], double a0, double a1, double b) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm("mma.sync.aligned.m16n8k4.row.col.f64.f64.f64.f64 {%0, %1, %2, %3}, {%4, %5}, {%6}, {%0, %1, %2, %3};\n"
      : "+d"(c[0]), "+d"(c[1]), "+d"(c[2]), "+d"(c[3])
      : "d"(a0), "d"(a1), "d"(b));
#else
  asm("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0, %1}, {%2}, {%3}, {%0, %1};\n"
      : "+d"(c[0]), "+d"(c[1])
      : "d"(a0), "d"(b));
  asm("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0, %1}, {%2}, {%3}, {%0, %1};\n"
      : "+d"(c[2]), "+d"(c[3])
      : "d"(a1), "d"(b));
#endif
}
__device__ __forceinline__ void dmma_k8(double (&c)[4], double a0, double a1, double a2, double a3, double b0,
                                        double b1) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm("mma.sync.aligned.m16n8k8.row.col.f64.f64.f64.f64 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
      "{%0, %1, %2, %3};\n"
      : "+d"(c[0]), "+d"(c[1]), "+d"(c[2]), "+d"(c[3])
      : "d"(a0), "d"(a1), "d"(a2), "d"(a3), "d"(b0), "d"(b1));
#else
  dmma_k4(c, a0, a1, b0);
  dmma_k4(c, a2, a3, b1);
#endif
}

// One 8-k step's fragments. The mma's rows g and g + 8 of a 16-row block are the tile's rows 2 g
// and 2 g + 1 (one 16-byte load from the k-major M tile), its k-slot t (and t + 4) the tile's k
// 2 t and 2 t + 1 (one 16-byte load from an x-major N tile).
template <class Cfg>
struct DmmaFrags {
  double2 a[Cfg::MT][2];  // [16-row block][k 2 t + e]: rows 2 g, 2 g + 1
  double2 b[Cfg::NT];     // [8-column block]: k 2 t, 2 t + 1
};
// The N side's fragments of 8-k step j, then the M side's of 16-row block i: loaded apart so
// that each can go out as soon as the registers it replaces have fed their products.
template <class Cfg, class NTile>
__device__ __forceinline__ void dmma_frags_n(DmmaFrags<Cfg>& f, const double* ns, int j) {
  const int w = threadIdx.x / 32, l = threadIdx.x % 32, g = l / 4, t = l % 4;
  const int n0 = (w % Cfg::WARPS_N) * Cfg::WN + g;
#pragma unroll
  for (int n = 0; n < Cfg::NT; ++n) {
    if constexpr (NTile::X_MAJOR)
      f.b[n] = NTile::pair(ns, n0 + 8 * n, 8 * j + 2 * t);
    else
      f.b[n] = make_double2(ns[NTile::at(n0 + 8 * n, 8 * j + 2 * t)], ns[NTile::at(n0 + 8 * n, 8 * j + 2 * t + 1)]);
  }
}
template <class Cfg>
__device__ __forceinline__ void dmma_frags_m(DmmaFrags<Cfg>& f, const double* ms, int j, int i) {
  const int w = threadIdx.x / 32, l = threadIdx.x % 32, g = l / 4, t = l % 4;
  const int m0 = (w / Cfg::WARPS_N) * Cfg::WM + 2 * g;
#pragma unroll
  for (int e = 0; e < 2; ++e) f.a[i][e] = Cfg::MTile::pair(ms, m0 + 16 * i, 8 * j + 2 * t + e);
}
template <class Cfg>
__device__ __forceinline__ void dmma_row(const DmmaFrags<Cfg>& f, double (&acc)[Cfg::MT][Cfg::NT][4], int i) {
#pragma unroll
  for (int n = 0; n < Cfg::NT; ++n)
    dmma_k8(acc[i][n], f.a[i][0].x, f.a[i][0].y, f.a[i][1].x, f.a[i][1].y, f.b[n].x, f.b[n].y);
}
// One 8-k step's products from `cur`, row block by row block, with the next step's fragments
// (from ms, step j) loaded into `next` meanwhile: its N side first, then each M row block as
// soon as the same row block's products are issued. cur and next are two register sets taken in
// turn (no moves between them), so no load waits for a product still queued on its registers.
template <class Cfg, class NTile>
__device__ __forceinline__ void dmma_step_loading(const DmmaFrags<Cfg>& cur, DmmaFrags<Cfg>& next,
                                                  double (&acc)[Cfg::MT][Cfg::NT][4], const double* ms, int j,
                                                  int first_row) {
  dmma_frags_n<Cfg, NTile>(next, ms + Cfg::MTile::ELEMS, j);
#pragma unroll
  for (int i = 0; i < Cfg::MT; ++i) {
    if (i >= first_row) dmma_row<Cfg>(cur, acc, i);
    dmma_frags_m<Cfg>(next, ms, j, i);
  }
}

// The M side's operand is always copied into a k-major tile, the N side's into an x-major tile
// when it is k-contiguous. SWAP: the M side runs along C's columns (op(B) on it), so that in the
// common C = A B (op(B) x-contiguous, op(A) k-contiguous) both tiles have their 16-byte loads.
// MKC / NKC: the M / N side's operand is k-contiguous in memory.
template <class Cfg, bool MKC, bool NKC, bool SWAP, int VEC>
__global__ __launch_bounds__(Cfg::THREADS, Cfg::MIN_BLOCKS) void gemm_dmma_kernel(
    GemmProblem s, double alpha, const double* __restrict__ A, const double* __restrict__ B, double beta,
    double* __restrict__ C) {
  using MTile = typename Cfg::MTile;
  using NTile = typename Cfg::template NTile<NKC>;
  constexpr int STAGE = MTile::ELEMS + NTile::ELEMS;
  extern __shared__ __align__(16) unsigned char gemm_smem[];
  double* smem = reinterpret_cast<double*>(gemm_smem);
  int tile_m, tile_n;
  block_tile(tile_m, tile_n);
  batch_offsets(s, A, B, C);
  const std::int64_t mext = SWAP ? s.n : s.m, next = SWAP ? s.m : s.n;
  const std::int64_t ldm = SWAP ? s.ldb : s.lda, ldn = SWAP ? s.lda : s.ldb;
  const std::int64_t row0 = static_cast<std::int64_t>(tile_m) * Cfg::BM;  // along the M side
  const std::int64_t col0 = static_cast<std::int64_t>(tile_n) * Cfg::BN;
  DmmaLoader<Cfg::BM, Cfg::BK, Cfg::THREADS, MKC ? 1 : VEC, MKC, false> ml(SWAP ? B : A, ldm, mext, s.k, row0);
  DmmaLoader<Cfg::BN, Cfg::BK, Cfg::THREADS, VEC, NKC, NKC> nl(SWAP ? A : B, ldn, next, s.k, col0);
  const std::int64_t m_step = MKC ? Cfg::BK : Cfg::BK * ldm, n_step = NKC ? Cfg::BK : Cfg::BK * ldn;
  double acc[Cfg::MT][Cfg::NT][4];
#pragma unroll
  for (int i = 0; i < Cfg::MT; ++i)
#pragma unroll
    for (int j = 0; j < Cfg::NT; ++j) acc[i][j][0] = acc[i][j][1] = acc[i][j][2] = acc[i][j][3] = 0.0;

  const int tiles = static_cast<int>((s.k + Cfg::BK - 1) / Cfg::BK);
  // Tile u's copies into `stage` (none past the last tile), as one commit group either way: the
  // waits count groups.
  const auto copy_tile = [&](int u, int stage) {
    if (u < tiles) {
      ml.load(smem + stage * STAGE, m_step);
      nl.load(smem + stage * STAGE + MTile::ELEMS, n_step);
    }
    cp_async_commit();
  };
#pragma unroll
  for (int t = 0; t < Cfg::STAGES - 1; ++t) copy_tile(t, t);
  if constexpr (!Cfg::PIPELINED) {
    int read = 0, write = Cfg::STAGES - 1;
    for (int t = 0; t < tiles; ++t) {
      cp_async_wait<Cfg::STAGES - 2>();  // this thread's copies of tile t have landed
      __syncthreads();                   // everyone's have; everyone is done with tile t - 1
      const double* ms = smem + read * STAGE;
#pragma unroll
      for (int j = 0; j < Cfg::BK / 8; ++j) {
        DmmaFrags<Cfg> f;
#pragma unroll
        for (int i = 0; i < Cfg::MT; ++i) dmma_frags_m<Cfg>(f, ms, j, i);
        dmma_frags_n<Cfg, NTile>(f, ms + MTile::ELEMS, j);
        // The next tile's copies go out mid-tile, behind this step's loads: the products before
        // and after cover their issue.
        if (j == Cfg::BK / 16) copy_tile(t + Cfg::STAGES - 1, write);  // into the stage tile t - 1 used
#pragma unroll
        for (int n = 0; n < Cfg::NT; ++n)
#pragma unroll
          for (int i = 0; i < Cfg::MT; ++i)
            dmma_k8(acc[i][n], f.a[i][0].x, f.a[i][0].y, f.a[i][1].x, f.a[i][1].y, f.b[n].x, f.b[n].y);
      }
      read = read + 1 == Cfg::STAGES ? 0 : read + 1;
      write = write + 1 == Cfg::STAGES ? 0 : write + 1;
    }
  } else {
    // A software pipeline across the barrier (cuBLAS's DMMA kernel does the same): each 8-k
    // step's fragments are loaded while the step before runs its products, and the barrier that
    // makes tile t + 1 readable is crossed after the first row block of tile t's last step, so the
    // tensor pipe still has products queued while the warps meet there. Every read of tile t is
    // issued before that barrier; the copy into tile t's stage goes out after the next one.
    constexpr int STEPS = Cfg::BK / 8;
    static_assert(STEPS % 2 == 0, "every tile's first step in f[0]");
    DmmaFrags<Cfg> f[2];  // step j's fragments in f[j % 2]
    cp_async_wait<Cfg::STAGES - 2>();  // tile 0 has landed
    __syncthreads();
    dmma_frags_n<Cfg, NTile>(f[0], smem + MTile::ELEMS, 0);
#pragma unroll
    for (int i = 0; i < Cfg::MT; ++i) dmma_frags_m<Cfg>(f[0], smem, 0, i);
    // Unrolled by the stage count, so that every stage's address is a constant offset.
    for (int t0 = 0; t0 < tiles; t0 += Cfg::STAGES) {
#pragma unroll
      for (int rd = 0; rd < Cfg::STAGES; ++rd) {
        const int t = t0 + rd;
        if (t >= tiles) break;
        const int wr = (rd + Cfg::STAGES - 1) % Cfg::STAGES, nx = (rd + 1) % Cfg::STAGES;
        const double* ms = smem + rd * STAGE;
#pragma unroll
        for (int j = 0; j + 1 < STEPS; ++j) {
          dmma_step_loading<Cfg, NTile>(f[j % 2], f[(j + 1) % 2], acc, ms, j + 1, 0);
          // The next copies mid-tile, between the products, into the stage tile t - 1 used.
          if (j == STEPS / 2 - 1) copy_tile(t + Cfg::STAGES - 1, wr);
        }
        if (t + 1 < tiles) {
          dmma_row<Cfg>(f[1], acc, 0);
          cp_async_wait<Cfg::STAGES - 2>();  // this thread's copies of tile t + 1 have landed
          __syncthreads();                   // everyone's have; everyone has read all of tile t
          dmma_step_loading<Cfg, NTile>(f[1], f[0], acc, smem + nx * STAGE, 0, 1);
        } else {
#pragma unroll
          for (int i = 0; i < Cfg::MT; ++i) dmma_row<Cfg>(f[1], acc, i);
        }
      }
    }
  }
  cp_async_wait<0>();

  // acc[i][n][2 h + e]: M-side row m0 + 16 i + h, N-side column n0 + 8 n + e.
  const int w = threadIdx.x / 32, l = threadIdx.x % 32;
  const std::int64_t m0 = row0 + (w / Cfg::WARPS_N) * Cfg::WM + 2 * (l / 4);
  const std::int64_t n0 = col0 + (w % Cfg::WARPS_N) * Cfg::WN + 2 * (l % 4);
#pragma unroll
  for (int i = 0; i < Cfg::MT; ++i)
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const std::int64_t mr = m0 + 16 * i + h;
      if (mr >= mext) continue;
#pragma unroll
      for (int n = 0; n < Cfg::NT; ++n)
#pragma unroll
        for (int e = 0; e < 2; ++e) {
          const std::int64_t nc = n0 + 8 * n + e;
          if (nc < next) {
            if constexpr (SWAP)
              store_c(C, s.ldc, nc, mr, alpha, beta, acc[i][n][2 * h + e]);
            else
              store_c(C, s.ldc, mr, nc, alpha, beta, acc[i][n][2 * h + e]);
          }
        }
    }
}

template <class Cfg, bool MKC, bool NKC, bool SWAP, int VEC>
cudaError_t launch_dmma_cfg(const GemmProblem& s, double alpha, const double* A, const double* B, double beta,
                            double* C, cudaStream_t stream) {
  return launch_gemm_grid(gemm_dmma_kernel<Cfg, MKC, NKC, SWAP, VEC>, blocks_for(SWAP ? s.m : s.n, Cfg::BN),
                          blocks_for(SWAP ? s.n : s.m, Cfg::BM), Cfg::THREADS, Cfg::template smem_bytes<NKC>(), s,
                          alpha, A, B, beta, C, stream);
}

// 16-byte copies when both operands' bases are 16-byte aligned and their leading dimensions (and
// batch strides) even; else 8-byte copies.
template <class Cfg, bool MKC, bool NKC, bool SWAP>
cudaError_t launch_dmma_vec(const GemmProblem& s, double alpha, const double* A, const double* B, double beta,
                            double* C, cudaStream_t stream) {
  auto aligned = [&](const double* p, std::int64_t ld, std::int64_t stride) {
    return reinterpret_cast<std::uintptr_t>(p) % 16 == 0 && ld % 2 == 0 && (s.batch == 1 || stride % 2 == 0);
  };
  return aligned(A, s.lda, s.stride_a) && aligned(B, s.ldb, s.stride_b)
             ? launch_dmma_cfg<Cfg, MKC, NKC, SWAP, 2>(s, alpha, A, B, beta, C, stream)
             : launch_dmma_cfg<Cfg, MKC, NKC, SWAP, 1>(s, alpha, A, B, beta, C, stream);
}

// Which operand takes the M side: an x-contiguous one (its k-major tile is copied, not transposed).
template <class Cfg>
cudaError_t launch_dmma_any(const GemmProblem& s, double alpha, const double* A, const double* B, double beta,
                            double* C, cudaStream_t stream) {
  if (dmma_swaps(s.ta, s.tb))  // op(A) k-contiguous, op(B) x-contiguous: B on the M side
    return launch_dmma_vec<Cfg, false, true, true>(s, alpha, A, B, beta, C, stream);
  if (s.ta && s.tb) return launch_dmma_vec<Cfg, false, true, false>(s, alpha, A, B, beta, C, stream);
  if (s.ta) return launch_dmma_vec<Cfg, false, false, false>(s, alpha, A, B, beta, C, stream);  // both x-contiguous
  return launch_dmma_vec<Cfg, true, true, false>(s, alpha, A, B, beta, C, stream);               // both k-contiguous
}

}  // namespace tessera::cuda
