#include "cpu/cpu_backend.hpp"
#include "tessera/errors.hpp"

namespace tessera {
void CpuBackend::gemm(DType, Trans, Trans, double, const MatView&, const MatView&, double, const MatView&) {
  throw NotImplemented("cpu: gemm is not implemented yet");
}
}  // namespace tessera
