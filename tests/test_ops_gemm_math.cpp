// Math modes (MathMode, types.hpp) of f32 gemm and conv_layer: every mode on every device
// against an f64 product computed here on the host, under the mode's bound; the TF32 rounding
// rule by known answers; on devices with TF32 units (cuda, NVIDIA's OpenCL) the tf32 result against the
// reference's (same rounded inputs: only the accumulation differs); the per-queue and per-call
// forms; bad input.
//
// Bounds per element, with M = |alpha| sum_p |op(A)_ip op(B)_pj| + |beta C_ij| and u = 2^-24
// (types.hpp derives them; +2 in k covers the alpha product and the beta FMA):
//   exact:  2 (k + 2) u M                                  (twice the classical gamma, as gemm's tests)
//   tf32:   (2^-10 + 2^-22 + 2 (k + 2) u (1 + 2^-9)) M      (inputs rounded to 11 significant bits,
//                                                          2u per accumulation: truncating adds)
//   tf32x3: (12 + 6 (k + 2)) u (1 + 2^-9) M                 (12u per product from the split and the
//                                                          dropped lo*lo; three accumulated terms per k)
// check_close adds 2u |C_ref| (the final rounding) and the smallest normal.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "support/compare.hpp"
#include "support/conv_exact.hpp"
#include "support/devices.hpp"
#include "support/math_mode.hpp"
#include "support/random.hpp"
#include "support/winograd.hpp"
#include "tessera/tessera.hpp"

using namespace tessera;
using namespace tessera_test;

