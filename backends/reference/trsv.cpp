#include "reference/reference_backend.hpp"
#include "tessera/errors.hpp"

namespace tessera {
void ReferenceBackend::trsv(DType, Uplo, Trans, Diag, const MatView&, const VecView&) {
  throw NotImplemented("reference: trsv is not implemented yet");
}
void ReferenceBackend::trsm(DType, Uplo, Trans, Diag, double, const MatView&, const MatView&) {
  throw NotImplemented("reference: trsm is not implemented yet");
}
}  // namespace tessera
