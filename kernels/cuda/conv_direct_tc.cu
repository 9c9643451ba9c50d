// conv_layer with 3 x 3 filters and stride 1 on the TF32 tensor cores, summed directly (no
// im2col, no Winograd): MathMode::tf32 and tf32x3 (contract in types.hpp), f32, NCHW.
//
// Why: Winograd's transforms are passes through memory (F(2 x 2) under tf32 writes and reads V
// and M, 4x the input and output: on N32 C64 56^2 K64 they are most of the call), and the
// implicit GEMM's im2col gather copies every input element nine times, one 4-byte copy each.
// Here a block keeps a halo tile of the input in shared memory and forms all nine taps' operands
// from it by address offsets: each input element crosses from L2 once per block (1.4x for the
// halo), and the only passes through memory are the input read and the output written.
//
// The GEMM view: out(k, pixel) = sum over (tap, c) of filter(k, c, tap) in(c, pixel + tap).
// A block computes kBM output channels x a TH x TW tile of output pixels of one image, in chunks
// of kCC = 8 input channels (one cp.async pipeline stage each); per chunk and tap, one m16n8k8
// k-step over the chunk's 8 channels. The filter is rearranged beforehand
// (filter_fragments_kernel) into the fragments' register order, rounded to TF32 (and split
// hi / lo for tf32x3), so that a lane's A fragment is one 16-byte load. The halo is copied in
// 16-byte row pieces where it can (DirectCfg) and rounded (split) in shared memory once per chunk
// by the threads that copied it, not at each of its nine reads.
// Fragment layouts (PTX ISA, m16n8k8 .tf32; g = lane / 4, t = lane % 4): as gemm_tf32.cuh.
// Bound (Nsight Compute, H200, N32 C64 56^2 K64, tf32): the L1 / shared-memory pipe, 1.5
// wavefronts of fragment loads a product; the tensor pipe at 36-42 % (bench/RESULTS.md,
// session 26); the products' floor is a fifth of the time.
#include <algorithm>
#include <cstdint>

#include "kernels/cuda/gemm_tf32.cuh"