namespace {

constexpr MathMode all_modes[] = {MathMode::exact, MathMode::tf32, MathMode::tf32x3};

// Devices whose f32 products use TF32 units under tf32 (the contract lets the others compute
// exactly): there, tf32 must match the reference's rounding of the inputs.
// NVIDIA's OpenCL rounds where gemm_ptx.cl runs: gemm.kernels = 2 (its class's default).
bool rounds_to_tf32(const Device& d) {
  const DeviceInfo i = d.info();
  if (i.backend == "cuda" || i.backend == "reference") return true;
  if (i.backend != "opencl" || i.tuning_class != "opencl/nvidia") return false;
  for (const auto& [key, value] : i.tuning)
    if (key == "gemm.kernels") return value == 2;
  return false;
}

// A rows x cols f32 matrix at `offset` elements into a larger allocation with leading dimension
// ld, NaN around it: the view the device sees has an offset (not 16-byte aligned when odd) and
// padding, which must never be read.
struct Placed {
  std::int64_t rows, cols, ld, r0, c0;
  std::vector<float> values;  // rows x cols, compact
  DenseMatrix<float> on(const Device& d) const {
    const std::int64_t R = r0 + rows + 1, Cc = c0 + cols + ld - cols;
    std::vector<float> host(static_cast<std::size_t>(R * Cc), std::numeric_limits<float>::quiet_NaN());
    for (std::int64_t i = 0; i < rows; ++i)
      for (std::int64_t j = 0; j < cols; ++j)
        host[static_cast<std::size_t>((r0 + i) * Cc + c0 + j)] = values[static_cast<std::size_t>(i * cols + j)];
    return DenseMatrix<float>::from_host(d, R, Cc, host).block(r0, c0, rows, cols);
  }
  float at(std::int64_t i, std::int64_t j) const { return values[static_cast<std::size_t>(i * cols + j)]; }
};

Placed placed_random(std::int64_t rows, std::int64_t cols, std::int64_t pad, std::int64_t r0, std::int64_t c0,
                     std::uint32_t seed) {
  Placed p{rows, cols, cols + pad, r0, c0, std::vector<float>(static_cast<std::size_t>(rows * cols))};
  Rng rng(seed);
  for (auto& v : p.values) v = static_cast<float>(rng.signed_unit());
  return p;
}

struct Case {
  std::int64_t m, n, k;
  Trans ta, tb;
  float alpha, beta;
  bool offsets;  // views at odd offsets inside padded allocations
  std::int64_t pad = -1;  // >= 0: no offsets, leading dimensions = columns + pad (else by `offsets`)
};

std::string describe(const Case& c, MathMode mode) {
  std::ostringstream w;
  w << "gemm " << (c.ta == Trans::N ? "N" : "T") << (c.tb == Trans::N ? "N" : "T") << " m=" << c.m << " n=" << c.n
    << " k=" << c.k << " alpha=" << c.alpha << " beta=" << c.beta << (c.offsets ? " offsets" : "") << " math "
    << to_string(mode);
  return w.str();
}

// C = alpha op(A) op(B) + beta C in f64 and its magnitude M, at the elements (i, j) of `at`.
struct Exact {
  std::vector<double> value, magnitude;
};
Exact exact_product(const Case& c, const Placed& A, const Placed& B, const Placed& C,
                    const std::vector<std::pair<std::int64_t, std::int64_t>>& at) {
  Exact e;
  for (const auto& [i, j] : at) {
    double s = 0, mag = 0;
    for (std::int64_t p = 0; p < c.k; ++p) {
      const double a = c.ta == Trans::N ? A.at(i, p) : A.at(p, i);
      const double b = c.tb == Trans::N ? B.at(p, j) : B.at(j, p);
      s += a * b;
      mag += std::abs(a * b);
    }
    const double cij = C.at(i, j);
    e.value.push_back(static_cast<double>(c.alpha) * s + (c.beta != 0.f ? static_cast<double>(c.beta) * cij : 0.0));
    e.magnitude.push_back(std::abs(static_cast<double>(c.alpha)) * mag + std::abs(static_cast<double>(c.beta) * cij));
  }
  return e;
}

// Every element, or (large cases) a sample that includes the last row and column.
std::vector<std::pair<std::int64_t, std::int64_t>> elements(std::int64_t m, std::int64_t n, std::size_t sample) {
  std::vector<std::pair<std::int64_t, std::int64_t>> at;
  if (sample == 0) {
    for (std::int64_t i = 0; i < m; ++i)
      for (std::int64_t j = 0; j < n; ++j) at.emplace_back(i, j);
    return at;
  }
  Rng rng(7);
  at = {{0, 0}, {m - 1, n - 1}, {m - 1, 0}, {0, n - 1}};
  while (at.size() < sample) at.emplace_back(rng.index(m), rng.index(n));
  return at;
}

void run_case(const Case& c, std::uint32_t seed, std::size_t sample = 0, bool gpu_only = false) {
  const std::int64_t off = c.offsets && c.pad < 0 ? 1 : 0, pad = c.pad >= 0 ? c.pad : (c.offsets ? 3 : 0);
  const std::int64_t pad2 = c.pad >= 0 ? 0 : 1;  // the second operand's extra padding (odd offsets only)
  const auto A = c.ta == Trans::N ? placed_random(c.m, c.k, pad, off, off, seed)
                                  : placed_random(c.k, c.m, pad + pad2, off, 2 * off, seed);
  const auto B = c.tb == Trans::N ? placed_random(c.k, c.n, pad + 2 * pad2, 2 * off, off, seed + 1)
                                  : placed_random(c.n, c.k, pad, off, off, seed + 1);
  const auto C = placed_random(c.m, c.n, pad, off, 3 * off, seed + 2);
  const auto at = elements(c.m, c.n, sample);
  const Exact exact = exact_product(c, A, B, C, at);
  const Device ref = reference_device();

  for (MathMode mode : all_modes) {
    const std::string what = describe(c, mode);
    // The reference's result in this mode (the tf32 oracle), for devices that round to TF32.
    std::vector<float> ref_result;
    if (mode == MathMode::tf32 && sample == 0 && !on_reference(what.c_str(), [&] {
          auto cr = C.on(ref);
          gemm(c.ta, c.tb, c.alpha, A.on(ref), B.on(ref), c.beta, cr, mode);
          ref_result = cr.to_host();
        }))
      return;
    for_each_device<float>(Op::gemm, [&](const Device& d) {
      if (gpu_only && d.info().type != "gpu") return;  // PoCL's CPU device would take minutes
      auto cd = C.on(d);
      gemm(c.ta, c.tb, c.alpha, A.on(d), B.on(d), c.beta, cd, mode);
      const auto all = cd.to_host();
      std::vector<float> got;
      std::vector<double> bound;
      std::vector<float> expected;
      for (std::size_t e = 0; e < at.size(); ++e) {
        got.push_back(all[static_cast<std::size_t>(at[e].first * c.n + at[e].second)]);
        expected.push_back(static_cast<float>(exact.value[e]));
        // The expected value is rounded to float: its rounding (u |value|) joins the allowance.
        bound.push_back(mode_bound(mode, c.k) * exact.magnitude[e] +
                        unit_roundoff<float>() * std::abs(exact.value[e]));
      }
      check_close(got, expected, bound, what + " vs the f64 product on " + d.spec());
      if (mode == MathMode::tf32 && !ref_result.empty() && rounds_to_tf32(d)) {
        // Same rounded inputs as the reference: what remains is the FP32 accumulation.
        std::vector<double> tight;
        for (std::size_t e = 0; e < at.size(); ++e)
          tight.push_back(mode_bound(MathMode::exact, c.k) * (1.0 + std::ldexp(1.0, -9)) * exact.magnitude[e]);
        check_close(all, ref_result, tight, what + " vs the reference's tf32 on " + d.spec());
      }
    });
  }
}

}  // namespace

