// Winograd's a^2 products M[e] = U[e] V[e] (K x T, t fastest: WinogradShape::tk false) for f32
// layers with few input channels (C <= kWinogradProductsMaxC), where each output of a product
// sums only C terms. On gemm's tiles such a product is all pipeline fill and drain: a 128 x 64
// block loads C / 16 k-tiles, waits for the first, and is done. ResNet-50's 56^2 layer (C = K =
// 64, T = 6272 tiles, 36 products) took 92 us that way on an H200 (ncu: 20 TFLOP/s, 0.64 TB/s of
// DRAM reads), 60 % of the layer. Here the work is units of (product e, block of 64 filters,
// chunk of 128 tiles), and each block runs one contiguous share of them (one block per slot of
// the device: no tail wave) through two stages of shared memory: the next unit's V chunk (and
// its filters' rows of U[e] where the run crosses into another product or filter block) copied
// while this unit's products issue, so the pipeline stays full from unit to unit. The filter
// transform stores U[e][c][k] for this kernel, so those rows copy as whole 16-byte pieces too.
// Bound per unit: 8 FFMA per shared-memory float loaded (8 x 8 outputs a thread); its V and M
// traffic (2 x 128 x 64 floats) against 128 x 64 x C multiply-adds.
// The sums are plain FP32 in every math mode (more accurate than tf32 / tf32x3 ask).
#include "kernels/cuda/common.cuh"
#include "kernels/cuda/launch.hpp"

