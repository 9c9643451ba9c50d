// conv_layer on the shapes Winograd's F(m x m, 3 x 3) applies to (3 x 3 filters, stride 1):
// the transforms of tessera/winograd.hpp against the direct correlation in double; then every
// device, f32 in every math mode and f64, against an f64 convolution computed here under the
// contract's bound (support/winograd.hpp: the larger of the direct and the Winograd bounds).
// Shapes: output tiles cut by the image's edges for m = 2 and 4, pads 0 to 2, C and K on both
// sides of the backends' thresholds (CUDA: 16 for Winograd, 96 and 128 for the products'
// orientation, 64 for the streamed f32 products), a 1 x 1 output, more tiles than a chunk, and a batch that the CUDA
// workspace splits into chunks when conv_layer.winograd_mb is small (ctest
// cuda.conv_winograd_f4_chunked). ctest reruns this file with each tile forced on CUDA.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
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
#include "tessera/winograd.hpp"

using namespace tessera;
using namespace tessera_test;

namespace {

// Y = A^T [(G g G^T) (.) (B^T d B)] A of one tile, in double.
std::vector<double> winograd_tile(int m, const std::vector<double>& d, const std::vector<double>& g) {
  namespace wg = tessera::winograd;
  const int a = wg::tile(m);
  std::vector<double> prod(static_cast<std::size_t>(a * a));
  for (int i = 0; i < a; ++i)
    for (int j = 0; j < a; ++j) {
      double u = 0, v = 0;
      for (int r = 0; r < 3; ++r)
        for (int s = 0; s < 3; ++s) u += wg::g(m, i, r) * g[static_cast<std::size_t>(r * 3 + s)] * wg::g(m, j, s);
      for (int r = 0; r < a; ++r)
        for (int s = 0; s < a; ++s) v += wg::bt(m, i, r) * d[static_cast<std::size_t>(r * a + s)] * wg::bt(m, j, s);
      prod[static_cast<std::size_t>(i * a + j)] = u * v;
    }
  std::vector<double> y(static_cast<std::size_t>(m * m));
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < m; ++j) {
      double s = 0;
      for (int r = 0; r < a; ++r)
        for (int t = 0; t < a; ++t) s += wg::at(m, i, r) * prod[static_cast<std::size_t>(r * a + t)] * wg::at(m, j, t);
      y[static_cast<std::size_t>(i * m + j)] = s;
    }
  return y;
}

}  // namespace

TEST_CASE("winograd transforms: F(2x2, 3x3) and F(4x4, 3x3) give the direct correlation") {
  namespace wg = tessera::winograd;
  Rng rng(71);
  for (int m : {2, 4}) {
    const int a = wg::tile(m);
    for (int trial = 0; trial < 20; ++trial) {
      std::vector<double> d(static_cast<std::size_t>(a * a)), g(9);
      for (auto& v : d) v = rng.signed_unit();
      for (auto& v : g) v = rng.signed_unit();
      const auto y = winograd_tile(m, d, g);
      for (int i = 0; i < m; ++i)
        for (int j = 0; j < m; ++j) {
          double direct = 0;
          for (int r = 0; r < 3; ++r)
            for (int s = 0; s < 3; ++s)
              direct += d[static_cast<std::size_t>((i + r) * a + j + s)] * g[static_cast<std::size_t>(r * 3 + s)];
          CHECK_MESSAGE(std::abs(y[static_cast<std::size_t>(i * m + j)] - direct) <= 1e-13,
                        "F(" << m << ") output " << i << "," << j);
        }
    }
  }
  // The bound's rounding counts (winograd.hpp): per 1D pass, the widest row's nonzeros + 1.
  CHECK(wg::transform_roundings(2) == 2 * 4 + 2 * 3 + 2 * 4);  // G rows of 3, B^T of 2, A^T of 3
  CHECK(wg::transform_roundings(4) == 2 * 4 + 2 * 5 + 2 * 6);  // G rows of 3, B^T of 4, A^T of 5
}

