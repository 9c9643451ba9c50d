// The vector algebra (algebra.hpp) on every device against the reference: random data, odd
// sizes, views at offsets inside larger vectors (the elements around a view must not change),
// both dtypes, coefficients from the host and from device Scalars (ratios, products, negated).
//
// Bounds: an element-wise result computed in T with one or two roundings (FMA or not) is within
// 4u (|a x| + |b y|) of the reference's once-rounded double; the dots follow reduce's tree
// bound (test_ops_reduce.cpp). Coefficients built from Scalars are rounded to T on the device
// before use on some backends, which adds a few u of |a x|: the bound below allows 8u.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "support/compare.hpp"
#include "support/devices.hpp"
#include "support/random.hpp"
#include "tessera/tessera.hpp"

using namespace tessera;
using namespace tessera_test;

namespace {

constexpr std::int64_t kSizes[] = {1, 2, 7, 16, 33, 1000, 4099, 65537, 1000003};
constexpr std::int64_t kPad = 3;  // elements before a view; as many after

double tree_terms(std::int64_t n) {
  return std::min(static_cast<double>(n), 256.0 + std::ceil(std::log2(static_cast<double>(std::max<std::int64_t>(n, 2))))) + 1.0;
}

// A view of n elements at offset kPad inside a vector of n + 2 kPad elements holding `host`
// around guard values (1e30): a kernel that ignores the offset or runs past n changes them.
template <class T>
struct Padded {
  Vector<T> whole, view;
  Padded(const Device& d, const std::vector<T>& host) {
    std::vector<T> all(host.size() + 2 * kPad, T(1e30));
    std::copy(host.begin(), host.end(), all.begin() + kPad);
    whole = Vector<T>::from_host(d, all);
    view = whole.sub(kPad, static_cast<std::int64_t>(host.size()));
  }
  std::vector<T> values() const { return view.to_host(); }
  bool guards_intact() const {
    const auto all = whole.to_host();
    for (std::int64_t i = 0; i < kPad; ++i)
      if (all[static_cast<std::size_t>(i)] != T(1e30) || all[all.size() - 1 - static_cast<std::size_t>(i)] != T(1e30))
        return false;
    return true;
  }
};

// Element-wise bound: 8u (|a x_i| + |b y_i|) + the smallest normal, per element.
template <class T>
std::vector<double> elementwise_bound(double a, const std::vector<T>& x, double b, const std::vector<T>& y) {
  std::vector<double> bound(x.size());
  for (std::size_t i = 0; i < x.size(); ++i)
    bound[i] = 8 * unit_roundoff<T>() * (std::abs(a * x[i]) + (y.empty() ? 0.0 : std::abs(b * y[i]))) +
               std::numeric_limits<T>::min();
  return bound;
}

template <class T>
double exact_dot(const std::vector<T>& x, const std::vector<T>& y) {
  long double s = 0;
  for (std::size_t i = 0; i < x.size(); ++i) s += static_cast<long double>(x[i]) * y[i];
  return static_cast<double>(s);
}

template <class T>
double dot_bound(const std::vector<T>& x, const std::vector<T>& y) {
  double m = 0;
  for (std::size_t i = 0; i < x.size(); ++i) m += std::abs(static_cast<double>(x[i]) * y[i]);
  return gamma_bound<T>(tree_terms(static_cast<std::int64_t>(x.size()))) * m + std::numeric_limits<T>::min();
}

// The scalars every coefficient test uses: s1 = 1.5, s2 = -0.75, s3 = 2.5 (exact in f32).
template <class T>
struct Scalars {
  Scalar<T> s1, s2, s3;
  explicit Scalars(const Device& d) : s1(d, T(1.5)), s2(d, T(-0.75)), s3(d, T(2.5)) {}
};

}  // namespace

