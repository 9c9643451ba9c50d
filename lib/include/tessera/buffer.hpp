/// \file
/// Buffer: one untyped allocation owned by a device; the storage behind every container.
#pragma once

#include <cstddef>
#include <cstdint>

#include "tessera/device.hpp"

namespace tessera {

/// One untyped allocation owned by a device; movable, not copyable.
class Buffer {
 public:
  Buffer() = default;
  /// Allocates `bytes` on `device` (throws OutOfMemory). Zero bytes gives an empty buffer.
  Buffer(const Device& device, std::size_t bytes);
  ~Buffer();
  Buffer(Buffer&& other) noexcept;  ///< takes the allocation; `other` is left empty
  Buffer& operator=(Buffer&& other) noexcept;  ///< frees this allocation, takes `other`'s
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;

  void upload(const void* host_src, std::size_t bytes);  ///< copies `bytes` from the host
  void download(void* host_dst, std::size_t bytes) const;  ///< copies `bytes` to the host

  const Device& device() const { return device_; }  ///< the owning device
  void* handle() const { return handle_; }  ///< the backend's handle (Backend::allocate)
  std::size_t bytes() const { return bytes_; }  ///< the size in bytes

 private:
  void release() noexcept;
  Device device_;
  void* handle_ = nullptr;
  std::size_t bytes_ = 0;
};

/// Checks that `count` elements of `elem_size` bytes fit in size_t; throws InvalidArgument
/// naming `what` for negative counts or overflow.
std::size_t checked_bytes(std::int64_t count, std::size_t elem_size, const char* what);

}  // namespace tessera
