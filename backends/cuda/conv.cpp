// Convolutions: conv2d picks the compile-time-K kernel for K = 3, 5, 7, constant memory for the
// filter up to K = 32, a shared tile up to K = 65, and a direct kernel beyond; conv_layer is
// Winograd's F(m x m, 3 x 3) for 3 x 3 filters with stride 1 (winograd_tile decides) or, under
// tf32 / tf32x3, the direct sum on the tensor cores (conv_direct_tc decides), else an implicit
// GEMM whose (c, r, s) offset table lives in the queue's scratch.
#include <algorithm>
#include <climits>
#include <mutex>
#include <string>
#include <type_traits>

#include "cuda_backend.hpp"
#include "gemm_tiles.hpp"
#include "kernels/cuda/launch.hpp"
#include "queue.hpp"

namespace tessera::cuda {

// A queue's table for the conv layer: (c, r, s) -> offset of the implicit im2col.
struct CudaBackend::ConvState {
  DeviceBuffer table;
  DeviceBuffer winograd;   // U, then V and M of one chunk of images (conv_winograd)
  DeviceBuffer fragments;  // the filter in the tensor cores' fragment order (conv3x3_direct_tc)

  static ConvState& of(CudaQueue& q) {
    if (!q.state.conv) q.state.conv = std::make_shared<ConvState>();
    return *q.state.conv;
  }
};

// conv2d with K <= kConvConstFilterMax copies the filter into __constant__ memory, one symbol for
// the whole device: a call on one queue must not overwrite it while another queue's kernel still
// reads it. Each such call, under CudaBackend::conv_mutex_, makes its stream wait (on the
// device) for the event after the previous user's kernel, then records that event after its own.
struct CudaBackend::ConvConstants {
  cudaEvent_t released = nullptr;
  ConvConstants() { TESSERA_CUDA_CHECK(cudaEventCreateWithFlags(&released, cudaEventDisableTiming)); }
  ~ConvConstants() { (void)cudaEventDestroy(released); }
  ConvConstants(const ConvConstants&) = delete;
  ConvConstants& operator=(const ConvConstants&) = delete;
};

template <class T>
void CudaBackend::conv2d(QueueImpl& q, ConvMode mode, const MatView& image, const MatView& filter, const MatView& out) {
  Conv2dShape s;
  s.H = image.rows;
  s.W = image.cols;
  s.K = filter.rows;
  s.P = out.rows;
  s.Q = out.cols;
  s.ld_img = image.ld;
  s.ld_filt = filter.ld;
  s.ld_out = out.ld;
  s.pad = mode == ConvMode::same ? (s.K - 1) / 2 : 0;
  if (s.P == 0 || s.Q == 0) return;
  const cudaStream_t stream = stream_of(q);
  const T* img = dev_ptr<const T>(image);
  const T* filt = dev_ptr<const T>(filter);
  T* o = dev_ptr<T>(out);
  if (s.K > kConvConstFilterMax) {
    TESSERA_CUDA_CHECK(launch_conv2d<T>(s, img, filt, o, stream));
    return;
  }
  std::lock_guard<std::mutex> lock(conv_mutex_);
  if (!conv_constants_) conv_constants_ = std::make_shared<ConvConstants>();
  // A never-recorded event counts as complete: the first call waits for nothing.
  wait_for_event(stream, conv_constants_->released);
  TESSERA_CUDA_CHECK(launch_conv2d<T>(s, img, filt, o, stream));
  TESSERA_CUDA_CHECK(cudaEventRecord(conv_constants_->released, stream));
}

// Winograd (tessera/winograd.hpp) where it applies: 3 x 3 filters, stride 1, and by default once
// C and K are 16 or more (below that the transforms' traffic, V and M 2.25x the input and output
// for F(4 x 4), outweighs the GEMM's fewer multiplies). F(4 x 4) does 4x fewer multiplies than
// the direct sum, F(2 x 2) 2.25x; F(4 x 4)'s larger transform coefficients cost accuracy
// (bench/RESULTS.md, session 14: max error 8e-6 against 6e-7 for F(2 x 2) in FP32), which TF32's
// 2^-11 rounding of the transformed operands magnifies past 5e-3: tf32 runs F(2 x 2).
// conv_layer.winograd forces a choice (lib/src/tuning/conv.cpp).
int CudaBackend::winograd_tile(const ConvLayerShape& s, MathMode math) const {
  if (s.R != 3 || s.S != 3 || s.stride_h != 1 || s.stride_w != 1) return 0;
  switch (tune_.get("conv_layer.winograd")) {
    case 0: return 0;
    case 1: return 2;
    case 2: return 4;
    default: return s.C >= 16 && s.K >= 16 ? (math == MathMode::tf32 ? 2 : 4) : 0;
  }
}

// tf32 / tf32x3 on a 3 x 3 stride-1 layer: the direct sum on the tensor cores, every tap's operand
// formed from one halo tile in shared memory (kernels/cuda/conv_direct_tc.cu), or else Winograd
// (C and K >= 16) or the implicit GEMM. Per output pixel the direct kernel does 9 C K
// multiply-adds; Winograd F(2 x 2) 4 C K, but it also writes and reads its transformed input and
// products, 8 (C + K) floats; the implicit GEMM gathers each input element nine times, by 4-byte
// copies. The direct sum wins where C K / (C + K) is small. Measured on an H200 (bench/RESULTS.md,
// session 26), the direct kernel's time over the other path's at C K / (C + K) =
//   2.9 (N32 C3 224^2 K64, implicit GEMM), 32 (C = K = 64, 56^2), 64 (128, 28^2), 128 (256, 14^2),
//   154 (the book's 13^2 layer), 256 (512, 7^2):
//   tf32 0.34x, 0.36x, 0.65x, 1.32x, 1.78x, 2.6x: the crossover near 96 (interpolated in the log);
//   tf32x3 0.58x, 1.13x, 2.1x, 2.3x, 4.0x, 3.1x (its three products per step cost the direct sum
//   more than Winograd's fewer products): near 20, set at 16.
bool CudaBackend::conv_direct_tc(const ConvLayerShape& s, MathMode math) const {
  if (math == MathMode::exact || !conv3x3_direct_tc_applies(s)) return false;
  switch (tune_.get("conv_layer.direct_tc")) {
    case 0: return false;
    case 1: return true;
    default: {
      if (tune_.get("conv_layer.winograd") != -1) return false;  // an algorithm forced
      const double crossover = math == MathMode::tf32 ? 96.0 : 16.0;
      return static_cast<double>(s.C) * s.K / static_cast<double>(s.C + s.K) <= crossover;
    }
  }
}

// The transforms around one batched GEMM per chunk of images: the filters' transform U once,
// then per chunk the input's V, the a^2 products M^T[e] = V[e]^T U[e]^T (gemm's tiles in the call's
// math mode, so tf32 / tf32x3 apply to the transformed operands) and the output transform.
// Chunks of as many images as fit conv_layer.winograd_mb of workspace (at least one).
template <class T>
void CudaBackend::conv_winograd(QueueImpl& q, const ConvLayerShape& s, int m, MathMode math, const T* in,
                                const T* filter, T* out) {
  const cudaStream_t stream = stream_of(q);
  WinogradShape w;
  w.m = m;
  w.C = s.C;
  w.H = s.H;
  w.W = s.W;
  w.K = s.K;
  w.P = s.P;
  w.Q = s.Q;
  w.pad_h = s.pad_h;
  w.pad_w = s.pad_w;
  w.tiles_h = (s.P + m - 1) / m;
  w.tiles_w = (s.Q + m - 1) / m;
  const std::int64_t aa = static_cast<std::int64_t>(m + 2) * (m + 2), tiles1 = w.tiles_h * w.tiles_w;
  // f32 layers with few channels (C <= 64) take the streaming products kernel, K x T: on gemm's
  // tiles their C-term sums are all pipeline fill (kernels/cuda/conv_winograd_products.cu), and
  // its FP32 sums beat three TF32 products there too (the layer is then bound by the transforms'
  // memory traffic). conv_layer.winograd_products: 0 gemm's tiles; n > 0 at most n blocks (tests).
  const int products_key = tune_.get("conv_layer.winograd_products");
  const bool streamed = std::is_same_v<T, float> && products_key != 0 && winograd_products_apply(s.C);
  // Leading dimensions and sections rounded to 4 elements and 64: every matrix of the batch
  // 16-byte aligned (Hopper's wgmma kernel copies whole 16-byte rows; gemm's 16-byte loads), every
  // section 256-byte aligned.
  auto up = [](std::int64_t e, std::int64_t to) { return (e + to - 1) / to * to; };
  // U[e] K x C (ldu), or C x K (ldk) for the streamed products.
  const std::int64_t ldu = up(s.C, 4), ldk = up(s.K, 4), u_elems = up(aa * (streamed ? s.C * ldk : s.K * ldu), 64);
  const std::int64_t per_image = aa * tiles1 * (s.C + ldk);
  const std::int64_t budget = tune_.get("conv_layer.winograd_mb") * (std::int64_t{1} << 20) / std::int64_t{sizeof(T)};
  const std::int64_t chunk = std::clamp<std::int64_t>((budget - u_elems) / per_image, 1, s.N);
  const std::int64_t ldt_max = up(chunk * tiles1, 4);
  const std::int64_t v_elems = up(aa * s.C * ldt_max, 64), m_elems = up(aa * ldt_max * ldk, 64);
  T* U = static_cast<T*>(
      ConvState::of(queue_of(q)).winograd.ensure(static_cast<std::size_t>(u_elems + v_elems + m_elems) * sizeof(T)));
  T* V = U + u_elems;
  T* M = V + v_elems;
  TESSERA_CUDA_CHECK(launch_winograd_filter<T>(m, s.K, s.C, streamed ? ldk : ldu, streamed, filter, U, stream));
  w.ldk = ldk;
  // Else the products K x T unless K would leave the GEMM's 128-row tiles (GemmTile,
  // Tf32GemmTile) less than 3/4 full: then T x K, where narrow tiles fit K. K x T measured faster
  // where both fill (the output transform reads it in rows: bench/RESULTS.md, session 14).
  const std::int64_t tile_rows = GemmTile<float>::BM;
  static_assert(GemmTile<float>::BM == Tf32GemmTile<>::BM, "one row tile for every mode");
  w.tk = !streamed && 4 * s.K < 3 * ((s.K + tile_rows - 1) / tile_rows * tile_rows);
  for (std::int64_t n0 = 0; n0 < s.N; n0 += chunk) {
    w.N = std::min(chunk, s.N - n0);
    const std::int64_t tiles = w.N * tiles1;
    w.ldt = up(tiles, 4);
    TESSERA_CUDA_CHECK(launch_winograd_input<T>(w, in + n0 * s.C * s.H * s.W, V, stream));
    if constexpr (std::is_same_v<T, float>) {
      if (streamed) {
        TESSERA_CUDA_CHECK(launch_winograd_products(w, U, V, M, sm_count(), std::max(products_key, 0), stream));
        TESSERA_CUDA_CHECK(launch_winograd_output<T>(w, M, out + n0 * s.K * s.P * s.Q, stream));
        continue;
      }
    }
    GemmProblem g;
    g.k = s.C;
    g.math = math;
    g.batch = aa;
    const T *ga = U, *gb = V;
    if (w.tk) {  // M^T[e] = V[e]^T U[e]^T: T x K
      ga = V;
      gb = U;
      g.m = tiles;
      g.n = s.K;
      g.ta = g.tb = true;
      g.lda = w.ldt;
      g.ldb = ldu;
      g.ldc = ldk;
      g.stride_a = s.C * w.ldt;
      g.stride_b = s.K * ldu;
      g.stride_c = w.ldt * ldk;
    } else {  // M[e] = U[e] V[e]: K x T
      g.m = s.K;
      g.n = tiles;
      g.lda = ldu;
      g.ldb = g.ldc = w.ldt;
      g.stride_a = s.K * ldu;
      g.stride_b = s.C * w.ldt;
      g.stride_c = s.K * w.ldt;
    }
    enqueue_gemm<T>(q, g, T(1), ga, gb, T(0), M);
    TESSERA_CUDA_CHECK(launch_winograd_output<T>(w, M, out + n0 * s.K * s.P * s.Q, stream));
  }
}

template <class T>
void CudaBackend::conv_layer(QueueImpl& q, const ConvParams& p, const TensorView& in, const TensorView& filter,
                             const TensorView& out, MathMode math) {
  ConvLayerShape s;
  s.N = in.n;
  s.C = in.c;
  s.H = in.h;
  s.W = in.w;
  s.K = filter.n;
  s.R = filter.h;
  s.S = filter.w;
  s.P = out.h;
  s.Q = out.w;
  s.pad_h = p.pad_h;
  s.pad_w = p.pad_w;
  s.stride_h = p.stride_h;
  s.stride_w = p.stride_w;
  if (s.N * s.K * s.P * s.Q == 0) return;
  if (sizeof(T) != 4) math = MathMode::exact;  // lib/ passes exact for f64 already
  const cudaStream_t stream = stream_of(q);
  if constexpr (sizeof(T) == 4) {
    if (conv_direct_tc(s, math)) {
      auto* frags = static_cast<float*>(
          ConvState::of(queue_of(q)).fragments.ensure(static_cast<std::size_t>(conv3x3_direct_tc_workspace(s, math))));
      TESSERA_CUDA_CHECK(launch_conv3x3_direct_tc(s, math, static_cast<const float*>(in.data),
                                                  static_cast<const float*>(filter.data), static_cast<float*>(out.data),
                                                  frags, stream));
      return;
    }
  }
  if (const int m = s.C > 0 ? winograd_tile(s, math) : 0) {
    conv_winograd<T>(q, s, m, math, static_cast<const T*>(in.data), static_cast<const T*>(filter.data),
                     static_cast<T*>(out.data));
    return;
  }
  // The im2col table packs (c, r, s) offsets into int32 and r, s into 16 bits each.
  if (s.C * s.H * s.W >= INT_MAX || s.R >= 32768 || s.S >= 32768 || s.H >= INT_MAX / 2 || s.W >= INT_MAX / 2)
    throw NotImplemented("cuda: conv_layer with C*H*W = " + std::to_string(s.C * s.H * s.W) +
                         " (or a filter side >= 32768) exceeds the implicit-GEMM index range");
  const std::int64_t crs = s.C * s.R * s.S;
  if (crs == 0) {  // no input channels: every output is an empty sum
    TESSERA_CUDA_CHECK(cudaMemsetAsync(out.data, 0, static_cast<std::size_t>(s.N * s.K * s.P * s.Q) * sizeof(T),
                                       stream));
    return;
  }
  auto* table =
      static_cast<int2*>(ConvState::of(queue_of(q)).table.ensure(static_cast<std::size_t>(crs) * sizeof(int2)));
  // The GEMM is K x (N P Q) with inner dimension C R S, on the gemm kernels' tiles in f32 and on
  // the register-staged convolution tiles in f64 (kernels/cuda/conv.cu).
  // f32 under MathMode::tf32 / tf32x3: the same implicit GEMM on the TF32 tensor cores
  // (Tf32GemmTile, kernels/cuda/gemm_tf32.cuh).
  const bool narrow = sizeof(T) == 8            ? narrow_tiles<T, ConvGemmTile>(s.K, s.N * s.P * s.Q)
                      : math == MathMode::exact ? narrow_tiles<T, GemmTile>(s.K, s.N * s.P * s.Q)
                                                : narrow_tiles<T, Tf32TileOf>(s.K, s.N * s.P * s.Q);
  const bool deep = sizeof(T) == 4 && math == MathMode::exact && !narrow && deep_tiles(crs);
  TESSERA_CUDA_CHECK(launch_conv_layer<T>(s, narrow, deep, math, static_cast<const T*>(in.data),
                                          static_cast<const T*>(filter.data), static_cast<T*>(out.data), table,
                                          stream));
}

TESSERA_INSTANTIATE_TYPED_OP(CudaBackend, conv2d)
TESSERA_INSTANTIATE_TYPED_OP(CudaBackend, conv_layer)

}  // namespace tessera::cuda
