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

/// A dense n x c x h x w tensor in NCHW order, contiguous, owned by one device.
template <class T>
class Tensor4 {
  static_assert(std::is_same_v<T, float> || std::is_same_v<T, double>, "Tensor4<T>: T is float or double");

 public:
  Tensor4() = default;
  /// Allocates n x c x h x w elements (contents unspecified).
  Tensor4(const Device& device, std::int64_t n, std::int64_t c, std::int64_t h, std::int64_t w)
      : n_(n), c_(c), h_(h), w_(w) {
    const std::int64_t count = detail::checked_cells({n, c, h, w}, "Tensor4");
    buf_ = Buffer(device, checked_bytes(count, sizeof(T), "Tensor4 size"));
  }

  std::int64_t n() const { return n_; }  ///< images (filters: output channels K)
  std::int64_t c() const { return c_; }  ///< channels
  std::int64_t h() const { return h_; }  ///< height
  std::int64_t w() const { return w_; }  ///< width
  std::int64_t size() const { return n_ * c_ * h_ * w_; }  ///< number of elements
  const Device& device() const { return buf_.device(); }   ///< the owning device

  /// Copies all elements from the host in NCHW order; host.size() must be size().
  void upload(const std::vector<T>& host) {
    if (static_cast<std::int64_t>(host.size()) != size())
      throw DimensionMismatch("Tensor4::upload: host array has " + std::to_string(host.size()) +
                              " elements, tensor has " + std::to_string(size()));
    buf_.upload(host.data(), host.size() * sizeof(T));
  }
  /// A host copy in NCHW order.
  std::vector<T> to_host() const {
    std::vector<T> h(static_cast<std::size_t>(size()));
    buf_.download(h.data(), h.size() * sizeof(T));
    return h;
  }

  /// What a backend receives.
  TensorView view() const { return {buf_.handle(), n_, c_, h_, w_}; }

 private:
  Buffer buf_;
  std::int64_t n_ = 0, c_ = 0, h_ = 0, w_ = 0;
};

}  // namespace tessera
