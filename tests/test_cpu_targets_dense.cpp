// gemm, trsv and trsm on the cpu device once per compiled SIMD target (forced one at a time),
// against the reference device, f32 and f64. The reference runs once per case; each target's
// result must lie within the bounds of tests/support/compare.hpp:
//  - gemm: |C - C_ref| <= gamma_{k+2} (|alpha| |op(A)| |op(B)| + |beta| |C|), elementwise;
//  - trsv/trsm (column by column): a backward-stable solution x of a matrix with Varah bound
//    ||op(A)^{-1}|| <= 1/delta satisfies ||x - x_ref|| <= (1/delta) gamma_{n+1} ||op(A)|| (||x|| + ||x_ref||).
// Sizes cross the micro-kernel tile (MR 6 or 9 rows, NR 2-3 vectors), the KC = 512 depth and
// MC row blocks, the trsv block of 128 and the trsm leaf of 32, and reach the thread
// thresholds, while the reference stays under ~20 MFLOP per case (the suite runs under ASan
// and QEMU). Everything a kernel must not read (padding, the other triangle, a unit diagonal)
// holds NaN.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "support/compare.hpp"
#include "support/cpu_targets.hpp"
#include "support/random.hpp"
#include "tessera/tessera.hpp"

using namespace tessera;
using tessera_test::gamma_bound;
using tessera_test::padded_random;

