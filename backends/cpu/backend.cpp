#include <memory>

#include "builtin_backends.hpp"
#include "cpu/cpu_backend.hpp"

namespace tessera {

CpuBackend::CpuBackend() = default;

DeviceInfo CpuBackend::info() const {
  DeviceInfo d;
  d.name = "CPU";
  d.type = "cpu";
  return d;
}

std::unique_ptr<Backend> make_cpu_backend() { return std::make_unique<CpuBackend>(); }

}  // namespace tessera
