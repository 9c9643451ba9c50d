// conv_layer's exact result (NCHW in, KCRS filter, NKPQ out; a cross-correlation) summed in
// double on the host, with each output's magnitude sum |x f|: the oracle and the scale of the
// error bounds in the math-mode and Winograd tests.
#pragma once

#include <cmath>
#include <cstdint>
#include <vector>

namespace tessera_test {

struct ConvShape {
  std::int64_t N, C, H, W, K, R, S, pad_h, pad_w, stride_h, stride_w;
  std::int64_t P() const { return (H + 2 * pad_h - R) / stride_h + 1; }
  std::int64_t Q() const { return (W + 2 * pad_w - S) / stride_w + 1; }
};

struct ConvExact {
  std::vector<double> value, magnitude;
};

template <class T>
ConvExact conv_layer_exact(const ConvShape& s, const std::vector<T>& x, const std::vector<T>& f) {
  ConvExact e;
  const std::int64_t P = s.P(), Q = s.Q();
  for (std::int64_t n = 0; n < s.N; ++n)
    for (std::int64_t k = 0; k < s.K; ++k)
      for (std::int64_t p = 0; p < P; ++p)
        for (std::int64_t q = 0; q < Q; ++q) {
          double sum = 0, mag = 0;
          for (std::int64_t c = 0; c < s.C; ++c)
            for (std::int64_t r = 0; r < s.R; ++r)
              for (std::int64_t t = 0; t < s.S; ++t) {
                const std::int64_t h = p * s.stride_h + r - s.pad_h, w = q * s.stride_w + t - s.pad_w;
                if (h < 0 || h >= s.H || w < 0 || w >= s.W) continue;
                const double prod = static_cast<double>(x[static_cast<std::size_t>(((n * s.C + c) * s.H + h) * s.W + w)]) *
                                    static_cast<double>(f[static_cast<std::size_t>(((k * s.C + c) * s.R + r) * s.S + t)]);
                sum += prod;
                mag += std::abs(prod);
              }
          e.value.push_back(sum);
          e.magnitude.push_back(mag);
        }
  return e;
}

}  // namespace tessera_test
