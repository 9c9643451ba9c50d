// Reductions. Sums run in double with Neumaier's compensated summation: a plain double loop
// would do for float data, but for double data its error grows with n, and the oracle's error
// must stay well below that of any backend under test (reductions are the one operation run
// on vectors of many millions). min/max/max_abs propagate NaN: one NaN anywhere gives NaN.
#include <cmath>
#include <cstdint>
#include <limits>

#include "reference/reference_backend.hpp"

namespace tessera {

namespace {

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

}  // namespace

template <class T>
double ReferenceBackend::reduce(ReduceOp op, const VecView& xv) {
  const T* x = static_cast<const T*>(xv.data);
  const std::int64_t n = xv.n;
  constexpr double nan = std::numeric_limits<double>::quiet_NaN();
  constexpr double inf = std::numeric_limits<double>::infinity();
  switch (op) {
    case ReduceOp::sum: {
      CompensatedSum s;
      for (std::int64_t i = 0; i < n; ++i) s.add(static_cast<double>(x[i]));
      return s.value();
    }
    case ReduceOp::sum_squares: {
      CompensatedSum s;
      for (std::int64_t i = 0; i < n; ++i) s.add(static_cast<double>(x[i]) * static_cast<double>(x[i]));
      return s.value();
    }
    case ReduceOp::min: {
      double m = inf;
      for (std::int64_t i = 0; i < n; ++i) {
        if (std::isnan(x[i])) return nan;
        if (x[i] < m) m = x[i];
      }
      return m;
    }
    case ReduceOp::max: {
      double m = -inf;
      for (std::int64_t i = 0; i < n; ++i) {
        if (std::isnan(x[i])) return nan;
        if (x[i] > m) m = x[i];
      }
      return m;
    }
    case ReduceOp::max_abs: {
      double m = 0.0;
      for (std::int64_t i = 0; i < n; ++i) {
        if (std::isnan(x[i])) return nan;
        if (std::abs(static_cast<double>(x[i])) > m) m = std::abs(static_cast<double>(x[i]));
      }
      return m;
    }
  }
  return nan;
}

template <class T>
double ReferenceBackend::dot(const VecView& xv, const VecView& yv) {
  const T* x = static_cast<const T*>(xv.data);
  const T* y = static_cast<const T*>(yv.data);
  CompensatedSum s;
  for (std::int64_t i = 0; i < xv.n; ++i) s.add(static_cast<double>(x[i]) * static_cast<double>(y[i]));
  return s.value();
}

TESSERA_INSTANTIATE_TYPED_OP(ReferenceBackend, reduce)
TESSERA_INSTANTIATE_TYPED_OP(ReferenceBackend, dot)

}  // namespace tessera
