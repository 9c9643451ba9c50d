// Convolutions (cross-correlation, as cuDNN and oneDNN compute them).
//   conv2d (single channel, 'same' mode, out P x Q = H x W):
//     flops = 2 * K * K * P * Q
//     bytes = (H * W + P * Q) * sizeof(T) (image read, output written; the filter is negligible)
//     bound by bandwidth (triad peak: one read and one write stream)
//   conv_layer (NCHW in, KCRS filter, NKPQ out):
//     flops = 2 * N * K * P * Q * C * R * S
//     bytes = (N*C*H*W + K*C*R*S + N*K*P*Q) * sizeof(T)
//     bound by FLOP/s; large layers are checked on a sample of output entries (see check.hpp).
#include <algorithm>

#include "baselines/baselines.hpp"
#include "tessera/dense_matrix.hpp"
#include "tessera/ops.hpp"
#include "tessera/tensor.hpp"
#include "workloads/common.hpp"

namespace bench {

namespace {

template <class T>
class TesseraConv2d : public Runner {
 public:
  TesseraConv2d(const tessera::Device& dev, const Conv2dData<T>& d)
      : dev_(dev),
        d_(d),
        image_(tessera::DenseMatrix<T>::from_host(dev, d.H, d.W, d.image)),
        filter_(tessera::DenseMatrix<T>::from_host(dev, d.K, d.K, d.filter)),
        out_(dev, d.H, d.W) {}
  void run() override { tessera::conv2d(d_.mode, image_, filter_, out_); }
  void sync() override { dev_.synchronize(); }
  std::vector<double> result() override { return widen(out_.to_host()); }

 private:
  tessera::Device dev_;
  const Conv2dData<T>& d_;
  tessera::DenseMatrix<T> image_, filter_, out_;
};

template <class T>
class TesseraConvLayer : public Runner {
 public:
  TesseraConvLayer(const tessera::Device& dev, const ConvLayerData<T>& d,
                   tessera::MathMode math = tessera::MathMode::exact)
      : dev_(dev), d_(d), math_(math), in_(dev, d.N, d.C, d.H, d.W), filter_(dev, d.K, d.C, d.R, d.S), out_(dev, d.N, d.K, d.P, d.Q) {
    in_.upload(d.in);
    filter_.upload(d.filter);
  }
  void run() override { tessera::conv_layer(d_.params, in_, filter_, out_, math_); }
  void sync() override { dev_.synchronize(); }
  std::vector<double> result() override { return widen(out_.to_host()); }

 private:
  tessera::Device dev_;
  const ConvLayerData<T>& d_;
  tessera::MathMode math_;
  tessera::Tensor4<T> in_, filter_, out_;
};

template <class T>
class Conv2dWorkload : public Workload {
 public:
  using Workload::Workload;

  void generate() override {
    d_.H = d_.W = spec().get("n");
    d_.K = spec().get("k");
    d_.mode = tessera::ConvMode::same;
    d_.image = random_vector<T>(d_.H * d_.W, 0x5eed0601);
    d_.filter = random_vector<T>(d_.K * d_.K, 0x5eed0602);
  }
  void release() override { d_ = {}; }

  double flops() const override {
    return 2.0 * static_cast<double>(d_.K * d_.K) * static_cast<double>(d_.H) * static_cast<double>(d_.W);
  }
  double bytes() const override { return 2.0 * static_cast<double>(d_.H * d_.W) * static_cast<double>(sizeof(T)); }
  Bound bound() const override { return Bound::triad_bandwidth; }

  std::unique_ptr<Runner> tessera_runner(const tessera::Device& dev) override {
    return std::make_unique<TesseraConv2d<T>>(dev, d_);
  }
  std::vector<NamedRunner> baseline_runners() override { return conv2d_baselines<T>(d_); }

 private:
  Conv2dData<T> d_;
};

template <class T>
class ConvLayerWorkload : public Workload {
 public:
  using Workload::Workload;

