// The distributed solvers: a collective argument check, then the one-device method templates
// (lib/src/solve) instantiated on DistCsrMatrix / DistVector / DistPreconditioner.
#include "tessera/mpi/solve.hpp"

#include "collective.hpp"
#include "solve/bicgstab_method.hpp"
#include "solve/cg_method.hpp"
#include "solve/jacobi_diagonal.hpp"

namespace tessera::mpi {
namespace {

template <class T>
void check_collective(const char* op, const Queue& q, const DistCsrMatrix<T>& A, const DistVector<T>& b,
                      const DistVector<T>& x, const DistPreconditioner<T>* M, const SolveOptions& o) {
  const MPI_Comm comm = b.comm();
  if (comm == MPI_COMM_NULL) throw InvalidArgument(std::string(op) + ": b is empty (default-constructed)");
  const auto all = detail::exchange(comm, {op, detail::dtype_code<T>()}, [&](detail::Contribution& c) {
    solve_detail::check_arguments(op, q, A, b, x, M, o);
    if (A.partition() != b.partition() || A.partition() != x.partition())
      throw DimensionMismatch(std::string(op) + ": A, b and x must share one RowPartition");
    // What decides the iteration count must be the same everywhere, or ranks would stop apart.
    c.values[0] = o.rel_tol;
    c.values[1] = o.abs_tol;
    c.values[2] = static_cast<double>(o.max_iterations) * 4096.0 + static_cast<double>(o.check_every);
    c.values[3] = (o.true_residual ? 1.0 : 0.0) + (M != nullptr ? 2.0 : 0.0);
  });
  for (std::size_t r = 1; r < all.size(); ++r)
    if (all[r].values != all[0].values)
      throw InvalidArgument(std::string(op) + ": rank " + std::to_string(r) +
                            " passes other options (tolerances, max_iterations, check_every, true_residual) or "
                            "another presence of a preconditioner than rank 0");
}

}  // namespace

template <class T>
DistJacobi<T>::DistJacobi(const Queue& q, const DistCsrMatrix<T>& A) {
  const auto t0 = solve_detail::Clock::now();
  Vector<T> local;
  if (!A.state()) throw InvalidArgument("DistJacobi: the matrix is empty (default-constructed)");
  detail::agree(A.comm(), {"DistJacobi", detail::dtype_code<T>()}, [&] {
    if (q.device() != A.device())
      throw DeviceMismatch("DistJacobi: the queue belongs to " + q.device().spec() + ", A to " + A.device().spec());
    const std::vector<T> d = A.diagonal_block().host_diagonal();
    solve_detail::check_jacobi_diagonal("DistJacobi", d, A.partition().local_begin());
    local = solve_detail::inverse_diagonal(q, d);
  });
  inverse_diagonal_ = DistVector<T>(A.partition(), local);
  seconds_ = agreed_seconds(inverse_diagonal_, solve_detail::seconds_since(t0));
}

template <class T>
void DistJacobi<T>::apply(const Queue& q, const DistVector<T>& r, DistVector<T>& z) const {
  multiply(q, inverse_diagonal_, r, z);
}

template <class T>
void DistJacobi<T>::apply_dot2(const Queue& q, const DistVector<T>& r, DistVector<T>& z, Scalar<T>& rz,
                               Scalar<T>& rr) const {
  multiply_dot2(q, inverse_diagonal_, r, z, rz, rr);
}

template <class T>
void DistJacobi<T>::axpy_apply_dot2(const Queue& q, const ScalarArg<T>& alpha, const DistVector<T>& x,
                                    DistVector<T>& r, DistVector<T>& z, Scalar<T>& rz, Scalar<T>& rr) const {
  axpy_multiply_dot2(q, alpha, x, inverse_diagonal_, r, z, rz, rr);
}

namespace {
// A distributed iteration exchanges values through the host between its operations (the
// ranks' partial sums, staged halos), which a recorded graph cannot hold: the iterations run
// unrecorded (SolveOptions::graphs has no effect here).
SolveOptions unrecorded(SolveOptions o) {
  o.graphs = false;
  return o;
}
}  // namespace

template <class T>
SolveResult cg(const Queue& q, const DistCsrMatrix<T>& A, const DistVector<T>& b, DistVector<T>& x,
               const tessera::detail::same_t<DistPreconditioner<T>>* M, const SolveOptions& options) {
  check_collective("cg", q, A, b, x, M, options);
  return solve_detail::run_cg("cg", q, A, b, x, M, unrecorded(options));
}

template <class T>
SolveResult bicgstab(const Queue& q, const DistCsrMatrix<T>& A, const DistVector<T>& b, DistVector<T>& x,
                     const tessera::detail::same_t<DistPreconditioner<T>>* M, const SolveOptions& options) {
  check_collective("bicgstab", q, A, b, x, M, options);
  return solve_detail::run_bicgstab("bicgstab", q, A, b, x, M, unrecorded(options));
}

#define TESSERA_MPI_SOLVE(T)                                                                                     \
  template class DistJacobi<T>;                                                                                  \
  template SolveResult cg<T>(const Queue&, const DistCsrMatrix<T>&, const DistVector<T>&, DistVector<T>&,       \
                             const DistPreconditioner<T>*, const SolveOptions&);                                 \
  template SolveResult bicgstab<T>(const Queue&, const DistCsrMatrix<T>&, const DistVector<T>&, DistVector<T>&, \
                                   const DistPreconditioner<T>*, const SolveOptions&);
TESSERA_MPI_SOLVE(float)
TESSERA_MPI_SOLVE(double)

}  // namespace tessera::mpi
