// Dense triangular solves, lower, non-unit diagonal, no transpose, in place.
//   trsv: flops = n^2 (n(n-1)/2 multiply-adds + n divisions)
//         bytes = n(n+1)/2 * sizeof(T) (the triangle) + 2n * sizeof(T) (x read and written)
//         bound by read bandwidth (each matrix element is used once)
//   trsm: flops = n^2 * nrhs, bytes = n(n+1)/2 * sizeof(T) + 2 * n * nrhs * sizeof(T)
//         bound by FLOP/s (each matrix element is used nrhs times)
// The matrix is well conditioned so the check measures the implementation, not rounding
// amplification: diagonal in [1, 2], off-diagonal entries of magnitude [0.05, 0.5] / n
// (so |D^-1 E|_inf <= 0.5). The unused upper triangle holds O(1) random values, so an
// implementation that reads it fails the check. x (or B) is restored before every call.
#include "baselines/baselines.hpp"
#include "tessera/dense_matrix.hpp"
#include "tessera/ops.hpp"
#include "tessera/vector.hpp"
#include "workloads/common.hpp"

namespace bench {

namespace {

template <class T>
std::vector<T> lower_triangular(std::int64_t n, std::uint64_t seed) {
  std::vector<T> A(static_cast<std::size_t>(n * n));
  const double off = 1.0 / static_cast<double>(n);
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < n; ++i)
    for (std::int64_t j = 0; j < n; ++j) {
      const auto idx = static_cast<std::uint64_t>(i * n + j);
      double v;
      if (j < i)
        v = signed_uniform(seed, idx, 0.05 * off, 0.5 * off);
      else if (j == i)
        v = 1.0 + uniform01(seed, idx);
      else
        v = signed_uniform(seed, idx);
      A[static_cast<std::size_t>(i * n + j)] = static_cast<T>(v);
    }
  return A;
}

template <class T>
class TesseraTrsv : public Runner {
 public:
  TesseraTrsv(const tessera::Device& dev, const TrsvData<T>& d)
      : dev_(dev), d_(d), A_(tessera::DenseMatrix<T>::from_host(dev, d.n, d.n, d.A)), x_(dev, d.n) {}
  void reset() override { x_.upload(d_.b); }
  void run() override {
    tessera::trsv(tessera::Uplo::lower, tessera::Trans::N, tessera::Diag::non_unit, A_, x_);
  }
  void sync() override { dev_.synchronize(); }
  std::vector<double> result() override { return widen(x_.to_host()); }

 private:
  tessera::Device dev_;
  const TrsvData<T>& d_;
  tessera::DenseMatrix<T> A_;
  tessera::Vector<T> x_;
};

template <class T>
class TesseraTrsm : public Runner {
 public:
  TesseraTrsm(const tessera::Device& dev, const TrsmData<T>& d)
      : dev_(dev), d_(d), A_(tessera::DenseMatrix<T>::from_host(dev, d.n, d.n, d.A)), B_(dev, d.n, d.nrhs) {}
  void reset() override { B_.upload(d_.B.data()); }
  void run() override {
    tessera::trsm(tessera::Uplo::lower, tessera::Trans::N, tessera::Diag::non_unit, d_.alpha, A_, B_);
  }
  void sync() override { dev_.synchronize(); }
  std::vector<double> result() override { return widen(B_.to_host()); }

 private:
  tessera::Device dev_;
  const TrsmData<T>& d_;
  tessera::DenseMatrix<T> A_, B_;
};

template <class T>
class TrsvWorkload : public Workload {
 public:
  using Workload::Workload;
  bool is_trsm() const { return spec().op == Op::trsm; }
  double n() const { return static_cast<double>(spec().get("n")); }
  double nrhs() const { return is_trsm() ? static_cast<double>(spec().get("nrhs")) : 1.0; }

  void generate() override {
    const auto n = spec().get("n");
    if (is_trsm()) {
      m_.n = n;
      m_.nrhs = spec().get("nrhs");
      m_.A = lower_triangular<T>(n, 0x5eed0201);
      m_.B = random_vector<T>(n * m_.nrhs, 0x5eed0202);
    } else {
      v_.n = n;
      v_.A = lower_triangular<T>(n, 0x5eed0201);
      v_.b = random_vector<T>(n, 0x5eed0203);
    }
  }
  void release() override {
    v_ = {};
    m_ = {};
  }

  double flops() const override { return n() * n() * nrhs(); }
  double bytes() const override {
    const double s = sizeof(T);
    return n() * (n() + 1) / 2 * s + 2 * n() * nrhs() * s;
  }
  Bound bound() const override { return is_trsm() ? Bound::flops : Bound::read_bandwidth; }

  std::unique_ptr<Runner> tessera_runner(const tessera::Device& dev) override {
    if (is_trsm()) return std::make_unique<TesseraTrsm<T>>(dev, m_);
    return std::make_unique<TesseraTrsv<T>>(dev, v_);
  }
  std::vector<NamedRunner> baseline_runners() override {
    return is_trsm() ? trsm_baselines<T>(m_) : trsv_baselines<T>(v_);
  }

 private:
  TrsvData<T> v_;
  TrsmData<T> m_;
};

}  // namespace

std::unique_ptr<Workload> make_trsv_workload(const CaseSpec& spec, tessera::DType dtype) {
  return make_typed<TrsvWorkload>(spec, dtype);
}

}  // namespace bench