  void generate() override {
    const CaseSpec& s = spec();
    d_.N = s.get("N");
    d_.C = s.get("C");
    d_.H = d_.W = s.get("HW");
    d_.K = s.get("K");
    d_.R = d_.S = s.get("RS");
    d_.params.pad_h = d_.params.pad_w = s.get("pad");
    d_.params.stride_h = d_.params.stride_w = s.get("stride", 1);
    d_.P = tessera::conv_output_size(d_.H, d_.R, d_.params.pad_h, d_.params.stride_h);
    d_.Q = tessera::conv_output_size(d_.W, d_.S, d_.params.pad_w, d_.params.stride_w);
    d_.in = random_vector<T>(d_.N * d_.C * d_.H * d_.W, 0x5eed0701);
    d_.filter = random_vector<T>(d_.K * d_.C * d_.R * d_.S, 0x5eed0702);
  }
  void release() override { d_ = {}; }

  double flops() const override {
    return 2.0 * static_cast<double>(d_.N * d_.K * d_.P * d_.Q) * static_cast<double>(d_.C * d_.R * d_.S);
  }
  double bytes() const override {
    return static_cast<double>(d_.N * d_.C * d_.H * d_.W + d_.K * d_.C * d_.R * d_.S + d_.N * d_.K * d_.P * d_.Q) *
           static_cast<double>(sizeof(T));
  }
  Bound bound() const override { return Bound::flops; }

  bool has_sampled_oracle() const override { return true; }
  Oracle sampled_oracle() const override {
    Oracle o;
    o.source = "sampled";
    const std::int64_t total = d_.N * d_.K * d_.P * d_.Q;
    const std::int64_t count = std::min<std::int64_t>(total, 4096);
    o.index.resize(static_cast<std::size_t>(count));
    o.expected.resize(static_cast<std::size_t>(count));
    for (std::int64_t s = 0; s < count; ++s)
      o.index[static_cast<std::size_t>(s)] =
          count == total ? s : static_cast<std::int64_t>(mix64(0x5eed0703 + static_cast<std::uint64_t>(s)) %
                                                         static_cast<std::uint64_t>(total));
    std::sort(o.index.begin(), o.index.end());
#pragma omp parallel for schedule(dynamic, 16)
    for (std::int64_t s = 0; s < count; ++s) {
      std::int64_t e = o.index[static_cast<std::size_t>(s)];
      const std::int64_t q = e % d_.Q, p = (e / d_.Q) % d_.P, k = (e / (d_.Q * d_.P)) % d_.K, n = e / (d_.Q * d_.P * d_.K);
      double acc = 0;
      for (std::int64_t c = 0; c < d_.C; ++c)
        for (std::int64_t r = 0; r < d_.R; ++r) {
          const std::int64_t h = p * d_.params.stride_h - d_.params.pad_h + r;
          if (h < 0 || h >= d_.H) continue;
          for (std::int64_t t = 0; t < d_.S; ++t) {
            const std::int64_t w = q * d_.params.stride_w - d_.params.pad_w + t;
            if (w < 0 || w >= d_.W) continue;
            acc += static_cast<double>(d_.in[static_cast<std::size_t>(((n * d_.C + c) * d_.H + h) * d_.W + w)]) *
                   static_cast<double>(d_.filter[static_cast<std::size_t>(((k * d_.C + c) * d_.R + r) * d_.S + t)]);
          }
        }
      o.expected[static_cast<std::size_t>(s)] = acc;
    }
    return o;
  }

  std::unique_ptr<Runner> tessera_runner(const tessera::Device& dev) override {
    return std::make_unique<TesseraConvLayer<T>>(dev, d_);
  }
  std::vector<NamedRunner> tessera_variants(const tessera::Device& dev) override {
    return math_mode_variants<T>(dev,
                                 [&](tessera::MathMode m) { return std::make_unique<TesseraConvLayer<T>>(dev, d_, m); });
  }
  std::vector<NamedRunner> baseline_runners() override { return conv_layer_baselines<T>(d_); }

 private:
  ConvLayerData<T> d_;
};

}  // namespace

std::unique_ptr<Workload> make_conv_workload(const CaseSpec& spec, tessera::DType dtype) {
  if (spec.op == Op::conv2d) return make_typed<Conv2dWorkload>(spec, dtype);
  return make_typed<ConvLayerWorkload>(spec, dtype);
}

}  // namespace bench
