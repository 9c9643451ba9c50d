#include "cpu/cpu_backend.hpp"
#include "tessera/errors.hpp"

namespace tessera {
void CpuBackend::spmv(DType, double, const CsrView&, const VecView&, double, const VecView&) {
  throw NotImplemented("cpu: spmv is not implemented yet");
}
}  // namespace tessera
