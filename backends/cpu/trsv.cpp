#include "cpu/cpu_backend.hpp"
#include "tessera/errors.hpp"

namespace tessera {
void CpuBackend::trsv(DType, Uplo, Trans, Diag, const MatView&, const VecView&) {
  throw NotImplemented("cpu: trsv is not implemented yet");
}
void CpuBackend::trsm(DType, Uplo, Trans, Diag, double, const MatView&, const MatView&) {
  throw NotImplemented("cpu: trsm is not implemented yet");
}
}  // namespace tessera
