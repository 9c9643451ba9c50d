// Jacobi: z = D^-1 r, one element-wise product per apply. The diagonal comes from the host copy
// the matrix keeps (CsrMatrix::diagonal), so a missing or zero entry is found on the host,
// before anything is allocated, and named by its row.
#include <string>

#include "solve/driver.hpp"
#include "solve/jacobi_diagonal.hpp"

namespace tessera {

template <class T>
Jacobi<T>::Jacobi(const Queue& q, const CsrMatrix<T>& A) {
  const auto t0 = solve_detail::Clock::now();
  if (!A.device()) throw InvalidArgument("Jacobi: the matrix is empty (default-constructed)");
  if (q.device() != A.device())
    throw DeviceMismatch("Jacobi: the queue belongs to " + q.device().spec() + ", A to " + A.device().spec());
  if (A.rows() != A.cols())
    throw DimensionMismatch("Jacobi: A is " + std::to_string(A.rows()) + " x " + std::to_string(A.cols()) +
                            ", expected a square matrix");
  const std::vector<T> d = A.host_diagonal();
  solve_detail::check_jacobi_diagonal("Jacobi", d, 0);
  inverse_diagonal_ = solve_detail::inverse_diagonal(q, d);
  seconds_ = solve_detail::seconds_since(t0);
}

template <class T>
void Jacobi<T>::apply(const Queue& q, const Vector<T>& r, Vector<T>& z) const {
  multiply(q, inverse_diagonal_, r, z);
}

template <class T>
void Jacobi<T>::apply_dot2(const Queue& q, const Vector<T>& r, Vector<T>& z, Scalar<T>& rz, Scalar<T>& rr) const {
  multiply_dot2(q, inverse_diagonal_, r, z, rz, rr);
}

template <class T>
void Jacobi<T>::axpy_apply_dot2(const Queue& q, const ScalarArg<T>& alpha, const Vector<T>& x, Vector<T>& r,
                                Vector<T>& z, Scalar<T>& rz, Scalar<T>& rr) const {
  axpy_multiply_dot2(q, alpha, x, inverse_diagonal_, r, z, rz, rr);
}

template class Jacobi<float>;
template class Jacobi<double>;

}  // namespace tessera
