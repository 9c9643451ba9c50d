// The vector algebra, one operation per case, on vectors beyond the last-level cache. Bytes are
// what the operation must move (each operand once), flops the arithmetic of the formula:
//   axpy       y = alpha x + y             bytes 3n  (x, y read, y written)   flops 2n
//   copy       y = x (device to device)    bytes 2n                           flops 0
//   norm2      ||x||_2 into a Scalar       bytes n                            flops 2n
//   axpby_dot  y = alpha x + beta y, y.y   bytes 3n  (w = y is read once)     flops 5n
//   dot2       x.y and x.z into Scalars    bytes 3n                           flops 4n
// (times sizeof(T)). axpy, copy and axpby_dot write what they read: % of the copy bandwidth;
// norm2 and dot2 only read: % of the read bandwidth. Tessera's results go to device Scalars
// (no host round trip inside the timed call); y is restored before every call by a device copy
// (untimed), so every call computes the same result.
#include <cmath>

#include "baselines/baselines.hpp"
#include "tessera/algebra.hpp"
#include "tessera/vector.hpp"
#include "workloads/common.hpp"

namespace bench {

namespace {

bool writes_y(Op op) { return op == Op::axpy || op == Op::axpby_dot; }

template <class T>
class TesseraVector : public Runner {
 public:
  TesseraVector(const tessera::Device& dev, const VectorData<T>& d)
      : dev_(dev), q_(dev.queue()), d_(d), x_(tessera::Vector<T>::from_host(dev, d.x)), s1_(dev), s2_(dev) {
    const auto n = static_cast<std::int64_t>(d.x.size());
    if (d.op != Op::norm2) y_ = d.op == Op::copy ? tessera::Vector<T>(dev, n) : tessera::Vector<T>::from_host(dev, d.y);
    if (writes_y(d.op)) y0_ = tessera::Vector<T>::from_host(dev, d.y);
    if (d.op == Op::dot2) z_ = tessera::Vector<T>::from_host(dev, d.z);
  }
  void reset() override {
    if (writes_y(d_.op)) tessera::copy(q_, y0_, y_);
  }
  void run() override {
    switch (d_.op) {
      case Op::axpy: tessera::axpy(q_, d_.alpha, x_, y_); break;
      case Op::copy: tessera::copy(q_, x_, y_); break;
      case Op::norm2: tessera::norm2(q_, x_, s1_); break;
      case Op::axpby_dot: tessera::axpby_dot(q_, d_.alpha, x_, d_.beta, y_, y_, s1_); break;
      case Op::dot2: tessera::dot2(q_, x_, y_, z_, s1_, s2_); break;
      default: throw std::logic_error("TesseraVector: not a vector operation");
    }
  }
  void sync() override { q_.synchronize(); }
  std::vector<double> result() override {
    const bool has_y = d_.op == Op::axpy || d_.op == Op::copy || d_.op == Op::axpby_dot;
    const bool has_s2 = d_.op == Op::dot2;
    const bool has_s1 = has_s2 || d_.op == Op::norm2 || d_.op == Op::axpby_dot;
    return vector_result(d_, has_y ? y_.to_host() : std::vector<T>{}, has_s1 ? s1_.get() : 0.0, has_s2 ? s2_.get() : 0.0);
  }

 private:
  tessera::Device dev_;
  tessera::Queue q_;
  const VectorData<T>& d_;
  tessera::Vector<T> x_, y_, y0_, z_;
  tessera::Scalar<T> s1_, s2_;
};

template <class T>
class VectorWorkload : public Workload {
 public:
  using Workload::Workload;
  std::int64_t n() const { return spec().get("n"); }

  void generate() override {
    d_.op = spec().op;
    d_.x = random_vector<T>(n(), 0x5eed0201);
    if (d_.op != Op::norm2) d_.y = random_vector<T>(n(), 0x5eed0202);
    if (d_.op == Op::dot2) d_.z = random_vector<T>(n(), 0x5eed0203);
    // The scales the scalar results are divided by (op_data.hpp): sum |terms| in double.
    const T* x = d_.x.data();
    const T* y = d_.y.data();
    const T* z = d_.z.data();
    const double a = d_.alpha, b = d_.beta;
    const std::int64_t len = n();
    double s1 = 0, s2 = 0;
    if (d_.op == Op::axpby_dot) {
#pragma omp parallel for reduction(+ : s1)
      for (std::int64_t i = 0; i < len; ++i) {
        const double v = a * x[i] + b * y[i];
        s1 += v * v;
      }
      d_.scale1 = s1;
    } else if (d_.op == Op::dot2) {
#pragma omp parallel for reduction(+ : s1, s2)
      for (std::int64_t i = 0; i < len; ++i) {
        s1 += std::fabs(static_cast<double>(x[i]) * y[i]);
        s2 += std::fabs(static_cast<double>(x[i]) * z[i]);
      }
      d_.scale1 = s1;
      d_.scale2 = s2;
    }
  }
  void release() override { d_ = {}; }

  double flops() const override {
    const double per = spec().op == Op::copy ? 0 : spec().op == Op::axpby_dot ? 5 : spec().op == Op::dot2 ? 4 : 2;
    return per * static_cast<double>(n());
  }
  double bytes() const override {
    const double per = spec().op == Op::norm2 ? 1 : spec().op == Op::copy ? 2 : 3;
    return per * static_cast<double>(n()) * static_cast<double>(sizeof(T));
  }
  Bound bound() const override {
    return spec().op == Op::norm2 || spec().op == Op::dot2 ? Bound::read_bandwidth : Bound::copy_bandwidth;
  }
  // dot2's results are each relative to their sum |terms| already (1 = that scale); the
  // others against max |expected| (the elements of y, or the norm).
  double check_scale() const override { return spec().op == Op::dot2 ? 1.0 : 0.0; }
  // norm2 and axpby_dot (w = y) sum n positive terms: there the rounding of a float
  // accumulator does not cancel, and libraries that sum in float (Eigen's squaredNorm: 1.5e-4
  // relative at 16M elements) exceed 1e-4; 1e-3 still fails a wrong or missing block of y.
  double tolerance() const override {
    const bool positive_sum = spec().op == Op::norm2 || spec().op == Op::axpby_dot;
    return positive_sum && dtype() == tessera::DType::f32 ? 1e-3 : 0.0;
  }

  std::unique_ptr<Runner> tessera_runner(const tessera::Device& dev) override {
    return std::make_unique<TesseraVector<T>>(dev, d_);
  }
  std::vector<NamedRunner> baseline_runners() override { return vector_baselines<T>(d_); }

 private:
  VectorData<T> d_;
};

}  // namespace

std::unique_ptr<Workload> make_vector_workload(const CaseSpec& spec, tessera::DType dtype) {
  return make_typed<VectorWorkload>(spec, dtype);
}

}  // namespace bench
