// IC(0), factorised on the host (for the reason given in ilu0.cpp): the row-oriented
// ("up-looking") incomplete Cholesky on the pattern of A's lower triangle, in double whatever T
// is; l_ik = (a_ik - sum_{j<k} l_ij l_kj) / l_kk and l_ii = sqrt(a_ii - sum_{j<i} l_ij^2),
// with row i's finished entries scattered into a dense work row so each sum is one pass over
// row k. Uploaded as L, and as L^T built by CsrMatrix::transposed (an upper CSR), in the storage
// precision asked for (factor_solves.hpp).
#include <cmath>
#include <string>

#include "solve/driver.hpp"
#include "solve/factor_solves.hpp"
#include "solve/host_rows.hpp"

namespace tessera {

template <class T>
Ic0<T>::Ic0(const Queue& q, const CsrMatrix<T>& A, DType storage) {
  const auto t0 = solve_detail::Clock::now();
  solve_detail::check_storage<T>("Ic0", storage);
  if (A.device() && q.device() != A.device())
    throw DeviceMismatch("Ic0: the queue belongs to " + q.device().spec() + ", A to " + A.device().spec());
  const auto [a, diag] = solve_detail::sorted_rows("Ic0", A);
  const auto t_factor = solve_detail::Clock::now();
  const std::int32_t n = static_cast<std::int32_t>(a.rows);
  HostCsr<double> L;  // the lower triangle of A, overwritten by the factor
  L.rows = L.cols = n;
  for (std::int32_t i = 0; i < n; ++i) {
    for (std::int32_t p = a.row_ptr[i]; p <= diag[i]; ++p) {
      L.col_idx.push_back(a.col_idx[p]);
      L.values.push_back(a.values[p]);
    }
    L.row_ptr.push_back(static_cast<std::int32_t>(L.col_idx.size()));
  }
  std::vector<double> row(static_cast<std::size_t>(n), 0.0);  // l_ij of row i finished so far
  for (std::int32_t i = 0; i < n; ++i) {
    const std::int32_t last = L.row_ptr[i + 1] - 1;  // the diagonal: rows are sorted
    double d = L.values[last];
    for (std::int32_t p = L.row_ptr[i]; p < last; ++p) {
      const std::int32_t k = L.col_idx[p];
      double s = L.values[p];
      for (std::int32_t e = L.row_ptr[k]; e < L.row_ptr[k + 1] - 1; ++e) s -= row[L.col_idx[e]] * L.values[e];
      L.values[p] = s / L.values[L.row_ptr[k + 1] - 1];
      row[k] = L.values[p];
      d -= L.values[p] * L.values[p];
    }
    for (std::int32_t p = L.row_ptr[i]; p < last; ++p) row[L.col_idx[p]] = 0.0;
    if (!(d > 0.0) || !std::isfinite(d))
      throw InvalidArgument("Ic0: pivot " + solve_detail::describe(d) + " in row " + std::to_string(i) +
                            " (rows counted from 0) is not positive: A is not SPD or IC(0) breaks down on it");
    L.values[last] = std::sqrt(d);
  }
  factor_seconds_ = solve_detail::seconds_since(t_factor);
  solves_ = solve_detail::factor_solves<T>("Ic0", q, A.device(), L, Diag::non_unit, nullptr, storage);
  seconds_ = solve_detail::seconds_since(t0);
}

template <class T>
void Ic0<T>::apply(const Queue& q, const Vector<T>& r, Vector<T>& z) const {
  solves_.apply(q, r, z);
}

template <class T>
std::string Ic0<T>::name() const {
  return solve_detail::storage_name("ic0", solves_);
}

template class Ic0<float>;
template class Ic0<double>;

}  // namespace tessera
