// The reference backend: plain sequential loops with double accumulation. It is the oracle every
// other backend is tested against, and a device users can select ("reference"). Readability wins
// over speed everywhere: each operation is the textbook loop nest, written once as a template
// over the element type (TypedBackend dispatches on the DType).
#pragma once

#include <memory>

#include "host_memory_backend.hpp"

namespace tessera {

class ReferenceBackend final : public HostMemoryBackend<ReferenceBackend> {
 public:
  ReferenceBackend();
  DeviceInfo info() const override;

  TESSERA_TYPED_BACKEND_OPERATIONS
};

}  // namespace tessera
