// ILU(0), factorised on the host. Why the host: the factorisation is a sequential sweep over
// rows (row i needs every earlier row k it references), done once per matrix; a device
// version (level-scheduled, or Chow-Patel's fixed-point sweeps) is future work, and setup_seconds
// reports what the host costs. The IKJ variant (Saad, alg. 10.4) in double whatever T is, then
// uploaded as L (strict lower, unit diagonal implied) and U (upper with the diagonal), in the
// storage precision asked for (factor_solves.hpp).
#include <cmath>
#include <string>

#include "solve/driver.hpp"
#include "solve/factor_solves.hpp"
#include "solve/host_rows.hpp"

namespace tessera {

template <class T>
Ilu0<T>::Ilu0(const Queue& q, const CsrMatrix<T>& A, DType storage) {
  const auto t0 = solve_detail::Clock::now();
  solve_detail::check_storage<T>("Ilu0", storage);
  if (A.device() && q.device() != A.device())
    throw DeviceMismatch("Ilu0: the queue belongs to " + q.device().spec() + ", A to " + A.device().spec());
  auto [a, diag] = solve_detail::sorted_rows("Ilu0", A);
  const auto t_factor = solve_detail::Clock::now();
  const std::int32_t n = static_cast<std::int32_t>(a.rows);
  std::vector<std::int32_t> pos(static_cast<std::size_t>(n), -1);  // column -> its entry in row i
  for (std::int32_t i = 0; i < n; ++i) {
    for (std::int32_t p = a.row_ptr[i]; p < a.row_ptr[i + 1]; ++p) pos[a.col_idx[p]] = p;
    for (std::int32_t p = a.row_ptr[i]; p < diag[i]; ++p) {  // a_ik, k < i, in column order
      const std::int32_t k = a.col_idx[p];
      a.values[p] /= a.values[diag[k]];
      for (std::int32_t e = diag[k] + 1; e < a.row_ptr[k + 1]; ++e)
        if (const std::int32_t t = pos[a.col_idx[e]]; t >= 0) a.values[t] -= a.values[p] * a.values[e];
    }
    for (std::int32_t p = a.row_ptr[i]; p < a.row_ptr[i + 1]; ++p) pos[a.col_idx[p]] = -1;
    const double pivot = a.values[diag[i]];
    if (pivot == 0.0 || !std::isfinite(pivot))
      throw InvalidArgument("Ilu0: pivot " + solve_detail::describe(pivot) + " in row " + std::to_string(i) +
                            " (rows counted from 0): ILU(0) breaks down on this matrix");
  }
  HostCsr<double> L, U;
  L.rows = L.cols = U.rows = U.cols = n;
  for (std::int32_t i = 0; i < n; ++i) {
    for (std::int32_t p = a.row_ptr[i]; p < a.row_ptr[i + 1]; ++p) {
      HostCsr<double>& f = p < diag[i] ? L : U;
      f.col_idx.push_back(a.col_idx[p]);
      f.values.push_back(a.values[p]);
    }
    L.row_ptr.push_back(static_cast<std::int32_t>(L.col_idx.size()));
    U.row_ptr.push_back(static_cast<std::int32_t>(U.col_idx.size()));
  }
  factor_seconds_ = solve_detail::seconds_since(t_factor);
  solves_ = solve_detail::factor_solves<T>("Ilu0", q, A.device(), L, Diag::unit, &U, storage);
  seconds_ = solve_detail::seconds_since(t0);
}

template <class T>
void Ilu0<T>::apply(const Queue& q, const Vector<T>& r, Vector<T>& z) const {
  solves_.apply(q, r, z);
}

template <class T>
std::string Ilu0<T>::name() const {
  return solve_detail::storage_name("ilu0", solves_);
}

template class Ilu0<float>;
template class Ilu0<double>;

}  // namespace tessera
