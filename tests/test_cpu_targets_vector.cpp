// The cpu device's vector algebra (kernels/cpu/vector.cpp: axpby, the element-wise ops, and the
// fused axpby_dot, dot2, multiply_dot2) run once per compiled SIMD target, against the
// reference device: sizes around every vector width and the kernels' two-vector steps and
// blocks, sub-vectors at odd offsets, in-place forms, and a NaN in y that beta = 0 must drop.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "support/compare.hpp"
#include "support/cpu_targets.hpp"
#include "support/random.hpp"
#include "support/scale.hpp"
#include "tessera/tessera.hpp"

using namespace tessera;
using tessera_test::gamma_bound;

namespace {

Device cpu() { return Device::open("cpu"); }
Device ref() { return Device::open("reference"); }

// Around 1..16 lanes x 2 (the kernels' step pair), a block of the fused sums (2 x 16 x lanes),
// and past vector.min_per_thread / reduce.min_per_thread so that the threaded paths run too.
const std::vector<std::int64_t> sizes = {0, 1, 2, 3, 5, 7, 15, 16, 17, 31, 33, 63, 65, 255, 257, 513, 1001, 4099,
                                         tessera_test::scaled(300007, 131101)};

// The operands as sub-vectors of larger storage at an odd offset, on one device.
template <class T>
struct Operands {
  Vector<T> base_x, base_y, base_w;
  Vector<T> x, y, w;
  Operands(const Device& d, const std::vector<T>& hx, const std::vector<T>& hy, const std::vector<T>& hw) {
    const auto n = static_cast<std::int64_t>(hx.size());
    const auto pad = [](const std::vector<T>& h) {
      std::vector<T> p(h.size() + 10, T(7));
      std::copy(h.begin(), h.end(), p.begin() + 3);
      return p;
    };
    base_x = Vector<T>::from_host(d, pad(hx));
    base_y = Vector<T>::from_host(d, pad(hy));
    base_w = Vector<T>::from_host(d, pad(hw));
    x = base_x.sub(3, n);
    y = base_y.sub(3, n);
    w = base_w.sub(3, n);
  }
};

// The padding around a sub-vector is untouched.
template <class T>
void check_padding(const Vector<T>& base, std::int64_t n, const std::string& what) {
  const auto h = base.to_host();
  bool ok = true;
  for (std::size_t i = 0; i < h.size(); ++i)
    if ((i < 3 || i >= static_cast<std::size_t>(n) + 3) && h[i] != T(7)) ok = false;
  CHECK_MESSAGE(ok, what << ": an element outside the sub-vector was written");
}

template <class T>
double sum_abs_products(const std::vector<T>& a, const std::vector<T>& b) {
  double m = 0;
  for (std::size_t i = 0; i < a.size(); ++i) m += std::abs(static_cast<double>(a[i]) * b[i]);
  return m;
}

template <class T>
void check_scalar(T got, T want, double bound, const std::string& what) {
  const double u = tessera_test::unit_roundoff<T>();
  CHECK_MESSAGE(std::abs(static_cast<double>(got) - want) <= bound + 2 * u * std::abs(static_cast<double>(want)) +
                                                                   std::numeric_limits<T>::min(),
                what << ": got " << got << ", reference " << want);
}

template <class T>
void check_vector_algebra() {
  std::uint32_t seed = 900;
  const double u = tessera_test::unit_roundoff<T>();
  for (const std::int64_t n : sizes) {
    INFO("n = " << n);
    const auto hx = tessera_test::random_vector<T>(static_cast<std::size_t>(n), seed++);
    const auto hy = tessera_test::random_vector<T>(static_cast<std::size_t>(n), seed++);
    const auto hw = tessera_test::random_vector<T>(static_cast<std::size_t>(n), seed++, 0.5, 2.0);  // divisors
    Operands<T> c(cpu(), hx, hy, hw), r(ref(), hx, hy, hw);
    // axpby in its three forms (beta 0 with a NaN y, beta 1, general), then in place (x is y).
    for (const double beta : {0.0, 1.0, -0.75}) {
      const std::string what = "axpby beta " + std::to_string(beta);
      Operands<T> cc(cpu(), hx, hy, hw), rr(ref(), hx, hy, hw);
      if (beta == 0.0 && n > 0) {
        std::vector<T> nan_y = hy;
        nan_y[static_cast<std::size_t>(n / 2)] = std::numeric_limits<T>::quiet_NaN();
        cc.y = Vector<T>::from_host(cpu(), nan_y);
      }
      axpby(T(1.5), cc.x, static_cast<T>(beta), cc.y);
      axpby(T(1.5), rr.x, static_cast<T>(beta), rr.y);
      std::vector<double> bound(hx.size());
      for (std::size_t i = 0; i < bound.size(); ++i)
        bound[i] = 4 * u * (1.5 * std::abs(hx[i]) + std::abs(beta * hy[i]));
      tessera_test::check_close(cc.y.to_host(), rr.y.to_host(), bound, what);
      if (beta != 0.0) check_padding(cc.base_y, n, what);
    }
    {
      Operands<T> cc(cpu(), hx, hy, hw), rr(ref(), hx, hy, hw);
      axpby(T(-2), cc.x, T(0.5), cc.x);
      axpby(T(-2), rr.x, T(0.5), rr.x);
      std::vector<double> bound(hx.size());
      for (std::size_t i = 0; i < bound.size(); ++i) bound[i] = 4 * u * 2.5 * std::abs(hx[i]);
      tessera_test::check_close(cc.x.to_host(), rr.x.to_host(), bound, "axpby in place");
    }
    // Element-wise ops (exactly rounded: same bits as the reference), also in place.
    {
      Operands<T> cc(cpu(), hx, hy, hw), rr(ref(), hx, hy, hw);
      Vector<T> cz(cpu(), n), rz(ref(), n);
      multiply(cc.x, cc.w, cz);
      multiply(rr.x, rr.w, rz);
      tessera_test::check_bitwise(cz.to_host(), rz.to_host(), "multiply");
      divide(cc.x, cc.w, cz);
      divide(rr.x, rr.w, rz);
      tessera_test::check_bitwise(cz.to_host(), rz.to_host(), "divide");
      reciprocal(cc.w, cz);
      reciprocal(rr.w, rz);
      tessera_test::check_bitwise(cz.to_host(), rz.to_host(), "reciprocal");
      multiply(cc.w, cc.y, cc.y);
      multiply(rr.w, rr.y, rr.y);
      tessera_test::check_bitwise(cc.y.to_host(), rr.y.to_host(), "multiply in place");
      check_padding(cc.base_y, n, "multiply in place");
    }
    const double k = gamma_bound<T>(static_cast<double>(n) + 2);  // a sequential bound holds for any order
    // axpby_dot: into w, then with w = y (the norm of the new y).
    {
      Operands<T> cc(cpu(), hx, hy, hw), rr(ref(), hx, hy, hw);
      Scalar<T> cs(cpu()), rs(ref());
      axpby_dot(T(1.5), cc.x, T(-0.75), cc.y, cc.w, cs);
      axpby_dot(T(1.5), rr.x, T(-0.75), rr.y, rr.w, rs);
      const auto ynew = rr.y.to_host();
      // e1, e2: bounds on the element errors of y after the first and the second update.
      std::vector<double> e1(hx.size()), e2(hx.size());
      double out_bound = 0, norm_bound = 0;
      for (std::size_t i = 0; i < e1.size(); ++i) {
        e1[i] = 4 * u * (1.5 * std::abs(hx[i]) + 0.75 * std::abs(hy[i]));
        out_bound += e1[i] * std::abs(hw[i]);
      }
      tessera_test::check_close(cc.y.to_host(), ynew, e1, "axpby_dot y");
      check_scalar(cs.get(), rs.get(), k * sum_abs_products(ynew, hw) + out_bound, "axpby_dot out");
      axpby_dot(T(1), cc.x, T(1), cc.y, cc.y, cs);
      axpby_dot(T(1), rr.x, T(1), rr.y, rr.y, rs);
      const auto y2 = rr.y.to_host();
      for (std::size_t i = 0; i < e2.size(); ++i) {
        e2[i] = e1[i] + 4 * u * (std::abs(hx[i]) + std::abs(static_cast<double>(ynew[i])));
        norm_bound += 2 * std::abs(static_cast<double>(y2[i])) * e2[i] + e2[i] * e2[i];
      }
      check_scalar(cs.get(), rs.get(), k * sum_abs_products(y2, y2) + norm_bound, "axpby_dot w = y");
      check_padding(cc.base_y, n, "axpby_dot");
    }
    // dot2 and multiply_dot2.
    {
      Scalar<T> a(cpu()), b(cpu()), ra(ref()), rb(ref());
      dot2(c.x, c.y, c.w, a, b);
      dot2(r.x, r.y, r.w, ra, rb);
      check_scalar(a.get(), ra.get(), k * sum_abs_products(hx, hy), "dot2 x.y");
      check_scalar(b.get(), rb.get(), k * sum_abs_products(hx, hw), "dot2 x.z");
      Operands<T> cc(cpu(), hx, hy, hw), rr(ref(), hx, hy, hw);
      multiply_dot2(cc.w, cc.x, cc.y, a, b);
      multiply_dot2(rr.w, rr.x, rr.y, ra, rb);
      const auto z = rr.y.to_host();
      tessera_test::check_bitwise(cc.y.to_host(), z, "multiply_dot2 z");
      check_scalar(a.get(), ra.get(), k * sum_abs_products(hx, z), "multiply_dot2 r.z");
      check_scalar(b.get(), rb.get(), k * sum_abs_products(hx, hx), "multiply_dot2 r.r");
      check_padding(cc.base_y, n, "multiply_dot2");
    }
  }
}

}  // namespace

TEST_CASE_TEMPLATE("cpu targets: vector algebra on every target", T, float, double) {
  tessera_test::for_each_cpu_target([](const std::string&) { check_vector_algebra<T>(); });
}
