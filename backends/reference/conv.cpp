// Convolutions as cross-correlation (no filter flip), the direct sum for every output element,
// in double, with reads outside the input taken as zero rather than padding a copy. conv_layer
// under MathMode::tf32 rounds each f32 input to TF32 first (tf32.hpp), as gemm.
#include <cstdint>

#include "reference/reference_backend.hpp"
#include "reference/tf32.hpp"

namespace tessera {

template <class T>
void ReferenceBackend::conv2d(QueueImpl&, ConvMode mode, const MatView& image, const MatView& filter, const MatView& outv) {
  const T* img = host_ptr<T>(image);
  const T* f = host_ptr<T>(filter);
  T* out = host_ptr<T>(outv);
  const std::int64_t K = filter.rows;
  // 'same' pads (K-1)/2 before and K/2 after; the output size already accounts for the latter.
  const std::int64_t pad = mode == ConvMode::same ? (K - 1) / 2 : 0;
  for (std::int64_t p = 0; p < outv.rows; ++p) {
    for (std::int64_t q = 0; q < outv.cols; ++q) {
      double acc = 0.0;
      for (std::int64_t i = 0; i < K; ++i) {
        const std::int64_t row = p + i - pad;
        if (row < 0 || row >= image.rows) continue;
        for (std::int64_t j = 0; j < K; ++j) {
          const std::int64_t col = q + j - pad;
          if (col < 0 || col >= image.cols) continue;
          acc += static_cast<double>(img[row * image.ld + col]) * static_cast<double>(f[i * filter.ld + j]);
        }
      }
      out[p * outv.ld + q] = static_cast<T>(acc);
    }
  }
}

template <class T>
void ReferenceBackend::conv_layer(QueueImpl&, const ConvParams& prm, const TensorView& in, const TensorView& filter,
                                  const TensorView& outv, MathMode math) {
  const T* x = static_cast<const T*>(in.data);
  const T* w = static_cast<const T*>(filter.data);
  T* out = static_cast<T*>(outv.data);
  const std::int64_t C = in.c, H = in.h, W = in.w;
  const std::int64_t R = filter.h, S = filter.w;
  const std::int64_t K = outv.c, P = outv.h, Q = outv.w;
  for (std::int64_t n = 0; n < outv.n; ++n) {
    for (std::int64_t k = 0; k < K; ++k) {
      for (std::int64_t p = 0; p < P; ++p) {
        for (std::int64_t q = 0; q < Q; ++q) {
          double acc = 0.0;
          for (std::int64_t c = 0; c < C; ++c) {
            for (std::int64_t r = 0; r < R; ++r) {
              const std::int64_t h = p * prm.stride_h + r - prm.pad_h;
              if (h < 0 || h >= H) continue;
              for (std::int64_t s = 0; s < S; ++s) {
                const std::int64_t wi = q * prm.stride_w + s - prm.pad_w;
                if (wi < 0 || wi >= W) continue;
                acc += product_input(x[((n * C + c) * H + h) * W + wi], math) *
                       product_input(w[((k * C + c) * R + r) * S + s], math);
              }
            }
          }
          out[((n * K + k) * P + p) * Q + q] = static_cast<T>(acc);
        }
      }
    }
  }
}

TESSERA_INSTANTIATE_TYPED_OP(ReferenceBackend, conv2d)
TESSERA_INSTANTIATE_TYPED_OP(ReferenceBackend, conv_layer)

}  // namespace tessera
