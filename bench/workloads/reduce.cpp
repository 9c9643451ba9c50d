// reduce (sum of x) and dot(x, y).
//   reduce sum: flops = n (one add per element), bytes = n * sizeof(T) (x read once)
//   dot:        flops = 2n (multiply + add),     bytes = 2n * sizeof(T) (x and y read once)
// Both are bound by read bandwidth; the vectors are sized far above the last-level cache.
// A case may give its size in bytes instead of n (--size gpu: 1 GiB in either dtype).
// dot is measured in two forms: `tessera` returns the value to the host (a round trip inside
// the timed call), `tessera-scalar` writes it to a tessera::Scalar on the device (read after
// the timing), compared with cuBLAS's host and device pointer modes respectively.
#include <cmath>

#include "baselines/baselines.hpp"
#include "tessera/algebra.hpp"
#include "tessera/ops.hpp"
#include "tessera/vector.hpp"
#include "workloads/common.hpp"

namespace bench {

namespace {

template <class T>
class TesseraReduce : public Runner {
 public:
  TesseraReduce(const tessera::Device& dev, const std::vector<T>& x)
      : dev_(dev), x_(tessera::Vector<T>::from_host(dev, x)) {}
  void run() override { value_ = tessera::sum(x_); }
  void sync() override { dev_.synchronize(); }
  std::vector<double> result() override { return {static_cast<double>(value_)}; }

 private:
  tessera::Device dev_;
  tessera::Vector<T> x_;
  T value_{};
};

template <class T>
class TesseraDot : public Runner {
 public:
  TesseraDot(const tessera::Device& dev, const DotData<T>& d)
      : dev_(dev), x_(tessera::Vector<T>::from_host(dev, d.x)), y_(tessera::Vector<T>::from_host(dev, d.y)) {}
  void run() override { value_ = tessera::dot(x_, y_); }
  void sync() override { dev_.synchronize(); }
  std::vector<double> result() override { return {static_cast<double>(value_)}; }

 private:
  tessera::Device dev_;
  tessera::Vector<T> x_, y_;
  T value_{};
};

template <class T>
class TesseraDotScalar : public Runner {
 public:
  TesseraDotScalar(const tessera::Device& dev, const DotData<T>& d)
      : q_(dev.queue()), x_(tessera::Vector<T>::from_host(dev, d.x)), y_(tessera::Vector<T>::from_host(dev, d.y)), s_(dev) {}
  void run() override { tessera::dot(q_, x_, y_, s_); }
  void sync() override { q_.synchronize(); }
  std::vector<double> result() override { return {static_cast<double>(s_.get())}; }

 private:
  tessera::Queue q_;
  tessera::Vector<T> x_, y_;
  tessera::Scalar<T> s_;
};

template <class T>
class ReduceWorkload : public Workload {
 public:
  using Workload::Workload;
  bool is_dot() const { return spec().op == Op::dot; }
  std::int64_t n() const {
    return spec().has("bytes") ? spec().get("bytes") / static_cast<std::int64_t>(sizeof(T)) : spec().get("n");
  }

  void generate() override {
    // The same x for reduce and dot; dot's lives in d_, reduce's in r_ (each data struct is
    // what its baselines take).
    (is_dot() ? d_.x : r_.x) = random_vector<T>(n(), 0x5eed0001);
    if (is_dot()) d_.y = random_vector<T>(n(), 0x5eed0002);
    // sum |terms| in double, the scale of the check (the sum itself cancels to ~sqrt(n)).
    double s = 0;
    const T* x = is_dot() ? d_.x.data() : r_.x.data();
    const T* y = is_dot() ? d_.y.data() : nullptr;
    const std::int64_t len = n();
#pragma omp parallel for reduction(+ : s)
    for (std::int64_t i = 0; i < len; ++i) s += std::fabs(static_cast<double>(x[i]) * (y ? y[i] : T(1)));
    scale_ = s;
  }
  void release() override {
    d_ = {};
    r_ = {};
  }
  std::vector<std::pair<std::string, std::int64_t>> sizes() const override {
    auto v = spec().sizes;
    set_size(v, "n", n());
    return v;
  }

  double flops() const override { return (is_dot() ? 2.0 : 1.0) * static_cast<double>(n()); }
  double bytes() const override {
    return (is_dot() ? 2.0 : 1.0) * static_cast<double>(n()) * static_cast<double>(sizeof(T));
  }
  Bound bound() const override { return Bound::read_bandwidth; }
  double check_scale() const override { return scale_; }

  std::unique_ptr<Runner> tessera_runner(const tessera::Device& dev) override {
    if (is_dot()) return std::make_unique<TesseraDot<T>>(dev, d_);
    return std::make_unique<TesseraReduce<T>>(dev, r_.x);
  }
  std::vector<NamedRunner> tessera_variants(const tessera::Device& dev) override {
    std::vector<NamedRunner> v;
    if (is_dot()) v.push_back({"tessera-scalar", std::make_unique<TesseraDotScalar<T>>(dev, d_), dev.spec(), false, "scalar"});
    return v;
  }
  std::vector<NamedRunner> baseline_runners() override {
    if (is_dot()) return dot_baselines<T>(d_);
    return reduce_baselines<T>(r_);
  }

 private:
  DotData<T> d_;    // dot
  ReduceData<T> r_;  // reduce (sum)
  double scale_ = 0;
};

}  // namespace

std::unique_ptr<Workload> make_reduce_workload(const CaseSpec& spec, tessera::DType dtype) {
  return make_typed<ReduceWorkload>(spec, dtype);
}

}  // namespace bench