TEST_CASE_TEMPLATE("vector algebra: axpby, axpy, scal and fill with host and device coefficients", T, float, double) {
  std::uint32_t seed = 500;
  for (std::int64_t n : kSizes) {
    const auto hx = random_vector<T>(static_cast<std::size_t>(n), seed++);
    const auto hy = random_vector<T>(static_cast<std::size_t>(n), seed++);
    // (name, alpha, beta as built from scalars; their values on the host)
    for_each_device<T>(Op::vector, [&](const Device& d) {
      Scalars<T> s(d);
      struct Coefs {
        const char* name;
        ScalarArg<T> a, b;
        double av, bv;
      };
      const Coefs cases[] = {
          {"host 2, host -3", ScalarArg<T>(T(2)), ScalarArg<T>(T(-3)), 2.0, -3.0},
          {"s1, host 1", ScalarArg<T>(s.s1), ScalarArg<T>(T(1)), 1.5, 1.0},
          {"s1/s2, -s3", s.s1 / s.s2, -s.s3, 1.5 / -0.75, -2.5},
          {"-(s1*s3)/(s2*s2), s3/s1", -(s.s1 * s.s3) / (s.s2 * s.s2), s.s3 / s.s1, -(1.5 * 2.5) / (0.75 * 0.75),
           2.5 / 1.5},
      };
      for (const Coefs& c : cases) {
        std::ostringstream what;
        what << "axpby n=" << n << " (" << c.name << ") on " << d.spec();
        Padded<T> x(d, hx), y(d, hy);
        axpby(c.a, x.view, c.b, y.view);
        std::vector<T> expected(hy.size());
        for (std::size_t i = 0; i < hy.size(); ++i) expected[i] = static_cast<T>(c.av * hx[i] + c.bv * hy[i]);
        check_close(y.values(), expected, elementwise_bound(c.av, hx, c.bv, hy), what.str());
        CHECK_MESSAGE(y.guards_intact(), what.str() << ": elements outside the view changed");
        CHECK_MESSAGE(x.values() == hx, what.str() << ": x changed");
      }
      // beta a host zero: y is not read (NaN in y does not propagate).
      {
        std::vector<T> nan_y(hy.size(), std::numeric_limits<T>::quiet_NaN());
        Padded<T> x(d, hx), y(d, nan_y);
        axpby(s.s1 / s.s2, x.view, T(0), y.view);
        std::vector<T> expected(hx.size());
        for (std::size_t i = 0; i < hx.size(); ++i) expected[i] = static_cast<T>(-2.0 * hx[i]);
        check_close(y.values(), expected, elementwise_bound(-2.0, hx, 0.0, {}), "axpby beta=0 with NaN y");
      }
      // axpy, scal, fill.
      {
        Padded<T> x(d, hx), y(d, hy);
        axpy(s.s3, x.view, y.view);
        std::vector<T> expected(hy.size());
        for (std::size_t i = 0; i < hy.size(); ++i) expected[i] = static_cast<T>(2.5 * hx[i] + hy[i]);
        check_close(y.values(), expected, elementwise_bound(2.5, hx, 1.0, hy), "axpy");
        scal(T(-0.5), x.view);
        for (std::size_t i = 0; i < hx.size(); ++i) expected[i] = static_cast<T>(-0.5 * hx[i]);
        check_close(x.values(), expected, elementwise_bound(0.5, hx, 0.0, {}), "scal");
        CHECK(x.guards_intact());
        fill(s.s2 / s.s1, y.view);  // -0.5, exact
        CHECK(y.values() == std::vector<T>(hy.size(), T(-0.5)));
        CHECK(y.guards_intact());
      }
    });
  }
}

TEST_CASE_TEMPLATE("vector algebra: element-wise multiply, divide, reciprocal, also in place", T, float, double) {
  std::uint32_t seed = 700;
  for (std::int64_t n : kSizes) {
    const auto hx = random_vector<T>(static_cast<std::size_t>(n), seed++, 0.5, 2.0);
    const auto hy = random_vector<T>(static_cast<std::size_t>(n), seed++, -2.0, -0.5);
    for_each_device<T>(Op::vector, [&](const Device& d) {
      std::vector<T> mul(hx.size()), div(hx.size()), rec(hx.size());
      std::vector<double> bmul(hx.size()), bdiv(hx.size()), brec(hx.size());
      for (std::size_t i = 0; i < hx.size(); ++i) {
        mul[i] = static_cast<T>(static_cast<double>(hx[i]) * hy[i]);
        div[i] = static_cast<T>(static_cast<double>(hx[i]) / hy[i]);
        rec[i] = static_cast<T>(1.0 / static_cast<double>(hx[i]));
        bmul[i] = 2 * unit_roundoff<T>() * std::abs(static_cast<double>(mul[i]));
        bdiv[i] = 2 * unit_roundoff<T>() * std::abs(static_cast<double>(div[i]));
        brec[i] = 2 * unit_roundoff<T>() * std::abs(static_cast<double>(rec[i]));
      }
      Padded<T> x(d, hx), y(d, hy), z(d, std::vector<T>(hx.size(), T(7)));
      multiply(x.view, y.view, z.view);
      check_close(z.values(), mul, bmul, "multiply n=" + std::to_string(n));
      divide(x.view, y.view, z.view);
      check_close(z.values(), div, bdiv, "divide n=" + std::to_string(n));
      reciprocal(x.view, z.view);
      check_close(z.values(), rec, brec, "reciprocal n=" + std::to_string(n));
      CHECK(z.guards_intact());
      // In place: z is x.
      multiply(x.view, y.view, x.view);
      check_close(x.values(), mul, bmul, "multiply in place");
      CHECK(x.guards_intact());
      CHECK(y.values() == hy);
    });
  }
}