namespace {

Device cpu() { return Device::open("cpu"); }
Device ref() { return Device::open("reference"); }

const char* name(Trans t) { return t == Trans::N ? "N" : "T"; }
const char* name(Uplo u) { return u == Uplo::lower ? "lower" : "upper"; }
const char* name(Diag d) { return d == Diag::unit ? "unit" : "non_unit"; }

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

template <class T>
DenseMatrix<T> upload(const Device& d, std::int64_t rows, std::int64_t cols, std::int64_t ld, const std::vector<T>& h) {
  DenseMatrix<T> m(d, rows, cols, ld);
  if (rows > 0 && cols > 0) m.upload(h.data(), ld);
  return m;
}

template <class T>
std::vector<T> abs_keep_nan(std::vector<T> v) {
  for (auto& e : v) e = std::isnan(e) ? e : std::abs(e);
  return v;
}

// ---- gemm ----

struct GemmShape {
  std::int64_t m, n, k;
};
struct AlphaBeta {
  double alpha, beta;
  bool nan_c;  // C holds NaN on entry: beta == 0 must not read it
};
const AlphaBeta gemm_scalars[] = {{1.0, 0.0, true}, {-0.5, 0.25, false}, {1.0, 1.0, false}, {2.0, -1.5, false}};

template <class T>
void gemm_on_every_target(Trans ta, Trans tb, const GemmShape& s, const AlphaBeta& ab, std::int64_t pad,
                          std::uint32_t seed) {
  // op(A) is m x k: A is m x k (N) or k x m (T); likewise B.
  const std::int64_t ar = ta == Trans::N ? s.m : s.k, ac = ta == Trans::N ? s.k : s.m;
  const std::int64_t br = tb == Trans::N ? s.k : s.n, bc = tb == Trans::N ? s.n : s.k;
  const std::int64_t lda = ac + pad, ldb = bc + 2 * pad, ldc = s.n + pad;
  const auto ha = padded_random<T>(ar, ac, lda, seed), hb = padded_random<T>(br, bc, ldb, seed + 1);
  const auto hc_mag = padded_random<T>(s.m, s.n, ldc, seed + 2);
  const auto hc = ab.nan_c ? std::vector<T>(hc_mag.size(), static_cast<T>(kNaN)) : hc_mag;
  const T alpha = static_cast<T>(ab.alpha), beta = static_cast<T>(ab.beta);
  std::ostringstream w;
  w << "gemm " << name(ta) << name(tb) << " m=" << s.m << " n=" << s.n << " k=" << s.k << " alpha=" << ab.alpha
    << " beta=" << ab.beta << (ab.nan_c ? " C=NaN" : "") << " pad=" << pad;
  const std::string what = w.str();
  INFO(what);

  const auto run = [&](const Device& d, const std::vector<T>& a, const std::vector<T>& b, const std::vector<T>& c,
                       T al, T be) {
    auto C = upload(d, s.m, s.n, ldc, c);
    gemm(ta, tb, al, upload(d, ar, ac, lda, a), upload(d, br, bc, ldb, b), be, C);
    return C.to_host();
  };
  const auto expected = run(ref(), ha, hb, hc, alpha, beta);
  const auto magnitude = run(ref(), abs_keep_nan(ha), abs_keep_nan(hb), abs_keep_nan(hc_mag),
                             static_cast<T>(std::abs(ab.alpha)), static_cast<T>(std::abs(ab.beta)));
  std::vector<double> bound(expected.size());
  for (std::size_t i = 0; i < bound.size(); ++i) bound[i] = gamma_bound<T>(s.k + 2.0) * magnitude[i];
  tessera_test::for_each_cpu_target(
      [&](const std::string& t) { tessera_test::check_close(run(cpu(), ha, hb, hc, alpha, beta), expected, bound, what + " on " + t); });
}

template <class T>
void check_gemm() {
  // MR is 9 (32 registers) or 6 (16), NR 48/24 (AVX-512 f32/f64) down to 3 (scalar); KC 512;
  // MC ~250 rows (f32) or ~125 (f64). The last two reach 2 threads (>= 4 MFLOP).
  const GemmShape shapes[] = {{1, 1, 1}, {5, 3, 2}, {10, 49, 7}, {19, 97, 515}, {131, 70, 40}, {300, 61, 520}, {61, 300, 100}};
  std::uint32_t seed = 500;
  int index = 0;
  for (const GemmShape& s : shapes)
    for (const Trans ta : {Trans::N, Trans::T})
      for (const Trans tb : {Trans::N, Trans::T}) {
        const int i = index++;
        gemm_on_every_target<T>(ta, tb, s, gemm_scalars[i % 4], i % 3 == 0 ? 0 : 3, seed += 3);
      }
}

// ---- trsv / trsm ----

// n x n, stored with leading dimension ld: the named triangle holds strict entries in
// [-1, 1] / n and (non-unit) a diagonal of magnitude [2, 3]; everything else is NaN.
template <class T>
std::vector<T> triangular(std::int64_t n, std::int64_t ld, Uplo uplo, Diag diag, std::uint32_t seed) {
  tessera_test::Rng rng(seed);
  std::vector<T> a(static_cast<std::size_t>(n * ld), static_cast<T>(kNaN));
  for (std::int64_t i = 0; i < n; ++i)
    for (std::int64_t j = 0; j < n; ++j) {
      T& e = a[static_cast<std::size_t>(i * ld + j)];
      if (uplo == Uplo::lower ? j < i : j > i) e = static_cast<T>(rng.signed_unit() / static_cast<double>(n));
      if (i == j && diag == Diag::non_unit) {
        const double d = rng.uniform(2.0, 3.0);
        e = static_cast<T>(rng.coin(0.5) ? d : -d);
      }
    }
  return a;
}

// ||op(A)||_inf and Varah's bound 1 / min_i (|op(A)_ii| - sum_{j != i} |op(A)_ij|) on ||op(A)^{-1}||_inf.
struct OpNorms {
  double norm = 0, inv_bound = 0;
};

template <class T>
OpNorms op_norms(const std::vector<T>& a, std::int64_t n, std::int64_t ld, Uplo uplo, Trans trans, Diag diag) {
  std::vector<double> off(static_cast<std::size_t>(n), 0.0);  // by row of op(A)
  for (std::int64_t i = 0; i < n; ++i)
    for (std::int64_t j = 0; j < n; ++j)
      if (uplo == Uplo::lower ? j < i : j > i)
        off[static_cast<std::size_t>(trans == Trans::N ? i : j)] += std::abs(static_cast<double>(a[static_cast<std::size_t>(i * ld + j)]));
  OpNorms r;
  double delta = std::numeric_limits<double>::infinity();
  for (std::int64_t i = 0; i < n; ++i) {
    const double d = diag == Diag::unit ? 1.0 : std::abs(static_cast<double>(a[static_cast<std::size_t>(i * ld + i)]));
    r.norm = std::max(r.norm, d + off[static_cast<std::size_t>(i)]);
    delta = std::min(delta, d - off[static_cast<std::size_t>(i)]);
  }
  REQUIRE(delta > 0);
  r.inv_bound = 1.0 / delta;
  return r;
}

// Per-element bounds for X (n x nrhs, compact) against X_ref, column by column.
template <class T>
std::vector<double> solve_bounds(const OpNorms& norms, std::int64_t n, std::int64_t nrhs, const std::vector<T>& x,
                                 const std::vector<T>& x_ref) {
  const double g = gamma_bound<T>(n + 1.0);
  std::vector<double> bound(x.size());
  for (std::int64_t c = 0; c < nrhs; ++c) {
    double xn = 0, rn = 0;
    for (std::int64_t i = 0; i < n; ++i) {
      const auto e = static_cast<std::size_t>(i * nrhs + c);
      xn = std::isfinite(x[e]) ? std::max(xn, std::abs(static_cast<double>(x[e]))) : kNaN;
      rn = std::max(rn, std::abs(static_cast<double>(x_ref[e])));
    }
    for (std::int64_t i = 0; i < n; ++i)
      bound[static_cast<std::size_t>(i * nrhs + c)] = norms.inv_bound * g * norms.norm * (xn + rn);
  }
  return bound;
}

template <class T>
void check_trsv() {
  // Block 128 and, from n ~ 1024, two threads.
  const std::int64_t sizes[] = {1, 2, 17, 130, 300, 1100};
  std::uint32_t seed = 900;
  int index = 0;
  for (const std::int64_t n : sizes)
    for (const Uplo uplo : {Uplo::lower, Uplo::upper})
      for (const Trans trans : {Trans::N, Trans::T})
        for (const Diag diag : {Diag::non_unit, Diag::unit}) {
          const std::int64_t ld = index++ % 2 ? n + 3 : n;
          std::ostringstream w;
          w << "trsv n=" << n << " ld=" << ld << " " << name(uplo) << " " << name(trans) << " " << name(diag);
          const std::string what = w.str();
          INFO(what);
          const auto ha = triangular<T>(n, ld, uplo, diag, ++seed);
          const auto hb = tessera_test::random_vector<T>(static_cast<std::size_t>(n), ++seed);
          const auto solve = [&](const Device& d) {
            auto x = Vector<T>::from_host(d, hb);
            trsv(uplo, trans, diag, upload(d, n, n, ld, ha), x);
            return x.to_host();
          };
          const auto x_ref = solve(ref());
          const OpNorms norms = op_norms(ha, n, ld, uplo, trans, diag);
          tessera_test::for_each_cpu_target([&](const std::string& t) {
            const auto x = solve(cpu());
            tessera_test::check_close(x, x_ref, solve_bounds(norms, n, 1, x, x_ref), what + " on " + t);
          });
        }
}

template <class T>
void check_trsm() {
  struct Case {
    std::int64_t n, nrhs;
  };
  // Leaf only; recursion with GEMM updates and tails of < 1 and < 4 vectors; one thread;
  // two threads on column slices (nrhs >= 4 NR); two threads sharing each update (few columns).
  const Case cases[] = {{1, 1}, {5, 3}, {33, 17}, {100, 50}, {150, 200}, {300, 60}};
  const double alphas[] = {1.0, -0.75, 2.0};
  std::uint32_t seed = 1300;
  int index = 0;
  for (const Case& c : cases)
    for (const Uplo uplo : {Uplo::lower, Uplo::upper})
      for (const Trans trans : {Trans::N, Trans::T})
        for (const Diag diag : {Diag::non_unit, Diag::unit}) {
          const int i = index++;
          const std::int64_t lda = i % 2 ? c.n + 5 : c.n, ldb = i % 3 ? c.nrhs + 2 : c.nrhs;
          const double alpha = alphas[i % 3];
          std::ostringstream w;
          w << "trsm n=" << c.n << " nrhs=" << c.nrhs << " lda=" << lda << " ldb=" << ldb << " alpha=" << alpha << " "
            << name(uplo) << " " << name(trans) << " " << name(diag);
          const std::string what = w.str();
          INFO(what);
          const auto ha = triangular<T>(c.n, lda, uplo, diag, ++seed);
          const auto hb = padded_random<T>(c.n, c.nrhs, ldb, ++seed);
          const auto solve = [&](const Device& d) {
            auto B = upload(d, c.n, c.nrhs, ldb, hb);
            trsm(uplo, trans, diag, static_cast<T>(alpha), upload(d, c.n, c.n, lda, ha), B);
            return B.to_host();
          };
          const auto x_ref = solve(ref());
          const OpNorms norms = op_norms(ha, c.n, lda, uplo, trans, diag);
          tessera_test::for_each_cpu_target([&](const std::string& t) {
            const auto x = solve(cpu());
            tessera_test::check_close(x, x_ref, solve_bounds(norms, c.n, c.nrhs, x, x_ref), what + " on " + t);
          });
        }
}

}  // namespace

