// Eigen baselines on the workload's arrays through Eigen::Map (no copies of the inputs).
// Compiled with -O3 -march=native (CMakeLists.txt): Eigen selects SIMD at compile time, so that
// is how a user gets its best code. Threading: Eigen's row-major sparse x dense-vector product
// and its gemm use OpenMP when compiled with it (they are here); the triangular solve is
// sequential in Eigen.
#include <Eigen/Dense>
#include <Eigen/Sparse>

#include "baselines/libs.hpp"

namespace bench::eigen {

namespace {

template <class T>
using Csr = Eigen::SparseMatrix<T, Eigen::RowMajor, int>;
template <class T>
using Vec = Eigen::Matrix<T, Eigen::Dynamic, 1>;
template <class T>
using RowMat = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

template <class T>
Eigen::Map<const Csr<T>> map_csr(const tessera::HostCsr<T>& A) {
  return Eigen::Map<const Csr<T>>(A.rows, A.cols, A.nnz(), A.row_ptr.data(), A.col_idx.data(), A.values.data());
}

template <class T>
std::vector<double> widen(const T* p, std::size_t n) {
  return std::vector<double>(p, p + n);
}

template <class T>
class Spmv : public Runner {
 public:
  explicit Spmv(const SpmvData<T>& d)
      : d_(d), A_(map_csr(d.A)), x_(d.x.data(), static_cast<Eigen::Index>(d.x.size())), y_(d.A.rows) {}
  void reset() override { y_ = Eigen::Map<const Vec<T>>(d_.y0.data(), static_cast<Eigen::Index>(d_.y0.size())); }
  void run() override {
    // y = alpha*A*x + beta*y without a temporary for A*x (noalias: y is not an operand of A*x).
    y_ *= d_.beta;
    if (d_.alpha == T(1))
      y_.noalias() += A_ * x_;
    else
      y_.noalias() += (d_.alpha * A_) * x_;
  }
  std::vector<double> result() override { return widen(y_.data(), static_cast<std::size_t>(y_.size())); }

 private:
  const SpmvData<T>& d_;
  Eigen::Map<const Csr<T>> A_;
  Eigen::Map<const Vec<T>> x_;
  Vec<T> y_;
};

// Y = alpha A X + beta Y with X, Y row-major (Eigen's sparse x dense product).
template <class T>
class Spmm : public Runner {
 public:
  explicit Spmm(const SpmmData<T>& d)
      : d_(d),
        A_(map_csr(d.A)),
        X_(d.X.data(), static_cast<Eigen::Index>(d.A.cols), static_cast<Eigen::Index>(d.k)),
        Y_(d.A.rows, d.k) {}
  void reset() override {
    Y_ = Eigen::Map<const RowMat<T>>(d_.Y0.data(), static_cast<Eigen::Index>(d_.A.rows), static_cast<Eigen::Index>(d_.k));
  }
  void run() override {
    Y_ *= d_.beta;
    if (d_.alpha == T(1))
      Y_.noalias() += A_ * X_;
    else
      Y_.noalias() += (d_.alpha * A_) * X_;
  }
  std::vector<double> result() override { return widen(Y_.data(), static_cast<std::size_t>(Y_.size())); }

 private:
  const SpmmData<T>& d_;
  Eigen::Map<const Csr<T>> A_;
  Eigen::Map<const RowMat<T>> X_;
  RowMat<T> Y_;
};

template <class T>
class Sptrsv : public Runner {
 public:
  explicit Sptrsv(const SptrsvData<T>& d) : d_(d), L_(map_csr(d.L)), x_(d.L.rows) {}
  void reset() override { x_ = Eigen::Map<const Vec<T>>(d_.b.data(), static_cast<Eigen::Index>(d_.b.size())); }
  void run() override { L_.template triangularView<Eigen::Lower>().solveInPlace(x_); }
  std::vector<double> result() override { return widen(x_.data(), static_cast<std::size_t>(x_.size())); }

 private:
  const SptrsvData<T>& d_;
  Eigen::Map<const Csr<T>> L_;
  Vec<T> x_;
};

template <class T>
class Gemm : public Runner {
 public:
  explicit Gemm(const GemmData<T>& d)
      : d_(d), A_(d.A.data(), d.m, d.k), B_(d.B.data(), d.k, d.n), C_(d.m, d.n) {}
  void run() override {
    if (d_.beta == T(0))
      C_.noalias() = d_.alpha * A_ * B_;
    else
      C_.noalias() = d_.alpha * A_ * B_ + d_.beta * C_;
  }
  std::vector<double> result() override { return widen(C_.data(), static_cast<std::size_t>(C_.size())); }

 private:
  const GemmData<T>& d_;
  Eigen::Map<const RowMat<T>> A_, B_;
  RowMat<T> C_;
};

}  // namespace

template <class T>
std::unique_ptr<Runner> spmv(const SpmvData<T>& d) {
  return std::make_unique<Spmv<T>>(d);
}
template <class T>
std::unique_ptr<Runner> spmm(const SpmmData<T>& d) {
  return std::make_unique<Spmm<T>>(d);
}
template <class T>
std::unique_ptr<Runner> sptrsv(const SptrsvData<T>& d) {
  return std::make_unique<Sptrsv<T>>(d);
}
template <class T>
std::unique_ptr<Runner> gemm(const GemmData<T>& d) {
  return std::make_unique<Gemm<T>>(d);
}

std::string version() {
  return "Eigen " + std::to_string(EIGEN_WORLD_VERSION) + "." + std::to_string(EIGEN_MAJOR_VERSION) + "." +
         std::to_string(EIGEN_MINOR_VERSION) + " (" + Eigen::SimdInstructionSetsInUse() + ", " +
         std::to_string(Eigen::nbThreads()) + " threads)";
}

template std::unique_ptr<Runner> spmv<float>(const SpmvData<float>&);
template std::unique_ptr<Runner> spmv<double>(const SpmvData<double>&);
template std::unique_ptr<Runner> spmm<float>(const SpmmData<float>&);
template std::unique_ptr<Runner> spmm<double>(const SpmmData<double>&);
template std::unique_ptr<Runner> sptrsv<float>(const SptrsvData<float>&);
template std::unique_ptr<Runner> sptrsv<double>(const SptrsvData<double>&);
template std::unique_ptr<Runner> gemm<float>(const GemmData<float>&);
template std::unique_ptr<Runner> gemm<double>(const GemmData<double>&);

}  // namespace bench::eigen
