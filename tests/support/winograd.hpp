// conv_layer's bound where a backend may run Winograd's F(m x m, 3 x 3) (tessera/winograd.hpp):
// E_m of every output, computed here in double from the header's transforms, and the contract's
// per-output bound: the larger of the direct sum's and, on 3 x 3 stride-1 layers, the F(2 x 2)
// and F(4 x 4) bounds (twice the first-order constants, as gamma_bound).
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <vector>

#include "support/compare.hpp"
#include "tessera/winograd.hpp"

namespace tessera_test {

struct WinogradLayer {
  std::int64_t N, C, H, W, K, pad_h, pad_w, P, Q;
};

inline bool winograd_applies(std::int64_t R, std::int64_t S, std::int64_t stride_h, std::int64_t stride_w) {
  return R == 3 && S == 3 && stride_h == 1 && stride_w == 1;
}

// E = |A^T| [ sum_c (|G| |g_c| |G^T|) (.) (|B^T| |d_c| |B|) ] |A| for every output (NKPQ order):
// x is NCHW, f is KC33.
template <class T>
std::vector<double> winograd_magnitude(int m, const WinogradLayer& L, const std::vector<T>& x,
                                       const std::vector<T>& f) {
  namespace wg = tessera::winograd;
  const int a = wg::tile(m);
  const std::int64_t th = (L.P + m - 1) / m, tw = (L.Q + m - 1) / m;
  auto idx = [](std::int64_t i) { return static_cast<std::size_t>(i); };
  // |G| |g| |G^T| per (k, c).
  std::vector<double> U(idx(L.K * L.C * a * a));
  for (std::int64_t kc = 0; kc < L.K * L.C; ++kc)
    for (int i = 0; i < a; ++i)
      for (int j = 0; j < a; ++j) {
        double s = 0;
        for (int r = 0; r < 3; ++r)
          for (int t = 0; t < 3; ++t)
            s += std::abs(wg::g(m, i, r)) * std::abs(static_cast<double>(f[idx(kc * 9 + r * 3 + t)])) *
                 std::abs(wg::g(m, j, t));
        U[idx((kc * a + i) * a + j)] = s;
      }
  std::vector<double> E(idx(L.N * L.K * L.P * L.Q), 0.0), acc(idx(L.K * a * a)), V(idx(a * a));
  for (std::int64_t n = 0; n < L.N; ++n)
    for (std::int64_t ty = 0; ty < th; ++ty)
      for (std::int64_t tx = 0; tx < tw; ++tx) {
        std::fill(acc.begin(), acc.end(), 0.0);
        for (std::int64_t c = 0; c < L.C; ++c) {
          auto d = [&](int i, int j) {  // |input|, zero outside the image
            const std::int64_t h = ty * m - L.pad_h + i, w = tx * m - L.pad_w + j;
            if (h < 0 || h >= L.H || w < 0 || w >= L.W) return 0.0;
            return std::abs(static_cast<double>(x[idx(((n * L.C + c) * L.H + h) * L.W + w)]));
          };
          for (int i = 0; i < a; ++i)
            for (int j = 0; j < a; ++j) {
              double s = 0;
              for (int r = 0; r < a; ++r)
                for (int t = 0; t < a; ++t) s += std::abs(wg::bt(m, i, r)) * d(r, t) * std::abs(wg::bt(m, j, t));
              V[idx(i * a + j)] = s;
            }
          for (std::int64_t k = 0; k < L.K; ++k)
            for (int e = 0; e < a * a; ++e) acc[idx(k * a * a + e)] += U[idx((k * L.C + c) * a * a + e)] * V[idx(e)];
        }
        for (std::int64_t k = 0; k < L.K; ++k)
          for (int i = 0; i < m; ++i)
            for (int j = 0; j < m; ++j) {
              const std::int64_t p = ty * m + i, q = tx * m + j;
              if (p >= L.P || q >= L.Q) continue;
              double s = 0;
              for (int r = 0; r < a; ++r)
                for (int t = 0; t < a; ++t)
                  s += std::abs(wg::at(m, i, r)) * acc[idx(k * a * a + r * a + t)] * std::abs(wg::at(m, j, t));
              E[idx(((n * L.K + k) * L.P + p) * L.Q + q)] = s;
            }
      }
  return E;
}

// Raises each bound to the Winograd bounds (2 n_T u_T + gemm_factor) E_m, m = 2 and 4;
// gemm_factor: the relative bound of the GEMM's C-term sums in the call's precision and math mode.
template <class T>
void widen_for_winograd(std::vector<double>& bound, const WinogradLayer& L, const std::vector<T>& x,
                        const std::vector<T>& f, double gemm_factor) {
  for (int m : {2, 4}) {
    const double factor = 2.0 * tessera::winograd::transform_roundings(m) * unit_roundoff<T>() + gemm_factor;
    const auto E = winograd_magnitude(m, L, x, f);
    for (std::size_t i = 0; i < bound.size(); ++i) bound[i] = std::max(bound[i], factor * E[i]);
  }
}

}  // namespace tessera_test