namespace tessera::cuda {

namespace {

constexpr int kBM = 64;           // output channels per block: 4 m16 fragments
constexpr int kCC = 8;            // input channels per chunk: one m16n8k8 k-step per tap
constexpr int kThreads = 256;     // 8 warps
constexpr int kFrag = 9 * (kBM / 16) * 32 * 4;  // floats of one chunk's filter fragments (4608)
constexpr int kFragPasses = (kFrag / 4 + kThreads - 1) / kThreads;

// A warp computes MT m16 fragments (16 MT output channels) x 32 pixels (4 n8 fragments) of a
// block's kBM channels x PX pixels, a TH x TW tile of one image. tf32: one warp across all 64
// channels (MT = 4: each B fragment feeds 4 products, each A fragment 4: 1.5 shared-memory
// wavefronts a product, against 2 with MT = 2), 256 pixels; tf32x3 (hi and lo of both operands
// in registers) MT = 2, two warps across the channels, 128 pixels. TW = 16 or 32, whichever
// wastes fewer pixels on the layer (launch_direct_width). Stages: tf32 3, tf32x3 2 (two blocks
// an SM; 128 registers a thread).
//
// The halo tile in shared memory: [channel][row][column], the columns a window of TW + 8 from
// 4-aligned image column x0 - roundup4(pad_w) (so that rows copy as 16-byte pieces where W is a
// multiple of 4: VEC = 4; else element by element, VEC = 1), the channel stride 24 mod 32 words
// so that a B fragment register (lane: channel t or t + 4, pixel g) falls in 32 distinct banks.
// A copy instruction writes contiguous shared memory (conflict-free) and reads image rows.
template <bool SPLIT, int TW_, int VEC_>
struct DirectCfg {
  static constexpr int WARPS_M = SPLIT ? 2 : 1, MT = 4 / WARPS_M, WARPS_N = 8 / WARPS_M;
  static constexpr int PX = 32 * WARPS_N, TW = TW_, TH = PX / TW, VEC = VEC_;
  static constexpr int HH = TH + 2, RP = TW + 8;
  static constexpr int CS = HH * RP + (24 - HH * RP % 32 + 32) % 32;  // channel stride, 24 mod 32
  static constexpr int HALO = kCC * CS;  // floats of one chunk's halo tile
  // Copies: VEC = 4 the whole window in 16-byte pieces, a thread's pieces (channel, row, piece)
  // = tid + pass * kThreads; VEC = 1 the TW + 2 columns used, a thread's pixels (row, column) =
  // tid + pass * kThreads, each in all 8 channels.
  static constexpr int SEGS = VEC == 4 ? RP / 4 : TW + 2;
  static constexpr int COPIES = VEC == 4 ? kCC * HH * SEGS : HH * SEGS;
  static constexpr int COPY_PASSES = (COPIES + kThreads - 1) / kThreads;
  static constexpr int PER_PASS = VEC == 4 ? 1 : kCC;  // copies a thread issues a pass
  static constexpr int PARTS = SPLIT ? 2 : 1;  // hi, lo
  static constexpr int STAGES = SPLIT ? 2 : 3;
  static constexpr int MIN_BLOCKS = 2;
  static constexpr int CHUNK = PARTS * (kFrag + HALO);
  static constexpr int SMEM_BYTES = STAGES * CHUNK * 4;
  // The taps' loop unrolled by rows (tf32) or not at all (tf32x3): fully unrolled, the hoisted
  // loads spill past 128 registers.
  static constexpr int TAP_UNROLL = SPLIT ? 1 : 3;
  static_assert(PX % TW == 0 && TW % 8 == 0 && CS % 32 == 24 && CS % 4 == 0, "tile shapes");
};

// frags[((kb * chunks + cb) * PARTS + part) * kFrag + ((tap * 4 + mf) * 32 + lane) * 4 + v]:
// A(row, slot) of m fragment mf of filter block kb, channel chunk cb, in the order a0..a3 =
// (g, t), (g + 8, t), (g, t + 4), (g + 8, t + 4), slot = the chunk's channel; rounded to TF32
// (part 0) and the rest rounded (part 1, tf32x3); 0 past K and C.
template <bool SPLIT>
__global__ void filter_fragments_kernel(std::int64_t K, std::int64_t C, const float* __restrict__ filter,
                                        float* __restrict__ frags) {
  constexpr int PARTS = SPLIT ? 2 : 1;
  const std::int64_t chunks = (C + kCC - 1) / kCC;
  const std::int64_t total = (K + kBM - 1) / kBM * chunks * kFrag;
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < total;
       i += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    const int v = static_cast<int>(i % 4), lane = static_cast<int>(i / 4 % 32);
    const int mf = static_cast<int>(i / 128 % 4), tap = static_cast<int>(i / 512 % 9);
    const std::int64_t slab = i / kFrag, kb = slab / chunks, cb = slab % chunks;
    const int g = lane / 4, t = lane % 4;
    const std::int64_t k = kb * kBM + mf * 16 + g + 8 * (v & 1);
    const std::int64_t c = cb * kCC + t + 4 * (v >> 1);
    const float x = k < K && c < C ? filter[(k * C + c) * 9 + tap] : 0.f;
    unsigned hi, lo = 0;
    tf32_split<SPLIT>(x, hi, lo);
    float* out = frags + slab * PARTS * kFrag + i % kFrag;
    out[0] = __uint_as_float(hi);
    if constexpr (SPLIT) out[kFrag] = __uint_as_float(lo);
  }
}

template <bool SPLIT, int TW, int VEC>
__global__ __launch_bounds__(kThreads, DirectCfg<SPLIT, TW, VEC>::MIN_BLOCKS) void conv3x3_direct_tc_kernel(
    ConvLayerShape s, const float* __restrict__ in, const float* __restrict__ frags, float* __restrict__ out) {
  using Cfg = DirectCfg<SPLIT, TW, VEC>;
  constexpr int MT = Cfg::MT, RP = Cfg::RP, CS = Cfg::CS;
  extern __shared__ __align__(16) unsigned char direct_smem[];
  float* smem = reinterpret_cast<float*>(direct_smem);
  const int tid = threadIdx.x, lane = tid % 32, warp = tid / 32;
  const int g = lane / 4, t = lane % 4;
  // This warp's channels MT * 16 * wm.. and pixels 32 wn.. of the block (row-major in the tile).
  const int wm = warp / Cfg::WARPS_N, wn = warp % Cfg::WARPS_N;

  const std::int64_t tiles_x = (s.Q + TW - 1) / TW, tiles_y = (s.P + Cfg::TH - 1) / Cfg::TH;
  const std::int64_t n = blockIdx.x / (tiles_x * tiles_y);
  const int ty = static_cast<int>(blockIdx.x / tiles_x % tiles_y), tx = static_cast<int>(blockIdx.x % tiles_x);
  const int y0 = ty * Cfg::TH, x0 = tx * TW;  // the tile's first output pixel
  const int kb = blockIdx.y;
  const int H = static_cast<int>(s.H), W = static_cast<int>(s.W), C = static_cast<int>(s.C);
  const int pad_w4 = (static_cast<int>(s.pad_w) + 3) / 4 * 4;
  const int xb = x0 - pad_w4;                                  // the window's first image column
  const int col_shift = pad_w4 - static_cast<int>(s.pad_w);   // output column x0 + u, tap q: window column u + q + shift
  const int chunks = (C + kCC - 1) / kCC;
  const std::int64_t HW = s.H * s.W;
  const float* image = in + n * s.C * HW;
  const float* block_frags = frags + static_cast<std::int64_t>(kb) * chunks * Cfg::PARTS * kFrag;

  // This thread's copies: per pass, where the first lands in the halo (-1: none) and its offset
  // in the image plane (-1: outside the image); the pass's others (VEC = 1: the 8 channels) are
  // CS and a plane further. Kept in registers for VEC = 1 (2 passes at most);
  // recomputed at each use for VEC = 4, whose 4 passes would push the kernel past 128 registers.
  auto copy_of = [&](int p, int& dst, int& src) {
    const int e = tid + p * kThreads;
    const int piece = e % Cfg::SEGS, row = e / Cfg::SEGS % Cfg::HH, cc = VEC == 4 ? e / (Cfg::SEGS * Cfg::HH) : 0;
    const int col = VEC == 4 ? 4 * piece : piece + col_shift;
    const int iy = y0 - static_cast<int>(s.pad_h) + row, ix = xb + col;
    dst = e < Cfg::COPIES ? cc * CS + row * RP + col : -1;
    src = iy >= 0 && iy < H && ix >= 0 && ix + VEC <= W ? iy * W + ix : -1;
  };
  constexpr int KEPT = VEC == 1 ? Cfg::COPY_PASSES : 1;
  int dst_kept[KEPT], src_kept[KEPT];
  if constexpr (VEC == 1) {
#pragma unroll
    for (int p = 0; p < KEPT; ++p) copy_of(p, dst_kept[p], src_kept[p]);
  }
  // f(halo offset, image-plane offset or -1, channel in the chunk) for each of this thread's copies.
  auto for_each_copy = [&](auto&& f) {
#pragma unroll
    for (int p = 0; p < Cfg::COPY_PASSES; ++p) {
      int dst, src;
      if constexpr (VEC == 1) dst = dst_kept[p], src = src_kept[p];
      else copy_of(p, dst, src);
      if (dst < 0) continue;
#pragma unroll
      for (int k = 0; k < Cfg::PER_PASS; ++k) f(dst + k * CS, src, VEC == 4 ? dst / CS : k);
    }
  };

  // Chunk `chunk` into stage `stage`: its filter fragments (16-byte copies) and its halo tile
  // (zero-filled outside the image and past C).
  auto load = [&](int chunk, int stage) {
    float* blk = smem + stage * Cfg::CHUNK;
    const float* src = block_frags + static_cast<std::int64_t>(chunk) * Cfg::PARTS * kFrag;
#pragma unroll
    for (int part = 0; part < Cfg::PARTS; ++part) {
      const unsigned dst = smem_u32(blk + part * kFrag);
#pragma unroll
      for (int p = 0; p < kFragPasses; ++p) {
        const int e = tid + p * kThreads;
        if (kFrag % (4 * kThreads) == 0 || e < kFrag / 4) cp_async_all<16>(dst + e * 16, src + part * kFrag + 4 * e);
      }
    }
    const unsigned halo = smem_u32(blk + Cfg::PARTS * kFrag);
    for_each_copy([&](int dst, int src, int cc) {
      const int c = chunk * kCC + cc;
      const bool ok = c < C && src >= 0;
      cp_async<4 * VEC>(halo + dst * 4, ok ? image + c * HW + src : image, ok ? 4 * VEC : 0);
    });
  };
  // After this thread's copies of a stage have landed: round (split) the halo elements it copied.
  auto round_halo = [&](int stage) {
    float* hs = smem + stage * Cfg::CHUNK + Cfg::PARTS * kFrag;
    for_each_copy([&](int dst, int, int) {
      float* v = hs + dst;
      float x[VEC], hi_f[VEC], lo_f[VEC];
      if constexpr (VEC == 4) *reinterpret_cast<float4*>(x) = *reinterpret_cast<const float4*>(v);
      else x[0] = v[0];
#pragma unroll
      for (int e = 0; e < VEC; ++e) {
        unsigned hi, lo = 0;
        tf32_split<SPLIT>(x[e], hi, lo);
        hi_f[e] = __uint_as_float(hi);
        lo_f[e] = __uint_as_float(lo);
      }
      if constexpr (VEC == 4) {
        *reinterpret_cast<float4*>(v) = *reinterpret_cast<const float4*>(hi_f);
        if constexpr (SPLIT) *reinterpret_cast<float4*>(v + Cfg::HALO) = *reinterpret_cast<const float4*>(lo_f);
      } else {
        v[0] = hi_f[0];
        if constexpr (SPLIT) v[Cfg::HALO] = lo_f[0];
      }
    });
  };

  float acc[MT][4][4];
#pragma unroll
  for (int i = 0; i < MT; ++i)
#pragma unroll
    for (int j = 0; j < 4; ++j)
#pragma unroll
      for (int e = 0; e < 4; ++e) acc[i][j][e] = 0.f;

  // n fragment j of this warp: output pixels 32 wn + 8 j .. + 7 of the tile, in one row; a lane
  // reads channels t (b0) and t + 4 (b1) of halo pixel (its row + r, its column + g + q).
  auto frag_row = [&](int j) { return (32 * wn + 8 * j) / TW; };
  auto frag_col = [&](int j) { return (32 * wn + 8 * j) % TW; };
  const int b_lane = t * CS + g + col_shift;
  auto compute = [&](const float* blk) {
    const float* hs = blk + Cfg::PARTS * kFrag;
#pragma unroll Cfg::TAP_UNROLL
    for (int tap = 0; tap < 9; ++tap) {
      const int r = tap / 3, q = tap % 3;
      unsigned ahi[MT][4], alo[MT][4];
#pragma unroll
      for (int i = 0; i < MT; ++i) {
        const int at = ((tap * 4 + MT * wm + i) * 32 + lane) * 4;
        const uint4 h = *reinterpret_cast<const uint4*>(blk + at);
        ahi[i][0] = h.x, ahi[i][1] = h.y, ahi[i][2] = h.z, ahi[i][3] = h.w;
        if constexpr (SPLIT) {
          const uint4 l = *reinterpret_cast<const uint4*>(blk + kFrag + at);
          alo[i][0] = l.x, alo[i][1] = l.y, alo[i][2] = l.z, alo[i][3] = l.w;
        }
      }
#pragma unroll
      for (int j = 0; j < 4; ++j) {
        const float* b = hs + b_lane + (frag_row(j) + r) * RP + frag_col(j) + q;
        const unsigned bhi[2] = {__float_as_uint(b[0]), __float_as_uint(b[4 * CS])};
        if constexpr (SPLIT) {
          const unsigned blo[2] = {__float_as_uint(b[Cfg::HALO]), __float_as_uint(b[Cfg::HALO + 4 * CS])};
#pragma unroll
          for (int i = 0; i < MT; ++i) mma_tf32x3_step(acc[i][j], ahi[i], alo[i], bhi, blo);
        } else {
#pragma unroll
          for (int i = 0; i < MT; ++i) mma_tf32(acc[i][j], ahi[i], bhi);
        }
      }
    }
  };

  // The cp.async pipeline over the chunks (as gemm_async.cuh's async_pipeline, with the halo's
  // rounding between a stage's landing and the barrier that publishes it).
#pragma unroll
  for (int st = 0; st < Cfg::STAGES - 1; ++st) {
    if (st < chunks) load(st, st);
    cp_async_commit();
  }
  for (int ch = 0; ch < chunks; ++ch) {
    const int stage = ch % Cfg::STAGES;
    cp_async_wait<Cfg::STAGES - 2>();
    round_halo(stage);
    __syncthreads();  // the stage is everyone's; everyone is done with the one loaded next
    if (ch + Cfg::STAGES - 1 < chunks) load(ch + Cfg::STAGES - 1, (ch + Cfg::STAGES - 1) % Cfg::STAGES);
    cp_async_commit();
    compute(smem + stage * Cfg::CHUNK);
  }
  cp_async_wait<0>();

  // acc[i][j][2h + e]: channel kb kBM + 16 (MT wm + i) + 8 h + g, pixel (y0 + frag_row(j),
  // x0 + frag_col(j) + 2t + e).
  const std::int64_t PQ = s.P * s.Q;
  float* o = out + n * s.K * PQ;
  // (y, 2t) and (y, 2t + 1) adjacent and 8-byte aligned: one 8-byte store.
  const bool pairs = s.Q % 2 == 0 && reinterpret_cast<std::uintptr_t>(out) % 8 == 0;
#pragma unroll
  for (int i = 0; i < MT; ++i)
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const std::int64_t k = static_cast<std::int64_t>(kb) * kBM + 16 * (MT * wm + i) + 8 * h + g;
      if (k >= s.K) continue;
#pragma unroll
      for (int j = 0; j < 4; ++j) {
        const int y = y0 + frag_row(j), x = x0 + frag_col(j) + 2 * t;
        if (y >= s.P || x >= s.Q) continue;
        float* p = o + k * PQ + static_cast<std::int64_t>(y) * s.Q + x;
        if (pairs) {
          *reinterpret_cast<float2*>(p) = make_float2(acc[i][j][2 * h], acc[i][j][2 * h + 1]);
        } else {
          p[0] = acc[i][j][2 * h];
          if (x + 1 < s.Q) p[1] = acc[i][j][2 * h + 1];
        }
      }
    }
}