TEST_CASE_TEMPLATE("cpu targets: gemm on every target, all transposes", T, float, double) { check_gemm<T>(); }

TEST_CASE_TEMPLATE("cpu targets: trsv on every target", T, float, double) { check_trsv<T>(); }

TEST_CASE_TEMPLATE("cpu targets: trsm on every target", T, float, double) { check_trsm<T>(); }

// BLAS semantics, documented in tessera/ops.hpp: alpha == 0 reads neither A nor B (NaN there
// must not show), so C = beta C exactly (one rounding per element, as on the host) and trsm
// writes zeros.
TEST_CASE_TEMPLATE("cpu targets: gemm and trsm with alpha == 0 read neither A nor B", T, float, double) {
  const std::int64_t m = 37, n = 53, k = 29;
  const std::vector<T> nan_a(static_cast<std::size_t>(m * k), static_cast<T>(kNaN));
  const std::vector<T> nan_b(static_cast<std::size_t>(k * n), static_cast<T>(kNaN));
  const auto hc = tessera_test::random_vector<T>(static_cast<std::size_t>(m * n), 41);
  tessera_test::for_each_cpu_target([&](const std::string&) {
    for (const double beta : {0.0, 1.0, -0.75}) {
      INFO("beta " << beta);
      const T b = static_cast<T>(beta);
      auto C = DenseMatrix<T>::from_host(cpu(), m, n, hc);
      gemm(Trans::N, Trans::T, T(0), DenseMatrix<T>::from_host(cpu(), m, k, nan_a),
           DenseMatrix<T>::from_host(cpu(), n, k, nan_b), b, C);
      std::vector<T> want(hc.size());
      for (std::size_t i = 0; i < hc.size(); ++i) want[i] = beta == 0 ? T(0) : b * hc[i];
      tessera_test::check_bitwise(C.to_host(), want, "gemm alpha = 0");
    }
    const std::vector<T> nan_tri(static_cast<std::size_t>(m * m), static_cast<T>(kNaN));
    auto B = DenseMatrix<T>::from_host(cpu(), m, n, std::vector<T>(static_cast<std::size_t>(m * n), static_cast<T>(kNaN)));
    trsm(Uplo::lower, Trans::N, Diag::non_unit, T(0), DenseMatrix<T>::from_host(cpu(), m, m, nan_tri), B);
    tessera_test::check_bitwise(B.to_host(), std::vector<T>(static_cast<std::size_t>(m * n), T(0)), "trsm alpha = 0");
  });
}
