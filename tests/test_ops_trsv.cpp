// trsv and trsm on every device against the reference, all Uplo x Trans x Diag.
//
// Matrices: the named triangle has |diagonal| in [2, 3] (random sign) and strict entries
// uniform in [-1, 1] / n, so every row and column of op(A) is diagonally dominant with margin
// >= 1 and ||op(A)^{-1}||_inf <= 1 (Varah). Everything the solver must not read is NaN: the
// other triangle, the diagonal with Diag::unit, and the padding when ld > n.
//
// Checks, for each device and the reference:
//  - backward error (normwise): ||b - op(A) x||_inf <= gamma_{n+1} (||op(A)||_inf ||x||_inf + ||b||_inf),
//    residual in long double; substitution and blocked variants are backward stable like this;
//  - forward agreement with the reference: a backward-stable x satisfies
//    ||x - x_true|| <= ||op(A)^{-1}|| gamma ||op(A)|| ||x||, so
//    ||x - x_ref||_inf <= ||op(A)^{-1}||_inf gamma_{n+1} ||op(A)||_inf (||x||_inf + ||x_ref||_inf).
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "support/compare.hpp"
#include "support/scale.hpp"
#include "support/devices.hpp"
#include "support/random.hpp"
#include "tessera/tessera.hpp"

using namespace tessera;
using namespace tessera_test;

namespace {

constexpr Uplo uplos[] = {Uplo::lower, Uplo::upper};
constexpr Trans transes[] = {Trans::N, Trans::T};
constexpr Diag diags[] = {Diag::non_unit, Diag::unit};

const char* name(Uplo u) { return u == Uplo::lower ? "lower" : "upper"; }
const char* name(Trans t) { return t == Trans::N ? "N" : "T"; }
const char* name(Diag d) { return d == Diag::unit ? "unit" : "non_unit"; }

// n x n triangular matrix stored n x ld (row-major), poisoned outside what may be read.
template <class T>
std::vector<T> triangular_host(std::int64_t n, std::int64_t ld, Uplo uplo, Diag diag, std::uint32_t seed) {
  Rng rng(seed);
  const T nan = std::numeric_limits<T>::quiet_NaN();
  std::vector<T> a(static_cast<std::size_t>(n * ld), nan);
  for (std::int64_t i = 0; i < n; ++i)
    for (std::int64_t j = 0; j < n; ++j) {
      const bool in_triangle = uplo == Uplo::lower ? j < i : j > i;
      T& e = a[static_cast<std::size_t>(i * ld + j)];
      if (in_triangle) e = static_cast<T>(rng.signed_unit() / static_cast<double>(n));
      if (i == j && diag == Diag::non_unit) {
        const double d = rng.uniform(2.0, 3.0);
        e = static_cast<T>(rng.coin(0.5) ? d : -d);
      }
    }
  return a;
}

// op(A)(i, j) as the solver must see it: the named triangle, 1 on the diagonal with Diag::unit.
template <class T>
long double op_elem(const std::vector<T>& a, std::int64_t ld, Uplo uplo, Trans trans, Diag diag, std::int64_t i,
                    std::int64_t j) {
  const std::int64_t r = trans == Trans::N ? i : j, c = trans == Trans::N ? j : i;
  if (r == c) return diag == Diag::unit ? 1.0L : static_cast<long double>(a[static_cast<std::size_t>(r * ld + c)]);
  const bool in_triangle = uplo == Uplo::lower ? c < r : c > r;
  return in_triangle ? static_cast<long double>(a[static_cast<std::size_t>(r * ld + c)]) : 0.0L;
}

struct OpNorms {
  double norm = 0;         // ||op(A)||_inf
  double inv_bound = 0;    // Varah bound on ||op(A)^{-1}||_inf
};

template <class T>
OpNorms op_norms(const std::vector<T>& a, std::int64_t n, std::int64_t ld, Uplo uplo, Trans trans, Diag diag) {
  OpNorms r;
  double delta = std::numeric_limits<double>::infinity();
  for (std::int64_t i = 0; i < n; ++i) {
    long double off = 0;
    for (std::int64_t j = 0; j < n; ++j)
      if (j != i) off += std::abs(op_elem(a, ld, uplo, trans, diag, i, j));
    const long double d = std::abs(op_elem(a, ld, uplo, trans, diag, i, i));
    r.norm = std::max(r.norm, static_cast<double>(off + d));
    delta = std::min(delta, static_cast<double>(d - off));
  }
  REQUIRE(delta > 0);
  r.inv_bound = 1.0 / delta;
  return r;
}

// max_i |rhs_i - sum_j op(A)_ij x_j| in long double (x, rhs with stride `stride` from `col`).
template <class T>
double residual_norm(const std::vector<T>& a, std::int64_t n, std::int64_t ld, Uplo uplo, Trans trans, Diag diag,
                     const std::vector<T>& x, const std::vector<long double>& rhs) {
  long double worst = 0;
  for (std::int64_t i = 0; i < n; ++i) {
    long double s = rhs[static_cast<std::size_t>(i)];
    for (std::int64_t j = 0; j < n; ++j) {
      const long double e = op_elem(a, ld, uplo, trans, diag, i, j);
      if (e != 0) s -= e * static_cast<long double>(x[static_cast<std::size_t>(j)]);
    }
    worst = std::max(worst, std::abs(s));
  }
  return static_cast<double>(worst);
}

template <class T>
double inf_norm(const std::vector<T>& v) {
  double m = 0;
  for (const T& e : v) m = std::isnan(e) ? std::numeric_limits<double>::infinity() : std::max(m, std::abs(static_cast<double>(e)));
  return m;
}

// Checks one solution column: backward error, then agreement with the reference's column.
template <class T>
void check_solution(const std::vector<T>& a, std::int64_t n, std::int64_t ld, Uplo uplo, Trans trans, Diag diag,
                    const OpNorms& norms, const std::vector<long double>& rhs, const std::vector<T>& x,
                    const std::vector<T>& x_ref, const std::string& what) {
  const double g = gamma_bound<T>(static_cast<double>(n + 1));
  double rhs_norm = 0;
  for (long double v : rhs) rhs_norm = std::max(rhs_norm, static_cast<double>(std::abs(v)));
  const double xn = inf_norm(x);
  const double res = residual_norm(a, n, ld, uplo, trans, diag, x, rhs);
  const double allowed = g * (norms.norm * xn + rhs_norm) + std::numeric_limits<T>::min();
  CHECK_MESSAGE(res <= allowed, what << ": backward error ||b - op(A) x|| = " << res << " > allowed " << allowed
                                     << " (||x|| = " << xn << ")");
  check_close(x, x_ref, norms.inv_bound * g * norms.norm * (xn + inf_norm(x_ref)), what + ": vs reference");
}

}  // namespace

