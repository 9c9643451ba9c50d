// The CPU backend: OpenMP threads + Highway SIMD kernels (kernels/cpu/), the SIMD target chosen
// at run time (capped by TESSERA_CPU_TARGET).
#pragma once

#include <cstddef>
#include <mutex>

#include "host_memory_backend.hpp"

namespace tessera {

class CpuBackend final : public HostMemoryBackend {
 public:
  CpuBackend();
  DeviceInfo info() const override;

#include "tessera/backend_operation_overrides.inc"

 private:
  // Host memory that grows on demand and is freed with the backend (or the Scratch).
  struct Scratch {
    explicit Scratch(CpuBackend* o) : owner(o) {}
    Scratch(const Scratch&) = delete;
    Scratch& operator=(const Scratch&) = delete;
    ~Scratch();
    void* reserve(std::size_t bytes);
    CpuBackend* owner;
    std::mutex mutex;
    void* data = nullptr;
    std::size_t bytes = 0;
  };
  Scratch stencil_scratch_{this};  // stencil's second grid
};

}  // namespace tessera
