// conv2d (single-channel, valid and same) and conv_layer (NCHW, KCRS, padding, stride) on every
// device against the reference, and the reference against a host loop (the definitions:
// cross-correlation, 'same' padding (K-1)/2 before and K/2 after, P = (H + 2 pad - R) / stride + 1).
//
// Bound per output element: a sum of (filter size) products,
//   |out - out_ref| <= gamma_{terms + 1} * sum |filter| |input|,
// with the magnitude computed by the reference on |image| and |filter|.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "support/compare.hpp"
#include "support/devices.hpp"
#include "support/random.hpp"
#include "support/winograd.hpp"
#include "tessera/tessera.hpp"

using namespace tessera;
using namespace tessera_test;

namespace {

template <class T>
DenseMatrix<T> upload_padded(const Device& d, std::int64_t rows, std::int64_t cols, std::int64_t ld,
                             const std::vector<T>& host) {
  DenseMatrix<T> m(d, rows, cols, ld);
  m.upload(host.data(), ld);
  return m;
}

// The definition, in long double: out(p, q) = sum_{i,j} f(i, j) img(p + i - pad, q + j - pad).
template <class T>
std::vector<T> host_conv2d(ConvMode mode, std::int64_t H, std::int64_t W, std::int64_t ld, const std::vector<T>& img,
                           std::int64_t K, std::int64_t fld, const std::vector<T>& f) {
  const std::int64_t pad = mode == ConvMode::same ? (K - 1) / 2 : 0;
  const std::int64_t P = mode == ConvMode::same ? H : H - K + 1, Q = mode == ConvMode::same ? W : W - K + 1;
  std::vector<T> out(static_cast<std::size_t>(P * Q));
  for (std::int64_t p = 0; p < P; ++p)
    for (std::int64_t q = 0; q < Q; ++q) {
      long double acc = 0;
      for (std::int64_t i = 0; i < K; ++i)
        for (std::int64_t j = 0; j < K; ++j) {
          const std::int64_t r = p + i - pad, c = q + j - pad;
          if (r < 0 || r >= H || c < 0 || c >= W) continue;
          acc += static_cast<long double>(f[static_cast<std::size_t>(i * fld + j)]) * img[static_cast<std::size_t>(r * ld + c)];
        }
      out[static_cast<std::size_t>(p * Q + q)] = static_cast<T>(acc);
    }
  return out;
}

const char* name(ConvMode m) { return m == ConvMode::same ? "same" : "valid"; }

template <class T>
void conv2d_case(ConvMode mode, std::int64_t H, std::int64_t W, std::int64_t K, bool padded, std::uint32_t seed) {
  const Device ref = reference_device();
  const std::int64_t ld = padded ? W + 3 : W, fld = padded ? K + 1 : K;
  const std::int64_t P = mode == ConvMode::same ? H : H - K + 1, Q = mode == ConvMode::same ? W : W - K + 1;
  const std::int64_t qld = padded ? Q + 2 : Q;
  std::ostringstream w;
  w << "conv2d " << name(mode) << " image " << H << " x " << W << " K=" << K << (padded ? " ld>cols" : "");
  const std::string what = w.str();
  const auto img = padded_random<T>(H, W, ld, seed);
  const auto f = padded_random<T>(K, K, fld, seed + 1);
  auto abs_nan = [](std::vector<T> v) {
    for (auto& e : v) e = std::isnan(e) ? e : std::abs(e);
    return v;
  };
  auto run = [&](const Device& d, const std::vector<T>& image, const std::vector<T>& filter) {
    const auto I = upload_padded(d, H, W, ld, image);
    const auto F = upload_padded(d, K, K, fld, filter);
    DenseMatrix<T> out(d, P, Q, qld);
    out.upload(std::vector<T>(static_cast<std::size_t>(P * qld), std::numeric_limits<T>::quiet_NaN()).data(), qld);
    conv2d(mode, I, F, out);
    CHECK_MESSAGE(I.to_host() == upload_padded(reference_device(), H, W, ld, image).to_host(), what << ": image modified");
    return out.to_host();
  };
  std::vector<T> expected, magnitude;
  if (!on_reference(what.c_str(), [&] {
        expected = run(ref, img, f);
        magnitude = run(ref, abs_nan(img), abs_nan(f));
      }))
    return;
  std::vector<double> bound(expected.size());
  for (std::size_t i = 0; i < bound.size(); ++i)
    bound[i] = gamma_bound<T>(static_cast<double>(K * K + 1)) * static_cast<double>(magnitude[i]);
  check_close(expected, host_conv2d(mode, H, W, ld, img, K, fld, f), bound, what + " (reference vs host loop)");
  for_each_device<T>(Op::conv2d, [&](const Device& d) { check_close(run(d, img, f), expected, bound, what); });
}

struct LayerCase {
  std::int64_t N, C, H, W, K, R, S;
  ConvParams p;
};

template <class T>
std::vector<T> host_conv_layer(const LayerCase& c, std::int64_t P, std::int64_t Q, const std::vector<T>& x,
                               const std::vector<T>& w) {
  std::vector<T> out(static_cast<std::size_t>(c.N * c.K * P * Q));
  for (std::int64_t n = 0; n < c.N; ++n)
    for (std::int64_t k = 0; k < c.K; ++k)
      for (std::int64_t p = 0; p < P; ++p)
        for (std::int64_t q = 0; q < Q; ++q) {
          long double acc = 0;
          for (std::int64_t ch = 0; ch < c.C; ++ch)
            for (std::int64_t r = 0; r < c.R; ++r)
              for (std::int64_t s = 0; s < c.S; ++s) {
                const std::int64_t h = p * c.p.stride_h + r - c.p.pad_h, wi = q * c.p.stride_w + s - c.p.pad_w;
                if (h < 0 || h >= c.H || wi < 0 || wi >= c.W) continue;
                acc += static_cast<long double>(x[static_cast<std::size_t>(((n * c.C + ch) * c.H + h) * c.W + wi)]) *
                       w[static_cast<std::size_t>(((k * c.C + ch) * c.R + r) * c.S + s)];
              }
          out[static_cast<std::size_t>(((n * c.K + k) * P + p) * Q + q)] = static_cast<T>(acc);
        }
  return out;
}

template <class T>
void conv_layer_case(const LayerCase& c, std::uint32_t seed) {
  const Device ref = reference_device();
  const std::int64_t P = conv_output_size(c.H, c.R, c.p.pad_h, c.p.stride_h);
  const std::int64_t Q = conv_output_size(c.W, c.S, c.p.pad_w, c.p.stride_w);
  std::ostringstream w;
  w << "conv_layer N=" << c.N << " C=" << c.C << " H=" << c.H << " W=" << c.W << " K=" << c.K << " R=" << c.R
    << " S=" << c.S << " pad=" << c.p.pad_h << "," << c.p.pad_w << " stride=" << c.p.stride_h << "," << c.p.stride_w
    << " -> P=" << P << " Q=" << Q;
  const std::string what = w.str();
  const auto hx = random_vector<T>(static_cast<std::size_t>(c.N * c.C * c.H * c.W), seed);
  const auto hw = random_vector<T>(static_cast<std::size_t>(c.K * c.C * c.R * c.S), seed + 1);
  auto run = [&](const Device& d, const std::vector<T>& x, const std::vector<T>& f) {
    Tensor4<T> in(d, c.N, c.C, c.H, c.W), filter(d, c.K, c.C, c.R, c.S), out(d, c.N, c.K, P, Q);
    in.upload(x);
    filter.upload(f);
    out.upload(std::vector<T>(static_cast<std::size_t>(out.size()), std::numeric_limits<T>::quiet_NaN()));
    conv_layer(c.p, in, filter, out);
    CHECK_MESSAGE(in.to_host() == x, what << ": input modified");
    return out.to_host();
  };
  std::vector<T> expected, magnitude;
  if (!on_reference(what.c_str(), [&] {
        expected = run(ref, hx, hw);
        magnitude = run(ref, abs_of(hx), abs_of(hw));
      }))
    return;
  std::vector<double> bound(expected.size());
  for (std::size_t i = 0; i < bound.size(); ++i)
    bound[i] = gamma_bound<T>(static_cast<double>(c.C * c.R * c.S + 1)) * static_cast<double>(magnitude[i]);
  if (winograd_applies(c.R, c.S, c.p.stride_h, c.p.stride_w))  // the contract's Winograd bound (winograd.hpp)
    widen_for_winograd(bound, {c.N, c.C, c.H, c.W, c.K, c.p.pad_h, c.p.pad_w, P, Q}, hx, hw,
                       gamma_bound<T>(static_cast<double>(c.C + 1)));
  check_close(expected, host_conv_layer(c, P, Q, hx, hw), bound, what + " (reference vs host loop)");
  for_each_device<T>(Op::conv_layer, [&](const Device& d) { check_close(run(d, hx, hw), expected, bound, what); });
}

ConvParams params(std::int64_t ph, std::int64_t pw, std::int64_t sh, std::int64_t sw) {
  ConvParams p;
  p.pad_h = ph;
  p.pad_w = pw;
  p.stride_h = sh;
  p.stride_w = sw;
  return p;
}

}  // namespace

