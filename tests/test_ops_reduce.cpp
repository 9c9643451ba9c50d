// reduce (sum, min, max, sum_squares, max_abs) and dot on every device against the reference.
//
// Bounds: min, max and max_abs are exact operations, so every device must return bit for bit
// what the reference returns. A sum of n terms evaluated as a tree whose leaves are sequential
// runs of at most L additions has error <= gamma_{L + ceil(log2 n)} * sum |x_i|. The contract
// asks for tree order ("not one running float sum"); we allow leaves of L = 256 (SIMD lanes x
// unrolled accumulators x a block), which any blocked tree meets, while a single running sum
// over n >> 256 elements does not have that bound (and fails the 10^7-element test below).
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "support/compare.hpp"
#include "support/devices.hpp"
#include "support/random.hpp"
#include "tessera/tessera.hpp"

using namespace tessera;
using namespace tessera_test;

namespace {

constexpr ReduceOp all_reduce_ops[] = {ReduceOp::sum, ReduceOp::min, ReduceOp::max, ReduceOp::sum_squares,
                                       ReduceOp::max_abs};

// Terms in the error bound of a length-n reduction (see the file comment), plus one for the
// squaring or multiplication that forms each term.
double reduction_terms(std::int64_t n) {
  const double tree = std::ceil(std::log2(static_cast<double>(std::max<std::int64_t>(n, 2))));
  return std::min(static_cast<double>(n), 256.0 + tree) + 1.0;
}

template <class T>
std::vector<std::pair<std::string, std::vector<T>>> reduce_datasets(std::int64_t n, std::uint32_t seed) {
  const auto sz = static_cast<std::size_t>(n);
  std::vector<std::pair<std::string, std::vector<T>>> sets;
  sets.emplace_back("uniform [-1,1)", random_vector<T>(sz, seed));
  // The extremes at the very ends exercise a vector loop's head and its scalar tail.
  auto ends = random_vector<T>(sz, seed + 1);
  ends[sz - 1] = T(-3);  // min and max_abs at the tail
  ends[0] = T(2.5);      // max at the head
  if (n == 1) ends[0] = T(-3);
  sets.emplace_back("min at tail, max at head", ends);
  auto ends2 = random_vector<T>(sz, seed + 2);
  ends2[0] = T(-3);
  ends2[sz - 1] = T(2.5);
  sets.emplace_back("min at head, max at tail", ends2);
  // All negative: max < 0 (a max started at 0 is wrong); max_abs is |min|.
  sets.emplace_back("all in [-2,-1)", random_vector<T>(sz, seed + 3, -2.0, -1.0));
  // All positive: min > 0 (a min started at 0 is wrong).
  sets.emplace_back("all in [1,2)", random_vector<T>(sz, seed + 4, 1.0, 2.0));
  return sets;
}

template <class T>
double magnitude_sum(ReduceOp op, const std::vector<T>& x) {
  long double s = 0;
  for (const T& v : x) {
    const long double a = std::abs(static_cast<long double>(v));
    s += op == ReduceOp::sum_squares ? a * a : a;
  }
  return static_cast<double>(s);
}

template <class T>
void compare_reduce(ReduceOp op, T got, T ref, std::int64_t n, double magnitude, const std::string& what) {
  if (op == ReduceOp::min || op == ReduceOp::max || op == ReduceOp::max_abs) {
    CHECK_MESSAGE(bitwise_equal(got, ref), what << ": got " << got << ", reference " << ref << " (must be exact)");
    return;
  }
  check_close(std::vector<T>{got}, std::vector<T>{ref}, gamma_bound<T>(reduction_terms(n)) * magnitude, what);
}

}  // namespace

TEST_CASE_TEMPLATE("reduce: every op on every device matches the reference", T, float, double) {
  const Device ref = reference_device();
  const std::int64_t sizes[] = {1, 2, 3, 7, 8, 13, 16, 31, 64, 127, 256, 257, 1000, 4096, 4099, 65537, 1000003};
  std::uint32_t seed = 100;
  for (std::int64_t n : sizes) {
    for (const auto& [name, host] : reduce_datasets<T>(n, seed += 10)) {
      const Vector<T> xr = Vector<T>::from_host(ref, host);
      for (ReduceOp op : all_reduce_ops) {
        std::ostringstream what;
        what << to_string(op) << " n=" << n << " (" << name << ")";
        T expected{};
        if (!on_reference(what.str().c_str(), [&] { expected = reduce(op, xr); })) continue;
        const double magnitude = magnitude_sum(op, host);
        for_each_device<T>(Op::reduce, [&](const Device& d) {
          const Vector<T> x = Vector<T>::from_host(d, host);
          compare_reduce(op, reduce(op, x), expected, n, magnitude, what.str());
          // The input is read only.
          check_bitwise(x.to_host(), host, what.str() + ": input modified");
        });
      }
    }
  }
}

TEST_CASE_TEMPLATE("reduce: the convenience wrappers are the ops", T, float, double) {
  const auto host = random_vector<T>(129, 7);
  for (const Device& d : all_devices()) {
    run_on_device<T>(d, Op::reduce, [&](const Device& dev) {
      const Vector<T> x = Vector<T>::from_host(dev, host);
      CHECK(bitwise_equal(sum(x), reduce(ReduceOp::sum, x)));
      CHECK(bitwise_equal(tessera::min(x), reduce(ReduceOp::min, x)));
      CHECK(bitwise_equal(tessera::max(x), reduce(ReduceOp::max, x)));
      CHECK(bitwise_equal(sum_squares(x), reduce(ReduceOp::sum_squares, x)));
      CHECK(bitwise_equal(max_abs(x), reduce(ReduceOp::max_abs, x)));
    });
  }
}