TEST_CASE("gemm math modes: the TF32 rounding rule by known answers") {
  // a: 1 + 2^-11 (a tie: away from zero, to 1 + 2^-10), 1 + 2^-12 (down to 1), -(1 + 2^-11)
  // (a tie: to -(1 + 2^-10)), 1 + 3 * 2^-12 (up to 1 + 2^-10), 0.75 (exact in TF32).
  const float t = std::ldexp(1.0f, -12);
  const std::vector<float> a = {1 + 2 * t, 1 + t, -(1 + 2 * t), 1 + 3 * t, 0.75f};
  const std::vector<float> rounded = {1 + 4 * t, 1, -(1 + 4 * t), 1 + 4 * t, 0.75f};
  for (const Device& d : all_devices()) {
    run_on_device<float>(d, Op::gemm, [&](const Device& dev) {
      for (MathMode mode : all_modes) {
        INFO("math " << to_string(mode));
        // The values in A (5 x 1) times B = [1]; then A = [1] times the values in B (1 x 5).
        const auto one = DenseMatrix<float>::from_host(dev, 1, 1, {1.0f});
        auto col = DenseMatrix<float>::from_host(dev, 5, 1, std::vector<float>(5, -7.0f));
        gemm(Trans::N, Trans::N, 1.0f, DenseMatrix<float>::from_host(dev, 5, 1, a), one, 0.0f, col, mode);
        auto row = DenseMatrix<float>::from_host(dev, 1, 5, std::vector<float>(5, -7.0f));
        gemm(Trans::N, Trans::N, 1.0f, one, DenseMatrix<float>::from_host(dev, 1, 5, a), 0.0f, row, mode);
        // Exact and tf32x3 (hi + lo holds every one of these exactly) give a; tf32 gives the
        // rounded values where the device rounds, a elsewhere.
        const auto& want = mode == MathMode::tf32 && rounds_to_tf32(dev) ? rounded : a;
        CHECK(col.to_host() == want);
        CHECK(row.to_host() == want);
      }
    });
  }
}

TEST_CASE("gemm math modes: every mode, every Trans, odd shapes and offsets against an f64 product") {
  const struct {
    std::int64_t m, n, k;
  } shapes[] = {{37, 53, 71}, {1, 1, 1}, {16, 8, 8}, {17, 9, 9}, {129, 65, 33}, {130, 257, 40}, {64, 128, 96}};
  const float ab[][2] = {{1.0f, 0.0f}, {-0.5f, 0.25f}, {0.75f, -2.0f}, {1.0f, 1.0f}};
  std::uint32_t seed = 300;
  int i = 0;
  for (const auto& s : shapes)
    for (Trans ta : {Trans::N, Trans::T})
      for (Trans tb : {Trans::N, Trans::T}) {
        const auto& [alpha, beta] = ab[i % 4];
        run_case(Case{s.m, s.n, s.k, ta, tb, alpha, beta, i % 2 == 1}, seed += 3);
        ++i;
      }
}