TEST_CASE_TEMPLATE("conv2d: known answer, valid and same, odd and even K", T, float, double) {
  // image 3 x 3 = [1 2 3; 4 5 6; 7 8 9]
  const std::vector<T> img = {1, 2, 3, 4, 5, 6, 7, 8, 9};
  for (const Device& d : all_devices()) {
    run_on_device<T>(d, Op::conv2d, [&](const Device& dev) {
      const auto I = DenseMatrix<T>::from_host(dev, 3, 3, img);
      // K = 2, valid: cross-correlation with [1 0; 0 -1] -> [1-5 2-6; 4-8 5-9] = -4 everywhere.
      const auto F2 = DenseMatrix<T>::from_host(dev, 2, 2, {1, 0, 0, -1});
      DenseMatrix<T> v(dev, 2, 2);
      conv2d(ConvMode::valid, I, F2, v);
      CHECK(v.to_host() == std::vector<T>{-4, -4, -4, -4});
      // K = 2, same: pad 0 before, 1 after: out(p, q) = img(p, q) - img(p + 1, q + 1) (0 outside).
      DenseMatrix<T> s(dev, 3, 3);
      conv2d(ConvMode::same, I, F2, s);
      CHECK(s.to_host() == std::vector<T>{-4, -4, 3, -4, -4, 6, 7, 8, 9});
      // K = 3, same: pad 1 each side; the filter picks the left neighbour: out(p, q) = img(p, q - 1).
      const auto F3 = DenseMatrix<T>::from_host(dev, 3, 3, {0, 0, 0, 1, 0, 0, 0, 0, 0});
      conv2d(ConvMode::same, I, F3, s);
      CHECK(s.to_host() == std::vector<T>{0, 1, 2, 0, 4, 5, 0, 7, 8});
    });
  }
}