TEST_CASE_TEMPLATE("trsv: known answer on every device, the reference included", T, float, double) {
  // L = [2 0; 1 4], b = [2, 9]: L x = b -> x = [1, 2];  L^T x = b -> x = [-0.125, 2.25].
  // U = [2 1; 0 4] (the upper triangle of the same storage with a 1 above the diagonal).
  const std::vector<T> lower = {T(2), T(-100), T(1), T(4)}, upper = {T(2), T(1), T(-100), T(4)};
  for (const Device& d : all_devices()) {
    run_on_device<T>(d, Op::trsv, [&](const Device& dev) {
      const auto L = DenseMatrix<T>::from_host(dev, 2, 2, lower);
      auto x = Vector<T>::from_host(dev, {T(2), T(9)});
      trsv(Uplo::lower, Trans::N, Diag::non_unit, L, x);
      CHECK(x.to_host() == std::vector<T>{T(1), T(2)});
      x.upload({T(2), T(9)});
      trsv(Uplo::lower, Trans::T, Diag::non_unit, L, x);
      CHECK(x.to_host() == std::vector<T>{T(-0.125), T(2.25)});
      x.upload({T(2), T(9)});
      trsv(Uplo::lower, Trans::N, Diag::unit, L, x);  // [1 0; 1 1] x = b -> [2, 7]
      CHECK(x.to_host() == std::vector<T>{T(2), T(7)});
      const auto U = DenseMatrix<T>::from_host(dev, 2, 2, upper);
      x.upload({T(4), T(8)});
      trsv(Uplo::upper, Trans::N, Diag::non_unit, U, x);  // x2 = 2, x1 = (4 - 2) / 2 = 1
      CHECK(x.to_host() == std::vector<T>{T(1), T(2)});
      x.upload({T(4), T(8)});
      trsv(Uplo::upper, Trans::T, Diag::unit, U, x);  // [1 0; 1 1] x = b -> [4, 4]
      CHECK(x.to_host() == std::vector<T>{T(4), T(4)});
    });
  }
}

