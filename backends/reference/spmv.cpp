#include "reference/reference_backend.hpp"
#include "tessera/errors.hpp"

namespace tessera {
void ReferenceBackend::spmv(DType, double, const CsrView&, const VecView&, double, const VecView&) {
  throw NotImplemented("reference: spmv is not implemented yet");
}
}  // namespace tessera
