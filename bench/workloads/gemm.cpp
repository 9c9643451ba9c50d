// gemm: C = alpha * A * B + beta * C, n x n (or m x k times k x n: keys m, k), no transposes,
// alpha = 1, beta = 0; f32 also in the TF32 math modes (tessera-tf32, tessera-tf32x3 lines).
//   flops = 2 * m * n * k
//   bytes = (m*k + k*n + m*n) * sizeof(T) (each matrix once: the minimum traffic)
// Bound by FLOP/s. Large cases are checked on a sample of entries (see check.hpp).
#include <algorithm>
#include <cmath>

#include "baselines/baselines.hpp"
#include "tessera/dense_matrix.hpp"
#include "tessera/ops.hpp"
#include "workloads/common.hpp"

namespace bench {

namespace {

template <class T>
class TesseraGemm : public Runner {
 public:
  TesseraGemm(const tessera::Device& dev, const GemmData<T>& d, tessera::MathMode math = tessera::MathMode::exact)
      : dev_(dev),
        d_(d),
        math_(math),
        A_(tessera::DenseMatrix<T>::from_host(dev, d.m, d.k, d.A)),
        B_(tessera::DenseMatrix<T>::from_host(dev, d.k, d.n, d.B)),
        C_(dev, d.m, d.n) {}
  void run() override { tessera::gemm(tessera::Trans::N, tessera::Trans::N, d_.alpha, A_, B_, d_.beta, C_, math_); }
  void sync() override { dev_.synchronize(); }
  std::vector<double> result() override { return widen(C_.to_host()); }

 private:
  tessera::Device dev_;
  const GemmData<T>& d_;
  tessera::MathMode math_;
  tessera::DenseMatrix<T> A_, B_, C_;
};

template <class T>
class GemmWorkload : public Workload {
 public:
  using Workload::Workload;

  void generate() override {
    const auto n = spec().get("n");
    d_.n = n;
    d_.m = spec().get("m") > 0 ? spec().get("m") : n;  // m, k: 0 = n (a square product)
    d_.k = spec().get("k") > 0 ? spec().get("k") : n;
    d_.A = random_vector<T>(d_.m * d_.k, 0x5eed0401);
    d_.B = random_vector<T>(d_.k * d_.n, 0x5eed0402);
    // scale_exp = E > 0: badly scaled data, each entry times 2^e with e uniform in [-E, E]
    // (entries over 2E binary orders of magnitude; E = 40 keeps every sum of 2^13 products
    // within FP32's range).
    if (const std::int64_t e = spec().get("scale_exp"); e > 0)
      for (auto* v : {&d_.A, &d_.B})
        for (std::size_t i = 0; i < v->size(); ++i)
          (*v)[i] = std::ldexp((*v)[i], static_cast<int>(mix64(0x5eed0404 + i + (v == &d_.B ? v->size() : 0)) %
                                                         static_cast<std::uint64_t>(2 * e + 1)) -
                                            static_cast<int>(e));
  }
  void release() override { d_ = {}; }

  double flops() const override {
    return 2.0 * static_cast<double>(d_.m) * static_cast<double>(d_.n) * static_cast<double>(d_.k);
  }
  double bytes() const override {
    return static_cast<double>(d_.m * d_.k + d_.k * d_.n + d_.m * d_.n) * static_cast<double>(sizeof(T));
  }
  Bound bound() const override { return Bound::flops; }

  bool has_sampled_oracle() const override { return true; }
  Oracle sampled_oracle() const override {
    Oracle o;
    o.source = "sampled";
    const std::int64_t total = d_.m * d_.n;
    const std::int64_t count = std::min<std::int64_t>(total, 4096);
    o.index.resize(static_cast<std::size_t>(count));
    o.expected.resize(static_cast<std::size_t>(count));
    for (std::int64_t s = 0; s < count; ++s)
      o.index[static_cast<std::size_t>(s)] =
          count == total ? s : static_cast<std::int64_t>(mix64(0x5eed0403 + static_cast<std::uint64_t>(s)) %
                                                         static_cast<std::uint64_t>(total));
    std::sort(o.index.begin(), o.index.end());
    // Badly scaled data: each entry's error relative to its own magnitude sum |a b| (the scale
    // the math modes' bounds are stated in, tessera/types.hpp); against max |expected| the
    // entries far below the largest would hardly count.
    const bool per_entry = spec().get("scale_exp") > 0;
    if (per_entry) o.entry_scale.resize(static_cast<std::size_t>(count));
#pragma omp parallel for schedule(dynamic, 16)
    for (std::int64_t s = 0; s < count; ++s) {
      const std::int64_t i = o.index[static_cast<std::size_t>(s)] / d_.n, j = o.index[static_cast<std::size_t>(s)] % d_.n;
      double acc = 0, mag = 0;
      for (std::int64_t p = 0; p < d_.k; ++p) {
        const double prod = static_cast<double>(d_.A[static_cast<std::size_t>(i * d_.k + p)]) *
                            static_cast<double>(d_.B[static_cast<std::size_t>(p * d_.n + j)]);
        acc += prod;
        mag += std::fabs(prod);
      }
      o.expected[static_cast<std::size_t>(s)] = static_cast<double>(d_.alpha) * acc;  // beta = 0
      if (per_entry) o.entry_scale[static_cast<std::size_t>(s)] = std::fabs(static_cast<double>(d_.alpha)) * mag;
    }
    return o;
  }

  std::unique_ptr<Runner> tessera_runner(const tessera::Device& dev) override {
    return std::make_unique<TesseraGemm<T>>(dev, d_);
  }
  std::vector<NamedRunner> tessera_variants(const tessera::Device& dev) override {
    return math_mode_variants<T>(dev, [&](tessera::MathMode m) { return std::make_unique<TesseraGemm<T>>(dev, d_, m); });
  }
  std::vector<NamedRunner> baseline_runners() override { return gemm_baselines<T>(d_); }

 private:
  GemmData<T> d_;
};

}  // namespace

std::unique_ptr<Workload> make_gemm_workload(const CaseSpec& spec, tessera::DType dtype) {
  return make_typed<GemmWorkload>(spec, dtype);
}

}  // namespace bench