TEST_CASE_TEMPLATE("conv2d: valid and same, K = 1..7, odd, non-square and K == H images", T, float, double) {
  std::uint32_t seed = 10;
  int index = 0;
  for (ConvMode mode : {ConvMode::valid, ConvMode::same})
    for (std::int64_t K : {1, 2, 3, 4, 5, 7}) {
      const std::int64_t images[][2] = {{K, K}, {K, 2 * K + 3}, {7, 13}, {31, 17}, {1, 1}, {2, 40}, {64, 65}};
      for (const auto& hw : images) {
        const std::int64_t H = hw[0], W = hw[1];
        if (mode == ConvMode::valid && (K > H || K > W)) continue;  // empty output: see test_bad_input
        seed += 2;
        conv2d_case<T>(mode, H, W, K, index++ % 2 == 1, seed);
      }
    }
}

TEST_CASE_TEMPLATE("conv2d: a larger image", T, float, double) {
  conv2d_case<T>(ConvMode::same, 301, 257, 5, true, 7);
  conv2d_case<T>(ConvMode::valid, 257, 300, 7, false, 8);
}

TEST_CASE_TEMPLATE("conv_layer: known answer (1x1 filter with stride, 2x2 with padding)", T, float, double) {
  for (const Device& d : all_devices()) {
    run_on_device<T>(d, Op::conv_layer, [&](const Device& dev) {
      // N = 1, C = 2, 3 x 3; K = 1 filter of 1 x 1 weights [2, -1], stride 2 -> 2 x 2.
      Tensor4<T> in(dev, 1, 2, 3, 3), f(dev, 1, 2, 1, 1), out(dev, 1, 1, 2, 2);
      in.upload({1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 20, 30, 40, 50, 60, 70, 80, 90});
      f.upload({2, -1});
      conv_layer(params(0, 0, 2, 2), in, f, out);
      CHECK(out.to_host() == std::vector<T>{2 - 10, 6 - 30, 14 - 70, 18 - 90});
      // N = 1, C = 1, 2 x 2 input, 2 x 2 filter of ones, pad 1: P = Q = 3, sums of the windows.
      Tensor4<T> in2(dev, 1, 1, 2, 2), ones(dev, 1, 1, 2, 2), out2(dev, 1, 1, 3, 3);
      in2.upload({1, 2, 3, 4});
      ones.upload({1, 1, 1, 1});
      conv_layer(params(1, 1, 1, 1), in2, ones, out2);
      CHECK(out2.to_host() == std::vector<T>{1, 3, 2, 4, 10, 6, 3, 7, 4});
    });
  }
}