TEST_CASE("gemm math modes: a longer product (k = 517) and a large odd shape on GPU devices") {
  run_case(Case{70, 90, 517, Trans::N, Trans::T, 1.0f, 0.5f, true}, 901);
  // 5000 x 3000 x 2000 (the odd shape), all four transposes, checked at 3000 sampled
  // elements (the f64 product of every element would take minutes on the host): GPU devices only.
  for (Trans ta : {Trans::N, Trans::T})
    for (Trans tb : {Trans::N, Trans::T})
      run_case(Case{5000, 3000, 2000, ta, tb, 1.0f, -1.0f, ta == tb}, 911, 3000, true);
}

// The accuracy goal for tf32x3 (no worse than twice FP32's error on the same data), over
// a long k: the tensor cores' truncating additions into one running sum drifted with k (mma.sync
// path, 64 x 16384 x 16384: 1.4e-4 against FP32's 1.8e-6). A small m x n keeps the f64 product
// cheap and the product on mma.sync's tiles (too few for the wgmma kernel).
TEST_CASE("gemm math modes: tf32x3 keeps FP32's accuracy over a long k (k = 16384)") {
  const std::int64_t m = 40, n = 24, k = 16384;
  const auto a = random_vector<float>(static_cast<std::size_t>(m * k), 931);
  const auto b = random_vector<float>(static_cast<std::size_t>(k * n), 932);
  std::vector<double> ref(static_cast<std::size_t>(m * n), 0.0);
  double scale = 0;
  for (std::int64_t i = 0; i < m; ++i)
    for (std::int64_t j = 0; j < n; ++j) {
      double acc = 0;
      for (std::int64_t p = 0; p < k; ++p)
        acc += static_cast<double>(a[static_cast<std::size_t>(i * k + p)]) * b[static_cast<std::size_t>(p * n + j)];
      ref[static_cast<std::size_t>(i * n + j)] = acc;
      scale = std::max(scale, std::abs(acc));
    }
  for_each_device<float>(Op::gemm, [&](const Device& d) {
    auto max_error = [&](MathMode mode) {
      const auto A = DenseMatrix<float>::from_host(d, m, k, a), B = DenseMatrix<float>::from_host(d, k, n, b);
      DenseMatrix<float> C(d, m, n);
      gemm(Trans::N, Trans::N, 1.0f, A, B, 0.0f, C, mode);
      const auto c = C.to_host();
      double e = 0;
      for (std::size_t i = 0; i < c.size(); ++i) e = std::max(e, std::abs(c[i] - ref[i]));
      return e / scale;
    };
    const double exact = max_error(MathMode::exact), split = max_error(MathMode::tf32x3);
    INFO(d.spec() << ": max relative error exact " << exact << ", tf32x3 " << split);
    CHECK(split <= 2.0 * exact + std::ldexp(1.0, -24));
  });
}

