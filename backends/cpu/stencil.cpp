#include "cpu/cpu_backend.hpp"
#include "tessera/errors.hpp"

namespace tessera {
void CpuBackend::stencil(DType, const StencilSpec&, const GridView&, int) {
  throw NotImplemented("cpu: stencil is not implemented yet");
}
}  // namespace tessera