TEST_CASE_TEMPLATE("trsv: every Uplo x Trans x Diag on every device", T, float, double) {
  const Device ref = reference_device();
  // 127..129 straddle the CUDA f32 diagonal block (128), 1001 spans several blocks of every
  // backend; every other size gets a padded leading dimension.
  const std::int64_t sizes[] = {1, 2, 17, 64, 65, 127, 128, 129, 257, 500, tessera_test::scaled(1001, 300)};
  std::uint32_t seed = 1000;
  int case_index = 0;
  for (std::int64_t n : sizes)
    for (Uplo uplo : uplos)
      for (Trans trans : transes)
        for (Diag diag : diags) {
          const std::int64_t ld = (case_index++ % 2 == 0) ? n : n + 5;
          std::ostringstream w;
          w << "trsv n=" << n << " ld=" << ld << " " << name(uplo) << " " << name(trans) << " " << name(diag);
          const std::string what = w.str();
          const auto ha = triangular_host<T>(n, ld, uplo, diag, ++seed);
          const auto hb = random_vector<T>(static_cast<std::size_t>(n), ++seed);
          const OpNorms norms = op_norms(ha, n, ld, uplo, trans, diag);
          const std::vector<long double> rhs(hb.begin(), hb.end());
          std::vector<T> x_ref;
          if (!on_reference(what.c_str(), [&] {
                DenseMatrix<T> A(ref, n, n, ld);
                A.upload(ha.data(), ld);
                auto x = Vector<T>::from_host(ref, hb);
                trsv(uplo, trans, diag, A, x);
                x_ref = x.to_host();
              }))
            continue;
          {
            INFO("the reference itself");
            check_solution(ha, n, ld, uplo, trans, diag, norms, rhs, x_ref, x_ref, what + " (reference)");
          }
          for_each_device<T>(Op::trsv, [&](const Device& d) {
            DenseMatrix<T> A(d, n, n, ld);
            A.upload(ha.data(), ld);
            auto x = Vector<T>::from_host(d, hb);
            const auto a_before = A.to_host();
            trsv(uplo, trans, diag, A, x);
            check_solution(ha, n, ld, uplo, trans, diag, norms, rhs, x.to_host(), x_ref, what);
            check_bitwise(A.to_host(), a_before, what + ": A modified");
          });
        }
}

TEST_CASE_TEMPLATE("trsm: every Uplo x Trans x Diag, several right-hand sides, alpha != 1", T, float, double) {
  const Device ref = reference_device();
  const std::int64_t sizes[] = {1, 2, 17, 65, 257};
  const std::int64_t rhs_counts[] = {1, 3, 33};
  const double alphas[] = {1.0, -1.5, 0.25, 0.0};
  std::uint32_t seed = 5000;
  int case_index = 0;
  for (std::int64_t n : sizes)
    for (std::int64_t nrhs : rhs_counts)
      for (Uplo uplo : uplos)
        for (Trans trans : transes)
          for (Diag diag : diags) {
            const int c = case_index++;
            const std::int64_t lda = c % 3 == 0 ? n + 3 : n;
            const std::int64_t ldb = c % 2 == 0 ? nrhs + 7 : nrhs;
            const double alpha = alphas[c % 4 == 3 && n != 17 ? 1 : c % 4];  // alpha = 0 only at n = 17
            std::ostringstream w;
            w << "trsm n=" << n << " nrhs=" << nrhs << " lda=" << lda << " ldb=" << ldb << " alpha=" << alpha << " "
              << name(uplo) << " " << name(trans) << " " << name(diag);
            const std::string what = w.str();
            const auto ha = triangular_host<T>(n, lda, uplo, diag, ++seed);
            // B stored with ldb, NaN in the padding.
            auto hb = random_vector<T>(static_cast<std::size_t>(n * ldb), ++seed);
            for (std::int64_t i = 0; i < n; ++i)
              for (std::int64_t j = nrhs; j < ldb; ++j)
                hb[static_cast<std::size_t>(i * ldb + j)] = std::numeric_limits<T>::quiet_NaN();
            const OpNorms norms = op_norms(ha, n, lda, uplo, trans, diag);
            const T a = static_cast<T>(alpha);
            auto solve = [&](const Device& d) {
              DenseMatrix<T> A(d, n, n, lda);
              A.upload(ha.data(), lda);
              DenseMatrix<T> B(d, n, nrhs, ldb);
              B.upload(hb.data(), ldb);
              trsm(uplo, trans, diag, a, A, B);
              return B.to_host();  // n x nrhs, leading dimension nrhs
            };
            std::vector<T> x_ref;
            if (!on_reference(what.c_str(), [&] { x_ref = solve(ref); })) continue;
            auto check_all = [&](const std::vector<T>& X, const std::string& label) {
              for (std::int64_t col = 0; col < nrhs; ++col) {
                std::vector<T> x(static_cast<std::size_t>(n)), xr(static_cast<std::size_t>(n));
                std::vector<long double> rhs(static_cast<std::size_t>(n));
                for (std::int64_t i = 0; i < n; ++i) {
                  x[static_cast<std::size_t>(i)] = X[static_cast<std::size_t>(i * nrhs + col)];
                  xr[static_cast<std::size_t>(i)] = x_ref[static_cast<std::size_t>(i * nrhs + col)];
                  // alpha * b: exact in long double; the solver's rounding of it is one more term.
                  rhs[static_cast<std::size_t>(i)] = static_cast<long double>(a) * hb[static_cast<std::size_t>(i * ldb + col)];
                }
                check_solution(ha, n, lda, uplo, trans, diag, norms, rhs, x, xr,
                               label + " column " + std::to_string(col));
              }
            };
            check_all(x_ref, what + " (reference)");
            for_each_device<T>(Op::trsm, [&](const Device& d) { check_all(solve(d), what); });
          }
}