// Pixels computed for the layer's P x Q outputs by tiles of tw columns and px / tw rows.
std::int64_t padded_pixels(const ConvLayerShape& s, int px, int tw) {
  const int th = px / tw;
  return (s.P + th - 1) / th * th * ((s.Q + tw - 1) / tw * tw);
}

template <bool SPLIT, int TW, int VEC>
cudaError_t launch_direct(const ConvLayerShape& s, const float* in, const float* filter, float* out,
                          float* workspace, cudaStream_t stream) {
  using Cfg = DirectCfg<SPLIT, TW, VEC>;
  const std::int64_t k_blocks = (s.K + kBM - 1) / kBM;
  const std::int64_t pixel_blocks = s.N * ((s.P + Cfg::TH - 1) / Cfg::TH) * ((s.Q + TW - 1) / TW);
  if (k_blocks > 65535 || pixel_blocks > 0x7fffffff) return cudaErrorInvalidConfiguration;
  const std::int64_t frag_elems = conv3x3_direct_tc_workspace(s, SPLIT ? MathMode::tf32x3 : MathMode::tf32) / 4;
  filter_fragments_kernel<SPLIT><<<static_cast<unsigned>(std::min<std::int64_t>(blocks_for(frag_elems, 256), 4096)),
                                   256, 0, stream>>>(s.K, s.C, filter, workspace);
  if (cudaError_t e = cudaGetLastError(); e != cudaSuccess) return e;
  auto kernel = conv3x3_direct_tc_kernel<SPLIT, TW, VEC>;
  if (cudaError_t e = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, Cfg::SMEM_BYTES);
      e != cudaSuccess)
    return e;
  kernel<<<dim3(static_cast<unsigned>(pixel_blocks), static_cast<unsigned>(k_blocks)), kThreads, Cfg::SMEM_BYTES,
           stream>>>(s, in, workspace, out);
  return cudaGetLastError();
}

