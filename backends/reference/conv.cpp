#include "reference/reference_backend.hpp"
#include "tessera/errors.hpp"

namespace tessera {
void ReferenceBackend::conv2d(DType, ConvMode, const MatView&, const MatView&, const MatView&) {
  throw NotImplemented("reference: conv2d is not implemented yet");
}
void ReferenceBackend::conv_layer(DType, const ConvParams&, const TensorView&, const TensorView&, const TensorView&) {
  throw NotImplemented("reference: conv_layer is not implemented yet");
}
}  // namespace tessera
