// Convolutions on the cpu device (kernels/cpu/conv.cpp).
#include "cpu/cpu_backend.hpp"
#include "kernels/cpu/conv.hpp"

namespace tessera {

void CpuBackend::conv2d(DType t, ConvMode mode, const MatView& image, const MatView& filter, const MatView& out) {
  const bool same = mode == ConvMode::same;
  if (t == DType::f32) {
    cpu::conv2d(same, static_cast<const float*>(image.data), image.rows, image.cols, image.ld,
                static_cast<const float*>(filter.data), filter.rows, filter.ld, static_cast<float*>(out.data), out.rows,
                out.cols, out.ld);
  } else {
    cpu::conv2d(same, static_cast<const double*>(image.data), image.rows, image.cols, image.ld,
                static_cast<const double*>(filter.data), filter.rows, filter.ld, static_cast<double*>(out.data),
                out.rows, out.cols, out.ld);
  }
}

void CpuBackend::conv_layer(DType t, const ConvParams& p, const TensorView& in, const TensorView& filter,
                            const TensorView& out) {
  const cpu::ConvLayerShape shape{in.n,  in.c,     in.h,     in.w,       filter.n,   filter.h, filter.w,
                                  out.h, out.w,    p.pad_h,  p.pad_w,    p.stride_h, p.stride_w};
  if (t == DType::f32) {
    cpu::conv_layer(shape, static_cast<const float*>(in.data), static_cast<const float*>(filter.data),
                    static_cast<float*>(out.data));
  } else {
    cpu::conv_layer(shape, static_cast<const double*>(in.data), static_cast<const double*>(filter.data),
                    static_cast<double*>(out.data));
  }
}

}  // namespace tessera