TEST_CASE_TEMPLATE("vector algebra: reductions and dots into Scalars, fused axpby_dot, dot2 and multiply_dot2", T, float, double) {
  std::uint32_t seed = 900;
  const Device ref = reference_device();
  for (std::int64_t n : kSizes) {
    const auto hx = random_vector<T>(static_cast<std::size_t>(n), seed++);
    const auto hy = random_vector<T>(static_cast<std::size_t>(n), seed++);
    const auto hw = random_vector<T>(static_cast<std::size_t>(n), seed++);
    // Oracle values on the reference device.
    const Vector<T> rx = Vector<T>::from_host(ref, hx), ry = Vector<T>::from_host(ref, hy);
    const T ref_dot = dot(rx, ry), ref_norm = norm2(rx), ref_sum = sum(rx), ref_max = tessera::max(rx);
    for_each_device<T>(Op::vector, [&](const Device& d) {
      const std::string at = " n=" + std::to_string(n) + " on " + d.spec();
      Padded<T> x(d, hx), y(d, hy), w(d, hw);
      Scalar<T> out(d), out2(d);
      dot(x.view, y.view, out);
      check_close(std::vector<T>{out.get()}, {ref_dot}, dot_bound(hx, hy), "dot into Scalar" + at);
      norm2(d.queue(), x.view, out);
      const double nb = dot_bound(hx, hx) / (2 * std::max(1e-300, static_cast<double>(ref_norm))) +
                        4 * unit_roundoff<T>() * ref_norm;
      check_close(std::vector<T>{out.get()}, {ref_norm}, nb, "norm2 into Scalar" + at);
      reduce(d.queue(), ReduceOp::sum, x.view, out);
      std::vector<T> ones(hx.size(), T(1));
      check_close(std::vector<T>{out.get()}, {ref_sum}, dot_bound(hx, ones), "sum into Scalar" + at);
      reduce(d.queue(), ReduceOp::max, x.view, out);
      CHECK(out.get() == ref_max);
      check_close(std::vector<T>{norm2(x.view)}, {ref_norm}, nb, "norm2 to the host" + at);

      // axpby_dot: y = s1 x + s2 y; out = y . w; and with w = y: out = ||y||^2.
      Scalars<T> s(d);
      std::vector<T> ynew(hy.size());
      for (std::size_t i = 0; i < hy.size(); ++i) ynew[i] = static_cast<T>(1.5 * hx[i] - 0.75 * hy[i]);
      axpby_dot(ScalarArg<T>(s.s1), x.view, ScalarArg<T>(s.s2), y.view, w.view, out);
      const auto yv = y.values();
      check_close(yv, ynew, elementwise_bound(1.5, hx, 0.75, hy), "axpby_dot y" + at);
      check_close(std::vector<T>{out.get()}, {static_cast<T>(exact_dot(yv, hw))}, dot_bound(yv, hw),
                  "axpby_dot out" + at);
      axpby_dot(T(-1), w.view, T(1), y.view, y.view, out2);
      const auto y2 = y.values();
      check_close(std::vector<T>{out2.get()}, {static_cast<T>(exact_dot(y2, y2))}, dot_bound(y2, y2),
                  "axpby_dot norm" + at);
      CHECK(y.guards_intact());

      // dot2: x.y and x.w in one pass; and with z = x.
      Padded<T> a(d, hx), b(d, hy), c(d, hw);
      dot2(a.view, b.view, c.view, out, out2);
      check_close(std::vector<T>{out.get()}, {static_cast<T>(exact_dot(hx, hy))}, dot_bound(hx, hy), "dot2 xy" + at);
      check_close(std::vector<T>{out2.get()}, {static_cast<T>(exact_dot(hx, hw))}, dot_bound(hx, hw), "dot2 xz" + at);
      dot2(a.view, b.view, a.view, out, out2);
      check_close(std::vector<T>{out2.get()}, {static_cast<T>(exact_dot(hx, hx))}, dot_bound(hx, hx), "dot2 xx" + at);

      // multiply_dot2: z = w .* y, then y.z and y.y, in one pass; z's products are rounded once
      // on every device (one multiply in T), so z is compared exactly.
      Padded<T> dz(d, std::vector<T>(hx.size(), T(7)));
      std::vector<T> zexp(hx.size());
      for (std::size_t i = 0; i < hx.size(); ++i) zexp[i] = static_cast<T>(hw[i] * hy[i]);
      multiply_dot2(c.view, b.view, dz.view, out, out2);
      CHECK_MESSAGE(dz.values() == zexp, "multiply_dot2 z" << at);
      CHECK(dz.guards_intact());
      check_close(std::vector<T>{out.get()}, {static_cast<T>(exact_dot(hy, zexp))}, dot_bound(hy, zexp),
                  "multiply_dot2 rz" + at);
      check_close(std::vector<T>{out2.get()}, {static_cast<T>(exact_dot(hy, hy))}, dot_bound(hy, hy),
                  "multiply_dot2 rr" + at);
      CHECK(b.values() == hy);
      CHECK(c.values() == hw);
    });
  }
}

