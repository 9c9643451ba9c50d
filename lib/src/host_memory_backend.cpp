#include "host_memory_backend.hpp"

#include <cstdlib>
#include <cstring>
#include <string>

#include "tessera/errors.hpp"

namespace tessera::host_memory {

void* allocate(std::size_t bytes) {
  constexpr std::size_t alignment = 64;
  const std::size_t rounded = (bytes + alignment - 1) / alignment * alignment;
  if (rounded < bytes) throw OutOfMemory("host allocation of " + std::to_string(bytes) + " bytes overflows");
  void* p = std::aligned_alloc(alignment, rounded);
  if (p == nullptr) throw OutOfMemory("host allocation of " + std::to_string(bytes) + " bytes failed");
  return p;
}

void deallocate(void* handle) noexcept { std::free(handle); }

void copy(void* dst, const void* src, std::size_t bytes) { std::memcpy(dst, src, bytes); }

}  // namespace tessera::host_memory
