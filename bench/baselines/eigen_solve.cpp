// Eigen baseline of the bicgstab case: BiCGSTAB with its DiagonalPreconditioner (Jacobi) on the
// row-major matrix (its product uses Eigen's OpenMP row-major SpMV; the vector updates run on
// one thread, as Eigen evaluates them), x0 = 0, tolerance 0 so it runs exactly `iters`
// iterations (Eigen restarts with r0 = r if r0.r falls below eps^2 ||r0||^2, only reached once
// the residual is at the rounding level); the preconditioner is built outside the timing
// (compute()).
#include <Eigen/IterativeLinearSolvers>
#include <Eigen/Sparse>

#include "baselines/libs.hpp"

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

}  // namespace

template <class T>
std::unique_ptr<Runner> bicgstab(const CgData<T>& d) {
  return std::make_unique<Bicgstab<T>>(d);
}

template std::unique_ptr<Runner> bicgstab<float>(const CgData<float>&);
template std::unique_ptr<Runner> bicgstab<double>(const CgData<double>&);

}  // namespace bench::eigen