TEST_CASE_TEMPLATE("reduce: known answers on every device, the reference included", T, float, double) {
  // Small integers and halves: every partial sum is exact in float, so every order gives these.
  const std::vector<T> host = {T(3), T(-7.5), T(0.5), T(2), T(-1), T(6), T(-0.25)};
  const std::vector<T> other = {T(1), T(2), T(-1), T(0.5), T(4), T(-2), T(8)};
  for (const Device& d : all_devices()) {
    run_on_device<T>(d, Op::reduce, [&](const Device& dev) {
      const Vector<T> x = Vector<T>::from_host(dev, host);
      CHECK(sum(x) == T(2.75));
      CHECK(tessera::min(x) == T(-7.5));
      CHECK(tessera::max(x) == T(6));
      CHECK(sum_squares(x) == T(9 + 56.25 + 0.25 + 4 + 1 + 36 + 0.0625));
      CHECK(max_abs(x) == T(7.5));
      const Vector<T> y = Vector<T>::from_host(dev, other);
      CHECK(dot(x, y) == T(3 - 15 - 0.5 + 1 - 4 - 12 - 2));
    });
  }
}

TEST_CASE_TEMPLATE("reduce: empty vectors (sum is 0, min and max throw InvalidArgument)", T, float, double) {
  for (const Device& d : all_devices()) {
    run_on_device<T>(d, Op::reduce, [&](const Device& dev) {
      const Vector<T> x(dev, 0);
      CHECK(sum(x) == T(0));
      CHECK(sum_squares(x) == T(0));
      CHECK(max_abs(x) == T(0));
      CHECK_THROWS_AS(tessera::min(x), InvalidArgument);
      CHECK_THROWS_AS(tessera::max(x), InvalidArgument);
      const Vector<T> y(dev, 0);
      CHECK(dot(x, y) == T(0));
    });
  }
}

TEST_CASE_TEMPLATE("dot: every device matches the reference", T, float, double) {
  const Device ref = reference_device();
  const std::int64_t sizes[] = {1, 2, 7, 13, 31, 33, 127, 257, 1000, 65537, 1000003};
  std::uint32_t seed = 500;
  for (std::int64_t n : sizes) {
    const auto hx = random_vector<T>(static_cast<std::size_t>(n), ++seed);
    const auto hy = random_vector<T>(static_cast<std::size_t>(n), ++seed, -2.0, 2.0);
    std::ostringstream what;
    what << "dot n=" << n;
    T expected{};
    if (!on_reference("dot", [&] { expected = dot(Vector<T>::from_host(ref, hx), Vector<T>::from_host(ref, hy)); }))
      continue;
    long double magnitude = 0;
    for (std::size_t i = 0; i < hx.size(); ++i) magnitude += std::abs(static_cast<long double>(hx[i]) * hy[i]);
    for_each_device<T>(Op::dot, [&](const Device& d) {
      const Vector<T> x = Vector<T>::from_host(d, hx), y = Vector<T>::from_host(d, hy);
      const T got = dot(x, y);
      check_close(std::vector<T>{got}, std::vector<T>{expected},
                  gamma_bound<T>(reduction_terms(n)) * static_cast<double>(magnitude), what.str());
      // dot(x, x) is sum_squares(x) up to the same bound.
      const T xx = dot(x, x), ss = sum_squares(x);
      long double sq = 0;
      for (const T& v : hx) sq += static_cast<long double>(v) * v;
      check_close(std::vector<T>{xx}, std::vector<T>{ss}, 2.0 * gamma_bound<T>(reduction_terms(n)) * static_cast<double>(sq),
                  what.str() + ": dot(x, x) vs sum_squares(x)");
    });
  }
}

// The contract's accuracy promise for long float inputs: 10^7 values uniform in [0, 1) sum to
// about 5e6, where a float's spacing is 0.5; a single running float sum drifts by far more than
// 1e-5 relative (each of the last millions of additions rounds by up to 0.25), a tree or blocked
// sum stays within ~(L + log2 n) u ~ 1e-5 in the worst case and much closer in practice.
TEST_CASE("reduce: float sum of 10^7 uniform values in 0..1 is accurate on every device") {
  const std::size_t n = 10000000;
  const auto hx = random_vector<float>(n, 2024, 0.0, 1.0);
  const auto hy = random_vector<float>(n, 2025, 0.0, 1.0);
  long double s = 0, ss = 0, xy = 0;
  for (std::size_t i = 0; i < n; ++i) {
    s += hx[i];
    ss += static_cast<long double>(hx[i]) * hx[i];
    xy += static_cast<long double>(hx[i]) * hy[i];
  }
  const double rel = 1e-5;
  for (const Device& d : all_devices()) {
    run_on_device<float>(d, Op::reduce, [&](const Device& dev) {
      const Vector<float> x = Vector<float>::from_host(dev, hx);
      const Vector<float> y = Vector<float>::from_host(dev, hy);
      const double got_sum = sum(x), got_ss = sum_squares(x), got_dot = dot(x, y);
      CHECK_MESSAGE(std::abs(got_sum - static_cast<double>(s)) <= rel * static_cast<double>(s),
                    "sum: got " << got_sum << ", exact " << static_cast<double>(s));
      CHECK_MESSAGE(std::abs(got_ss - static_cast<double>(ss)) <= rel * static_cast<double>(ss),
                    "sum_squares: got " << got_ss << ", exact " << static_cast<double>(ss));
      CHECK_MESSAGE(std::abs(got_dot - static_cast<double>(xy)) <= rel * static_cast<double>(xy),
                    "dot: got " << got_dot << ", exact " << static_cast<double>(xy));
    });
  }
}