TEST_CASE_TEMPLATE("trsv and trsm agree: trsm with one column is trsv", T, float, double) {
  const std::int64_t n = 129;
  const auto ha = triangular_host<T>(n, n, Uplo::upper, Diag::non_unit, 77);
  const auto hb = random_vector<T>(static_cast<std::size_t>(n), 78);
  for (const Device& d : all_devices()) {
    run_on_device<T>(d, Op::trsm, [&](const Device& dev) {
      const auto A = DenseMatrix<T>::from_host(dev, n, n, ha);
      auto x = Vector<T>::from_host(dev, hb);
      trsv(Uplo::upper, Trans::T, Diag::non_unit, A, x);
      auto B = DenseMatrix<T>::from_host(dev, n, 1, hb);
      trsm(Uplo::upper, Trans::T, Diag::non_unit, T(1), A, B);
      const OpNorms norms = op_norms(ha, n, n, Uplo::upper, Trans::T, Diag::non_unit);
      const double xn = inf_norm(x.to_host());
      check_close(B.to_host(), x.to_host(), 2 * norms.inv_bound * gamma_bound<T>(n + 1) * norms.norm * xn,
                  "trsm(nrhs = 1) vs trsv");
    });
  }
}

// The blocked kernels round n up to whole blocks; the rows past n must be neither read as data
// nor written. The solved rows are a view at the top of a taller matrix (and of a longer
// vector) whose remaining rows hold a sentinel that must come back unchanged. (PoCL 3.1 once
// compiled a guarded store of the GPU kernel as unguarded: rows past n were overwritten.)
TEST_CASE_TEMPLATE("trsv and trsm write nothing past the last solved row", T, float, double) {
  const T sentinel = T(7.25);
  const std::int64_t extra = 70;  // more than one block of any class past n
  std::uint32_t seed = 8100;
  for (std::int64_t n : {std::int64_t{65}, std::int64_t{100}, std::int64_t{300}})
    for (std::int64_t nrhs : {std::int64_t{3}, std::int64_t{64}})
      for (Uplo uplo : uplos)
        for (Trans trans : transes) {
          const std::int64_t ldb = nrhs + 2;  // the padding columns must stay untouched too
          const auto ha = triangular_host<T>(n, n, uplo, Diag::non_unit, ++seed);
          const auto hb = random_vector<T>(static_cast<std::size_t>(n * ldb), ++seed);
          std::vector<T> tall(static_cast<std::size_t>((n + extra) * ldb), sentinel);
          for (std::int64_t i = 0; i < n; ++i)
            for (std::int64_t j = 0; j < nrhs; ++j)
              tall[static_cast<std::size_t>(i * ldb + j)] = hb[static_cast<std::size_t>(i * ldb + j)];
          std::ostringstream w;
          w << "n=" << n << " nrhs=" << nrhs << " " << name(uplo) << " " << name(trans);
          for_each_device<T>(Op::trsm, [&](const Device& d) {
            const auto A = DenseMatrix<T>::from_host(d, n, n, ha);
            DenseMatrix<T> B(d, n + extra, nrhs + 2);
            B.upload(tall.data(), ldb);
            DenseMatrix<T> top = B.block(0, 0, n, nrhs);
            trsm(uplo, trans, Diag::non_unit, T(1), A, top);
            std::vector<T> hx0(static_cast<std::size_t>(n + extra), sentinel);
            std::copy(hb.begin(), hb.begin() + n, hx0.begin());
            auto x = Vector<T>::from_host(d, hx0);
            auto xv = x.sub(0, n);
            trsv(uplo, trans, Diag::non_unit, A, xv);
            const auto hB = B.to_host(), hx = x.to_host();
            int bad_b = 0, bad_x = 0;
            for (std::int64_t i = 0; i < n + extra; ++i)
              for (std::int64_t j = 0; j < ldb; ++j)
                if (i >= n || j >= nrhs) bad_b += hB[static_cast<std::size_t>(i * ldb + j)] != sentinel;
            for (std::size_t i = static_cast<std::size_t>(n); i < hx.size(); ++i) bad_x += hx[i] != sentinel;
            CHECK_MESSAGE(bad_b == 0, w.str() << ": trsm changed " << bad_b << " elements outside its n x nrhs block");
            CHECK_MESSAGE(bad_x == 0, w.str() << ": trsv changed " << bad_x << " elements past element n");
            CHECK(all_finite(std::vector<T>(hx.begin(), hx.begin() + n)));
          });
        }
}
