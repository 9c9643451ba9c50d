// Entry points of the cpu device's convolutions. Plain pointers and sizes; arguments trusted.
#pragma once

#include <cstdint>

namespace tessera::cpu {

// 2D single-channel cross-correlation of image (H x W, leading dimension ldi) with a K x K
// filter (leading dimension ldf) into out (P x Q, leading dimension ldo). same: zero padding
// of (K-1)/2 before and K/2 after each axis, P x Q = H x W; valid: no padding. Fewer threads
// run where each would get less than min_macs_per_thread (tuning key conv.min_macs_per_thread).
void conv2d(bool same, const float* image, std::int64_t H, std::int64_t W, std::int64_t ldi, const float* filter,
            std::int64_t K, std::int64_t ldf, float* out, std::int64_t P, std::int64_t Q, std::int64_t ldo,
            std::int64_t min_macs_per_thread);
void conv2d(bool same, const double* image, std::int64_t H, std::int64_t W, std::int64_t ldi, const double* filter,
            std::int64_t K, std::int64_t ldf, double* out, std::int64_t P, std::int64_t Q, std::int64_t ldo,
            std::int64_t min_macs_per_thread);

// CNN layer forward: in N x C x H x W, filter K x C x R x S, out N x K x P x Q (all dense,
// NCHW order), zero padding pad_h/pad_w, strides stride_h/stride_w. A GEMM over im2col columns,
// threaded as gemm is (min_flops_per_thread: gemm.min_flops_per_thread).
struct ConvLayerShape {
  std::int64_t n, c, h, w;  // input
  std::int64_t k, r, s;     // filters
  std::int64_t p, q;        // output
  std::int64_t pad_h, pad_w, stride_h, stride_w;
};
void conv_layer(const ConvLayerShape& shape, const float* in, const float* filter, float* out,
                std::int64_t min_flops_per_thread);
void conv_layer(const ConvLayerShape& shape, const double* in, const double* filter, double* out,
                std::int64_t min_flops_per_thread);

}  // namespace tessera::cpu
