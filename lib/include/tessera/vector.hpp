/// \file
/// Vector<T>: n elements of float or double on one device, or a view of part of them.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "tessera/buffer.hpp"
#include "tessera/errors.hpp"
#include "tessera/queue.hpp"

namespace tessera {

namespace detail {
// Throws InvalidArgument unless [offset, offset + length) lies within [0, size); `what` names
// the call.
void check_subrange(const char* what, std::int64_t offset, std::int64_t length, std::int64_t size);
}  // namespace detail

/// n elements of float or double on one device.
///
/// A handle to device storage, as a Kokkos::View: copies of a Vector, and views made by
/// sub(), share the elements (a copy never moves data; clone() does). Storage lives while any
/// handle to it does. The transfers without a queue run on the device's default queue and
/// wait; those taking a queue are ordered on it.
template <class T>
class Vector {
  static_assert(std::is_same_v<T, float> || std::is_same_v<T, double>, "Vector<T>: T is float or double");

 public:
  using value_type = T;  ///< the element type
  Vector() = default;
  /// Allocates n elements (contents unspecified).
  Vector(const Device& device, std::int64_t n)
      : buf_(std::make_shared<Buffer>(device, checked_bytes(n, sizeof(T), "Vector size"))), n_(n) {}
  /// A vector on `device` holding a copy of `host`.
  static Vector from_host(const Device& device, const std::vector<T>& host) {
    Vector v(device, static_cast<std::int64_t>(host.size()));
    v.upload(host);
    return v;
  }
  /// A vector over n elements the application owns (a device pointer on cuda, a cl_mem on
  /// opencl, a host pointer on host devices), used in place, never freed by Tessera; the memory
  /// must outlive every handle to the vector. Throws InvalidArgument for null or memory the
  /// device cannot use.
  static Vector wrap(const Device& device, void* native, std::int64_t n) {
    return Vector(std::make_shared<Buffer>(Buffer::wrap(device, native, checked_bytes(n, sizeof(T), "Vector size"))),
                  0, n);
  }
  /// A vector over `n` elements of `storage` starting at element `offset` (what sub() and the
  /// containers' as_vector() build); throws InvalidArgument when they do not fit.
  Vector(std::shared_ptr<Buffer> storage, std::int64_t offset, std::int64_t n)
      : buf_(std::move(storage)), offset_(offset), n_(n) {
    if (!buf_) throw InvalidArgument("Vector: the storage is null");
    detail::check_subrange("Vector", offset, n, static_cast<std::int64_t>(buf_->bytes() / sizeof(T)));
  }

  std::int64_t size() const { return n_; }  ///< number of elements
  /// The owning device; an empty handle for a default-constructed vector.
  const Device& device() const {
    static const Device none;
    return buf_ ? buf_->device() : none;
  }
  std::int64_t offset() const { return offset_; }  ///< elements from the start of the storage
  /// The storage (shared by views); null for a default-constructed vector.
  const std::shared_ptr<Buffer>& storage() const { return buf_; }
  /// The native handle of the storage (see wrap); element 0 of this vector is element offset()
  /// of it.
  void* native_handle() const { return buf_ ? buf_->handle() : nullptr; }

  /// Elements [offset, offset + length) as a vector sharing this one's storage. Throws
  /// InvalidArgument when the range does not lie within this vector.
  Vector sub(std::int64_t offset, std::int64_t length) const {
    detail::check_subrange("Vector::sub", offset, length, n_);
    Vector v = *this;
    v.offset_ = offset_ + offset;
    v.n_ = length;
    return v;
  }
  /// A new vector with a copy of the elements, copied on the default queue (no host wait).
  Vector clone() const { return clone(device().queue()); }
  /// A new vector with a copy of the elements, copied on q (no host wait).
  Vector clone(const Queue& q) const {
    Vector v(device(), n_);
    v.buf_->copy_from(q, 0, *buf_, bytes_offset(), bytes());
    return v;
  }

  /// Copies n elements from the host; n must be size() (else DimensionMismatch).
  void upload(const T* host, std::int64_t n) { upload(device().queue(), host, n, true); }
  /// Copies all of `host`; host.size() must be size().
  void upload(const std::vector<T>& host) { upload(host.data(), static_cast<std::int64_t>(host.size())); }
  /// Copies n elements to the host; n must be size() (else DimensionMismatch).
  void download(T* host, std::int64_t n) const { download(device().queue(), host, n, true); }
  /// A host copy.
  std::vector<T> to_host() const {
    std::vector<T> h(static_cast<std::size_t>(n_));
    download(h.data(), n_);
    return h;
  }
  /// Transfers ordered on q; blocking as for Buffer::upload (non-blocking needs HostBuffer
  /// memory: see copy() in host_buffer.hpp).
  ///@{
  void upload(const Queue& q, const T* host, std::int64_t n, bool blocking) {
    check_host("upload", n);
    if (n_ > 0) buf_->upload(q, bytes_offset(), host, bytes(), blocking);
  }
  void download(const Queue& q, T* host, std::int64_t n, bool blocking) const {
    check_host("download", n);
    if (n_ > 0) buf_->download(q, bytes_offset(), host, bytes(), blocking);
  }
  ///@}

  /// What a backend receives.
  VecView view() const { return {buf_ ? buf_->handle() : nullptr, n_, offset_}; }

 private:
  void check_host(const char* what, std::int64_t n) const {
    if (n != n_)
      throw DimensionMismatch(std::string("Vector::") + what + ": host array has " + std::to_string(n) +
                              " elements, vector has " + std::to_string(n_));
  }
  std::size_t bytes_offset() const { return static_cast<std::size_t>(offset_) * sizeof(T); }
  std::size_t bytes() const { return static_cast<std::size_t>(n_) * sizeof(T); }
  std::shared_ptr<Buffer> buf_;
  std::int64_t offset_ = 0;
  std::int64_t n_ = 0;
};

}  // namespace tessera