TEST_CASE("gemm math modes: 16-byte aligned operands (the copy engine's shapes on Hopper's wgmma kernel)") {
  // Bases aligned, leading dimensions multiples of 4 (Hopper's wgmma kernel takes these where one
  // operand is K-major; cuda.gemm_wgmma_forced sends every one there): block-tile edges in m and n
  // (128 x 256 tiles, either way round), k not a multiple of the 32-k stage, a single stage,
  // padded leading dimensions, all four transposes (T, N has no K-major operand: mma.sync).
  const struct {
    std::int64_t m, n, k, pad;
  } shapes[] = {{300, 520, 100, 0}, {128, 256, 32, 4}, {260, 132, 36, 8}, {8, 12, 4, 0}, {516, 264, 292, 4}};
  const float ab[][2] = {{1.0f, 0.0f}, {-0.5f, 0.25f}, {0.75f, -2.0f}};
  std::uint32_t seed = 700;
  int i = 0;
  for (const auto& s : shapes)
    for (Trans ta : {Trans::N, Trans::T})
      for (Trans tb : {Trans::N, Trans::T}) {
        const auto& [alpha, beta] = ab[i % 3];
        Case c{s.m, s.n, s.k, ta, tb, alpha, beta, false};
        c.pad = s.pad;
        run_case(c, seed += 3);
        ++i;
      }
  // A long product, checked at sampled elements: many stages through the ring.
  Case c{1000, 700, 3000, Trans::N, Trans::N, 1.0f, 0.5f, false};
  c.pad = 0;
  run_case(c, 990, 2000, true);
  // More rows of the K-major operand (A for N N, B for N T) than 1 MiB holds at k = 292: with
  // gemm.tf32_round_mb=1 (ctest cuda.gemm_wgmma_round_mb_1) tf32 rounds it in chunks of 768 rows
  // and tf32x3 (hi and lo) in chunks of 384, each chunk's products on their own launch; sampled,
  // the corners and every chunk.
  for (Trans tb : {Trans::N, Trans::T}) {
    Case r{1100, 900, 292, Trans::N, tb, -0.5f, 0.25f, false};
    r.pad = 4;
    run_case(r, tb == Trans::N ? 995 : 997, 3000, true);
  }
}

TEST_CASE("gemm math modes: per queue and per call, f64 ignores the queue's mode") {
  const float t = std::ldexp(1.0f, -12);
  for (const Device& d : all_devices()) {
    run_on_device<float>(d, Op::gemm, [&](const Device& dev) {
      const Queue q = dev.new_queue();
      CHECK(q.math_mode() == MathMode::exact);
      q.set_math_mode(MathMode::tf32);
      CHECK(q.math_mode() == MathMode::tf32);
      const Queue copy = q;  // copies are the same queue
      CHECK(copy.math_mode() == MathMode::tf32);
      CHECK(dev.new_queue().math_mode() == MathMode::exact);

      const auto a = DenseMatrix<float>::from_host(dev, 1, 1, {1 + 2 * t});
      const auto one = DenseMatrix<float>::from_host(dev, 1, 1, {1.0f});
      auto c = DenseMatrix<float>::from_host(dev, 1, 1, {0.0f});
      gemm(q, Trans::N, Trans::N, 1.0f, a, one, 0.0f, c);  // the queue's tf32
      q.synchronize();
      CHECK(c.to_host()[0] == (rounds_to_tf32(dev) ? 1 + 4 * t : 1 + 2 * t));
      gemm(q, Trans::N, Trans::N, 1.0f, a, one, 0.0f, c, MathMode::exact);  // the call's mode wins
      q.synchronize();
      CHECK(c.to_host()[0] == 1 + 2 * t);
      gemm(Trans::N, Trans::N, 1.0f, a, one, 0.0f, c);  // the default queue stays exact
      CHECK(c.to_host()[0] == 1 + 2 * t);

      // f64 on a tf32 queue: exact (1 + 2^-11 is far from any double rounding).
      const auto ad = DenseMatrix<double>::from_host(dev, 1, 1, {1 + 2.0 * t});
      const auto oned = DenseMatrix<double>::from_host(dev, 1, 1, {1.0});
      auto cd = DenseMatrix<double>::from_host(dev, 1, 1, {0.0});
      try {
        gemm(q, Trans::N, Trans::N, 1.0, ad, oned, 0.0, cd);
        q.synchronize();
        CHECK(cd.to_host()[0] == 1 + 2.0 * t);
      } catch (const NotImplemented&) {  // an OpenCL device without fp64
      }

      // conv_layer on the tf32 queue: one channel, a 1 x 1 filter of 1: out = tf32(in).
      const auto in = Tensor4<float>::from_host(dev, 1, 1, 1, 2, {1 + 2 * t, 1 + t});
      const auto w = Tensor4<float>::from_host(dev, 1, 1, 1, 1, {1.0f});
      Tensor4<float> out(dev, 1, 1, 1, 2);
      conv_layer(q, ConvParams{}, in, w, out);
      q.synchronize();
      CHECK(out.to_host() == (rounds_to_tf32(dev) ? std::vector<float>{1 + 4 * t, 1} : std::vector<float>{1 + 2 * t, 1 + t}));
      conv_layer(q, ConvParams{}, in, w, out, MathMode::tf32x3);
      q.synchronize();
      CHECK(out.to_host() == std::vector<float>{1 + 2 * t, 1 + t});
    });
  }
}