TEST_CASE_TEMPLATE("vector algebra: CG's fused steps axpby_pair and axpy_multiply_dot2", T, float, double) {
  std::uint32_t seed = 1300;
  for (std::int64_t n : kSizes) {
    const auto hx = random_vector<T>(static_cast<std::size_t>(n), seed++);
    const auto hy = random_vector<T>(static_cast<std::size_t>(n), seed++);
    const auto hz = random_vector<T>(static_cast<std::size_t>(n), seed++);
    const auto hw = random_vector<T>(static_cast<std::size_t>(n), seed++);
    for_each_device<T>(Op::vector, [&](const Device& d) {
      const std::string at = " n=" + std::to_string(n) + " on " + d.spec();
      Scalars<T> s(d);
      // Two independent updates, device coefficients: y1 = (s1/s2) x1 - s3 y1; y2 = s3 x2 + s1 y2.
      {
        Padded<T> x1(d, hx), y1(d, hy), x2(d, hz), y2(d, hw);
        axpby_pair(s.s1 / s.s2, x1.view, -s.s3, y1.view, ScalarArg<T>(s.s3), x2.view, ScalarArg<T>(s.s1), y2.view);
        std::vector<T> e1(hx.size()), e2(hx.size());
        for (std::size_t i = 0; i < hx.size(); ++i) {
          e1[i] = static_cast<T>(-2.0 * hx[i] - 2.5 * hy[i]);
          e2[i] = static_cast<T>(2.5 * hz[i] + 1.5 * hw[i]);
        }
        check_close(y1.values(), e1, elementwise_bound(2.0, hx, 2.5, hy), "axpby_pair y1" + at);
        check_close(y2.values(), e2, elementwise_bound(2.5, hz, 1.5, hw), "axpby_pair y2" + at);
        CHECK(y1.guards_intact());
        CHECK(y2.guards_intact());
        CHECK(x1.values() == hx);
        CHECK(x2.values() == hz);
      }
      // CG's form, y2 = x1: x += alpha p with the old p, then p = z + beta p. beta1 a host zero
      // with NaN in y1 (not read) is the second case.
      for (const bool nan_y1 : {false, true}) {
        const std::vector<T> y1_host = nan_y1 ? std::vector<T>(hy.size(), std::numeric_limits<T>::quiet_NaN()) : hy;
        Padded<T> p(d, hx), x(d, y1_host), z(d, hz);
        axpby_pair(s.s2 / s.s1, p.view, nan_y1 ? ScalarArg<T>(T(0)) : ScalarArg<T>(T(1)), x.view, T(1), z.view,
                   ScalarArg<T>(s.s3), p.view);
        std::vector<T> ex(hx.size()), ep(hx.size());
        for (std::size_t i = 0; i < hx.size(); ++i) {
          ex[i] = static_cast<T>(-0.5 * hx[i] + (nan_y1 ? 0.0 : static_cast<double>(hy[i])));
          ep[i] = static_cast<T>(hz[i] + 2.5 * hx[i]);
        }
        check_close(x.values(), ex, elementwise_bound(0.5, hx, nan_y1 ? 0.0 : 1.0, hy), "axpby_pair x (CG)" + at);
        check_close(p.values(), ep, elementwise_bound(2.5, hx, 1.0, hz), "axpby_pair p (CG)" + at);
        CHECK(x.guards_intact());
        CHECK(p.guards_intact());
      }
      // axpy_multiply_dot2: r = r - (s1/s3) x, z = w .* r, r.z and r.r. z is compared exactly
      // against w times the device's r (one product rounded once, everywhere).
      {
        Padded<T> x(d, hx), dv(d, hw), r(d, hy), z(d, std::vector<T>(hx.size(), T(7)));
        Scalar<T> rz(d), rr(d);
        axpy_multiply_dot2(-(s.s1 / s.s3), x.view, dv.view, r.view, z.view, rz, rr);
        std::vector<T> er(hx.size());
        for (std::size_t i = 0; i < hx.size(); ++i) er[i] = static_cast<T>(-(1.5 / 2.5) * hx[i] + hy[i]);
        const auto rv = r.values();
        check_close(rv, er, elementwise_bound(0.6, hx, 1.0, hy), "axpy_multiply_dot2 r" + at);
        std::vector<T> ez(hx.size());
        for (std::size_t i = 0; i < hx.size(); ++i) ez[i] = static_cast<T>(hw[i] * rv[i]);
        CHECK_MESSAGE(z.values() == ez, "axpy_multiply_dot2 z" << at);
        check_close(std::vector<T>{rz.get()}, {static_cast<T>(exact_dot(rv, ez))}, dot_bound(rv, ez),
                    "axpy_multiply_dot2 rz" + at);
        check_close(std::vector<T>{rr.get()}, {static_cast<T>(exact_dot(rv, rv))}, dot_bound(rv, rv),
                    "axpy_multiply_dot2 rr" + at);
        CHECK(r.guards_intact());
        CHECK(z.guards_intact());
        CHECK(x.values() == hx);
        CHECK(dv.values() == hw);
      }
    });
  }
}

