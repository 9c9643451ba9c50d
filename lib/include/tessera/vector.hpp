/// \file
/// Vector<T>: n elements of float or double owned by one device.
#pragma once

#include <cstdint>
#include <vector>

#include "tessera/buffer.hpp"
#include "tessera/errors.hpp"

namespace tessera {

/// n elements of float or double owned by one device.
template <class T>
class Vector {
  static_assert(std::is_same_v<T, float> || std::is_same_v<T, double>, "Vector<T>: T is float or double");

 public:
  Vector() = default;
  /// Allocates n elements (contents unspecified).
  Vector(const Device& device, std::int64_t n) : buf_(device, checked_bytes(n, sizeof(T), "Vector size")), n_(n) {}
  /// A vector on `device` holding a copy of `host`.
  static Vector from_host(const Device& device, const std::vector<T>& host) {
    Vector v(device, static_cast<std::int64_t>(host.size()));
    v.upload(host);
    return v;
  }

  std::int64_t size() const { return n_; }  ///< number of elements
  const Device& device() const { return buf_.device(); }  ///< the owning device

  /// Copies n elements from the host; n must be size() (else DimensionMismatch).
  void upload(const T* host, std::int64_t n) {
    if (n != n_)
      throw DimensionMismatch("Vector::upload: host array has " + std::to_string(n) + " elements, vector has " +
                              std::to_string(n_));
    buf_.upload(host, static_cast<std::size_t>(n_) * sizeof(T));
  }
  /// Copies all of `host`; host.size() must be size().
  void upload(const std::vector<T>& host) { upload(host.data(), static_cast<std::int64_t>(host.size())); }
  /// Copies n elements to the host; n must be size() (else DimensionMismatch).
  void download(T* host, std::int64_t n) const {
    if (n != n_)
      throw DimensionMismatch("Vector::download: host array has " + std::to_string(n) + " elements, vector has " +
                              std::to_string(n_));
    buf_.download(host, static_cast<std::size_t>(n_) * sizeof(T));
  }
  /// A host copy.
  std::vector<T> to_host() const {
    std::vector<T> h(static_cast<std::size_t>(n_));
    download(h.data(), n_);
    return h;
  }

  /// What a backend receives.
  VecView view() const { return {buf_.handle(), n_}; }

 private:
  Buffer buf_;
  std::int64_t n_ = 0;
};

}  // namespace tessera
