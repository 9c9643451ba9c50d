/// \file
/// CG and BiCGSTAB on distributed matrices and vectors: the same method code as tessera/solve.hpp
/// (lib/src/solve/*_method.hpp), instantiated for DistCsrMatrix / DistVector. SolveOptions and
/// SolveResult mean what they mean there; every rank returns the same result.
#pragma once

#include <string>

#include "tessera/mpi/algebra.hpp"
#include "tessera/mpi/dist_csr_matrix.hpp"
#include "tessera/solve.hpp"

namespace tessera::mpi {

/// z = M^-1 r for distributed vectors (the distributed form of tessera::Preconditioner).
template <class T>
class DistPreconditioner {
 public:
  virtual ~DistPreconditioner() = default;
  /// z = M^-1 r, enqueued on q (collective where the preconditioner communicates).
  virtual void apply(const Queue& q, const DistVector<T>& r, DistVector<T>& z) const = 0;
  /// z = M^-1 r, then rz = r . z and rr = r . r (collective), as Preconditioner::apply_dot2.
  virtual void apply_dot2(const Queue& q, const DistVector<T>& r, DistVector<T>& z, Scalar<T>& rz,
                          Scalar<T>& rr) const {
    apply(q, r, z);
    dot2(q, r, z, r, rz, rr);
  }
  /// r = r + alpha * x, then apply_dot2 (collective), as Preconditioner::axpy_apply_dot2.
  virtual void axpy_apply_dot2(const Queue& q, const ScalarArg<T>& alpha, const DistVector<T>& x, DistVector<T>& r,
                               DistVector<T>& z, Scalar<T>& rz, Scalar<T>& rr) const {
    axpy(q, alpha, x, r);
    apply_dot2(q, r, z, rz, rr);
  }
  virtual std::int64_t size() const = 0;                  ///< global size of the system
  virtual const Device& device() const = 0;               ///< this rank's device
  virtual double setup_seconds() const { return 0.0; }   ///< seconds its setup took
  virtual std::string name() const = 0;                   ///< a short name ("jacobi")
};

/// Jacobi on a distributed matrix: each rank inverts its rows' diagonal (no communication in
/// apply). Collective construction: InvalidArgument on every rank naming the first global row
/// with a missing or zero diagonal entry.
template <class T>
class DistJacobi final : public DistPreconditioner<T> {
 public:
  /// Set up on q.
  DistJacobi(const Queue& q, const DistCsrMatrix<T>& A);
  void apply(const Queue& q, const DistVector<T>& r, DistVector<T>& z) const override;
  /// z = D^-1 r with r . z and r . r in one local pass and one exchange (multiply_dot2).
  void apply_dot2(const Queue& q, const DistVector<T>& r, DistVector<T>& z, Scalar<T>& rz,
                  Scalar<T>& rr) const override;
  /// r += alpha x, z = D^-1 r, r . z and r . r in one local pass and one exchange.
  void axpy_apply_dot2(const Queue& q, const ScalarArg<T>& alpha, const DistVector<T>& x, DistVector<T>& r,
                       DistVector<T>& z, Scalar<T>& rz, Scalar<T>& rr) const override;
  std::int64_t size() const override { return inverse_diagonal_.size(); }
  const Device& device() const override { return inverse_diagonal_.device(); }
  double setup_seconds() const override { return seconds_; }
  std::string name() const override { return "jacobi"; }
  const DistVector<T>& inverse_diagonal() const { return inverse_diagonal_; }  ///< 1 / diag(A)

 private:
  DistVector<T> inverse_diagonal_;
  double seconds_ = 0.0;
};

/// Collective solves. The arguments are checked on every rank (as tessera::cg documents, plus:
/// A, b, x share one RowPartition, and every rank passes the same options) and an error on any
/// rank is thrown on every rank before anything is written.
///@{
template <class T>
SolveResult cg(const Queue& q, const DistCsrMatrix<T>& A, const DistVector<T>& b, DistVector<T>& x,
               const tessera::detail::same_t<DistPreconditioner<T>>* M = nullptr, const SolveOptions& options = {});
template <class T>
SolveResult bicgstab(const Queue& q, const DistCsrMatrix<T>& A, const DistVector<T>& b, DistVector<T>& x,
                     const tessera::detail::same_t<DistPreconditioner<T>>* M = nullptr,
                     const SolveOptions& options = {});
///@}

}  // namespace tessera::mpi