TEST_CASE_TEMPLATE("vector algebra: copy, clone, sub-vectors and the Scalar set/get round trip", T, float, double) {
  for (std::int64_t n : {std::int64_t{1}, std::int64_t{5}, std::int64_t{4099}}) {
    const auto hx = random_vector<T>(static_cast<std::size_t>(n), 31);
    for (const Device& d : all_devices()) {
      run_on_device<T>(d, Op::vector, [&](const Device& dev) {
        Padded<T> x(dev, hx), y(dev, std::vector<T>(hx.size(), T(3)));
        copy(x.view, y.view);
        CHECK(y.values() == hx);
        CHECK(y.guards_intact());
        Vector<T> c = x.view.clone();
        CHECK(c.size() == n);
        CHECK(c.offset() == 0);
        CHECK(c.to_host() == hx);
        scal(T(2), c);  // the clone has storage of its own
        CHECK(x.values() == hx);
        // A view of a view: offsets add up.
        if (n >= 3) {
          const Vector<T> inner = x.view.sub(1, n - 2);
          CHECK(inner.offset() == kPad + 1);
          CHECK(inner.to_host() == std::vector<T>(hx.begin() + 1, hx.end() - 1));
        }
        Scalar<T> s(dev, T(0.25));
        CHECK(s.get() == T(0.25));
        s.set(T(-8));
        CHECK(s.get() == T(-8));
        Scalar<T> t(dev, T(2));
        fill(dev.queue(), s / t, s);  // s = s / t, read before written
        CHECK(s.get() == T(-4));
      });
    }
  }
}

