/// \file
/// CsrMatrix<T>: compressed sparse rows with int32 indices, owned by one device. Built from
/// host arrays whose structure is validated first: a bad structure throws InvalidArgument and
/// allocates nothing. The structure is fixed once built; the values may be replaced
/// (update_values). Copies share the device storage (so an analysis plan can keep its matrix
/// alive).
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

#include "tessera/backend.hpp"
#include "tessera/buffer.hpp"
#include "tessera/errors.hpp"
#include "tessera/queue.hpp"
#include "tessera/vector.hpp"

namespace tessera {

/// A CSR matrix in host memory (what Matrix Market reading returns).
template <class T>
struct HostCsr {
  /// Rows and columns.
  ///@{
  std::int64_t rows = 0, cols = 0;
  ///@}
  std::vector<std::int32_t> row_ptr{0};  ///< rows + 1 offsets into col_idx and values
  std::vector<std::int32_t> col_idx;     ///< column of each entry, 0-based
  std::vector<T> values;                 ///< value of each entry
  std::int64_t nnz() const { return static_cast<std::int64_t>(col_idx.size()); }  ///< stored entries
};

namespace detail {
// Throws InvalidArgument naming the first violation: sizes outside int32, row_ptr size,
// row_ptr[0] != 0, a decreasing row_ptr, row_ptr[rows] != nnz, values size, a column out of range.
void validate_csr(std::int64_t rows, std::int64_t cols, const std::int32_t* row_ptr, std::size_t row_ptr_size,
                  const std::int32_t* col_idx, std::size_t col_idx_size, std::size_t values_size);
std::uint64_t next_generation();
// Positions (row, index into col_idx) of every stored diagonal entry, rows ascending.
std::vector<std::pair<std::int32_t, std::int32_t>> diagonal_entries(std::int64_t rows, const std::int32_t* row_ptr,
                                                                    const std::int32_t* col_idx);
}  // namespace detail

/// Compressed sparse rows with int32 indices, owned by one device; immutable once built, and
/// copies share the device storage. See csr_matrix.hpp.
template <class T>
class CsrMatrix {
  static_assert(std::is_same_v<T, float> || std::is_same_v<T, double>, "CsrMatrix<T>: T is float or double");

 public:
  CsrMatrix() = default;

  /// Validates the structure (throws InvalidArgument naming the first violation, allocating
  /// nothing), then copies the arrays to `device` and computes the row statistics (CsrStats).
  static CsrMatrix from_host(const Device& device, std::int64_t rows, std::int64_t cols,
                             const std::vector<std::int32_t>& row_ptr, const std::vector<std::int32_t>& col_idx,
                             const std::vector<T>& values) {
    detail::validate_csr(rows, cols, row_ptr.data(), row_ptr.size(), col_idx.data(), col_idx.size(),
                         values.size());
    auto st = std::make_shared<Storage>();
    st->rows = rows;
    st->cols = cols;
    st->nnz = static_cast<std::int64_t>(col_idx.size());
    st->row_ptr = Buffer(device, row_ptr.size() * sizeof(std::int32_t));
    st->col_idx = Buffer(device, col_idx.size() * sizeof(std::int32_t));
    st->values = Buffer(device, values.size() * sizeof(T));
    st->row_ptr.upload(row_ptr.data(), row_ptr.size() * sizeof(std::int32_t));
    st->col_idx.upload(col_idx.data(), col_idx.size() * sizeof(std::int32_t));
    st->values.upload(values.data(), values.size() * sizeof(T));
    st->generation = detail::next_generation();
    st->stats = csr_stats(row_ptr.data(), rows);
    st->host_row_ptr = row_ptr;
    st->diag_entries = detail::diagonal_entries(rows, row_ptr.data(), col_idx.data());
    st->set_diagonal(values.data());
    CsrMatrix m;
    m.st_ = std::move(st);
    return m;
  }
  /// As from_host above, from a HostCsr.
  static CsrMatrix from_host(const Device& device, const HostCsr<T>& h) {
    return from_host(device, h.rows, h.cols, h.row_ptr, h.col_idx, h.values);
  }

  /// A copy in host memory.
  HostCsr<T> to_host() const {
    HostCsr<T> h;
    h.rows = rows();
    h.cols = cols();
    h.row_ptr.resize(static_cast<std::size_t>(rows() + 1));
    h.col_idx.resize(static_cast<std::size_t>(nnz()));
    h.values.resize(static_cast<std::size_t>(nnz()));
    if (!st_) return h;
    st_->row_ptr.download(h.row_ptr.data(), h.row_ptr.size() * sizeof(std::int32_t));
    st_->col_idx.download(h.col_idx.data(), h.col_idx.size() * sizeof(std::int32_t));
    st_->values.download(h.values.data(), h.values.size() * sizeof(T));
    return h;
  }

