#include <unistd.h>

#include <cstdint>
#include <memory>

#include "builtin_backends.hpp"
#include "reference/reference_backend.hpp"

namespace tessera {

namespace {

std::uint64_t physical_memory_bytes() {
  const long pages = sysconf(_SC_PHYS_PAGES);
  const long page_size = sysconf(_SC_PAGE_SIZE);
  if (pages <= 0 || page_size <= 0) return 0;  // unknown on this system
  return static_cast<std::uint64_t>(pages) * static_cast<std::uint64_t>(page_size);
}

}  // namespace

ReferenceBackend::ReferenceBackend() = default;

DeviceInfo ReferenceBackend::info() const {
  DeviceInfo d;
  d.name = "Tessera reference (sequential, double accumulation)";
  d.vendor = "Tessera";
  d.type = "cpu";
  d.compute_units = 1;
  d.memory_bytes = physical_memory_bytes();
  d.details = {{"accumulation", "double"}, {"execution", "sequential, one thread"}};
  return d;
}

std::unique_ptr<Backend> make_reference_backend() { return std::make_unique<ReferenceBackend>(); }

}  // namespace tessera
