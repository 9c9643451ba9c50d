// Reductions. Sums run in double with Neumaier's compensated summation: a plain double loop
// would do for float data, but for double data its error grows with n, and the oracle's error
// must stay well below that of any backend under test (reductions are the one operation run
// on vectors of many millions). min/max/max_abs propagate NaN: one NaN anywhere gives NaN.
#include <cmath>
#include <cstdint>
#include <limits>

#include "reference/compensated_sum.hpp"
#include "reference/reference_backend.hpp"

namespace tessera {


namespace {

template <class T>
double reduce_value(ReduceOp op, const T* x, std::int64_t n) {
  constexpr double nan = std::numeric_limits<double>::quiet_NaN();
  constexpr double inf = std::numeric_limits<double>::infinity();
  switch (op) {
    case ReduceOp::sum: {
      CompensatedSum s;
      for (std::int64_t i = 0; i < n; ++i) s.add(static_cast<double>(x[i]));
      return s.value();
    }
    case ReduceOp::norm2: return std::sqrt(reduce_value(ReduceOp::sum_squares, x, n));
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

}  // namespace

template <class T>
void ReferenceBackend::reduce(QueueImpl&, ReduceOp op, const VecView& x, const VecView& out) {
  *host_ptr<T>(out) = static_cast<T>(reduce_value(op, host_ptr<const T>(x), x.n));
}

template <class T>
void ReferenceBackend::dot(QueueImpl&, const VecView& x, const VecView& y, const VecView& out) {
  *host_ptr<T>(out) = static_cast<T>(dot_in_double(host_ptr<const T>(x), host_ptr<const T>(y), x.n));
}

TESSERA_INSTANTIATE_TYPED_OP(ReferenceBackend, reduce)
TESSERA_INSTANTIATE_TYPED_OP(ReferenceBackend, dot)

}  // namespace tessera