// 16-byte row pieces where every image row starts 16-byte aligned.
template <bool SPLIT, int TW>
cudaError_t launch_direct_vec(const ConvLayerShape& s, const float* in, const float* filter, float* out,
                              float* workspace, cudaStream_t stream) {
  return s.W % 4 == 0 && reinterpret_cast<std::uintptr_t>(in) % 16 == 0
             ? launch_direct<SPLIT, TW, 4>(s, in, filter, out, workspace, stream)
             : launch_direct<SPLIT, TW, 1>(s, in, filter, out, workspace, stream);
}

// The tile width of fewer computed pixels (16 on a tie: the smaller halo).
template <bool SPLIT>
cudaError_t launch_direct_width(const ConvLayerShape& s, const float* in, const float* filter, float* out,
                                float* workspace, cudaStream_t stream) {
  constexpr int PX = DirectCfg<SPLIT, 16, 1>::PX;
  return padded_pixels(s, PX, 32) < padded_pixels(s, PX, 16)
             ? launch_direct_vec<SPLIT, 32>(s, in, filter, out, workspace, stream)
             : launch_direct_vec<SPLIT, 16>(s, in, filter, out, workspace, stream);
}

}  // namespace

bool conv3x3_direct_tc_applies(const ConvLayerShape& s) {
  return s.R == 3 && s.S == 3 && s.stride_h == 1 && s.stride_w == 1 && s.C > 0 &&
         s.C * s.H * s.W < (std::int64_t{1} << 31) && s.H < (1 << 30) && s.W < (1 << 30);
}

std::int64_t conv3x3_direct_tc_workspace(const ConvLayerShape& s, MathMode math) {
  const std::int64_t chunks = (s.C + kCC - 1) / kCC, k_blocks = (s.K + kBM - 1) / kBM;
  return k_blocks * chunks * (math == MathMode::tf32x3 ? 2 : 1) * kFrag * static_cast<std::int64_t>(sizeof(float));
}

cudaError_t launch_conv3x3_direct_tc(const ConvLayerShape& s, MathMode math, const float* in, const float* filter,
                                     float* out, float* workspace, cudaStream_t stream) {
  return math == MathMode::tf32x3 ? launch_direct_width<true>(s, in, filter, out, workspace, stream)
                                  : launch_direct_width<false>(s, in, filter, out, workspace, stream);
}

}  // namespace tessera::cuda
