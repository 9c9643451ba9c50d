// The reference backend: plain sequential loops with double accumulation. It is the oracle every
// other backend is tested against, and a device users can select ("reference"). Readability wins
// over speed everywhere: each operation is the textbook loop nest, written once per dtype through
// a template and dispatched on the DType at the top of each method.
#pragma once

#include <memory>

#include "host_memory_backend.hpp"

namespace tessera {

class ReferenceBackend final : public HostMemoryBackend {
 public:
  ReferenceBackend();
  DeviceInfo info() const override;

#include "tessera/backend_operation_overrides.inc"
};

}  // namespace tessera
