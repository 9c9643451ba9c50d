// Winograd's a^2 products M[e] = U[e] V[e] (K x T, t fastest: WinogradShape::tk false) for f32
// layers with few input channels (C <= kWinogradProductsMaxC), where each output of a product
// sums only C terms. On gemm's tiles such a product is all pipeline fill and drain: a 128 x 64
// block loads C / 16 k-tiles, waits for the first, and is done. ResNet-50's 56^2 layer (C = K =
// 64, T = 6272 tiles, 36 products) took 92 us that way on an H200 (ncu: 20 TFLOP/s, 0.64 TB/s of
// DRAM reads), 60 % of the layer. Here a block holds one product's filter rows (64 filters x all
// C channels of U[e]) in shared memory and streams chunks of 128 tiles of V[e] through two
// buffers: the copy of the next chunk is in flight while this chunk's products issue, and a
// block's run of chunks (its share of the a^2 x filter-blocks x chunks units, contiguous, so it
// reloads U[e] only where its run crosses into the next product) keeps that pipeline full across
// chunks. Bound per chunk: 8 FFMA per shared-memory float loaded (8 x 8 outputs a thread), and
// a chunk's V and M traffic (2 x 128 x 64 floats) against 128 x 64 x C multiply-adds.
// The sums are plain FP32 in every math mode (more accurate than tf32 / tf32x3 ask).
#include "kernels/cuda/common.cuh"
#include "kernels/cuda/launch.hpp"

