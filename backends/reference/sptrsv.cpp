#include "reference/reference_backend.hpp"
#include "tessera/errors.hpp"

namespace tessera {
std::shared_ptr<SptrsvPlanData> ReferenceBackend::sptrsv_analyze(DType, Uplo, Diag, const CsrView&) {
  throw NotImplemented("reference: sptrsv is not implemented yet");
}
void ReferenceBackend::sptrsv_solve(DType, const SptrsvPlanData&, const CsrView&, const VecView&, const VecView&) {
  throw NotImplemented("reference: sptrsv is not implemented yet");
}
}  // namespace tessera
