/// \file
/// HostBuffer<T>: page-locked host memory for transfers that overlap with computation.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "tessera/buffer.hpp"
#include "tessera/errors.hpp"
#include "tessera/queue.hpp"
#include "tessera/vector.hpp"

namespace tessera {

/// n elements of host memory that a device can transfer to and from asynchronously
/// (cudaMallocHost on cuda; plain aligned memory on host devices). copy() between a HostBuffer
/// and a Vector, given a queue, returns at once: the transfer runs in queue order, so a
/// transfer on one queue overlaps with kernels on another. The host must not touch the
/// elements until the queue has passed the transfer (q.synchronize(), or an event). Movable,
/// not copyable.
template <class T>
class HostBuffer {
 public:
  HostBuffer() = default;
  /// Allocates n elements for transfers with `device` (throws OutOfMemory).
  HostBuffer(const Device& device, std::int64_t n)
      : device_(device), n_(n), p_(static_cast<T*>(allocate(device, checked_bytes(n, sizeof(T), "HostBuffer size"))),
                                   Deleter{device}) {}

  std::int64_t size() const { return n_; }        ///< number of elements
  T* data() { return p_.get(); }                  ///< the elements
  const T* data() const { return p_.get(); }      ///< the elements
  T& operator[](std::int64_t i) { return p_.get()[i]; }              ///< element i
  const T& operator[](std::int64_t i) const { return p_.get()[i]; }  ///< element i
  const Device& device() const { return device_; }  ///< the device it transfers with

 private:
  static void* allocate(const Device& d, std::size_t bytes) {
    if (!d) throw InvalidArgument("HostBuffer: the device handle is empty (use Device::open)");
    return bytes == 0 ? nullptr : d.backend().allocate_host(bytes);
  }
  struct Deleter {
    Device device;
    void operator()(T* p) const noexcept {
      if (p != nullptr) device.backend().deallocate_host(p);
    }
  };
  Device device_;
  std::int64_t n_ = 0;
  std::unique_ptr<T, Deleter> p_;
};

/// Host to device without waiting: dst = src, ordered on q (sizes must match).
template <class T>
void copy(const Queue& q, const HostBuffer<T>& src, Vector<T>& dst) {
  if (src.device() != dst.device())
    throw DeviceMismatch("copy: the HostBuffer was made for " + src.device().spec() + ", the vector lives on " +
                         dst.device().spec());
  dst.upload(q, src.data(), src.size(), false);
}

/// Device to host without waiting: dst = src, ordered on q (sizes must match); the elements are
/// there once q has passed this point.
template <class T>
void copy(const Queue& q, const Vector<T>& src, HostBuffer<T>& dst) {
  if (src.device() != dst.device())
    throw DeviceMismatch("copy: the HostBuffer was made for " + dst.device().spec() + ", the vector lives on " +
                         src.device().spec());
  src.download(q, dst.data(), dst.size(), false);
}

}  // namespace tessera