  /// A new matrix with a copy of the arrays, copied on the default queue (no host wait).
  CsrMatrix clone() const {
    if (!st_) return {};
    auto st = std::make_shared<Storage>();
    st->rows = st_->rows;
    st->cols = st_->cols;
    st->nnz = st_->nnz;
    st->generation = detail::next_generation();  // a new matrix: caches keyed by generation do not carry over
    st->stats = st_->stats;
    st->host_row_ptr = st_->host_row_ptr;
    {
      std::lock_guard<std::mutex> lock(st_->mutex);
      st->diag_entries = st_->diag_entries;
      st->diagonal = st_->diagonal;
    }
    const Queue q = device().queue();
    auto copy = [&](Buffer& dst, const Buffer& src) {
      dst = Buffer(src.device(), src.bytes());
      dst.copy_from(q, 0, src, 0, src.bytes());
    };
    copy(st->row_ptr, st_->row_ptr);
    copy(st->col_idx, st_->col_idx);
    copy(st->values, st_->values);
    CsrMatrix m;
    m.st_ = std::move(st);
    return m;
  }

  std::int64_t rows() const { return st_ ? st_->rows : 0; }  ///< 0 for an empty matrix
  std::int64_t cols() const { return st_ ? st_->cols : 0; }  ///< 0 for an empty matrix
  std::int64_t nnz() const { return st_ ? st_->nnz : 0; }    ///< stored entries
  /// The owning device; an empty handle for a default-constructed matrix.
  const Device& device() const {
    static const Device none;
    return st_ ? st_->row_ptr.device() : none;
  }

  /// The diagonal as a new vector on the matrix's device (copied from a host copy kept since
  /// from_host / update_values: no device pass, one upload). Square or not, element i is
  /// A(i, i) for i < min(rows, cols); a row without a stored diagonal entry gives 0, duplicate
  /// diagonal entries are summed (as spmv adds them).
  Vector<T> diagonal() const { return Vector<T>::from_host(device(), host_diagonal()); }
  /// The same diagonal in host memory (no device access).
  std::vector<T> host_diagonal() const {
    if (!st_) return {};
    std::lock_guard<std::mutex> lock(st_->mutex);
    return st_->diagonal;
  }

  /// Replaces the values, keeping the structure: `values` holds nnz() values in the order of
  /// the arrays given to from_host (DimensionMismatch otherwise; nothing is changed). Uploaded
  /// on the default queue (a host wait); every handle sharing this matrix sees them. What stays
  /// valid: everything keyed by the structure — the generation (so a backend's SpMV analysis,
  /// which depends on row lengths only, is reused) and the row statistics. What does not: an
  /// SptrsvPlan made before copies the values (its diagonal and triangle), so sptrsv_solve
  /// with it throws InvalidArgument (analyse again); the cached transpose (spmv_transposed) is
  /// dropped and rebuilt at its next use; the diagonal is recomputed. A SELL-C-sigma SpMV plan
  /// (spmv.format) holds a copy of the values and is rebuilt at the next spmv call, but a
  /// recorded graph (Queue::begin_capture) that captured such an spmv replays the old copy:
  /// record again after update_values (CSR plans read the values in place and need nothing).
  /// Must not run while another thread uses the matrix (as any write to a container).
  void update_values(const std::vector<T>& values);
  /// Counts update_values calls on this matrix's storage (0 after from_host): what an analysis
  /// depending on the values records, to detect that they changed.
  std::uint64_t values_version() const { return st_ ? st_->values_version : 0; }

  /// A^T as a CSR matrix on the same device, built on the host from a download of this matrix
  /// at its first use (a host wait) and kept with the matrix's storage under a lock, so later
  /// calls, from any thread, return the same matrix at no cost (spmv_transposed uses it).
  CsrMatrix transposed() const;

  /// What a backend receives: handles, extents, generation and statistics.
  CsrView view() const {
    if (!st_) return {};
    return {st_->row_ptr.handle(), st_->col_idx.handle(), st_->values.handle(),
            st_->rows,             st_->cols,             st_->nnz,
            st_->generation,       st_->stats,            st_->host_row_ptr.data(),
            st_->values_version};
  }

 private:
  struct Storage {
    Buffer row_ptr, col_idx, values;
    std::int64_t rows = 0, cols = 0, nnz = 0;
    std::uint64_t generation = 0;
    std::uint64_t values_version = 0;
    CsrStats stats;
    // row_ptr in host memory (immutable): plans derived from the structure (SELL-C-sigma) read
    // it without a download, so building them never waits for the device.
    std::vector<std::int32_t> host_row_ptr;
    // Guards the host diagonal and the transpose, which const calls read or build lazily.
    mutable std::mutex mutex;
    std::vector<std::pair<std::int32_t, std::int32_t>> diag_entries;  // see detail::diagonal_entries
    std::vector<T> diagonal;                                           // min(rows, cols) values
    mutable std::shared_ptr<Storage> transpose;                        // built at first use
    void set_diagonal(const T* values) {
      diagonal.assign(static_cast<std::size_t>(rows < cols ? rows : cols), T(0));
      for (const auto& [row, k] : diag_entries) diagonal[static_cast<std::size_t>(row)] += values[k];
    }
  };
  std::shared_ptr<Storage> st_;
};

}  // namespace tessera
