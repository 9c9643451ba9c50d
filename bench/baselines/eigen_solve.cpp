// Eigen baselines of the solver cases to the tolerance (workloads/converged_solve.hpp), with
// Eigen's incomplete factorisations configured for the fill closest to IC(0) / ILU(0) (the bench
// README, "Same fill", says how close): ConjugateGradient<Lower|Upper> with
// IncompleteCholesky<T, Lower, NaturalOrdering> (no fill-reducing permutation, as Tessera's;
// Eigen keeps as many entries per column of L as A's lower triangle has, chosen by size, and
// scales and shifts the matrix), and BiCGSTAB with IncompleteLUT(droptol 0, fill factor 1: up to
// (nnz/n + 1)/2 entries in each of a row's L and U parts besides the diagonal, the largest;
// Eigen always applies its AMD permutation there). compute() (ordering + factorisation) is
// timed once as setup_ms; the timed call is the solve; the row's time is per iteration. Eigen's
// CG counts one iteration less than it runs (it stops before counting the last): its count + 1
// is reported, as tests/test_solve_eigen.cpp compares it.
//
// Eigen baseline of the bicgstab case: BiCGSTAB with its DiagonalPreconditioner (Jacobi) on the
// row-major matrix (its product uses Eigen's OpenMP row-major SpMV; the vector updates run on
// one thread, as Eigen evaluates them), x0 = 0, tolerance 0 so it runs exactly `iters`
// iterations (Eigen restarts with r0 = r if r0.r falls below eps^2 ||r0||^2, only reached once
// the residual is at the rounding level); the preconditioner is built outside the timing
// (compute()).
#include <Eigen/IterativeLinearSolvers>
#include <Eigen/OrderingMethods>
#include <Eigen/Sparse>

#include <algorithm>
#include <chrono>
#include <functional>
#include <stdexcept>

#include "baselines/libs.hpp"
#include "workload.hpp"

namespace bench::eigen {

namespace {

template <class T>
using Vec = Eigen::Matrix<T, Eigen::Dynamic, 1>;
template <class T>
using Csr = Eigen::SparseMatrix<T, Eigen::RowMajor, int>;

template <class T>
class Bicgstab : public Runner {
 public:
  explicit Bicgstab(const CgData<T>& d)
      : d_(d),
        A_(Eigen::Map<const Csr<T>>(d.A.rows, d.A.cols, d.A.nnz(), d.A.row_ptr.data(), d.A.col_idx.data(),
                                    d.A.values.data())) {
    solver_.setMaxIterations(d.iters);
    solver_.setTolerance(0);
    solver_.compute(A_);
  }
  void run() override {
    x_ = solver_.solve(Eigen::Map<const Vec<T>>(d_.b.data(), static_cast<Eigen::Index>(d_.b.size())));
  }
  std::vector<double> result() override { return std::vector<double>(x_.data(), x_.data() + x_.size()); }
  int calls_per_run() const override { return d_.iters; }
  std::string detail() const override { return std::to_string(solver_.iterations()) + " iterations"; }

 private:
  const CgData<T>& d_;
  Csr<T> A_;  // a copy (once, untimed): the solvers do not take a Map of a sparse matrix
  Eigen::BiCGSTAB<Csr<T>, Eigen::DiagonalPreconditioner<T>> solver_;
  Vec<T> x_;
};

// A solve to d.rel_tol with `Solver` (a Krylov method with its incomplete factorisation);
// `counted_short`: the method counts one iteration less than it runs (CG).
template <class T, class Solver>
class Converged : public Runner {
 public:
  Converged(const CgData<T>& d, bool counted_short, std::function<void(Solver&)> configure)
      : d_(d),
        A_(Eigen::Map<const Csr<T>>(d.A.rows, d.A.cols, d.A.nnz(), d.A.row_ptr.data(), d.A.col_idx.data(),
                                    d.A.values.data())),
        extra_(counted_short ? 1 : 0) {
    solver_.setMaxIterations(d.max_iterations);
    solver_.setTolerance(static_cast<T>(d.rel_tol));
    configure(solver_);
    const auto t0 = std::chrono::steady_clock::now();
    solver_.compute(A_);
    setup_ms_ = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    if (solver_.preconditioner().info() != Eigen::Success) throw Skipped("Eigen's incomplete factorisation failed");
  }
  void run() override {
    x_ = solver_.solve(Eigen::Map<const Vec<T>>(d_.b.data(), static_cast<Eigen::Index>(d_.b.size())));
    if (solver_.info() != Eigen::Success) {
      const std::string what = "Eigen did not converge in " + std::to_string(solver_.iterations()) + " iterations (error " +
                               std::to_string(static_cast<double>(solver_.error())) + ")";
      if (d_.generated) throw std::runtime_error(what);
      throw Skipped(what);
    }
  }
  std::vector<double> result() override { return std::vector<double>(x_.data(), x_.data() + x_.size()); }
  int calls_per_run() const override { return static_cast<int>(std::max<Eigen::Index>(1, solver_.iterations() + extra_)); }
  long long iterations() const override { return static_cast<long long>(solver_.iterations() + extra_); }
  double setup_ms() const override { return setup_ms_; }

 private:
  const CgData<T>& d_;
  Csr<T> A_;
  int extra_;
  Solver solver_;
  Vec<T> x_;
  double setup_ms_ = 0;
};

}  // namespace

template <class T>
std::unique_ptr<Runner> bicgstab(const CgData<T>& d) {
  if (d.precond == "ilu0") {
    using S = Eigen::BiCGSTAB<Csr<T>, Eigen::IncompleteLUT<T, int>>;
    return std::make_unique<Converged<T, S>>(d, false, [](S& s) {
      s.preconditioner().setDroptol(T(0));
      s.preconditioner().setFillfactor(1);
    });
  }
  return std::make_unique<Bicgstab<T>>(d);
}

template <class T>
std::unique_ptr<Runner> cg_ic0(const CgData<T>& d) {
  using S = Eigen::ConjugateGradient<Csr<T>, Eigen::Lower | Eigen::Upper,
                                     Eigen::IncompleteCholesky<T, Eigen::Lower, Eigen::NaturalOrdering<int>>>;
  return std::make_unique<Converged<T, S>>(d, true, [](S&) {});
}
template std::unique_ptr<Runner> cg_ic0<float>(const CgData<float>&);
template std::unique_ptr<Runner> cg_ic0<double>(const CgData<double>&);

template std::unique_ptr<Runner> bicgstab<float>(const CgData<float>&);
template std::unique_ptr<Runner> bicgstab<double>(const CgData<double>&);

}  // namespace bench::eigen
