// Convolutions: conv2d picks the compile-time-K kernel for K = 3, 5, 7, constant memory for the
// filter up to K = 32, a shared tile up to K = 65, and a direct kernel beyond; conv_layer is an
// implicit GEMM whose (c, r, s) offset table lives in the queue's scratch.
#include <climits>
#include <mutex>
#include <string>

#include "cuda_backend.hpp"
#include "gemm_tiles.hpp"
#include "kernels/cuda/launch.hpp"
#include "queue.hpp"

namespace tessera::cuda {

// A queue's table for the conv layer: (c, r, s) -> offset of the implicit im2col.
struct CudaBackend::ConvState {
  DeviceBuffer table;

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
  const cudaStream_t stream = stream_of(q);
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
  if (sizeof(T) != 4) math = MathMode::exact;  // lib/ passes exact for f64 already
  const bool narrow = sizeof(T) == 8            ? narrow_tiles<T, ConvGemmTile>(s.K, s.N * s.P * s.Q)
                      : math == MathMode::exact ? narrow_tiles<T, GemmTile>(s.K, s.N * s.P * s.Q)
                                                : narrow_tiles<T, Tf32TileOf>(s.K, s.N * s.P * s.Q);
  TESSERA_CUDA_CHECK(launch_conv_layer<T>(s, narrow, math, static_cast<const T*>(in.data), static_cast<const T*>(filter.data),
                                          static_cast<T*>(out.data), table, stream));
}

TESSERA_INSTANTIATE_TYPED_OP(CudaBackend, conv2d)
TESSERA_INSTANTIATE_TYPED_OP(CudaBackend, conv_layer)

}  // namespace tessera::cuda
