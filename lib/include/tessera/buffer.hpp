// Buffer: one untyped allocation owned by a device; the storage behind every container.
#pragma once

#include <cstddef>
#include <cstdint>

#include "tessera/device.hpp"

namespace tessera {

class Buffer {
 public:
  Buffer() = default;
  // Allocates `bytes` on `device` (throws OutOfMemory). Zero bytes gives an empty buffer.
  Buffer(const Device& device, std::size_t bytes);
  ~Buffer();
  Buffer(Buffer&& other) noexcept;
  Buffer& operator=(Buffer&& other) noexcept;
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;

  void upload(const void* host_src, std::size_t bytes);
  void download(void* host_dst, std::size_t bytes) const;

  const Device& device() const { return device_; }
  void* handle() const { return handle_; }
  std::size_t bytes() const { return bytes_; }

 private:
  void release() noexcept;
  Device device_;
  void* handle_ = nullptr;
  std::size_t bytes_ = 0;
};

// Checks that `count` elements of `elem_size` bytes fit in size_t; throws InvalidArgument
// naming `what` for negative counts or overflow.
std::size_t checked_bytes(std::int64_t count, std::size_t elem_size, const char* what);

}  // namespace tessera
