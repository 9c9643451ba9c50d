/// \file
/// DenseMatrix<T>: rows x cols, row-major with leading dimension ld >= cols, owned by one device.
#pragma once

#include <cstdint>
#include <vector>

#include "tessera/buffer.hpp"
#include "tessera/errors.hpp"
#include "tessera/vector.hpp"

namespace tessera {

namespace detail {
// Throws InvalidArgument unless rows, cols >= 0 and ld >= max(cols, 1); returns rows * ld bytes.
std::size_t dense_bytes(std::int64_t rows, std::int64_t cols, std::int64_t ld, std::size_t elem_size);
// Copies rows x cols between two row-major layouts of different leading dimensions.
void copy_rows(void* dst, std::int64_t dst_ld, const void* src, std::int64_t src_ld, std::int64_t rows,
               std::int64_t cols, std::size_t elem_size);
}  // namespace detail

/// rows x cols, row-major with leading dimension ld >= cols, on one device.
///
/// A handle to device storage, as Vector: copies and blocks (block(), rows_block(),
/// cols_block()) share the elements; clone() copies them.
template <class T>
class DenseMatrix {
  static_assert(std::is_same_v<T, float> || std::is_same_v<T, double>, "DenseMatrix<T>: T is float or double");

 public:
  DenseMatrix() = default;
  /// Allocates rows x cols (contents unspecified); ld = 0 means ld = cols.
  DenseMatrix(const Device& device, std::int64_t rows, std::int64_t cols, std::int64_t ld = 0)
      : rows_(rows), cols_(cols), ld_(ld == 0 ? (cols > 0 ? cols : 1) : ld) {
    buf_ = std::make_shared<Buffer>(device, detail::dense_bytes(rows_, cols_, ld_, sizeof(T)));
  }
  /// A matrix over memory the application owns (see Vector::wrap): rows x cols with leading
  /// dimension ld (0: cols), used in place.
  static DenseMatrix wrap(const Device& device, void* native, std::int64_t rows, std::int64_t cols,
                          std::int64_t ld = 0) {
    DenseMatrix m;
    m.rows_ = rows;
    m.cols_ = cols;
    m.ld_ = ld == 0 ? (cols > 0 ? cols : 1) : ld;
    m.buf_ = std::make_shared<Buffer>(Buffer::wrap(device, native, detail::dense_bytes(rows, cols, m.ld_, sizeof(T))));
    return m;
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
  /// The owning device; an empty handle for a default-constructed matrix.
  const Device& device() const {
    static const Device none;
    return buf_ ? buf_->device() : none;
  }
  /// A matrix over `storage` with element (0, 0) at element `offset` (what block() and DLPack
  /// imports build); throws InvalidArgument when it does not fit or ld < cols.
  DenseMatrix(std::shared_ptr<Buffer> storage, std::int64_t offset, std::int64_t rows, std::int64_t cols,
              std::int64_t ld)
      : buf_(std::move(storage)), rows_(rows), cols_(cols), ld_(ld), offset_(offset) {
    if (!buf_) throw InvalidArgument("DenseMatrix: the storage is null");
    detail::dense_bytes(rows, cols, ld, sizeof(T));  // shape and ld checks
    const std::int64_t span = rows == 0 || cols == 0 ? 0 : (rows - 1) * ld + cols;
    detail::check_subrange("DenseMatrix", offset, span, static_cast<std::int64_t>(buf_->bytes() / sizeof(T)));
  }
  std::int64_t offset() const { return offset_; }  ///< elements from the start of the storage to (0, 0)
  /// The storage (shared by blocks); null for a default-constructed matrix.
  const std::shared_ptr<Buffer>& storage() const { return buf_; }
  /// The native handle of the storage (see Vector::native_handle).
  void* native_handle() const { return buf_ ? buf_->handle() : nullptr; }

  /// Rows [r0, r0 + nr) and columns [c0, c0 + nc) as a matrix sharing this one's storage (same
  /// ld). Throws InvalidArgument when the block does not lie within the matrix.
  DenseMatrix block(std::int64_t r0, std::int64_t c0, std::int64_t nr, std::int64_t nc) const {
    detail::check_subrange("DenseMatrix::block rows", r0, nr, rows_);
    detail::check_subrange("DenseMatrix::block columns", c0, nc, cols_);
    DenseMatrix m = *this;
    m.offset_ = offset_ + r0 * ld_ + c0;
    m.rows_ = nr;
    m.cols_ = nc;
    return m;
  }
  /// Rows [r0, r0 + nr), all columns.
  DenseMatrix rows_block(std::int64_t r0, std::int64_t nr) const { return block(r0, 0, nr, cols_); }
  /// Columns [c0, c0 + nc), all rows.
  DenseMatrix cols_block(std::int64_t c0, std::int64_t nc) const { return block(0, c0, rows_, nc); }
  /// The elements as a vector of rows * cols, sharing the storage; only for a matrix without
  /// gaps between rows (ld == cols, or one row), else InvalidArgument.
  Vector<T> as_vector() const {
    if (ld_ != cols_ && rows_ > 1)
      throw InvalidArgument("DenseMatrix::as_vector: ld = " + std::to_string(ld_) + " > cols = " +
                            std::to_string(cols_) + ": the rows are not contiguous");
    return Vector<T>(buf_, offset_, rows_ * cols_);
  }
  /// A new matrix (ld = cols) with a copy of the elements, copied on the default queue.
  DenseMatrix clone() const {
    DenseMatrix m(device(), rows_, cols_);
    const Queue q = device().queue();
    if (ld_ == cols_ || rows_ <= 1) {
      m.buf_->copy_from(q, 0, *buf_, byte_offset(), static_cast<std::size_t>(rows_ * cols_) * sizeof(T));
    } else {
      for (std::int64_t i = 0; i < rows_; ++i)
        m.buf_->copy_from(q, static_cast<std::size_t>(i * cols_) * sizeof(T), *buf_,
                          byte_offset() + static_cast<std::size_t>(i * ld_) * sizeof(T),
                          static_cast<std::size_t>(cols_) * sizeof(T));
    }
    return m;
  }

  /// Copies from the host. host: rows x cols row-major with leading dimension host_ld >= cols (0: cols).
  void upload(const T* host, std::int64_t host_ld = 0) {
    if (host_ld == 0) host_ld = cols_;
    check_host_ld(host_ld, "upload");
    if (rows_ == 0 || cols_ == 0) return;
    const Queue q = device().queue();
    if (host_ld == ld_ || rows_ <= 1) {
      buf_->upload(q, byte_offset(), host, span_bytes(host_ld), true);
      return;
    }
    // A block keeps the elements between its rows that lie outside it: read them first.
    std::vector<T> staged(static_cast<std::size_t>((rows_ - 1) * ld_ + cols_));
    if (cols_ != ld_) buf_->download(q, byte_offset(), staged.data(), staged.size() * sizeof(T), true);
    detail::copy_rows(staged.data(), ld_, host, host_ld, rows_, cols_, sizeof(T));
    buf_->upload(q, byte_offset(), staged.data(), staged.size() * sizeof(T), true);
  }
  /// Copies to the host, laid out as for upload.
  void download(T* host, std::int64_t host_ld = 0) const {
    if (host_ld == 0) host_ld = cols_;
    check_host_ld(host_ld, "download");
    if (rows_ == 0 || cols_ == 0) return;
    std::vector<T> staged(static_cast<std::size_t>((rows_ - 1) * ld_ + cols_));
    buf_->download(device().queue(), byte_offset(), staged.data(), staged.size() * sizeof(T), true);
    detail::copy_rows(host, host_ld, staged.data(), ld_, rows_, cols_, sizeof(T));
  }
  /// A host copy: rows x cols, leading dimension cols.
  std::vector<T> to_host() const {
    std::vector<T> h(static_cast<std::size_t>(rows_ * cols_));
    if (!h.empty()) download(h.data(), cols_);
    return h;
  }

  /// What a backend receives.
  MatView view() const { return {buf_ ? buf_->handle() : nullptr, rows_, cols_, ld_, offset_}; }

 private:
  void check_host_ld(std::int64_t host_ld, const char* what) const {
    if (host_ld < cols_)
      throw InvalidArgument(std::string("DenseMatrix::") + what + ": host leading dimension " +
                            std::to_string(host_ld) + " is smaller than cols = " + std::to_string(cols_));
  }
  std::size_t span_bytes(std::int64_t host_ld) const {
    return rows_ == 0 ? 0 : static_cast<std::size_t>((rows_ - 1) * host_ld + cols_) * sizeof(T);
  }
  std::size_t byte_offset() const { return static_cast<std::size_t>(offset_) * sizeof(T); }
  std::shared_ptr<Buffer> buf_;
  std::int64_t rows_ = 0, cols_ = 0, ld_ = 1;
  std::int64_t offset_ = 0;
};

}  // namespace tessera