namespace {

struct WinoCase {
  std::int64_t N, C, H, W, K, pad;
};

template <class T>
void winograd_case(const WinoCase& c, std::uint32_t seed) {
  const std::int64_t P = c.H + 2 * c.pad - 2, Q = c.W + 2 * c.pad - 2;
  const auto x = random_vector<T>(static_cast<std::size_t>(c.N * c.C * c.H * c.W), seed);
  const auto f = random_vector<T>(static_cast<std::size_t>(c.K * c.C * 9), seed + 1);
  const ConvExact exact = conv_layer_exact(ConvShape{c.N, c.C, c.H, c.W, c.K, 3, 3, c.pad, c.pad, 1, 1}, x, f);
  const std::vector<double>& magnitude = exact.magnitude;
  const std::vector<T> expected(exact.value.begin(), exact.value.end());
  const WinogradLayer layer{c.N, c.C, c.H, c.W, c.K, c.pad, c.pad, P, Q};
  std::vector<MathMode> modes = {MathMode::exact};
  if (sizeof(T) == 4) modes = {MathMode::exact, MathMode::tf32, MathMode::tf32x3};
  for (MathMode mode : modes) {
    // f64 computes exactly (types.hpp); its GEMM factor is gamma's for C + 1 terms.
    const double gemm_c = sizeof(T) == 4 ? mode_bound(mode, c.C) : gamma_bound<T>(static_cast<double>(c.C + 1));
    const double gemm_direct = sizeof(T) == 4 ? mode_bound(mode, 9 * c.C) : gamma_bound<T>(static_cast<double>(9 * c.C + 1));
    std::vector<double> bound(magnitude.size());
    for (std::size_t i = 0; i < bound.size(); ++i) bound[i] = gemm_direct * magnitude[i];
    widen_for_winograd(bound, layer, x, f, gemm_c);
    std::ostringstream what;
    what << "conv_layer 3x3 N" << c.N << " C" << c.C << " " << c.H << "x" << c.W << " K" << c.K << " pad " << c.pad
         << (sizeof(T) == 4 ? " f32" : " f64") << " math " << to_string(mode);
    for_each_device<T>(Op::conv_layer, [&](const Device& d) {
      ConvParams prm;
      prm.pad_h = prm.pad_w = c.pad;
      const auto in = Tensor4<T>::from_host(d, c.N, c.C, c.H, c.W, x);
      const auto w = Tensor4<T>::from_host(d, c.K, c.C, 3, 3, f);
      // NaN first: every output must be written.
      auto out = Tensor4<T>::from_host(
          d, c.N, c.K, P, Q, std::vector<T>(static_cast<std::size_t>(c.N * c.K * P * Q), std::numeric_limits<T>::quiet_NaN()));
      if constexpr (sizeof(T) == 4)
        conv_layer(prm, in, w, out, mode);
      else
        conv_layer(prm, in, w, out);
      check_close(out.to_host(), expected, bound, what.str() + " on " + d.spec());
      CHECK_MESSAGE(in.to_host() == x, what.str() << " on " << d.spec() << ": input modified");
    });
  }
}

}  // namespace

TEST_CASE_TEMPLATE("conv_layer: 3x3 stride-1 layers (Winograd's shapes) within the contract's bound", T, float, double) {
  const WinoCase cases[] = {
      {2, 16, 13, 13, 16, 1},  // 13 x 13 outputs: the last tile row and column cut for m = 2 and 4
      {3, 19, 10, 7, 33, 0},   // 8 x 5 outputs, odd C and K
      {1, 32, 6, 17, 20, 2},   // 8 x 19 outputs, pad 2
      {5, 17, 4, 4, 17, 1},    // 4 x 4 outputs: one F(4 x 4) tile per image
      {2, 24, 3, 3, 16, 0},    // a 1 x 1 output: most of the tile outside the image
      {3, 5, 9, 9, 7, 1},      // C and K below the CUDA default's threshold
      {2, 16, 9, 11, 128, 1},  // K fills the GEMM's row tiles: CUDA's products K x T (else T x K)
      {1, 20, 7, 7, 200, 0},   // K = 200: 78 % of two row tiles, still K x T
      {1, 70, 37, 40, 70, 1},  // C = 70: 8-channel chunks and a rest; K past 64; 37 x 40 outputs cut
                               // CUDA's direct tensor-core tiles (16 x 16 pixels) on both sides
      {2, 12, 4, 30, 70, 1},   // 4 x 30 outputs: the direct kernel's 32-wide tiles (tf32x3: 4 x 32)
      {2, 9, 6, 20, 24, 2},    // W a multiple of 4: the direct kernel's 16-byte row copies, pad 2
      {1, 16, 10, 12, 40, 0},  // the same without padding
      {3, 12, 33, 27, 70, 1},  // 189 F(4 x 4) tiles (714 F(2 x 2)): CUDA's streamed products
                               // (C <= 64) in chunks of 128 tiles, the last cut; C padded to 8;
                               // a second filter block of 6
  };
  std::uint32_t seed = 900;
  for (const WinoCase& c : cases) winograd_case<T>(c, seed += 3);
}

TEST_CASE("conv_layer: a batch of 32 x 32 images (several workspace chunks under a small conv_layer.winograd_mb)") {
  winograd_case<float>({5, 32, 32, 32, 32, 1}, 950);
}
