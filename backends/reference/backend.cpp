#include <memory>

#include "builtin_backends.hpp"
#include "host_machine.hpp"
#include "reference/reference_backend.hpp"

namespace tessera {

ReferenceBackend::ReferenceBackend() = default;

DeviceInfo ReferenceBackend::info() const {
  DeviceInfo d;
  d.name = "Tessera reference (sequential, double accumulation)";
  d.vendor = "Tessera";
  d.type = "cpu";
  d.compute_units = 1;
  d.memory_bytes = host::machine().memory_bytes;
  d.details = {{"accumulation", "double"}, {"execution", "sequential, one thread"}};
  return d;
}

std::unique_ptr<Backend> make_reference_backend() { return std::make_unique<ReferenceBackend>(); }

}  // namespace tessera