TEST_CASE("conv_layer math modes: every mode against an f64 convolution") {
  struct Shape {
    std::int64_t N, C, H, W, K, R, S, pad, stride;
  };
  const Shape shapes[] = {{2, 3, 7, 9, 5, 3, 3, 1, 1}, {1, 4, 11, 6, 3, 3, 2, 0, 2}, {3, 17, 5, 5, 9, 1, 1, 0, 1}};
  std::uint32_t seed = 500;
  for (const Shape& s : shapes) {
    const std::int64_t P = (s.H + 2 * s.pad - s.R) / s.stride + 1, Q = (s.W + 2 * s.pad - s.S) / s.stride + 1;
    Rng rng(seed += 7);
    std::vector<float> x(static_cast<std::size_t>(s.N * s.C * s.H * s.W)), f(static_cast<std::size_t>(s.K * s.C * s.R * s.S));
    for (auto& v : x) v = static_cast<float>(rng.signed_unit());
    for (auto& v : f) v = static_cast<float>(rng.signed_unit());
    const ConvExact exact = conv_layer_exact(ConvShape{s.N, s.C, s.H, s.W, s.K, s.R, s.S, s.pad, s.pad, s.stride, s.stride}, x, f);
    const std::vector<float> expected(exact.value.begin(), exact.value.end());
    const std::vector<double>& magnitude = exact.magnitude;
    ConvParams prm;
    prm.pad_h = prm.pad_w = s.pad;
    prm.stride_h = prm.stride_w = s.stride;
    std::vector<float> ref_tf32;  // the reference's tf32 result: the inputs rounded, summed in double
    {
      const Device ref = reference_device();
      Tensor4<float> out(ref, s.N, s.K, P, Q);
      conv_layer(prm, Tensor4<float>::from_host(ref, s.N, s.C, s.H, s.W, x),
                 Tensor4<float>::from_host(ref, s.K, s.C, s.R, s.S, f), out, MathMode::tf32);
      ref_tf32 = out.to_host();
    }
    for (const Device& d : all_devices())
      run_on_device<float>(d, Op::conv_layer, [&](const Device& dev) {
        for (MathMode mode : all_modes) {
          const auto in = Tensor4<float>::from_host(dev, s.N, s.C, s.H, s.W, x);
          const auto w = Tensor4<float>::from_host(dev, s.K, s.C, s.R, s.S, f);
          Tensor4<float> out(dev, s.N, s.K, P, Q);
          conv_layer(prm, in, w, out, mode);
          std::vector<double> bound;
          for (std::size_t e = 0; e < magnitude.size(); ++e)
            bound.push_back(mode_bound(mode, s.C * s.R * s.S) * magnitude[e] +
                            unit_roundoff<float>() * std::abs(static_cast<double>(expected[e])));
          if (winograd_applies(s.R, s.S, s.stride, s.stride))  // the contract's Winograd bound
            widen_for_winograd(bound, {s.N, s.C, s.H, s.W, s.K, s.pad, s.pad, P, Q}, x, f, mode_bound(mode, s.C));
          std::ostringstream what;
          what << "conv_layer N" << s.N << " C" << s.C << " " << s.H << "x" << s.W << " K" << s.K << " " << s.R << "x"
               << s.S << " pad " << s.pad << " stride " << s.stride << " math " << to_string(mode) << " on "
               << dev.spec();
          const auto got = out.to_host();
          check_close(got, expected, bound, what.str());
          // Same rounded inputs as the reference: what remains is the FP32 accumulation. Not where
          // the device may run Winograd: there the transformed operands are rounded instead.
          if (mode == MathMode::tf32 && rounds_to_tf32(dev) && !winograd_applies(s.R, s.S, s.stride, s.stride)) {
            std::vector<double> tight;
            for (double m : magnitude)
              tight.push_back(mode_bound(MathMode::exact, s.C * s.R * s.S) * (1.0 + std::ldexp(1.0, -9)) * m);
            check_close(got, ref_tf32, tight, what.str() + " vs the reference's tf32");
          }
        }
      });
  }
}

