// Comparison with the oracle under error bounds derived from the arithmetic, not fixed
// tolerances. Notation: u = unit roundoff of T (eps / 2). A sum of k products computed in T in
// any order (sequential, blocked, tree, SIMD lanes, FMA or not) satisfies
//     |computed - exact| <= gamma_k * sum |a_i b_i|,  gamma_k = k u / (1 - k u)
// (Higham, Accuracy and Stability of Numerical Algorithms, ch. 3). The reference sums in double
// and rounds once, so its error is at most u |result| plus a term ~k * 2^-53 that is negligible
// next to gamma_k. We allow c = 2 times the classical constant, so a correct implementation
// passes with margin while a wrong term (missing, doubled, from a wrong index) of typical size
// does not.
#pragma once

#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

namespace tessera_test {

template <class T>
constexpr double unit_roundoff() {
  return std::numeric_limits<T>::epsilon() / 2;
}

// 2 * k * u: twice the first-order gamma_k for a k-term sum of products (see the file comment).
template <class T>
double gamma_bound(double k) {
  return 2.0 * k * unit_roundoff<T>();
}

// Element-wise: |got[i] - ref[i]| <= bound[i] + 2 u |ref[i]| + (smallest normal of T), where
// bound[i] is the op-specific accumulation bound, 2 u |ref| covers the final rounding of the
// reference and the device, and the last term absorbs underflow. Reports the worst element and
// the count of violations; a NaN or inf anywhere is a violation.
template <class T>
bool check_close(const std::vector<T>& got, const std::vector<T>& ref, const std::vector<double>& bound,
                 const std::string& what) {
  REQUIRE(got.size() == ref.size());
  REQUIRE(bound.size() == ref.size());
  const double u = unit_roundoff<T>();
  const double tiny = static_cast<double>(std::numeric_limits<T>::min());
  std::size_t bad = 0, worst = 0, not_finite_ref = 0;
  double worst_ratio = 0.0;
  for (std::size_t i = 0; i < got.size(); ++i) {
    const double g = static_cast<double>(got[i]), r = static_cast<double>(ref[i]);
    if (!std::isfinite(r) || !std::isfinite(bound[i])) ++not_finite_ref;
    const double allowed = bound[i] + 2.0 * u * std::abs(r) + tiny;
    const double err = std::abs(g - r);
    const double ratio = std::isfinite(g) ? err / allowed : std::numeric_limits<double>::infinity();
    if (!(ratio <= 1.0)) ++bad;
    if (!(ratio <= worst_ratio)) {
      worst_ratio = ratio;
      worst = i;
    }
  }
  std::ostringstream msg;
  msg.precision(17);
  if (!got.empty())
    msg << what << ": " << bad << " of " << got.size() << " elements outside the bound; worst at [" << worst
        << "]: got " << static_cast<double>(got[worst]) << ", reference " << static_cast<double>(ref[worst])
        << ", |diff| " << std::abs(static_cast<double>(got[worst]) - static_cast<double>(ref[worst]))
        << ", allowed " << bound[worst] + 2.0 * u * std::abs(static_cast<double>(ref[worst])) + tiny
        << " (ratio " << worst_ratio << ")";
  CHECK_MESSAGE(not_finite_ref == 0, what << ": the reference result or its bound is not finite in "
                                          << not_finite_ref << " elements");
  CHECK_MESSAGE(bad == 0, msg.str());
  return bad == 0 && not_finite_ref == 0;
}

// Same, with one scalar bound for every element.
template <class T>
bool check_close(const std::vector<T>& got, const std::vector<T>& ref, double bound, const std::string& what) {
  return check_close(got, ref, std::vector<double>(ref.size(), bound), what);
}

template <class T>
bool bitwise_equal(T a, T b) {
  return std::memcmp(&a, &b, sizeof(T)) == 0;
}

// Bit-for-bit equality over the elements selected by keep(i) (all when keep is omitted).
template <class T, class Pred>
bool check_bitwise_where(const std::vector<T>& got, const std::vector<T>& expected, Pred keep,
                         const std::string& what) {
  REQUIRE(got.size() == expected.size());
  std::size_t bad = 0, first = 0;
  for (std::size_t i = 0; i < got.size(); ++i)
    if (keep(i) && !bitwise_equal(got[i], expected[i])) {
      if (bad++ == 0) first = i;
    }
  std::ostringstream msg;
  msg.precision(17);
  msg << what << ": " << bad << " elements differ bitwise";
  if (bad > 0)
    msg << "; first at [" << first << "]: got " << static_cast<double>(got[first]) << ", expected "
        << static_cast<double>(expected[first]);
  CHECK_MESSAGE(bad == 0, msg.str());
  return bad == 0;
}

template <class T>
bool check_bitwise(const std::vector<T>& got, const std::vector<T>& expected, const std::string& what) {
  return check_bitwise_where(got, expected, [](std::size_t) { return true; }, what);
}

template <class T>
bool all_finite(const std::vector<T>& v) {
  for (const T& e : v)
    if (!std::isfinite(e)) return false;
  return true;
}

template <class T>
std::vector<T> abs_of(std::vector<T> v) {
  for (auto& e : v) e = std::abs(e);
  return v;
}

template <class T>
double max_abs_of(const std::vector<T>& v) {
  double m = 0.0;
  for (const T& e : v) m = std::max(m, std::abs(static_cast<double>(e)));
  return m;
}

}  // namespace tessera_test
