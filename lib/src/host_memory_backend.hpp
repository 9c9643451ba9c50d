// Memory for backends whose device memory is host memory (reference, cpu): 64-byte aligned
// allocations (one cache line, one AVX-512 vector) and plain copies; nothing is queued, so
// synchronize() has nothing to wait for.
#pragma once

#include "tessera/backend.hpp"

namespace tessera {

class HostMemoryBackend : public Backend {
 public:
  void* allocate(std::size_t bytes) override;
  void deallocate(void* handle) noexcept override;
  void upload(void* dst, const void* host_src, std::size_t bytes) override;
  void download(void* host_dst, const void* src, std::size_t bytes) override;
  void copy(void* dst, const void* src, std::size_t bytes) override;
  void synchronize() override {}
};

}  // namespace tessera
