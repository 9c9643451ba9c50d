// The shared checks and names of solve.hpp, and the dispatch by SolverKind.
#include "solve/driver.hpp"

#include <cstdio>

namespace tessera {

const char* to_string(SolveStatus s) {
  switch (s) {
    case SolveStatus::converged: return "converged";
    case SolveStatus::max_iterations: return "max_iterations";
    case SolveStatus::breakdown: return "breakdown";
    case SolveStatus::not_finite: return "not_finite";
  }
  return "unknown";
}

const char* to_string(SolverKind k) {
  switch (k) {
    case SolverKind::cg: return "cg";
    case SolverKind::bicgstab: return "bicgstab";
    case SolverKind::gmres: return "gmres";
  }
  return "unknown";
}

template <class T>
SolveResult solve(SolverKind kind, const Queue& q, const CsrMatrix<T>& A, const Vector<T>& b, Vector<T>& x,
                  const detail::same_t<Preconditioner<T>>* M, const SolveOptions& options) {
  switch (kind) {
    case SolverKind::cg: return cg(q, A, b, x, M, options);
    case SolverKind::bicgstab: return bicgstab(q, A, b, x, M, options);
    case SolverKind::gmres: return gmres(q, A, b, x, M, options);
  }
  throw InvalidArgument("solve: SolverKind " + std::to_string(static_cast<int>(kind)) +
                        " is not one of cg, bicgstab, gmres");
}

namespace solve_detail {

std::string describe(double value) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g", value);
  return buf;
}

template <class T>
void check_arguments(const char* op, const Queue& q, const CsrMatrix<T>& A, const Vector<T>& b, const Vector<T>& x,
                     const Preconditioner<T>* M, const SolveOptions& o) {
  const std::string name(op);
  if (!A.device() || !b.device() || !x.device() || !q)
    throw InvalidArgument(name + ": an operand or the queue is empty (default-constructed)");
  const Device& d = A.device();
  auto same = [&](const Device& other, const char* what) {
    if (other != d)
      throw DeviceMismatch(name + ": " + what + " lives on " + other.spec() + ", A on " + d.spec() +
                           "; move them to one device first");
  };
  same(b.device(), "b");
  same(x.device(), "x");
  same(q.device(), "the queue");
  if (M != nullptr) same(M->device(), "the preconditioner");
  if (A.rows() != A.cols())
    throw DimensionMismatch(name + ": A is " + std::to_string(A.rows()) + " x " + std::to_string(A.cols()) +
                            ", expected a square matrix");
  if (b.size() != A.rows() || x.size() != A.rows())
    throw DimensionMismatch(name + ": A is " + std::to_string(A.rows()) + " x " + std::to_string(A.cols()) +
                            ", b has " + std::to_string(b.size()) + " and x " + std::to_string(x.size()) +
                            " elements, expected " + std::to_string(A.rows()));
  if (M != nullptr && M->size() != A.rows())
    throw DimensionMismatch(name + ": the preconditioner is for " + std::to_string(M->size()) +
                            " unknowns, A has " + std::to_string(A.rows()));
  if (b.storage() == x.storage() && b.offset() < x.offset() + x.size() && x.offset() < b.offset() + b.size())
    throw InvalidArgument(name + ": x shares storage with b; x is overwritten, pass a separate vector");
  if (!(o.rel_tol >= 0) || !(o.abs_tol >= 0))
    throw InvalidArgument(name + ": tolerances must be >= 0 (rel_tol " + describe(o.rel_tol) + ", abs_tol " +
                          describe(o.abs_tol) + ")");
  if (o.max_iterations < 0 || o.check_every < 0 || o.restart < 1)
    throw InvalidArgument(name + ": max_iterations and check_every must be >= 0 and restart >= 1 (got " +
                          std::to_string(o.max_iterations) + ", " + std::to_string(o.check_every) + ", " +
                          std::to_string(o.restart) + ")");
}

template void check_arguments<float>(const char*, const Queue&, const CsrMatrix<float>&, const Vector<float>&,
                                     const Vector<float>&, const Preconditioner<float>*, const SolveOptions&);
template void check_arguments<double>(const char*, const Queue&, const CsrMatrix<double>&, const Vector<double>&,
                                      const Vector<double>&, const Preconditioner<double>*, const SolveOptions&);
}  // namespace solve_detail

template SolveResult solve<float>(SolverKind, const Queue&, const CsrMatrix<float>&, const Vector<float>&,
                                  Vector<float>&, const Preconditioner<float>*, const SolveOptions&);
template SolveResult solve<double>(SolverKind, const Queue&, const CsrMatrix<double>&, const Vector<double>&,
                                   Vector<double>&, const Preconditioner<double>*, const SolveOptions&);

}  // namespace tessera
