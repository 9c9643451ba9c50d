// conv2d and conv_layer on the cpu device once per compiled SIMD target (forced one at a time),
// against the reference device, f32 and f64. The reference runs once per case, on the values
// and on their magnitudes; each target must be within
//   |out - out_ref| <= gamma_{terms + 1} sum |filter| |input|   (tests/support/compare.hpp).
// Cases reach the unrolled (K = 3, 5, 7) and generic conv2d tiles, partial vector pairs at the
// right edge and two-thread bands; conv_layer with strides, padding, R != S, batched GEMM
// columns, one image per thread and a team sharing one GEMM, with the reference under
// ~10 MFLOP per case (the suite runs under ASan and QEMU).
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "support/compare.hpp"
#include "support/cpu_targets.hpp"
#include "support/random.hpp"
#include "tessera/tessera.hpp"

using namespace tessera;
using tessera_test::gamma_bound;
using tessera_test::padded_random;

namespace {

Device cpu() { return Device::open("cpu"); }
Device ref() { return Device::open("reference"); }

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

template <class T>
std::vector<T> abs_keep_nan(std::vector<T> v) {
  for (auto& e : v) e = std::isnan(e) ? e : std::abs(e);
  return v;
}

template <class T>
void conv2d_on_every_target(ConvMode mode, std::int64_t H, std::int64_t W, std::int64_t K, bool padded,
                            std::uint32_t seed) {
  const std::int64_t ld = padded ? W + 3 : W, fld = padded ? K + 2 : K;
  const std::int64_t P = mode == ConvMode::same ? H : H - K + 1, Q = mode == ConvMode::same ? W : W - K + 1;
  const std::int64_t qld = padded ? Q + 1 : Q;
  std::ostringstream w;
  w << "conv2d " << (mode == ConvMode::same ? "same" : "valid") << " " << H << " x " << W << " K=" << K
    << (padded ? " ld>cols" : "");
  const std::string what = w.str();
  INFO(what);
  const auto img = padded_random<T>(H, W, ld, seed), filt = padded_random<T>(K, K, fld, seed + 1);
  const auto run = [&](const Device& d, const std::vector<T>& image, const std::vector<T>& f) {
    DenseMatrix<T> I(d, H, W, ld), F(d, K, K, fld), out(d, P, Q, qld);
    I.upload(image.data(), ld);
    F.upload(f.data(), fld);
    out.upload(std::vector<T>(static_cast<std::size_t>(P * qld), static_cast<T>(kNaN)).data(), qld);
    conv2d(mode, I, F, out);
    return out.to_host();
  };
  const auto expected = run(ref(), img, filt);
  const auto magnitude = run(ref(), abs_keep_nan(img), abs_keep_nan(filt));
  std::vector<double> bound(expected.size());
  for (std::size_t i = 0; i < bound.size(); ++i) bound[i] = gamma_bound<T>(K * K + 1.0) * magnitude[i];
  tessera_test::for_each_cpu_target(
      [&](const std::string& t) { tessera_test::check_close(run(cpu(), img, filt), expected, bound, what + " on " + t); });
}

template <class T>
void check_conv2d() {
  std::uint32_t seed = 40;
  int index = 0;
  for (const ConvMode mode : {ConvMode::valid, ConvMode::same})
    for (const std::int64_t K : {1, 2, 3, 4, 5, 7}) {
      // K x K (a single output for valid), widths around 2 vectors of 4..16 lanes.
      const std::int64_t images[][2] = {{K, K}, {9, 37}, {23, 70}};
      for (const auto& hw : images) conv2d_on_every_target<T>(mode, hw[0], hw[1], K, index++ % 2 == 1, seed += 2);
    }
  // Past 2^20 multiply-adds per thread: two bands.
  conv2d_on_every_target<T>(ConvMode::same, 300, 301, 5, true, 7);
}

struct LayerCase {
  std::int64_t N, C, H, W, K, R, S, pad_h, pad_w, stride_h, stride_w;
};

template <class T>
void conv_layer_on_every_target(const LayerCase& c, std::uint32_t seed) {
  ConvParams p;
  p.pad_h = c.pad_h;
  p.pad_w = c.pad_w;
  p.stride_h = c.stride_h;
  p.stride_w = c.stride_w;
  const std::int64_t P = conv_output_size(c.H, c.R, c.pad_h, c.stride_h);
  const std::int64_t Q = conv_output_size(c.W, c.S, c.pad_w, c.stride_w);
  std::ostringstream w;
  w << "conv_layer N=" << c.N << " C=" << c.C << " " << c.H << "x" << c.W << " K=" << c.K << " " << c.R << "x" << c.S
    << " pad " << c.pad_h << "," << c.pad_w << " stride " << c.stride_h << "," << c.stride_w;
  const std::string what = w.str();
  INFO(what);
  const auto hx = tessera_test::random_vector<T>(static_cast<std::size_t>(c.N * c.C * c.H * c.W), seed);
  const auto hw = tessera_test::random_vector<T>(static_cast<std::size_t>(c.K * c.C * c.R * c.S), seed + 1);
  const auto run = [&](const Device& d, const std::vector<T>& x, const std::vector<T>& f) {
    Tensor4<T> in(d, c.N, c.C, c.H, c.W), filter(d, c.K, c.C, c.R, c.S), out(d, c.N, c.K, P, Q);
    in.upload(x);
    filter.upload(f);
    out.upload(std::vector<T>(static_cast<std::size_t>(out.size()), static_cast<T>(kNaN)));
    conv_layer(p, in, filter, out);
    return out.to_host();
  };
  const auto expected = run(ref(), hx, hw);
  const auto magnitude = run(ref(), tessera_test::abs_of(hx), tessera_test::abs_of(hw));
  std::vector<double> bound(expected.size());
  for (std::size_t i = 0; i < bound.size(); ++i) bound[i] = gamma_bound<T>(c.C * c.R * c.S + 1.0) * magnitude[i];
  tessera_test::for_each_cpu_target(
      [&](const std::string& t) { tessera_test::check_close(run(cpu(), hx, hw), expected, bound, what + " on " + t); });
}

template <class T>
void check_conv_layer() {
  const LayerCase cases[] = {
      {1, 1, 1, 1, 1, 1, 1, 0, 0, 1, 1},      {2, 3, 11, 8, 3, 2, 3, 0, 1, 2, 1},
      {3, 5, 13, 13, 7, 5, 3, 2, 1, 3, 2},    {1, 2, 3, 3, 3, 3, 3, 1, 1, 2, 2},
      {3, 3, 5, 5, 5, 1, 1, 0, 0, 1, 1},      // several images per GEMM, one thread
      {4, 16, 13, 14, 25, 3, 3, 1, 1, 1, 1},  // two threads, whole images each
      {3, 16, 10, 10, 60, 3, 3, 1, 1, 1, 1},  // two threads sharing a batched GEMM
      {1, 32, 20, 20, 40, 3, 3, 1, 1, 1, 1},  // two threads sharing one image's GEMM
  };
  std::uint32_t seed = 300;
  for (const LayerCase& c : cases) conv_layer_on_every_target<T>(c, seed += 2);
}

}  // namespace

TEST_CASE_TEMPLATE("cpu targets: conv2d on every target", T, float, double) { check_conv2d<T>(); }

TEST_CASE_TEMPLATE("cpu targets: conv_layer on every target", T, float, double) { check_conv_layer<T>(); }