namespace tessera::cuda {

namespace {

struct Products {
  static constexpr int KT = 64;        // filters of a block
  static constexpr int TT = 128;       // tiles of a chunk
  static constexpr int THREADS = 128;  // 8 x 16 threads of 8 filters x 8 tiles
  static constexpr int U_ROW = KT + 4; // padded: the transposing stores of U[e] spread over 8 banks
  // Channels padded to 8 (zero rows) so the channel loop unrolls by 8 without a rest.
  static __host__ __device__ int padded_c(std::int64_t C) { return static_cast<int>((C + 7) / 8 * 8); }
  static std::size_t smem_bytes(std::int64_t C) {
    return static_cast<std::size_t>(padded_c(C)) * (U_ROW + 2 * TT) * sizeof(float);
  }
};

__global__ __launch_bounds__(Products::THREADS) void winograd_products_kernel(WinogradShape s, int aa,
                                                                              const float* __restrict__ U,
                                                                              std::int64_t ldu,
                                                                              const float* __restrict__ V,
                                                                              float* __restrict__ M) {
  using P = Products;
  extern __shared__ float4 smem4[];
  const int C = static_cast<int>(s.C), cp = P::padded_c(s.C);
  float* Us = reinterpret_cast<float*>(smem4);  // Us[c][k]: U[e][k0 + k][c]
  float* Vs = Us + cp * P::U_ROW;               // two buffers of Vs[c][t]: V[e][c][t0 + t]
  const std::int64_t tiles = s.N * s.tiles_h * s.tiles_w;
  const std::int64_t kblocks = (s.K + P::KT - 1) / P::KT, chunks = (tiles + P::TT - 1) / P::TT;
  const std::int64_t units = aa * kblocks * chunks;  // (e, filter block) pairs, chunks fastest
  const std::int64_t u0 = units * blockIdx.x / gridDim.x, u1 = units * (blockIdx.x + 1) / gridDim.x;
  if (u0 >= u1) return;
  // The padding channels' rows of V are never copied: zero in both buffers.
  for (int i = threadIdx.x; i < (cp - C) * P::TT; i += P::THREADS) Vs[C * P::TT + i] = Vs[(cp + C) * P::TT + i] = 0.f;
  auto copy_chunk = [&](std::int64_t u, int buf) {
    const std::int64_t e = u / chunks / kblocks, t0 = u % chunks * P::TT;
    const float* src = V + e * s.C * s.ldt + t0;
    float* dst = Vs + buf * cp * P::TT;
    for (int i = threadIdx.x; i < C * (P::TT / 4); i += P::THREADS) {
      const int c = i / (P::TT / 4), q = i % (P::TT / 4) * 4;
      // ldt is a multiple of 4: a copy that starts before the last tile ends before ldt.
      const bool in = t0 + q < tiles;
      cp_async<16>(smem_u32(dst + c * P::TT + q), in ? src + c * s.ldt + q : src, in ? 16 : 0);
    }
    cp_async_commit();
  };
  const int tk = threadIdx.x / 16, tt = threadIdx.x % 16;  // filters tk * 8 + [0, 8); tiles tt * 4 + [0, 4) and 64 + ...
  std::int64_t pair = -1;
  copy_chunk(u0, 0);
  for (std::int64_t u = u0; u < u1; ++u) {
    const int buf = static_cast<int>((u - u0) & 1);
    if (u + 1 < u1) {
      copy_chunk(u + 1, buf ^ 1);
      cp_async_wait<1>();
    } else {
      cp_async_wait<0>();
    }
    const std::int64_t p = u / chunks, e = p / kblocks, k0 = p % kblocks * P::KT;
    if (p != pair) {  // every thread is past the last chunk's products (the barrier below)
      pair = p;
      for (int i = threadIdx.x; i < P::KT * cp; i += P::THREADS) {
        const int kk = i / cp, c = i % cp;
        Us[c * P::U_ROW + kk] = k0 + kk < s.K && c < C ? U[(e * s.K + k0 + kk) * ldu + c] : 0.f;
      }
    }
    __syncthreads();
    const float* vs = Vs + buf * cp * P::TT;
    float acc[8][8];
#pragma unroll
    for (int i = 0; i < 8; ++i)
#pragma unroll
      for (int j = 0; j < 8; ++j) acc[i][j] = 0.f;
#pragma unroll 8
    for (int c = 0; c < cp; ++c) {
      const float4 ua = *reinterpret_cast<const float4*>(Us + c * P::U_ROW + tk * 8);
      const float4 ub = *reinterpret_cast<const float4*>(Us + c * P::U_ROW + tk * 8 + 4);
      const float4 va = *reinterpret_cast<const float4*>(vs + c * P::TT + tt * 4);
      const float4 vb = *reinterpret_cast<const float4*>(vs + c * P::TT + 64 + tt * 4);
      const float uf[8] = {ua.x, ua.y, ua.z, ua.w, ub.x, ub.y, ub.z, ub.w};
      const float vf[8] = {va.x, va.y, va.z, va.w, vb.x, vb.y, vb.z, vb.w};
#pragma unroll
      for (int i = 0; i < 8; ++i)
#pragma unroll
        for (int j = 0; j < 8; ++j) acc[i][j] = fmaf(uf[i], vf[j], acc[i][j]);
    }
    const std::int64_t t0 = u % chunks * P::TT;
#pragma unroll
    for (int i = 0; i < 8; ++i) {
      const std::int64_t k = k0 + tk * 8 + i;
      if (k >= s.K) break;
      float* row = M + (e * s.K + k) * s.ldt + t0;  // columns past the last tile lie before ldt
      if (t0 + tt * 4 < tiles)
        *reinterpret_cast<float4*>(row + tt * 4) = make_float4(acc[i][0], acc[i][1], acc[i][2], acc[i][3]);
      if (t0 + 64 + tt * 4 < tiles)
        *reinterpret_cast<float4*>(row + 64 + tt * 4) = make_float4(acc[i][4], acc[i][5], acc[i][6], acc[i][7]);
    }
    __syncthreads();  // this buffer takes the chunk after next, Us perhaps the next product's rows
  }
}

}  // namespace

bool winograd_products_apply(std::int64_t C) { return C >= 1 && C <= kWinogradProductsMaxC; }

cudaError_t launch_winograd_products(const WinogradShape& s, const float* U, std::int64_t ldu, const float* V,
                                     float* M, int sms, int max_blocks, cudaStream_t stream) {
  using P = Products;
  if (s.tk || !winograd_products_apply(s.C) || ldu < s.C || s.ldt % 4 != 0) return cudaErrorInvalidValue;
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
  winograd_products_kernel<<<static_cast<unsigned>(blocks), P::THREADS, smem, stream>>>(s, aa, U, ldu, V, M);
  return cudaGetLastError();
}

}  // namespace tessera::cuda
