#include "reference/reference_backend.hpp"
#include "tessera/errors.hpp"

namespace tessera {
void ReferenceBackend::stencil(DType, const StencilSpec&, const GridView&, int) {
  throw NotImplemented("reference: stencil is not implemented yet");
}
}  // namespace tessera
