// OpenBLAS baselines through CBLAS, row-major, on the workload's arrays. The core type
// OpenBLAS runs with is set before it loads (openblas_coretype.cpp) and shown in the header.
#include <cblas.h>
#include <openblas_config.h>

#include <cstring>
#include <type_traits>
#include <vector>

#include "baselines/libs.hpp"

namespace bench::openblas {

namespace {

template <class T>
std::vector<double> widen(const std::vector<T>& v) {
  return std::vector<double>(v.begin(), v.end());
}

template <class T>
class Dot : public Runner {
 public:
  explicit Dot(const DotData<T>& d) : d_(d) {}
  void run() override {
    const auto n = static_cast<blasint>(d_.x.size());
    if constexpr (std::is_same_v<T, float>)
      value_ = cblas_sdot(n, d_.x.data(), 1, d_.y.data(), 1);
    else
      value_ = cblas_ddot(n, d_.x.data(), 1, d_.y.data(), 1);
  }
  std::vector<double> result() override { return {static_cast<double>(value_)}; }

 private:
  const DotData<T>& d_;
  T value_{};
};

template <class T>
class Trsv : public Runner {
 public:
  explicit Trsv(const TrsvData<T>& d) : d_(d), x_(d.b) {}
  void reset() override { std::memcpy(x_.data(), d_.b.data(), x_.size() * sizeof(T)); }
  void run() override {
    const auto n = static_cast<blasint>(d_.n);
    if constexpr (std::is_same_v<T, float>)
      cblas_strsv(CblasRowMajor, CblasLower, CblasNoTrans, CblasNonUnit, n, d_.A.data(), n, x_.data(), 1);
    else
      cblas_dtrsv(CblasRowMajor, CblasLower, CblasNoTrans, CblasNonUnit, n, d_.A.data(), n, x_.data(), 1);
  }
  std::vector<double> result() override { return widen(x_); }

 private:
  const TrsvData<T>& d_;
  std::vector<T> x_;
};

template <class T>
class Trsm : public Runner {
 public:
  explicit Trsm(const TrsmData<T>& d) : d_(d), B_(d.B) {}
  void reset() override { std::memcpy(B_.data(), d_.B.data(), B_.size() * sizeof(T)); }
  void run() override {
    const auto n = static_cast<blasint>(d_.n), nrhs = static_cast<blasint>(d_.nrhs);
    if constexpr (std::is_same_v<T, float>)
      cblas_strsm(CblasRowMajor, CblasLeft, CblasLower, CblasNoTrans, CblasNonUnit, n, nrhs, d_.alpha, d_.A.data(), n,
                  B_.data(), nrhs);
    else
      cblas_dtrsm(CblasRowMajor, CblasLeft, CblasLower, CblasNoTrans, CblasNonUnit, n, nrhs, d_.alpha, d_.A.data(), n,
                  B_.data(), nrhs);
  }
  std::vector<double> result() override { return widen(B_); }

 private:
  const TrsmData<T>& d_;
  std::vector<T> B_;
};

template <class T>
class Gemm : public Runner {
 public:
  explicit Gemm(const GemmData<T>& d) : d_(d), C_(static_cast<std::size_t>(d.m * d.n)) {}
  void run() override {
    const auto m = static_cast<blasint>(d_.m), n = static_cast<blasint>(d_.n), k = static_cast<blasint>(d_.k);
    if constexpr (std::is_same_v<T, float>)
      cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, n, k, d_.alpha, d_.A.data(), k, d_.B.data(), n, d_.beta,
                  C_.data(), n);
    else
      cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, n, k, d_.alpha, d_.A.data(), k, d_.B.data(), n, d_.beta,
                  C_.data(), n);
  }
  std::vector<double> result() override { return widen(C_); }

 private:
  const GemmData<T>& d_;
  std::vector<T> C_;
};

}  // namespace

template <class T>
std::unique_ptr<Runner> dot(const DotData<T>& d) {
  return std::make_unique<Dot<T>>(d);
}
template <class T>
std::unique_ptr<Runner> trsv(const TrsvData<T>& d) {
  return std::make_unique<Trsv<T>>(d);
}
template <class T>
std::unique_ptr<Runner> trsm(const TrsmData<T>& d) {
  return std::make_unique<Trsm<T>>(d);
}
template <class T>
std::unique_ptr<Runner> gemm(const GemmData<T>& d) {
  return std::make_unique<Gemm<T>>(d);
}

std::string version() {
  // OPENBLAS_VERSION is " OpenBLAS 0.3.21 " (with the spaces).
  std::string v = OPENBLAS_VERSION;
  const auto b = v.find_first_not_of(' '), e = v.find_last_not_of(' ');
  return b == std::string::npos ? "OpenBLAS" : v.substr(b, e - b + 1);
}

template std::unique_ptr<Runner> dot<float>(const DotData<float>&);
template std::unique_ptr<Runner> dot<double>(const DotData<double>&);
template std::unique_ptr<Runner> trsv<float>(const TrsvData<float>&);
template std::unique_ptr<Runner> trsv<double>(const TrsvData<double>&);
template std::unique_ptr<Runner> trsm<float>(const TrsmData<float>&);
template std::unique_ptr<Runner> trsm<double>(const TrsmData<double>&);
template std::unique_ptr<Runner> gemm<float>(const GemmData<float>&);
template std::unique_ptr<Runner> gemm<double>(const GemmData<double>&);

}  // namespace bench::openblas
