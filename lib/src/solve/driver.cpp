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

void check_options(const std::string& name, const SolveOptions& o) {
  if (!(o.rel_tol >= 0) || !(o.abs_tol >= 0))
    throw InvalidArgument(name + ": tolerances must be >= 0 (rel_tol " + describe(o.rel_tol) + ", abs_tol " +
                          describe(o.abs_tol) + ")");
  if (o.max_iterations < 0 || o.check_every < 0 || o.restart < 1)
    throw InvalidArgument(name + ": max_iterations and check_every must be >= 0 and restart >= 1 (got " +
                          std::to_string(o.max_iterations) + ", " + std::to_string(o.check_every) + ", " +
                          std::to_string(o.restart) + ")");
}

}  // namespace solve_detail

template SolveResult solve<float>(SolverKind, const Queue&, const CsrMatrix<float>&, const Vector<float>&,
                                  Vector<float>&, const Preconditioner<float>*, const SolveOptions&);
template SolveResult solve<double>(SolverKind, const Queue&, const CsrMatrix<double>&, const Vector<double>&,
                                   Vector<double>&, const Preconditioner<double>*, const SolveOptions&);

}  // namespace tessera