TEST_CASE_TEMPLATE("conv_layer: pads 0/1/2, strides 1/2/3, R != S, odd C and K, N = 1..3", T, float, double) {
  const LayerCase cases[] = {
      {1, 1, 1, 1, 1, 1, 1, params(0, 0, 1, 1)},   {1, 1, 5, 5, 1, 3, 3, params(0, 0, 1, 1)},
      {1, 3, 7, 9, 5, 3, 3, params(1, 1, 1, 1)},   {2, 3, 11, 8, 3, 2, 3, params(0, 1, 2, 1)},
      {3, 5, 13, 13, 7, 5, 3, params(2, 1, 3, 2)}, {2, 7, 9, 10, 3, 3, 5, params(2, 2, 3, 3)},
      {1, 2, 3, 3, 3, 3, 3, params(1, 1, 2, 2)},   {3, 1, 16, 15, 1, 1, 1, params(0, 0, 2, 3)},
      {1, 3, 4, 4, 2, 5, 5, params(2, 2, 1, 1)},   {2, 4, 8, 6, 3, 7, 1, params(0, 0, 1, 1)},
      {1, 5, 17, 19, 9, 4, 2, params(1, 0, 1, 2)}, {3, 3, 10, 12, 5, 1, 3, params(0, 2, 3, 1)},
  };
  std::uint32_t seed = 100;
  for (const LayerCase& c : cases) conv_layer_case<T>(c, seed += 2);
}

TEST_CASE_TEMPLATE("conv_layer: a medium layer (N=2 C=16 15x15 K=8 3x3 pad 1)", T, float, double) {
  conv_layer_case<T>({2, 16, 15, 15, 8, 3, 3, params(1, 1, 1, 1)}, 7);
  conv_layer_case<T>({1, 3, 32, 32, 16, 5, 5, params(2, 2, 2, 2)}, 9);
}

TEST_CASE_TEMPLATE("conv_layer: tile edges (K past 128 filters, images straddling column tiles, CRS past a k-step)",
                   T, float, double) {
  // Implicit GEMM (NVIDIA OpenCL): 128-row tiles of K, 64/128-column tiles of N x P x Q, k-tiles
  // of 8; here K = 129 and 65, 243 and 165 columns, CRS = 27 and 9, with padding and stride.
  conv_layer_case<T>({3, 3, 9, 9, 129, 3, 3, params(1, 1, 1, 1)}, 11);
  conv_layer_case<T>({5, 1, 7, 11, 65, 3, 3, params(0, 1, 2, 1)}, 13);
}
