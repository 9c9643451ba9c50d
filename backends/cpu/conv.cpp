#include "cpu/cpu_backend.hpp"
#include "tessera/errors.hpp"

namespace tessera {
void CpuBackend::conv2d(DType, ConvMode, const MatView&, const MatView&, const MatView&) {
  throw NotImplemented("cpu: conv2d is not implemented yet");
}
void CpuBackend::conv_layer(DType, const ConvParams&, const TensorView&, const TensorView&, const TensorView&) {
  throw NotImplemented("cpu: conv_layer is not implemented yet");
}
}  // namespace tessera
