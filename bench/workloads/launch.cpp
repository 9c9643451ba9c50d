// launch: what one small operation costs the caller, axpy on n = 1000 elements (the issue's
// goal: <= 4 us on cuda:0, <= 1 us on cpu). Two cases, each a row per implementation:
//   enqueue   `calls` (1000) axpys enqueued back to back on one queue; the host clock around the
//             enqueue loop alone (the wait for the device that follows is not timed), / calls.
//             The loop must not wait for the device: Device::host_waits() is compared before
//             and after it (an error row otherwise).
//   roundtrip one axpy followed by Queue::synchronize, host clock around both: the latency of
//             a call whose result the host waits for.
// No bytes, flops or peak: the quantity is time per call (Bound::latency). alpha = 2^-10 keeps
// every result exact (op_data.hpp), so 1000 calls are checked against the reference bit for bit.
#include <cmath>

#include "baselines/baselines.hpp"
#include "measure.hpp"
#include "tessera/algebra.hpp"
#include "tessera/vector.hpp"
#include "workloads/common.hpp"

namespace bench {

namespace {

template <class T>
class TesseraLaunch : public Runner {
 public:
  TesseraLaunch(const tessera::Device& dev, const VectorData<T>& d)
      : dev_(dev),
        q_(dev.queue()),
        d_(d),
        x_(tessera::Vector<T>::from_host(dev, d.x)),
        y_(tessera::Vector<T>::from_host(dev, d.y)),
        y0_(tessera::Vector<T>::from_host(dev, d.y)) {}
  void reset() override { tessera::copy(q_, y0_, y_); }
  void run() override {
    if (d_.round_trip) {
      const double t0 = now_s();
      tessera::axpy(q_, d_.alpha, x_, y_);
      q_.synchronize();
      ms_ = (now_s() - t0) * 1e3;
      return;
    }
    const auto waits = dev_.host_waits();
    const double t0 = now_s();
    for (int i = 0; i < d_.calls; ++i) tessera::axpy(q_, d_.alpha, x_, y_);
    ms_ = (now_s() - t0) * 1e3;
    if (dev_.host_waits() != waits)
      throw std::runtime_error("the enqueue loop waited for the device " + std::to_string(dev_.host_waits() - waits) +
                               " times (expected 0)");
  }
  void sync() override { q_.synchronize(); }
  std::vector<double> result() override { return widen(y_.to_host()); }
  int calls_per_run() const override { return d_.round_trip ? 1 : d_.calls; }
  double own_ms() const override { return ms_; }

 private:
  tessera::Device dev_;
  tessera::Queue q_;
  const VectorData<T>& d_;
  tessera::Vector<T> x_, y_, y0_;
  double ms_ = -1;
};

template <class T>
class LaunchWorkload : public Workload {
 public:
  using Workload::Workload;

  void generate() override {
    d_.op = Op::axpy;
    d_.x = random_vector<T>(spec().get("n"), 0x5eed0301);
    d_.y = random_vector<T>(spec().get("n"), 0x5eed0302);
    d_.alpha = T(1) / T(1024);
    d_.round_trip = spec().kind == "roundtrip";
    d_.calls = d_.round_trip ? 1 : static_cast<int>(spec().get("calls"));
  }
  void release() override { d_ = {}; }

  double flops() const override { return NAN; }
  double bytes() const override { return NAN; }
  double footprint_bytes() const override { return 0; }
  Bound bound() const override { return Bound::latency; }

  std::unique_ptr<Runner> tessera_runner(const tessera::Device& dev) override {
    return std::make_unique<TesseraLaunch<T>>(dev, d_);
  }
  std::vector<NamedRunner> baseline_runners() override { return launch_baselines<T>(d_); }

 private:
  VectorData<T> d_;
};

}  // namespace

std::unique_ptr<Workload> make_launch_workload(const CaseSpec& spec, tessera::DType dtype) {
  return make_typed<LaunchWorkload>(spec, dtype);
}

}  // namespace bench
