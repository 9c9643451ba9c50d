// Eigen baselines of the vector algebra (as expressions a user writes; Eigen evaluates them
// on one thread, vectorised) and of the cg case: ConjugateGradient with its
// DiagonalPreconditioner (Jacobi) on the row-major matrix (Lower|Upper: the whole matrix, so the
// product uses Eigen's OpenMP row-major SpMV), x0 = 0, tolerance 0 so it runs exactly `iters`
// iterations; the preconditioner is built outside the timing (compute()).
#include <Eigen/Dense>
#include <Eigen/IterativeLinearSolvers>
#include <Eigen/Sparse>

#include <stdexcept>

#include "baselines/libs.hpp"

namespace bench::eigen {

namespace {

template <class T>
using Vec = Eigen::Matrix<T, Eigen::Dynamic, 1>;
template <class T>
using CMap = Eigen::Map<const Vec<T>>;
template <class T>
using Csr = Eigen::SparseMatrix<T, Eigen::RowMajor, int>;

template <class T>
CMap<T> map(const std::vector<T>& v) {
  return CMap<T>(v.data(), static_cast<Eigen::Index>(v.size()));
}

template <class T>
class Vector : public Runner {
 public:
  explicit Vector(const VectorData<T>& d) : d_(d), y_(d.op == Op::copy ? std::vector<T>(d.x.size()) : d.y) {}
  void reset() override {
    if (d_.op == Op::axpy || d_.op == Op::axpby_dot) y_ = d_.y;
  }
  void run() override {
    Eigen::Map<Vec<T>> y(y_.data(), static_cast<Eigen::Index>(y_.size()));
    const auto x = map(d_.x);
    switch (d_.op) {
      case Op::axpy: y += d_.alpha * x; break;
      case Op::copy: y = x; break;
      case Op::norm2: s1_ = x.norm(); break;
      case Op::axpby_dot:
        y = d_.alpha * x + d_.beta * y;
        s1_ = y.squaredNorm();
        break;
      case Op::dot2:
        s1_ = x.dot(map(d_.y));
        s2_ = x.dot(map(d_.z));
        break;
      default: throw std::logic_error("eigen::vector: not a vector operation");
    }
  }
  std::vector<double> result() override { return vector_result(d_, y_, s1_, s2_); }

 private:
  const VectorData<T>& d_;
  std::vector<T> y_;
  T s1_{}, s2_{};
};

template <class T>
class Dot : public Runner {
 public:
  explicit Dot(const DotData<T>& d) : d_(d) {}
  void run() override { value_ = map(d_.x).dot(map(d_.y)); }
  std::vector<double> result() override { return {static_cast<double>(value_)}; }

 private:
  const DotData<T>& d_;
  T value_{};
};

template <class T>
class Cg : public Runner {
 public:
  explicit Cg(const CgData<T>& d)
      : d_(d),
        A_(Eigen::Map<const Csr<T>>(d.A.rows, d.A.cols, d.A.nnz(), d.A.row_ptr.data(), d.A.col_idx.data(),
                                    d.A.values.data())) {
    solver_.setMaxIterations(d.iters);
    solver_.setTolerance(0);
    solver_.compute(A_);
  }
  void run() override { x_ = solver_.solve(map(d_.b)); }
  std::vector<double> result() override { return std::vector<double>(x_.data(), x_.data() + x_.size()); }
  int calls_per_run() const override { return d_.iters; }
  std::string detail() const override { return std::to_string(solver_.iterations()) + " iterations"; }

 private:
  const CgData<T>& d_;
  Csr<T> A_;  // a copy (once, untimed): ConjugateGradient does not take a Map of a sparse matrix
  Eigen::ConjugateGradient<Csr<T>, Eigen::Lower | Eigen::Upper, Eigen::DiagonalPreconditioner<T>>
      solver_;
  Vec<T> x_;
};

}  // namespace

template <class T>
std::unique_ptr<Runner> vector(const VectorData<T>& d) {
  return std::make_unique<Vector<T>>(d);
}
template <class T>
std::unique_ptr<Runner> dot(const DotData<T>& d) {
  return std::make_unique<Dot<T>>(d);
}
template <class T>
std::unique_ptr<Runner> cg(const CgData<T>& d) {
  return std::make_unique<Cg<T>>(d);
}

#define TESSERA_BENCH_INSTANTIATE(T)                                  \
  template std::unique_ptr<Runner> vector<T>(const VectorData<T>&);   \
  template std::unique_ptr<Runner> dot<T>(const DotData<T>&);         \
  template std::unique_ptr<Runner> cg<T>(const CgData<T>&);
TESSERA_BENCH_INSTANTIATE(float)
TESSERA_BENCH_INSTANTIATE(double)
#undef TESSERA_BENCH_INSTANTIATE

}  // namespace bench::eigen
