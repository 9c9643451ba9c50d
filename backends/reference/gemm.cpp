#include "reference/reference_backend.hpp"
#include "tessera/errors.hpp"

namespace tessera {
void ReferenceBackend::gemm(DType, Trans, Trans, double, const MatView&, const MatView&, double, const MatView&) {
  throw NotImplemented("reference: gemm is not implemented yet");
}
}  // namespace tessera
