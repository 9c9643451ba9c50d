// CsrMatrix's members that are not one-liners: the diagonal's positions, value updates and the
// transpose, which is built on the host (a counting sort by column: O(nnz), no device kernel
// needed) once per matrix and kept in its storage.
#include <algorithm>
#include <string>

#include "tessera/csr_matrix.hpp"

namespace tessera {

namespace detail {
std::vector<std::pair<std::int32_t, std::int32_t>> diagonal_entries(std::int64_t rows, const std::int32_t* row_ptr,
                                                                    const std::int32_t* col_idx) {
  std::vector<std::pair<std::int32_t, std::int32_t>> out;
  out.reserve(static_cast<std::size_t>(rows));
  for (std::int32_t i = 0; i < rows; ++i)
    for (std::int32_t k = row_ptr[i]; k < row_ptr[i + 1]; ++k)
      if (col_idx[k] == i) out.emplace_back(i, k);
  return out;
}
}  // namespace detail

template <class T>
void CsrMatrix<T>::update_values(const std::vector<T>& values) {
  if (!st_) throw InvalidArgument("CsrMatrix::update_values: the matrix is empty (default-constructed)");
  if (static_cast<std::int64_t>(values.size()) != st_->nnz)
    throw DimensionMismatch("CsrMatrix::update_values: " + std::to_string(values.size()) +
                            " values given, the matrix stores " + std::to_string(st_->nnz));
  if (!values.empty()) st_->values.upload(values.data(), values.size() * sizeof(T));
  std::lock_guard<std::mutex> lock(st_->mutex);
  st_->set_diagonal(values.data());
  st_->transpose.reset();
  ++st_->values_version;
}

template <class T>
CsrMatrix<T> CsrMatrix<T>::transposed() const {
  if (!st_) return {};
  std::lock_guard<std::mutex> lock(st_->mutex);
  if (!st_->transpose) {
    const HostCsr<T> a = to_host();
    HostCsr<T> t;
    t.rows = a.cols;
    t.cols = a.rows;
    t.row_ptr.assign(static_cast<std::size_t>(t.rows) + 1, 0);
    t.col_idx.resize(a.col_idx.size());
    t.values.resize(a.values.size());
    for (const std::int32_t c : a.col_idx) ++t.row_ptr[static_cast<std::size_t>(c) + 1];
    for (std::size_t r = 0; r < static_cast<std::size_t>(t.rows); ++r) t.row_ptr[r + 1] += t.row_ptr[r];
    std::vector<std::int32_t> next(t.row_ptr.begin(), t.row_ptr.end() - 1);
    // Rows of A in order, so each row of A^T comes out with ascending columns.
    for (std::int32_t i = 0; i < a.rows; ++i)
      for (std::int32_t k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k) {
        const std::int32_t pos = next[static_cast<std::size_t>(a.col_idx[k])]++;
        t.col_idx[pos] = i;
        t.values[pos] = a.values[k];
      }
    st_->transpose = from_host(device(), t).st_;
  }
  CsrMatrix m;
  m.st_ = st_->transpose;
  return m;
}

template class CsrMatrix<float>;
template class CsrMatrix<double>;

}  // namespace tessera
