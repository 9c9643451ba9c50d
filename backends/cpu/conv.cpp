// Convolutions on the cpu device (kernels/cpu/conv.cpp).
#include "cpu/cpu_backend.hpp"
#include "kernels/cpu/conv.hpp"

namespace tessera {

template <class T>
void CpuBackend::conv2d(QueueImpl&, ConvMode mode, const MatView& image, const MatView& filter, const MatView& out) {
  cpu::conv2d(mode == ConvMode::same, host_ptr<const T>(image), image.rows, image.cols, image.ld,
              host_ptr<const T>(filter), filter.rows, filter.ld, host_ptr<T>(out), out.rows,
              out.cols, out.ld, tune_["conv.min_macs_per_thread"]);
}

template <class T>
void CpuBackend::conv_layer(QueueImpl&, const ConvParams& p, const TensorView& in, const TensorView& filter,
                            const TensorView& out, MathMode) {
  // Every MathMode runs in exact FP32, as gemm (gemm.cpp).
  const cpu::ConvLayerShape shape{in.n,  in.c,  in.h,    in.w,    filter.n,   filter.h,  filter.w,
                                  out.h, out.w, p.pad_h, p.pad_w, p.stride_h, p.stride_w};
  cpu::conv_layer(shape, static_cast<const T*>(in.data), static_cast<const T*>(filter.data),
                  static_cast<T*>(out.data), tune_["gemm.min_flops_per_thread"]);
}

TESSERA_INSTANTIATE_TYPED_OP(CpuBackend, conv2d)
TESSERA_INSTANTIATE_TYPED_OP(CpuBackend, conv_layer)

}  // namespace tessera
