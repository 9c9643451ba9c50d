/// \file
/// Buffer: one untyped allocation on a device; the storage behind every container.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

#include "tessera/device.hpp"

namespace tessera {

class Queue;

/// One untyped allocation on a device, owned (allocated here, freed by the destructor) or
/// wrapped (memory the application owns, used in place); movable, not copyable. Containers hold
/// theirs through a shared_ptr, so views and copies of a container share it.
class Buffer {
 public:
  Buffer() = default;
  /// Allocates `bytes` on `device` (throws OutOfMemory). Zero bytes gives an empty buffer.
  Buffer(const Device& device, std::size_t bytes);
  /// Wraps memory the application owns (a device pointer on cuda, a cl_mem on opencl, a host
  /// pointer on host devices) of at least `bytes`, without copying; the memory must outlive the
  /// buffer. `keep_alive` is released when the buffer is (DLPack imports hold their tensor
  /// there). Throws InvalidArgument for null or memory the device cannot use.
  static Buffer wrap(const Device& device, void* native, std::size_t bytes, std::shared_ptr<void> keep_alive = nullptr);
  ~Buffer();
  Buffer(Buffer&& other) noexcept;  ///< takes the allocation; `other` is left empty
  Buffer& operator=(Buffer&& other) noexcept;  ///< frees this allocation, takes `other`'s
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;

  /// Copies `bytes` from the host to the start, on the default queue; returns when `host_src`
  /// may be reused (a host wait).
  void upload(const void* host_src, std::size_t bytes);
  /// Copies `bytes` from the start to the host, on the default queue (a host wait).
  void download(void* host_dst, std::size_t bytes) const;
  /// Copies `bytes` from the host to byte `offset`, ordered on q. blocking: returns when
  /// host_src may be reused (a host wait); otherwise host_src must be HostBuffer memory that
  /// stays untouched until q has passed this point.
  void upload(const Queue& q, std::size_t offset, const void* host_src, std::size_t bytes, bool blocking);
  /// Copies `bytes` from byte `offset` to the host, ordered on q; blocking as for upload.
  void download(const Queue& q, std::size_t offset, void* host_dst, std::size_t bytes, bool blocking) const;
  /// Copies `bytes` from byte src_offset of src (same device) to byte `offset` of this buffer,
  /// ordered on q; never waits. The two ranges must not overlap.
  void copy_from(const Queue& q, std::size_t offset, const Buffer& src, std::size_t src_offset, std::size_t bytes);

  const Device& device() const { return device_; }  ///< the owning device
  void* handle() const { return handle_; }  ///< the backend's handle (Backend::allocate / wrap_memory)
  std::size_t bytes() const { return bytes_; }  ///< the size in bytes
  bool owned() const { return owned_; }  ///< false for wrapped memory

 private:
  void release() noexcept;
  void check_range(const char* what, std::size_t offset, std::size_t bytes) const;
  Device device_;
  void* handle_ = nullptr;
  std::size_t bytes_ = 0;
  bool owned_ = true;
  std::shared_ptr<void> keep_alive_;
};

/// Checks that `count` elements of `elem_size` bytes fit in size_t; throws InvalidArgument
/// naming `what` for negative counts or overflow.
std::size_t checked_bytes(std::int64_t count, std::size_t elem_size, const char* what);

}  // namespace tessera
