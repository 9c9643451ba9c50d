/// \file
/// Tensor4<T>: a dense n x c x h x w tensor in NCHW order (also used for KCRS filters and NKPQ
/// outputs), contiguous, owned by one device.
#pragma once

#include <cstdint>
#include <vector>

#include "tessera/buffer.hpp"
#include "tessera/errors.hpp"
#include "tessera/grid.hpp"

namespace tessera {

/// A dense n x c x h x w tensor in NCHW order, contiguous, on one device. A handle to device
/// storage, as Vector: copies share the elements; clone() copies them.
template <class T>
class Tensor4 {
  static_assert(std::is_same_v<T, float> || std::is_same_v<T, double>, "Tensor4<T>: T is float or double");

 public:
  Tensor4() = default;
  /// Allocates n x c x h x w elements (contents unspecified).
  Tensor4(const Device& device, std::int64_t n, std::int64_t c, std::int64_t h, std::int64_t w)
      : n_(n), c_(c), h_(h), w_(w) {
    const std::int64_t count = detail::checked_cells({n, c, h, w}, "Tensor4");
    buf_ = std::make_shared<Buffer>(device, checked_bytes(count, sizeof(T), "Tensor4 size"));
  }
  /// A tensor holding a copy of `host` (NCHW order).
  static Tensor4 from_host(const Device& device, std::int64_t n, std::int64_t c, std::int64_t h, std::int64_t w,
                           const std::vector<T>& host) {
    Tensor4 t(device, n, c, h, w);
    t.upload(host);
    return t;
  }

  std::int64_t n() const { return n_; }  ///< images (filters: output channels K)
  std::int64_t c() const { return c_; }  ///< channels
  std::int64_t h() const { return h_; }  ///< height
  std::int64_t w() const { return w_; }  ///< width
  std::int64_t size() const { return n_ * c_ * h_ * w_; }  ///< number of elements
  /// The owning device; an empty handle for a default-constructed tensor.
  const Device& device() const {
    static const Device none;
    return buf_ ? buf_->device() : none;
  }

  /// Copies all elements from the host in NCHW order; host.size() must be size().
  void upload(const std::vector<T>& host) {
    check_host(host.size(), "upload");
    buf_->upload(host.data(), host.size() * sizeof(T));
  }
  /// Copies all elements to host[0, count) in NCHW order; count must be size().
  void download(T* host, std::int64_t count) const {
    check_host(static_cast<std::size_t>(count), "download");
    buf_->download(host, static_cast<std::size_t>(count) * sizeof(T));
  }
  /// A host copy in NCHW order.
  std::vector<T> to_host() const {
    std::vector<T> h(static_cast<std::size_t>(size()));
    download(h.data(), size());
    return h;
  }
  /// The elements as a vector of size() elements (NCHW order), sharing the storage.
  Vector<T> as_vector() const { return Vector<T>(buf_, 0, size()); }
  /// A new tensor with a copy of the elements, copied on the default queue (no host wait).
  Tensor4 clone() const {
    Tensor4 t(device(), n_, c_, h_, w_);
    t.buf_->copy_from(device().queue(), 0, *buf_, 0, buf_->bytes());
    return t;
  }

  /// What a backend receives.
  TensorView view() const { return {buf_ ? buf_->handle() : nullptr, n_, c_, h_, w_}; }

 private:
  void check_host(std::size_t count, const char* what) const {
    if (static_cast<std::int64_t>(count) != size())
      throw DimensionMismatch(std::string("Tensor4::") + what + ": host array has " + std::to_string(count) +
                              " elements, tensor has " + std::to_string(size()));
  }
  std::shared_ptr<Buffer> buf_;
  std::int64_t n_ = 0, c_ = 0, h_ = 0, w_ = 0;
};

}  // namespace tessera
