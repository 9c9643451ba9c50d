#include "cpu/cpu_backend.hpp"
#include "tessera/errors.hpp"

namespace tessera {
std::shared_ptr<SptrsvPlanData> CpuBackend::sptrsv_analyze(DType, Uplo, Diag, const CsrView&) {
  throw NotImplemented("cpu: sptrsv is not implemented yet");
}
void CpuBackend::sptrsv_solve(DType, const SptrsvPlanData&, const CsrView&, const VecView&, const VecView&) {
  throw NotImplemented("cpu: sptrsv is not implemented yet");
}
}  // namespace tessera