TEST_CASE("gemm and conv_layer math modes: bad input throws InvalidArgument, nothing written") {
  const auto bad = static_cast<MathMode>(7);
  for (const Device& d : all_devices()) {
    run_on_device<float>(d, Op::gemm, [&](const Device& dev) {
      const auto A = DenseMatrix<float>::from_host(dev, 2, 2, {1, 2, 3, 4});
      auto C = DenseMatrix<float>::from_host(dev, 2, 2, {5, 6, 7, 8});
      CHECK_THROWS_AS(gemm(Trans::N, Trans::N, 1.0f, A, A, 0.0f, C, bad), InvalidArgument);
      CHECK_THROWS_AS(gemm(dev.queue(), Trans::N, Trans::N, 1.0f, A, A, 0.0f, C, bad), InvalidArgument);
      CHECK(C.to_host() == std::vector<float>{5, 6, 7, 8});
      const Queue q = dev.new_queue();
      CHECK_THROWS_AS(q.set_math_mode(bad), InvalidArgument);
      CHECK(q.math_mode() == MathMode::exact);

      const auto in = Tensor4<float>::from_host(dev, 1, 1, 2, 2, {1, 2, 3, 4});
      const auto w = Tensor4<float>::from_host(dev, 1, 1, 1, 1, {2});
      auto out = Tensor4<float>::from_host(dev, 1, 1, 2, 2, {9, 9, 9, 9});
      CHECK_THROWS_AS(conv_layer(ConvParams{}, in, w, out, bad), InvalidArgument);
      CHECK(out.to_host() == std::vector<float>{9, 9, 9, 9});

      // The device is usable afterwards.
      gemm(Trans::N, Trans::N, 1.0f, A, A, 0.0f, C, MathMode::tf32x3);
      CHECK(C.to_host() == std::vector<float>{7, 10, 15, 22});
      conv_layer(ConvParams{}, in, w, out, MathMode::tf32);
      CHECK(out.to_host() == std::vector<float>{2, 4, 6, 8});
    });
    run_on_device<double>(d, Op::gemm, [&](const Device& dev) {
      // A TF32 mode asked of an f64 product is a mistake: InvalidArgument, nothing written.
      const auto A = DenseMatrix<double>::from_host(dev, 2, 2, {1, 2, 3, 4});
      auto C = DenseMatrix<double>::from_host(dev, 2, 2, {5, 6, 7, 8});
      for (MathMode mode : {MathMode::tf32, MathMode::tf32x3, bad}) {
        CHECK_THROWS_AS(gemm(Trans::N, Trans::N, 1.0, A, A, 0.0, C, mode), InvalidArgument);
        CHECK_THROWS_AS(gemm(dev.queue(), Trans::N, Trans::N, 1.0, A, A, 0.0, C, mode), InvalidArgument);
      }
      CHECK(C.to_host() == std::vector<double>{5, 6, 7, 8});
      const auto in = Tensor4<double>::from_host(dev, 1, 1, 2, 2, {1, 2, 3, 4});
      const auto w = Tensor4<double>::from_host(dev, 1, 1, 1, 1, {2});
      auto out = Tensor4<double>::from_host(dev, 1, 1, 2, 2, {9, 9, 9, 9});
      CHECK_THROWS_AS(conv_layer(ConvParams{}, in, w, out, MathMode::tf32), InvalidArgument);
      CHECK(out.to_host() == std::vector<double>{9, 9, 9, 9});
      gemm(Trans::N, Trans::N, 1.0, A, A, 0.0, C, MathMode::exact);  // exact is f64's own mode
      CHECK(C.to_host() == std::vector<double>{7, 10, 15, 22});
    });
  }
}
