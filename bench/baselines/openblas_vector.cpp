// OpenBLAS level 1 on the workload's arrays: the vector algebra and the launch case on the
// host. BLAS has no fused forms, so axpby_dot is ?axpby then ?dot (OpenBLAS's axpby extension)
// and dot2 two ?dot calls: what a BLAS user writes.
#include <cblas.h>

#include <chrono>
#include <cstring>
#include <stdexcept>
#include <type_traits>
#include <vector>

#include "baselines/libs.hpp"

namespace bench::openblas {

namespace {

template <class T>
T dot_(blasint n, const T* x, const T* y) {
  if constexpr (std::is_same_v<T, float>) return cblas_sdot(n, x, 1, y, 1);
  else return cblas_ddot(n, x, 1, y, 1);
}
template <class T>
void axpy_(blasint n, T a, const T* x, T* y) {
  if constexpr (std::is_same_v<T, float>) cblas_saxpy(n, a, x, 1, y, 1);
  else cblas_daxpy(n, a, x, 1, y, 1);
}

template <class T>
class Vector : public Runner {
 public:
  explicit Vector(const VectorData<T>& d) : d_(d), y_(d.op == Op::copy ? std::vector<T>(d.x.size()) : d.y) {}
  void reset() override {
    if (d_.op == Op::axpy || d_.op == Op::axpby_dot) std::memcpy(y_.data(), d_.y.data(), y_.size() * sizeof(T));
  }
  void run() override {
    const auto n = static_cast<blasint>(d_.x.size());
    const T* x = d_.x.data();
    T* y = y_.data();
    switch (d_.op) {
      case Op::axpy: axpy_(n, d_.alpha, x, y); break;
      case Op::copy:
        if constexpr (std::is_same_v<T, float>) cblas_scopy(n, x, 1, y, 1);
        else cblas_dcopy(n, x, 1, y, 1);
        break;
      case Op::norm2:
        if constexpr (std::is_same_v<T, float>) s1_ = cblas_snrm2(n, x, 1);
        else s1_ = cblas_dnrm2(n, x, 1);
        break;
      case Op::axpby_dot:
        if constexpr (std::is_same_v<T, float>) cblas_saxpby(n, d_.alpha, x, 1, d_.beta, y, 1);
        else cblas_daxpby(n, d_.alpha, x, 1, d_.beta, y, 1);
        s1_ = dot_(n, y, y);
        break;
      case Op::dot2:
        s1_ = dot_(n, x, d_.y.data());
        s2_ = dot_(n, x, d_.z.data());
        break;
      default: throw std::logic_error("openblas::vector: not a vector operation");
    }
  }
  std::vector<double> result() override { return vector_result(d_, y_, s1_, s2_); }
  std::string detail() const override {
    return d_.op == Op::axpby_dot ? "?axpby + ?dot" : d_.op == Op::dot2 ? "2 x ?dot" : "";
  }

 private:
  const VectorData<T>& d_;
  std::vector<T> y_;
  T s1_{}, s2_{};
};

// `calls` axpys, clocked around the loop (a host call has nothing to wait for afterwards, so
// enqueue and round trip are the same thing: the call).
template <class T>
class Launch : public Runner {
 public:
  explicit Launch(const VectorData<T>& d) : d_(d), y_(d.y) {}
  void reset() override { std::memcpy(y_.data(), d_.y.data(), y_.size() * sizeof(T)); }
  void run() override {
    const auto n = static_cast<blasint>(d_.x.size());
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < d_.calls; ++i) axpy_(n, d_.alpha, d_.x.data(), y_.data());
    ms_ = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  }
  std::vector<double> result() override { return std::vector<double>(y_.begin(), y_.end()); }
  int calls_per_run() const override { return d_.calls; }
  double own_ms() const override { return ms_; }

 private:
  const VectorData<T>& d_;
  std::vector<T> y_;
  double ms_ = -1;
};

}  // namespace

template <class T>
std::unique_ptr<Runner> vector(const VectorData<T>& d) {
  return std::make_unique<Vector<T>>(d);
}
template <class T>
std::unique_ptr<Runner> launch(const VectorData<T>& d) {
  return std::make_unique<Launch<T>>(d);
}

template std::unique_ptr<Runner> vector<float>(const VectorData<float>&);
template std::unique_ptr<Runner> vector<double>(const VectorData<double>&);
template std::unique_ptr<Runner> launch<float>(const VectorData<float>&);
template std::unique_ptr<Runner> launch<double>(const VectorData<double>&);

}  // namespace bench::openblas
