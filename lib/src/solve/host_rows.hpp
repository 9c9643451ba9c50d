// The host side of the incomplete factorisations: A downloaded with each row's columns sorted
// and duplicates summed (CSR allows unsorted rows and duplicates; the factorisations need
// neither), and each row's diagonal position.
#pragma once

#include <algorithm>
#include <numeric>
#include <string>
#include <vector>

#include "tessera/csr_matrix.hpp"
#include "tessera/errors.hpp"

namespace tessera::solve_detail {

template <class T>
struct SortedRows {
  HostCsr<double> a;             // factorised in double whatever T is
  std::vector<std::int32_t> diag;  // position of each row's diagonal entry
};

// Throws DimensionMismatch for a non-square A and InvalidArgument naming a row without a
// diagonal entry; `op` names the caller.
template <class T>
SortedRows<T> sorted_rows(const char* op, const CsrMatrix<T>& A) {
  if (!A.device()) throw InvalidArgument(std::string(op) + ": the matrix is empty (default-constructed)");
  if (A.rows() != A.cols())
    throw DimensionMismatch(std::string(op) + ": A is " + std::to_string(A.rows()) + " x " +
                            std::to_string(A.cols()) + ", expected a square matrix");
  const HostCsr<T> h = A.to_host();
  SortedRows<T> s;
  s.a.rows = s.a.cols = h.rows;
  s.a.row_ptr.assign(1, 0);
  s.diag.assign(static_cast<std::size_t>(h.rows), -1);
  std::vector<std::int32_t> order;
  for (std::int32_t i = 0; i < h.rows; ++i) {
    order.resize(static_cast<std::size_t>(h.row_ptr[i + 1] - h.row_ptr[i]));
    std::iota(order.begin(), order.end(), h.row_ptr[i]);
    std::sort(order.begin(), order.end(), [&](std::int32_t x, std::int32_t y) { return h.col_idx[x] < h.col_idx[y]; });
    for (const std::int32_t k : order) {
      const std::int32_t c = h.col_idx[k];
      if (static_cast<std::int32_t>(s.a.col_idx.size()) > s.a.row_ptr.back() && s.a.col_idx.back() == c) {
        s.a.values.back() += static_cast<double>(h.values[k]);
        continue;
      }
      if (c == i) s.diag[static_cast<std::size_t>(i)] = static_cast<std::int32_t>(s.a.col_idx.size());
      s.a.col_idx.push_back(c);
      s.a.values.push_back(static_cast<double>(h.values[k]));
    }
    s.a.row_ptr.push_back(static_cast<std::int32_t>(s.a.col_idx.size()));
    if (s.diag[static_cast<std::size_t>(i)] < 0)
      throw InvalidArgument(std::string(op) + ": row " + std::to_string(i) +
                            " has no diagonal entry (rows counted from 0); the factorisation needs one");
  }
  return s;
}

// Converts a double factor to T for upload.
template <class T>
HostCsr<T> to_dtype(const HostCsr<double>& a) {
  HostCsr<T> t;
  t.rows = a.rows;
  t.cols = a.cols;
  t.row_ptr = a.row_ptr;
  t.col_idx = a.col_idx;
  t.values.assign(a.values.begin(), a.values.end());
  return t;
}

}  // namespace tessera::solve_detail
