// Deterministic random data for the tests: std::mt19937 with fixed seeds and our own mapping to
// floating point (the standard distributions are implementation-defined, so their values would
// differ between standard libraries; this mapping gives the same numbers everywhere).
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

namespace tessera_test {

class Rng {
 public:
  explicit Rng(std::uint32_t seed) : gen_(seed) {}

  // Uniform in [0, 1) with 53 random bits (two 32-bit draws: 27 + 26 bits).
  double unit() {
    const std::uint64_t hi = gen_() >> 5;
    const std::uint64_t lo = gen_() >> 6;
    return static_cast<double>((hi << 26) | lo) * 0x1.0p-53;
  }
  double uniform(double lo, double hi) { return lo + (hi - lo) * unit(); }
  // Uniform in [-1, 1).
  double signed_unit() { return uniform(-1.0, 1.0); }
  // Uniform in [-1, -0.1] U [0.1, 1]: never zero, never tiny.
  double nonzero() {
    const double m = uniform(0.1, 1.0);
    return (gen_() & 1u) ? m : -m;
  }
  // Uniform integer in [0, n), n >= 1.
  std::int64_t index(std::int64_t n) {
    const auto i = static_cast<std::int64_t>(unit() * static_cast<double>(n));
    return i < n ? i : n - 1;
  }
  bool coin(double p_true) { return unit() < p_true; }

 private:
  std::mt19937 gen_;
};

// n values uniform in [lo, hi), rounded to T.
template <class T>
std::vector<T> random_vector(std::size_t n, std::uint32_t seed, double lo = -1.0, double hi = 1.0) {
  Rng rng(seed);
  std::vector<T> v(n);
  for (auto& e : v) e = static_cast<T>(rng.uniform(lo, hi));
  return v;
}

// rows x cols uniform in [-1, 1), stored row by row with leading dimension ld >= cols; NaN in
// the padding, so a kernel that reads it poisons its result.
template <class T>
std::vector<T> padded_random(std::int64_t rows, std::int64_t cols, std::int64_t ld, std::uint32_t seed) {
  Rng rng(seed);
  std::vector<T> a(static_cast<std::size_t>(rows * ld), std::numeric_limits<T>::quiet_NaN());
  for (std::int64_t i = 0; i < rows; ++i)
    for (std::int64_t j = 0; j < cols; ++j) a[static_cast<std::size_t>(i * ld + j)] = static_cast<T>(rng.signed_unit());
  return a;
}

}  // namespace tessera_test
