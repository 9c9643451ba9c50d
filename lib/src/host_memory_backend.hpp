// Memory for backends whose device memory is host memory (reference, cpu): 64-byte aligned
// allocations (one cache line, one AVX-512 vector) and plain copies; nothing is queued, so
// synchronize() has nothing to wait for. The functions are written once, out of line, in
// namespace host_memory (a backend's own scratch memory uses them too); HostMemoryBackend<Derived>
// puts them under a backend that takes its operations from TypedBackend<Derived>:
//
//   class CpuBackend final : public HostMemoryBackend<CpuBackend> { ... };
#pragma once

#include <cstddef>

#include "tessera/typed_backend.hpp"

namespace tessera {

namespace host_memory {
void* allocate(std::size_t bytes);  // throws OutOfMemory
void deallocate(void* handle) noexcept;
void copy(void* dst, const void* src, std::size_t bytes);
}  // namespace host_memory

template <class Derived>
class HostMemoryBackend : public TypedBackend<Derived> {
 public:
  void* allocate(std::size_t bytes) override { return host_memory::allocate(bytes); }
  void deallocate(void* handle) noexcept override { host_memory::deallocate(handle); }
  void upload(void* dst, const void* host_src, std::size_t bytes) override { host_memory::copy(dst, host_src, bytes); }
  void download(void* host_dst, const void* src, std::size_t bytes) override {
    host_memory::copy(host_dst, src, bytes);
  }
  void copy(void* dst, const void* src, std::size_t bytes) override { host_memory::copy(dst, src, bytes); }
  void synchronize() override {}
};

}  // namespace tessera
