/// \file
/// DenseMatrix<T>: rows x cols, row-major with leading dimension ld >= cols, owned by one device.
#pragma once

#include <cstdint>
#include <vector>

#include "tessera/buffer.hpp"
#include "tessera/errors.hpp"

namespace tessera {

namespace detail {
// Throws InvalidArgument unless rows, cols >= 0 and ld >= max(cols, 1); returns rows * ld bytes.
std::size_t dense_bytes(std::int64_t rows, std::int64_t cols, std::int64_t ld, std::size_t elem_size);
// Copies rows x cols between two row-major layouts of different leading dimensions.
void copy_rows(void* dst, std::int64_t dst_ld, const void* src, std::int64_t src_ld, std::int64_t rows,
               std::int64_t cols, std::size_t elem_size);
}  // namespace detail

/// rows x cols, row-major with leading dimension ld >= cols, owned by one device.
template <class T>
class DenseMatrix {
  static_assert(std::is_same_v<T, float> || std::is_same_v<T, double>, "DenseMatrix<T>: T is float or double");

 public:
  DenseMatrix() = default;
  /// Allocates rows x cols (contents unspecified); ld = 0 means ld = cols.
  DenseMatrix(const Device& device, std::int64_t rows, std::int64_t cols, std::int64_t ld = 0)
      : rows_(rows), cols_(cols), ld_(ld == 0 ? (cols > 0 ? cols : 1) : ld) {
    buf_ = Buffer(device, detail::dense_bytes(rows_, cols_, ld_, sizeof(T)));
  }
  /// From a host array of rows x cols, row-major with leading dimension host_ld (0: cols).
  static DenseMatrix from_host(const Device& device, std::int64_t rows, std::int64_t cols, const std::vector<T>& host,
                               std::int64_t ld = 0) {
    DenseMatrix m(device, rows, cols, ld);
    if (static_cast<std::int64_t>(host.size()) != rows * cols)
      throw DimensionMismatch("DenseMatrix::from_host: host array has " + std::to_string(host.size()) +
                              " elements, expected rows*cols = " + std::to_string(rows * cols));
    m.upload(host.data(), cols);
    return m;
  }

  std::int64_t rows() const { return rows_; }  ///< number of rows
  std::int64_t cols() const { return cols_; }  ///< number of columns
  std::int64_t ld() const { return ld_; }      ///< leading dimension (elements from row to row)
  const Device& device() const { return buf_.device(); }  ///< the owning device

  /// Copies from the host. host: rows x cols row-major with leading dimension host_ld >= cols (0: cols).
  void upload(const T* host, std::int64_t host_ld = 0) {
    if (host_ld == 0) host_ld = cols_;
    check_host_ld(host_ld, "upload");
    if (host_ld == ld_ || rows_ <= 1) {
      buf_.upload(host, span_bytes(host_ld));
      return;
    }
    std::vector<T> staged(static_cast<std::size_t>(rows_ * ld_));
    detail::copy_rows(staged.data(), ld_, host, host_ld, rows_, cols_, sizeof(T));
    buf_.upload(staged.data(), staged.size() * sizeof(T));
  }
  /// Copies to the host, laid out as for upload.
  void download(T* host, std::int64_t host_ld = 0) const {
    if (host_ld == 0) host_ld = cols_;
    check_host_ld(host_ld, "download");
    std::vector<T> staged(static_cast<std::size_t>(rows_ * ld_));
    buf_.download(staged.data(), staged.size() * sizeof(T));
    detail::copy_rows(host, host_ld, staged.data(), ld_, rows_, cols_, sizeof(T));
  }
  /// A host copy: rows x cols, leading dimension cols.
  std::vector<T> to_host() const {
    std::vector<T> h(static_cast<std::size_t>(rows_ * cols_));
    if (!h.empty()) download(h.data(), cols_);
    return h;
  }

  /// What a backend receives.
  MatView view() const { return {buf_.handle(), rows_, cols_, ld_}; }

 private:
  void check_host_ld(std::int64_t host_ld, const char* what) const {
    if (host_ld < cols_)
      throw InvalidArgument(std::string("DenseMatrix::") + what + ": host leading dimension " +
                            std::to_string(host_ld) + " is smaller than cols = " + std::to_string(cols_));
  }
  std::size_t span_bytes(std::int64_t host_ld) const {
    return rows_ == 0 ? 0 : static_cast<std::size_t>((rows_ - 1) * host_ld + cols_) * sizeof(T);
  }
  Buffer buf_;
  std::int64_t rows_ = 0, cols_ = 0, ld_ = 1;
};

}  // namespace tessera