TEST_CASE_TEMPLATE("vector algebra: grids and tensors seen as vectors, matrix blocks", T, float, double) {
  for (const Device& d : all_devices()) {
    run_on_device<T>(d, Op::vector, [&](const Device& dev) {
      const auto hg = random_vector<T>(7 * 5 * 3, 41);
      Grid<T> g = Grid<T>::from_host(dev, 7, 5, 3, hg);
      Vector<T> gv = g.as_vector();
      CHECK(gv.size() == 105);
      scal(T(2), gv);  // doubles the grid's cells in place
      const auto doubled = g.to_host();
      for (std::size_t i = 0; i < hg.size(); ++i) CHECK(doubled[i] == T(2) * hg[i]);
      const T sq = norm2(gv);
      double e = 0;
      for (T v : doubled) e += static_cast<double>(v) * v;
      CHECK(std::abs(sq - std::sqrt(e)) <= 64 * unit_roundoff<T>() * std::sqrt(e));

      const auto ht = random_vector<T>(2 * 3 * 4 * 5, 43);
      Tensor4<T> t = Tensor4<T>::from_host(dev, 2, 3, 4, 5, ht);
      CHECK(t.as_vector().to_host() == ht);
      Tensor4<T> tc = t.clone();
      CHECK(tc.to_host() == ht);

      // A block of a matrix: rows 1..3, columns 2..5 of a 5 x 7 matrix with ld 9.
      const auto hm = random_vector<T>(5 * 7, 45);
      DenseMatrix<T> m = DenseMatrix<T>::from_host(dev, 5, 7, hm, 9);
      DenseMatrix<T> blk = m.block(1, 2, 3, 4);
      const auto got = blk.to_host();
      for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 4; ++j) CHECK(got[static_cast<std::size_t>(i * 4 + j)] == hm[static_cast<std::size_t>((i + 1) * 7 + j + 2)]);
      // Writing the block leaves the rest of the matrix alone.
      blk.upload(std::vector<T>(12, T(9)).data());
      const auto after = m.to_host();
      for (int i = 0; i < 5; ++i)
        for (int j = 0; j < 7; ++j) {
          const bool inside = i >= 1 && i < 4 && j >= 2 && j < 6;
          CHECK(after[static_cast<std::size_t>(i * 7 + j)] == (inside ? T(9) : hm[static_cast<std::size_t>(i * 7 + j)]));
        }
      CHECK(m.rows_block(1, 2).clone().to_host() == std::vector<T>(after.begin() + 7, after.begin() + 21));
      CHECK_THROWS_AS(m.as_vector(), InvalidArgument);  // ld 9 > cols 7
    });
  }
}

// copy between f64 and f32 (Backend::convert): each element exactly what a C++ cast gives
// (round to nearest even; beyond f32's range +-inf; NaN stays NaN; subnormals kept), views at
// offsets with their guards intact, the source unchanged, every device against that oracle.
// f32 -> f64 is exact; f64 -> f32 gets random values at many scales, exact ties between two
// floats (both neighbours even and odd) and the edges of f32's range.
namespace {
std::vector<double> conversion_inputs(std::int64_t n, std::uint32_t seed) {
  auto v = random_vector<double>(static_cast<std::size_t>(n), seed);
  const double edges[] = {
      1.0 + std::ldexp(1.0, -24),                         // tie: to 1.0 (even)
      1.0 + 3 * std::ldexp(1.0, -24),                     // tie: up to 1 + 2^-22 (even)
      -(1.0 + std::ldexp(1.0, -24) + std::ldexp(1.0, -60)),  // just above a tie: away from 1
      3.5e38, -1e300, 1e300,                              // beyond f32's range: +-inf
      static_cast<double>(std::numeric_limits<float>::max()), 1e-40, -1e-45, 1e-50,  // edge, subnormal, to zero
      std::numeric_limits<double>::infinity(), std::numeric_limits<double>::quiet_NaN(), -0.0};
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (i < std::size(edges)) v[i] = edges[i];
    else v[i] = std::ldexp(v[i], static_cast<int>(i % 61) - 30);  // scales 2^-30 .. 2^30
  }
  return v;
}
// Equal as the cast gives them: NaN matches NaN, and zeros their sign.
template <class T>
bool same_bits(const std::vector<T>& a, const std::vector<T>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (!(std::isnan(a[i]) && std::isnan(b[i])) && (a[i] != b[i] || std::signbit(a[i]) != std::signbit(b[i])))
      return false;
  return true;
}
}  // namespace

