// The error bound of each MathMode (types.hpp) for a k-term product, relative to
// sum |a_p| |b_p| (test_ops_gemm_math.cpp's file comment derives them; +2 in k covers the alpha
// product and the beta FMA).
#pragma once

#include <cmath>
#include <cstdint>

#include "support/compare.hpp"
#include "tessera/types.hpp"

namespace tessera_test {

inline double mode_bound(tessera::MathMode mode, std::int64_t k) {
  const double u = unit_roundoff<float>(), kk = static_cast<double>(k + 2);
  switch (mode) {
    case tessera::MathMode::exact: return 2.0 * kk * u;
    case tessera::MathMode::tf32:
      return std::ldexp(1.0, -10) + std::ldexp(1.0, -22) + 2.0 * kk * u * (1.0 + std::ldexp(1.0, -9));
    case tessera::MathMode::tf32x3: return (12.0 + 6.0 * kk) * u * (1.0 + std::ldexp(1.0, -9));
  }
  return 0.0;
}

}  // namespace tessera_test