namespace tessera::cuda {

namespace {

struct Products {
  static constexpr int KT = 64;        // filters of a block
  static constexpr int TT = 128;       // tiles of a chunk
  static constexpr int THREADS = 128;  // 8 x 16 threads of 8 filters x 8 tiles
  // Channels padded to 8 (zero rows) so the channel loop unrolls by 8 without a rest.
  static __host__ __device__ int padded_c(std::int64_t C) { return static_cast<int>((C + 7) / 8 * 8); }
  // A stage: Us[c][k] = U[e][c][k0 + k], then Vs[c][t] = V[e][c][t0 + t]; two stages.
  static __host__ __device__ int stage_floats(std::int64_t C) { return padded_c(C) * (KT + TT); }
  static std::size_t smem_bytes(std::int64_t C) { return 2 * static_cast<std::size_t>(stage_floats(C)) * sizeof(float); }
};

// A unit of work: product e, filter block kb, chunk ch (chunks fastest, then filter blocks).
struct Unit {
  std::int64_t e, kb, ch;
  __device__ void advance(std::int64_t chunks, std::int64_t kblocks) {
    if (++ch < chunks) return;
    ch = 0;
    if (++kb < kblocks) return;
    kb = 0;
    ++e;
  }
};

// Copies rows [0, rows) of a panel ROW floats wide that starts at column col0 of a matrix with
// `cols` columns and leading dimension ld (a multiple of 4, so a 16-byte piece that starts before
// `cols` ends before ld; pieces past it are zero-filled): the thread copies piece q of rows r,
// r + STEP, ...
template <int ROW>
__device__ __forceinline__ void copy_panel(float* dst, const float* panel, std::int64_t ld, int rows, std::int64_t col0,
                                           std::int64_t cols) {
  constexpr int PIECES = ROW / 4, STEP = Products::THREADS / PIECES;
  const int q = threadIdx.x % PIECES * 4, r0 = threadIdx.x / PIECES;
  const bool in = col0 + q < cols;
  const float* src = panel + r0 * ld + q;
  unsigned to = smem_u32(dst + r0 * ROW + q);
  for (int r = r0; r < rows; r += STEP, src += STEP * ld, to += STEP * ROW * sizeof(float))
    cp_async<16>(to, in ? src : panel, in ? 16 : 0);
}

__global__ __launch_bounds__(Products::THREADS) void winograd_products_kernel(WinogradShape s, int aa,
                                                                              const float* __restrict__ U,
                                                                              const float* __restrict__ V,
                                                                              float* __restrict__ M) {
  using P = Products;
  extern __shared__ float4 smem4[];
  float* smem = reinterpret_cast<float*>(smem4);
  const int C = static_cast<int>(s.C), cp = P::padded_c(s.C), stage_floats = P::stage_floats(s.C);
  const std::int64_t tiles = s.N * s.tiles_h * s.tiles_w;
  const std::int64_t kblocks = (s.K + P::KT - 1) / P::KT, chunks = (tiles + P::TT - 1) / P::TT;
  const std::int64_t units = aa * kblocks * chunks;
  const std::int64_t u0 = units * blockIdx.x / gridDim.x, u1 = units * (blockIdx.x + 1) / gridDim.x;
  if (u0 >= u1) return;
  // The padding channels' rows are never copied: zero in both stages.
  for (int b = 0; b < 2; ++b) {
    float* st = smem + b * stage_floats;
    for (int i = threadIdx.x; i < (cp - C) * P::KT; i += P::THREADS) st[C * P::KT + i] = 0.f;
    for (int i = threadIdx.x; i < (cp - C) * P::TT; i += P::THREADS) st[cp * P::KT + C * P::TT + i] = 0.f;
  }
  // Copies a unit's operands into a stage: its V chunk, and U[e]'s filter block unless the stage
  // holds it already (held: the (e, kb) pair in that stage, the same in every thread).
  std::int64_t held0 = -1, held1 = -1;  // scalars: an array indexed by b would live in local memory
  auto copy_unit = [&](const Unit& w, int b) {
    float* Us = smem + b * stage_floats;
    float* Vs = Us + cp * P::KT;
    const std::int64_t pair = w.e * kblocks + w.kb;
    const bool fresh = b ? held1 != pair : held0 != pair;
    (b ? held1 : held0) = pair;
    if (fresh) copy_panel<P::KT>(Us, U + w.e * s.C * s.ldk + w.kb * P::KT, s.ldk, C, w.kb * P::KT, s.K);
    copy_panel<P::TT>(Vs, V + w.e * s.C * s.ldt + w.ch * P::TT, s.ldt, C, w.ch * P::TT, tiles);
    cp_async_commit();
  };
  const int tk = threadIdx.x / 16, tt = threadIdx.x % 16;  // filters tk * 8 + [0, 8); tiles tt * 4 + [0, 4), 64 + ...
  Unit cur{u0 / chunks / kblocks, u0 / chunks % kblocks, u0 % chunks};
  Unit next = cur;
  copy_unit(next, 0);
  next.advance(chunks, kblocks);
  for (std::int64_t u = u0; u < u1; ++u) {
    const int b = static_cast<int>((u - u0) & 1);
    cp_async_wait<0>();
    __syncthreads();  // this unit's copies landed; every thread is past the last unit's products
    if (u + 1 < u1) {  // so the other stage takes the next unit, in flight during these products
      copy_unit(next, b ^ 1);
      next.advance(chunks, kblocks);
    }
    const float* Us = smem + b * stage_floats;
    const float* Vs = Us + cp * P::KT;
    float acc[8][8];
#pragma unroll
    for (int i = 0; i < 8; ++i)
#pragma unroll
      for (int j = 0; j < 8; ++j) acc[i][j] = 0.f;
    // Channel c + 1's fragments load while channel c's 64 products issue. Measured no faster
    // than the compiler's own schedule of the plain loop (56.2 against 55.6 us on the 56^2 layer,
    // bench/RESULTS.md session 47); kept because the final build was verified with it.
    float4 frag[2][4];
    auto load = [&](int c, float4(&f)[4]) {
      f[0] = *reinterpret_cast<const float4*>(Us + c * P::KT + tk * 8);
      f[1] = *reinterpret_cast<const float4*>(Us + c * P::KT + tk * 8 + 4);
      f[2] = *reinterpret_cast<const float4*>(Vs + c * P::TT + tt * 4);
      f[3] = *reinterpret_cast<const float4*>(Vs + c * P::TT + 64 + tt * 4);
    };
    load(0, frag[0]);
    for (int c0 = 0; c0 < cp; c0 += 8) {
#pragma unroll
      for (int dc = 0; dc < 8; ++dc) {
        const int c = c0 + dc;
        if (dc < 7 || c + 1 < cp) load(c + 1, frag[(dc + 1) & 1]);
        const float4* f = frag[dc & 1];
        const float uf[8] = {f[0].x, f[0].y, f[0].z, f[0].w, f[1].x, f[1].y, f[1].z, f[1].w};
        const float vf[8] = {f[2].x, f[2].y, f[2].z, f[2].w, f[3].x, f[3].y, f[3].z, f[3].w};
#pragma unroll
        for (int i = 0; i < 8; ++i)
#pragma unroll
          for (int j = 0; j < 8; ++j) acc[i][j] = fmaf(uf[i], vf[j], acc[i][j]);
      }
    }
    const std::int64_t t0 = cur.ch * P::TT, k0 = cur.kb * P::KT + tk * 8;
    const bool in_a = t0 + tt * 4 < tiles, in_b = t0 + 64 + tt * 4 < tiles;  // columns past the last tile lie before ldt
    float* row = M + (cur.e * s.K + k0) * s.ldt + t0 + tt * 4;
#pragma unroll
    for (int i = 0; i < 8; ++i, row += s.ldt) {
      if (k0 + i >= s.K) break;
      if (in_a) *reinterpret_cast<float4*>(row) = make_float4(acc[i][0], acc[i][1], acc[i][2], acc[i][3]);
      if (in_b) *reinterpret_cast<float4*>(row + 64) = make_float4(acc[i][4], acc[i][5], acc[i][6], acc[i][7]);
    }
    cur.advance(chunks, kblocks);
  }
}

}  // namespace

bool winograd_products_apply(std::int64_t C) { return C >= 1 && C <= kWinogradProductsMaxC; }

cudaError_t launch_winograd_products(const WinogradShape& s, const float* U, const float* V, float* M, int sms,
                                     int max_blocks, cudaStream_t stream) {
  using P = Products;
  if (s.tk || !winograd_products_apply(s.C) || s.ldk < s.K || s.ldk % 4 != 0 || s.ldt % 4 != 0)
    return cudaErrorInvalidValue;
  const std::size_t smem = P::smem_bytes(s.C);
  if (cudaError_t e = allow_dynamic_smem(winograd_products_kernel, smem); e != cudaSuccess) return e;
  int per_sm = 0;
  if (cudaError_t e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, winograd_products_kernel, P::THREADS, smem);
      e != cudaSuccess)
    return e;
  const int aa = (s.m + 2) * (s.m + 2);
  const std::int64_t tiles = s.N * s.tiles_h * s.tiles_w;
  const std::int64_t units = aa * ((s.K + P::KT - 1) / P::KT) * ((tiles + P::TT - 1) / P::TT);
  // One block per slot of the device (no tail wave), each a contiguous run of units.
  std::int64_t blocks = imin64(units, static_cast<std::int64_t>(per_sm > 0 ? per_sm : 1) * sms);
  if (max_blocks > 0) blocks = imin64(blocks, max_blocks);
  winograd_products_kernel<<<static_cast<unsigned>(blocks), P::THREADS, smem, stream>>>(s, aa, U, V, M);
  return cudaGetLastError();
}

}  // namespace tessera::cuda