TEST_CASE("vector algebra: copy between f64 and f32 rounds as a C++ cast, on every device") {
  std::uint32_t seed = 1700;
  for (std::int64_t n : kSizes) {
    const auto h64 = conversion_inputs(n, seed++);
    std::vector<float> want32(h64.size());
    for (std::size_t i = 0; i < h64.size(); ++i) want32[i] = static_cast<float>(h64[i]);
    const auto h32 = random_vector<float>(static_cast<std::size_t>(n), seed++);
    std::vector<double> want64(h32.begin(), h32.end());
    for (const Device& d : all_devices()) {
      // Either direction reads or writes f64: the device must have it.
      run_on_device<double>(d, Op::vector, [&](const Device& dev) {
        const std::string at = " n=" + std::to_string(n) + " on " + dev.spec();
        Padded<double> x(dev, h64), y64(dev, std::vector<double>(h64.size(), 7.0));
        Padded<float> y(dev, std::vector<float>(h64.size(), 7.0f)), x32(dev, h32);
        copy(dev.queue(), x.view, y.view);
        CHECK_MESSAGE(same_bits(y.values(), want32), "f64 -> f32" << at);
        copy(x32.view, y64.view);
        CHECK_MESSAGE(same_bits(y64.values(), want64), "f32 -> f64" << at);
        CHECK(y.guards_intact());
        CHECK(y64.guards_intact());
        CHECK(same_bits(x.values(), h64));
        CHECK(x32.values() == h32);
      });
    }
  }
}

TEST_CASE("vector algebra: copy between f64 and f32 rejects bad input and writes nothing") {
  for (const Device& d : all_devices()) {
    run_on_device<double>(d, Op::vector, [&](const Device& dev) {
      const auto h = random_vector<double>(9, 1800);
      Vector<double> x = Vector<double>::from_host(dev, h);
      Vector<float> y = Vector<float>::from_host(dev, std::vector<float>(9, 5.0f));
      Vector<float> short_y = Vector<float>::from_host(dev, std::vector<float>(4, 5.0f));
      CHECK_THROWS_AS(copy(x, short_y), DimensionMismatch);
      CHECK_THROWS_AS(copy(short_y, x), DimensionMismatch);
      CHECK_THROWS_AS(copy(Vector<double>(), y), InvalidArgument);
      Vector<float> empty32;
      CHECK_THROWS_AS(copy(x, empty32), InvalidArgument);
      // Another device (the reference unless this is it; then cpu), and its queue.
      const Device other = Device::open(dev.info().backend == "reference" ? "cpu" : "reference");
      Vector<float> far = Vector<float>::from_host(other, std::vector<float>(9, 5.0f));
      CHECK_THROWS_AS(copy(x, far), DeviceMismatch);
      CHECK_THROWS_AS(copy(other.queue(), x, y), DeviceMismatch);
      // Two dtypes over one storage (Vector's storage constructor): overlapping bytes refused,
      // disjoint ones converted. x's storage holds 9 doubles = 18 floats.
      Vector<float> alias(x.storage(), 4, 9);  // floats 4..12: bytes 16..52, inside x's 0..72
      Vector<double> head = x.sub(0, 9);
      CHECK_THROWS_AS(copy(head, alias), InvalidArgument);
      CHECK_THROWS_AS(copy(alias, head), InvalidArgument);
      CHECK(y.to_host() == std::vector<float>(9, 5.0f));
      CHECK(short_y.to_host() == std::vector<float>(4, 5.0f));
      CHECK(far.to_host() == std::vector<float>(9, 5.0f));
      CHECK(x.to_host() == h);
      Vector<float> after(x.storage(), 14, 2);  // floats 14, 15: bytes 56..64, beyond x.sub(0, 2)'s 0..16
      copy(x.sub(0, 2), after);
      const auto all = Vector<float>(x.storage(), 0, 18).to_host();
      CHECK(all[14] == static_cast<float>(h[0]));
      CHECK(all[15] == static_cast<float>(h[1]));
      // The device still works (x's element 7 now holds the two floats just written).
      const auto hx = x.to_host();
      copy(x, y);
      const auto hy = y.to_host();
      for (std::size_t i = 0; i < h.size(); ++i) CHECK(hy[i] == static_cast<float>(hx[i]));
    });
  }
}
