// Shrinking the big test cases where the suite runs emulated. TESSERA_TEST_SCALE, a number in
// (0, 1] (default 1), multiplies the sizes of the cases that are large only to be large: long
// vectors, many rows, big grids. scripts/cross-arm.sh sets 0.1 for its QEMU runs, where every
// instruction costs 10-50 times more. Edge sizes (0, 1, primes around SIMD widths and tiles) are
// never passed through scaled(); each big case states the floor that keeps it past the threshold
// it exists to cross (threads, blocking), so a scaled run still takes every code path except the
// cache-size ones noted at the call.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>

namespace tessera_test {

inline double size_scale() {
  static const double scale = [] {
    const char* env = std::getenv("TESSERA_TEST_SCALE");
    if (env == nullptr || *env == '\0') return 1.0;
    const double s = std::strtod(env, nullptr);
    return s > 0.0 && s <= 1.0 ? s : 1.0;  // nonsense means full size: never a weaker test by accident
  }();
  return scale;
}

// n * scale, at least at_least; an odd n stays odd, so a remainder loop still runs.
inline std::int64_t scaled(std::int64_t n, std::int64_t at_least = 1) {
  std::int64_t s = std::max<std::int64_t>(at_least, std::llround(static_cast<double>(n) * size_scale()));
  if (s < n && (n % 2) != 0 && (s % 2) == 0) ++s;
  return std::min(s, n);
}

}  // namespace tessera_test
