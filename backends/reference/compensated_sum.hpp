// Neumaier's compensated summation, the reference backend's way of adding in double: a plain
// double loop would do for float data, but for double data its error grows with n, and the
// oracle's error must stay well below that of any backend under test.
#pragma once

#include <cmath>
#include <cstdint>

namespace tessera {

// Neumaier's variant of Kahan summation: also exact when an addend is larger than the sum.
class CompensatedSum {
 public:
  void add(double v) {
    const double t = sum_ + v;
    if (std::abs(sum_) >= std::abs(v))
      error_ += (sum_ - t) + v;
    else
      error_ += (v - t) + sum_;
    sum_ = t;
  }
  // Once the sum is inf or NaN the error term is meaningless (inf - inf); the sum alone is right.
  double value() const { return std::isfinite(sum_) ? sum_ + error_ : sum_; }

 private:
  double sum_ = 0.0;
  double error_ = 0.0;
};

// x . y with every product and sum in double, compensated.
template <class T>
double dot_in_double(const T* x, const T* y, std::int64_t n) {
  CompensatedSum s;
  for (std::int64_t i = 0; i < n; ++i) s.add(static_cast<double>(x[i]) * static_cast<double>(y[i]));
  return s.value();
}

}  // namespace tessera
