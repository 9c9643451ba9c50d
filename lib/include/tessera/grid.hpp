/// \file
/// Grid<T>: a 2D (ny x nx) or 3D (nz x ny x nx) structured grid, x fastest, owned by one device.
#pragma once

#include <cstdint>
#include <vector>

#include "tessera/buffer.hpp"
#include "tessera/errors.hpp"
#include "tessera/vector.hpp"

namespace tessera {

namespace detail {
// Throws InvalidArgument for a negative extent or an overflowing cell count; returns the count.
std::int64_t checked_cells(std::initializer_list<std::int64_t> extents, const char* what);
}  // namespace detail

/// A 2D (ny x nx) or 3D (nz x ny x nx) structured grid, x fastest, on one device. A handle to
/// device storage, as Vector: copies share the cells; clone() copies them.
template <class T>
class Grid {
  static_assert(std::is_same_v<T, float> || std::is_same_v<T, double>, "Grid<T>: T is float or double");

 public:
  Grid() = default;
  /// A 2D grid of ny x nx cells (contents unspecified).
  Grid(const Device& device, std::int64_t nx, std::int64_t ny) : Grid(device, 2, nx, ny, 1) {}
  /// A 3D grid of nz x ny x nx cells (contents unspecified).
  Grid(const Device& device, std::int64_t nx, std::int64_t ny, std::int64_t nz) : Grid(device, 3, nx, ny, nz) {}

  int ndim() const { return ndim_; }       ///< 2 or 3
  std::int64_t nx() const { return nx_; }  ///< cells along x (fastest)
  std::int64_t ny() const { return ny_; }  ///< cells along y
  std::int64_t nz() const { return nz_; }  ///< cells along z (1 in 2D)
  std::int64_t size() const { return nx_ * ny_ * nz_; }   ///< number of cells
  /// The owning device; an empty handle for a default-constructed grid.
  const Device& device() const {
    static const Device none;
    return buf_ ? buf_->device() : none;
  }

  /// A 2D grid holding a copy of `host` (ny x nx, x fastest).
  static Grid from_host(const Device& device, std::int64_t nx, std::int64_t ny, const std::vector<T>& host) {
    Grid g(device, nx, ny);
    g.upload(host);
    return g;
  }
  /// A 3D grid holding a copy of `host` (nz x ny x nx, x fastest).
  static Grid from_host(const Device& device, std::int64_t nx, std::int64_t ny, std::int64_t nz,
                        const std::vector<T>& host) {
    Grid g(device, nx, ny, nz);
    g.upload(host);
    return g;
  }
  /// Copies all cells from the host, x fastest; host.size() must be size().
  void upload(const std::vector<T>& host) {
    check_host(host.size(), "upload");
    buf_->upload(host.data(), host.size() * sizeof(T));
  }
  /// Copies all cells to host[0, n), x fastest; n must be size().
  void download(T* host, std::int64_t n) const {
    check_host(static_cast<std::size_t>(n), "download");
    buf_->download(host, static_cast<std::size_t>(n) * sizeof(T));
  }
  /// A host copy of all cells, x fastest.
  std::vector<T> to_host() const {
    std::vector<T> h(static_cast<std::size_t>(size()));
    download(h.data(), size());
    return h;
  }
  /// The cells as a vector of size() elements (x fastest), sharing the storage: norms, dots and
  /// axpys of grid states without copying.
  Vector<T> as_vector() const { return Vector<T>(buf_, 0, size()); }
  /// A new grid with a copy of the cells, copied on the default queue (no host wait).
  Grid clone() const {
    Grid g(device(), ndim_, nx_, ny_, nz_);
    g.buf_->copy_from(device().queue(), 0, *buf_, 0, buf_->bytes());
    return g;
  }

  /// What a backend receives.
  GridView view() const { return {buf_ ? buf_->handle() : nullptr, ndim_, nx_, ny_, nz_}; }

 private:
  Grid(const Device& device, int ndim, std::int64_t nx, std::int64_t ny, std::int64_t nz)
      : ndim_(ndim), nx_(nx), ny_(ny), nz_(nz) {
    const std::int64_t cells = detail::checked_cells({nx, ny, nz}, "Grid");
    buf_ = std::make_shared<Buffer>(device, checked_bytes(cells, sizeof(T), "Grid size"));
  }
  void check_host(std::size_t n, const char* what) const {
    if (static_cast<std::int64_t>(n) != size())
      throw DimensionMismatch(std::string("Grid::") + what + ": host array has " + std::to_string(n) +
                              " elements, grid has " + std::to_string(size()));
  }
  std::shared_ptr<Buffer> buf_;
  int ndim_ = 2;
  std::int64_t nx_ = 0, ny_ = 0, nz_ = 1;
};

}  // namespace tessera
