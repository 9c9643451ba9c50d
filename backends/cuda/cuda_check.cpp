// tessera-cuda-check: the CUDA plugin's own quick check. Runs every operation on cuda:0 through
// the public API against plain host loops in double, on random data, odd sizes and both dtypes,
// with the parts of the inputs an operation must not read (the other triangle, the diagonal of
// a unit solve, C and y when beta == 0) poisoned with NaN. `--bench` then times the issue's
// cases. Without a GPU it prints SKIP and the registry's reason, and exits 0.
//
//   tessera-cuda-check [--bench] [--only NAME]
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "tessera/tessera.hpp"

using namespace tessera;

namespace {

int g_pass = 0, g_fail = 0;
std::string g_only;
std::mt19937_64 g_rng(12345);
const double kNaN = std::numeric_limits<double>::quiet_NaN();

bool selected(const char* name) { return g_only.empty() || g_only == name; }

void report(bool ok, const std::string& what, double err, double tol) {
  (ok ? g_pass : g_fail)++;
  if (!ok || std::getenv("TESSERA_CHECK_VERBOSE"))
    std::printf("%s %-60s err %.3g (tol %.3g)\n", ok ? "ok  " : "FAIL", what.c_str(), err, tol);
}

template <class T>
const char* tname() {
  return sizeof(T) == 4 ? "f32" : "f64";
}
template <class T>
double eps() {
  return static_cast<double>(std::numeric_limits<T>::epsilon());
}

template <class T>
std::vector<T> random_vec(std::size_t n, double lo = -1, double hi = 1) {
  std::uniform_real_distribution<double> d(lo, hi);
  std::vector<T> v(n);
  for (auto& e : v) e = static_cast<T>(d(g_rng));
  return v;
}

// max_i |got_i - ref_i| / scale_i <= tol, where scale_i bounds the magnitude of what was summed.
template <class T>
void compare(const std::string& what, const std::vector<T>& got, const std::vector<double>& ref,
             const std::vector<double>& scale, double tol) {
  double worst = 0;
  bool ok = got.size() == ref.size();
  for (std::size_t i = 0; ok && i < got.size(); ++i) {
    const double g = static_cast<double>(got[i]);
    if (std::isnan(g) != std::isnan(ref[i])) {
      ok = false;
      worst = kNaN;
      std::printf("     first bad element %zu: got %g, expected %g\n", i, g, ref[i]);
      break;
    }
    const double e = std::fabs(g - ref[i]) / std::max(scale[i], 1e-300);
    if (e > worst) worst = e;
    if (!(e <= tol) && ok) {
      std::printf("     first bad element %zu: got %.9g, expected %.9g\n", i, g, ref[i]);
      ok = false;
    }
  }
  report(ok, what, worst, tol);
}

template <class F>
void expect_throw(const std::string& what, F&& f, const char* must_contain) {
  try {
    f();
    report(false, what + " (no exception)", 0, 0);
  } catch (const InvalidArgument& e) {
    const bool ok = std::strstr(e.what(), must_contain) != nullptr;
    if (!ok) std::printf("     message: %s\n", e.what());
    report(ok, what, 0, 0);
  } catch (const std::exception& e) {
    std::printf("     wrong exception: %s\n", e.what());
    report(false, what, 0, 0);
  }
}

// ------------------------------------------------------------------ reduce
template <class T>
void check_reduce(const Device& dev) {
  for (std::int64_t n : {1LL, 3LL, 7LL, 1000LL, 65537LL, (1LL << 20) + 3, 10000019LL}) {
    auto h = random_vec<T>(static_cast<std::size_t>(n), -1, 1);
    auto h2 = random_vec<T>(static_cast<std::size_t>(n), -1, 1);
    auto x = Vector<T>::from_host(dev, h);
    auto y = Vector<T>::from_host(dev, h2);
    double s = 0, sa = 0, ss = 0, mn = h[0], mx = h[0], ma = 0, d = 0, da = 0;
    for (std::size_t i = 0; i < h.size(); ++i) {
      const double v = h[i];
      s += v;
      sa += std::fabs(v);
      ss += v * v;
      mn = std::min(mn, v);
      mx = std::max(mx, v);
      ma = std::max(ma, std::fabs(v));
      d += v * static_cast<double>(h2[i]);
      da += std::fabs(v * static_cast<double>(h2[i]));
    }
    // f32 is accumulated in double: only the final rounding to float remains; f64 sums in a
    // different order than the sequential reference (both err by ~sqrt(n) eps).
    const double tol = sizeof(T) == 4 ? 4 * eps<T>() : eps<T>() * (8 + 2 * std::sqrt(static_cast<double>(n)));
    const std::string sz = std::string(tname<T>()) + " n=" + std::to_string(n);
    auto one = [&](const char* name, double got, double ref, double scale) {
      const double e = std::fabs(got - ref) / std::max(scale, 1e-300);
      report(e <= tol, std::string("reduce ") + name + " " + sz, e, tol);
    };
    one("sum", static_cast<double>(sum(x)), s, sa);
    one("sum_squares", static_cast<double>(sum_squares(x)), ss, ss);
    one("min", static_cast<double>(min(x)), mn, std::fabs(mn));
    one("max", static_cast<double>(max(x)), mx, std::fabs(mx));
    one("max_abs", static_cast<double>(max_abs(x)), ma, ma);
    one("dot", static_cast<double>(dot(x, y)), d, da);
  }
}

// ------------------------------------------------------------------ spmv
template <class T>
void spmv_case(const Device& dev, const std::string& name, const HostCsr<T>& h) {
  auto A = CsrMatrix<T>::from_host(dev, h);
  auto xh = random_vec<T>(static_cast<std::size_t>(h.cols));
  auto x = Vector<T>::from_host(dev, xh);
  for (double beta : {0.0, -0.5}) {
    for (int rep = 0; rep < 2; ++rep) {  // the second call runs from the cached plan
      auto yh = random_vec<T>(static_cast<std::size_t>(h.rows));
      std::vector<T> y0 = yh;
      if (beta == 0) std::fill(y0.begin(), y0.end(), static_cast<T>(kNaN));
      auto y = Vector<T>::from_host(dev, y0);
      const double alpha = 1.5;
      spmv(static_cast<T>(alpha), A, x, static_cast<T>(beta), y);
      std::vector<double> ref(static_cast<std::size_t>(h.rows)), scale(ref.size());
      for (std::int64_t r = 0; r < h.rows; ++r) {
        double s = 0, sa = 0;
        for (int e = h.row_ptr[r]; e < h.row_ptr[r + 1]; ++e) {
          const double p = static_cast<double>(h.values[e]) * xh[h.col_idx[e]];
          s += p;
          sa += std::fabs(p);
        }
        const double yb = beta == 0 ? 0 : beta * yh[r];
        ref[r] = alpha * s + yb;
        scale[r] = std::fabs(alpha) * sa + std::fabs(yb) + 1e-30;
      }
      const double kmax = static_cast<double>(h.nnz()) / std::max<std::int64_t>(h.rows, 1);
      compare(std::string("spmv ") + tname<T>() + " " + name + " beta=" + std::to_string(beta) +
                  (rep ? " (cached plan)" : ""),
              y.to_host(), ref, scale, 4 * eps<T>() * (8 + std::sqrt(kmax) * 4));
    }
  }
}

template <class T>
HostCsr<T> skewed_csr(std::int64_t rows, std::int64_t cols, std::int64_t long_len, int long_rows) {
  // Mostly 0-3 nonzeros per row (some empty rows), plus a few very long rows.
  HostCsr<T> h;
  h.rows = rows;
  h.cols = cols;
  std::uniform_int_distribution<int> len(0, 3);
  std::uniform_int_distribution<std::int64_t> col(0, cols - 1);
  std::uniform_real_distribution<double> val(0.1, 1);
  for (std::int64_t r = 0; r < rows; ++r) {
    const std::int64_t l = r % (rows / long_rows + 1) == 5 ? long_len : len(g_rng);
    for (std::int64_t k = 0; k < l; ++k) {
      h.col_idx.push_back(static_cast<std::int32_t>(l == long_len ? (k * 7919) % cols : col(g_rng)));
      h.values.push_back(static_cast<T>(val(g_rng)));
    }
    h.row_ptr.push_back(static_cast<std::int32_t>(h.col_idx.size()));
  }
  return h;
}

template <class T>
void check_spmv(const Device& dev) {
  spmv_case<T>(dev, "laplacian_3d 20x21x22", laplacian_3d<T>(20, 21, 22));
  spmv_case<T>(dev, "random 10007x9001 0..12", random_csr<T>(10007, 9001, 0, 12, 3));
  spmv_case<T>(dev, "random 3001x3001 20..60", random_csr<T>(3001, 3001, 20, 60, 4));
  spmv_case<T>(dev, "random 1000x5000 200..400", random_csr<T>(1000, 5000, 200, 400, 5));
  spmv_case<T>(dev, "power_law 50000", power_law_csr<T>(50000, 1.2, 3, 20000, 7));
  spmv_case<T>(dev, "skewed 30011 (long rows 100000)", skewed_csr<T>(30011, 30011, 100000, 3));
  spmv_case<T>(dev, "skewed 7 rows (one of 5000)", skewed_csr<T>(7, 9000, 5000, 1));
  spmv_case<T>(dev, "1x1", random_csr<T>(1, 1, 1, 1, 9));
}

// ------------------------------------------------------------------ dense triangular solves
// A well-conditioned triangle (diagonal ~ n/4), the other triangle NaN, NaN diagonal when unit.
template <class T>
std::vector<T> triangular(std::int64_t n, Uplo uplo, Diag diag) {
  std::uniform_real_distribution<double> off(-1, 1), dg(1, 2);
  std::vector<T> a(static_cast<std::size_t>(n * n));
  for (std::int64_t i = 0; i < n; ++i)
    for (std::int64_t j = 0; j < n; ++j) {
      double v;
      if (i == j) v = diag == Diag::unit ? kNaN : static_cast<double>(n) / 4 + dg(g_rng);
      else if ((uplo == Uplo::lower) == (j < i)) v = off(g_rng) * (diag == Diag::unit ? 1.0 / n : 1.0);  // bounded growth
      else v = kNaN;
      a[static_cast<std::size_t>(i * n + j)] = static_cast<T>(v);
    }
  return a;
}

// op(A)(i, j) in double, with the unit diagonal applied and the other triangle as 0.
template <class T>
double opa(const std::vector<T>& a, std::int64_t n, Uplo uplo, Trans tr, Diag dg, std::int64_t i, std::int64_t j) {
  const std::int64_t r = tr == Trans::N ? i : j, c = tr == Trans::N ? j : i;
  if (r == c) return dg == Diag::unit ? 1.0 : static_cast<double>(a[static_cast<std::size_t>(r * n + c)]);
  if ((uplo == Uplo::lower) != (c < r)) return 0.0;
  return static_cast<double>(a[static_cast<std::size_t>(r * n + c)]);
}

// Host solve in double of op(A) X = B (B n x m row-major).
template <class T>
std::vector<double> host_solve(const std::vector<T>& a, std::int64_t n, Uplo uplo, Trans tr, Diag dg,
                               std::vector<double> b, std::int64_t m) {
  const bool lower = (uplo == Uplo::lower) != (tr == Trans::T);
  const auto N = static_cast<std::size_t>(n), M = static_cast<std::size_t>(m);
  for (std::size_t s = 0; s < N; ++s) {
    const std::size_t i = lower ? s : N - 1 - s;
    const std::size_t j0 = lower ? 0 : i + 1, j1 = lower ? i : N;  // the solved unknowns
    for (std::size_t c = 0; c < M; ++c) {
      double v = b[i * M + c];
      for (std::size_t j = j0; j < j1; ++j)
        v -= opa(a, n, uplo, tr, dg, static_cast<std::int64_t>(i), static_cast<std::int64_t>(j)) * b[j * M + c];
      b[i * M + c] = v / opa(a, n, uplo, tr, dg, static_cast<std::int64_t>(i), static_cast<std::int64_t>(i));
    }
  }
  return b;
}

template <class T>
void check_trsv(const Device& dev) {
  for (std::int64_t n : {1LL, 5LL, 63LL, 64LL, 65LL, 127LL, 128LL, 129LL, 300LL, 1000LL, 2049LL}) {
    for (Uplo uplo : {Uplo::lower, Uplo::upper})
      for (Trans tr : {Trans::N, Trans::T})
        for (Diag dg : {Diag::non_unit, Diag::unit}) {
          auto ah = triangular<T>(n, uplo, dg);
          auto A = DenseMatrix<T>::from_host(dev, n, n, ah, n + 3);  // padded leading dimension
          auto bh = random_vec<T>(static_cast<std::size_t>(n));
          auto x = Vector<T>::from_host(dev, bh);
          trsv(uplo, tr, dg, A, x);
          std::vector<double> b(bh.begin(), bh.end());
          auto ref = host_solve(ah, n, uplo, tr, dg, b, 1);
          double norm = 0;
          for (double v : ref) norm = std::max(norm, std::fabs(v));
          std::vector<double> scale(ref.size(), norm);
          compare(std::string("trsv ") + tname<T>() + " n=" + std::to_string(n) + (uplo == Uplo::lower ? " L" : " U") +
                      (tr == Trans::N ? "N" : "T") + (dg == Diag::unit ? "U" : "N"),
                  x.to_host(), ref, scale, 64 * eps<T>() * std::sqrt(static_cast<double>(n) + 1));
        }
  }
}

template <class T>
void check_trsm(const Device& dev) {
  for (std::int64_t n : {1LL, 129LL, 300LL})
    for (std::int64_t m : {1LL, 7LL, 64LL})
      for (Uplo uplo : {Uplo::lower, Uplo::upper})
        for (Trans tr : {Trans::N, Trans::T})
          for (Diag dg : {Diag::non_unit, Diag::unit}) {
            auto ah = triangular<T>(n, uplo, dg);
            auto A = DenseMatrix<T>::from_host(dev, n, n, ah, n + 1);
            auto bh = random_vec<T>(static_cast<std::size_t>(n * m));
            auto B = DenseMatrix<T>::from_host(dev, n, m, bh, m + 2);
            const double alpha = -1.25;
            trsm(uplo, tr, dg, static_cast<T>(alpha), A, B);
            std::vector<double> b(bh.size());
            for (std::size_t i = 0; i < b.size(); ++i) b[i] = alpha * static_cast<double>(bh[i]);
            auto ref = host_solve(ah, n, uplo, tr, dg, b, m);
            double norm = 0;
            for (double v : ref) norm = std::max(norm, std::fabs(v));
            compare(std::string("trsm ") + tname<T>() + " n=" + std::to_string(n) + " nrhs=" + std::to_string(m) +
                        (uplo == Uplo::lower ? " L" : " U") + (tr == Trans::N ? "N" : "T") +
                        (dg == Diag::unit ? "U" : "N"),
                    B.to_host(), ref, std::vector<double>(ref.size(), norm),
                    64 * eps<T>() * std::sqrt(static_cast<double>(n) + 1));
          }
}

// ------------------------------------------------------------------ sparse triangular solve
// A square CSR with entries on both sides of a strong diagonal (the solve must ignore the side
// not named by uplo).
template <class T>
HostCsr<T> sparse_square(std::int64_t n, int per_row, bool drop_diag_row7 = false) {
  HostCsr<T> h;
  h.rows = h.cols = n;
  std::uniform_int_distribution<std::int64_t> near(-40, 40), far(0, n - 1);
  std::uniform_real_distribution<double> val(-1, 1);
  for (std::int64_t r = 0; r < n; ++r) {
    std::vector<std::int64_t> cols;
    if (!(drop_diag_row7 && r == 7)) cols.push_back(r);
    for (int k = 0; k < per_row; ++k) {
      std::int64_t c = k % 2 ? r + near(g_rng) : far(g_rng);
      if (c >= 0 && c < n && c != r && std::find(cols.begin(), cols.end(), c) == cols.end()) cols.push_back(c);
    }
    std::shuffle(cols.begin(), cols.end(), g_rng);  // columns unsorted within a row
    for (auto c : cols) {
      h.col_idx.push_back(static_cast<std::int32_t>(c));
      // Off-diagonals scaled so that unit-diagonal solves stay bounded too.
      h.values.push_back(static_cast<T>(c == r ? 2.0 + per_row + std::fabs(val(g_rng)) : val(g_rng) / (1 + per_row)));
    }
    h.row_ptr.push_back(static_cast<std::int32_t>(h.col_idx.size()));
  }
  return h;
}

template <class T>
std::vector<double> host_sptrsv(const HostCsr<T>& h, Uplo uplo, Diag dg, const std::vector<T>& b) {
  const std::int64_t n = h.rows;
  std::vector<double> x(static_cast<std::size_t>(n));
  for (std::int64_t s = 0; s < n; ++s) {
    const std::int64_t i = uplo == Uplo::lower ? s : n - 1 - s;
    double v = b[i], d = 0;
    for (int e = h.row_ptr[i]; e < h.row_ptr[i + 1]; ++e) {
      const std::int64_t j = h.col_idx[e];
      if (j == i) d += h.values[e];
      else if ((uplo == Uplo::lower) == (j < i)) v -= static_cast<double>(h.values[e]) * x[j];
    }
    x[i] = dg == Diag::unit ? v : v / d;
  }
  return x;
}

template <class T>
void sptrsv_case(const Device& dev, const std::string& name, const HostCsr<T>& h) {
  auto A = CsrMatrix<T>::from_host(dev, h);
  for (Uplo uplo : {Uplo::lower, Uplo::upper})
    for (Diag dg : {Diag::non_unit, Diag::unit}) {
      auto plan = sptrsv_analyze(uplo, dg, A);
      for (int alias = 0; alias < 2; ++alias) {
        auto bh = random_vec<T>(static_cast<std::size_t>(h.rows));
        auto b = Vector<T>::from_host(dev, bh);
        Vector<T> x(dev, h.rows);
        if (alias) sptrsv_solve(plan, b, b);
        else sptrsv_solve(plan, b, x);
        auto ref = host_sptrsv(h, uplo, dg, bh);
        double norm = 0;
        for (double v : ref) norm = std::max(norm, std::fabs(v));
        compare(std::string("sptrsv ") + tname<T>() + " " + name + (uplo == Uplo::lower ? " L" : " U") +
                    (dg == Diag::unit ? "U" : "N") + (alias ? " x=b" : ""),
                (alias ? b : x).to_host(), ref, std::vector<double>(ref.size(), norm + 1e-30), 256 * eps<T>());
      }
    }
}

template <class T>
void check_sptrsv(const Device& dev) {
  sptrsv_case<T>(dev, "laplacian_2d 50x40", laplacian_2d<T>(50, 40));
  sptrsv_case<T>(dev, "laplacian_3d 13x11x9", laplacian_3d<T>(13, 11, 9));
  sptrsv_case<T>(dev, "random 5003 (6/row)", sparse_square<T>(5003, 6));
  sptrsv_case<T>(dev, "random 2001 (90/row, warp per row)", sparse_square<T>(2001, 90));
  sptrsv_case<T>(dev, "1x1", sparse_square<T>(1, 0));
  auto bad = CsrMatrix<T>::from_host(dev, sparse_square<T>(100, 4, true));
  expect_throw(std::string("sptrsv ") + tname<T>() + " missing diagonal names row 7",
               [&] { (void)sptrsv_analyze(Uplo::lower, Diag::non_unit, bad); }, "row 7");
  (void)sptrsv_analyze(Uplo::lower, Diag::unit, bad);  // unit: the diagonal is not needed
  report(true, std::string("sptrsv ") + tname<T>() + " missing diagonal accepted with unit", 0, 0);
}

// ------------------------------------------------------------------ gemm
template <class T>
void check_gemm(const Device& dev) {
  struct S {
    std::int64_t m, n, k;
  };
  for (S s : {S{1, 1, 1}, S{129, 65, 33}, S{128, 128, 8}, S{257, 131, 517}, S{64, 300, 1}, S{33, 17, 0},
              S{400, 301, 333}}) {
    for (Trans ta : {Trans::N, Trans::T})
      for (Trans tb : {Trans::N, Trans::T})
        for (double beta : {0.0, -0.5}) {
          const std::int64_t ar = ta == Trans::N ? s.m : s.k, ac = ta == Trans::N ? s.k : s.m;
          const std::int64_t br = tb == Trans::N ? s.k : s.n, bc = tb == Trans::N ? s.n : s.k;
          auto ah = random_vec<T>(static_cast<std::size_t>(ar * ac));
          auto bh = random_vec<T>(static_cast<std::size_t>(br * bc));
          auto ch = random_vec<T>(static_cast<std::size_t>(s.m * s.n));
          std::vector<T> c0 = ch;
          if (beta == 0) std::fill(c0.begin(), c0.end(), static_cast<T>(kNaN));
          auto A = DenseMatrix<T>::from_host(dev, ar, ac, ah, ac + 1);
          auto B = DenseMatrix<T>::from_host(dev, br, bc, bh, bc + 5);
          auto C = DenseMatrix<T>::from_host(dev, s.m, s.n, c0, s.n + 3);
          const double alpha = 1.25;
          gemm(ta, tb, static_cast<T>(alpha), A, B, static_cast<T>(beta), C);
          std::vector<double> ref(static_cast<std::size_t>(s.m * s.n)), scale(ref.size());
          for (std::int64_t i = 0; i < s.m; ++i)
            for (std::int64_t j = 0; j < s.n; ++j) {
              double acc = 0, aa = 0;
              for (std::int64_t p = 0; p < s.k; ++p) {
                const double av = ah[static_cast<std::size_t>(ta == Trans::N ? i * ac + p : p * ac + i)];
                const double bv = bh[static_cast<std::size_t>(tb == Trans::N ? p * bc + j : j * bc + p)];
                acc += av * bv;
                aa += std::fabs(av * bv);
              }
              const double cb = beta == 0 ? 0 : beta * ch[static_cast<std::size_t>(i * s.n + j)];
              ref[static_cast<std::size_t>(i * s.n + j)] = alpha * acc + cb;
              scale[static_cast<std::size_t>(i * s.n + j)] = std::fabs(alpha) * aa + std::fabs(cb) + 1e-30;
            }
          compare(std::string("gemm ") + tname<T>() + " " + std::to_string(s.m) + "x" + std::to_string(s.n) + "x" +
                      std::to_string(s.k) + " " + (ta == Trans::N ? "N" : "T") + (tb == Trans::N ? "N" : "T") +
                      " beta=" + std::to_string(beta),
                  C.to_host(), ref, scale, 4 * eps<T>() * (4 + std::sqrt(static_cast<double>(s.k))));
        }
  }
}

// ------------------------------------------------------------------ stencil
template <class T>
std::vector<double> host_stencil(std::vector<double> u, int ndim, std::int64_t nx, std::int64_t ny, std::int64_t nz,
                                 const std::vector<T>& c, int steps) {
  const int R = static_cast<int>(c.size()) - 1;
  if (nx < 2 * R + 1 || ny < 2 * R + 1 || (ndim == 3 && nz < 2 * R + 1)) return u;
  std::vector<double> v = u;
  auto at = [&](const std::vector<double>& g, std::int64_t x, std::int64_t y, std::int64_t z) {
    return g[static_cast<std::size_t>((z * ny + y) * nx + x)];
  };
  for (int s = 0; s < steps; ++s) {
    for (std::int64_t z = 0; z < nz; ++z)
      for (std::int64_t y = 0; y < ny; ++y)
        for (std::int64_t x = 0; x < nx; ++x) {
          const bool inner = x >= R && x < nx - R && y >= R && y < ny - R && (ndim == 2 || (z >= R && z < nz - R));
          double r = at(u, x, y, z);
          if (inner) {
            double acc = static_cast<double>(c[0]) * r;
            for (int d = 1; d <= R; ++d) {
              double nb = at(u, x - d, y, z) + at(u, x + d, y, z) + at(u, x, y - d, z) + at(u, x, y + d, z);
              if (ndim == 3) nb += at(u, x, y, z - d) + at(u, x, y, z + d);
              acc += static_cast<double>(c[static_cast<std::size_t>(d)]) * nb;
            }
            r = acc;
          }
          v[static_cast<std::size_t>((z * ny + y) * nx + x)] = r;
        }
    std::swap(u, v);
  }
  return u;
}

template <class T>
void check_stencil(const Device& dev) {
  struct S {
    int ndim;
    std::int64_t nx, ny, nz;
  };
  for (S s : {S{2, 37, 29, 1}, S{2, 70, 5, 1}, S{2, 3, 3, 1}, S{3, 33, 20, 19}, S{3, 9, 9, 70}, S{3, 40, 12, 5}})
    for (int R = 1; R <= 4; ++R)
      for (int steps : {1, 2, 3}) {
        std::vector<T> c(static_cast<std::size_t>(R + 1));
        c[0] = static_cast<T>(0.4);
        for (int d = 1; d <= R; ++d) c[static_cast<std::size_t>(d)] = static_cast<T>(0.1 / d / s.ndim);
        auto uh = random_vec<T>(static_cast<std::size_t>(s.nx * s.ny * s.nz), 0, 1);
        Grid<T> g = s.ndim == 2 ? Grid<T>(dev, s.nx, s.ny) : Grid<T>(dev, s.nx, s.ny, s.nz);
        g.upload(uh);
        stencil(c, g, steps);
        auto ref = host_stencil<T>(std::vector<double>(uh.begin(), uh.end()), s.ndim, s.nx, s.ny, s.nz, c, steps);
        compare(std::string("stencil ") + tname<T>() + " " + std::to_string(s.ndim) + "D " + std::to_string(s.nx) + "x" +
                    std::to_string(s.ny) + (s.ndim == 3 ? "x" + std::to_string(s.nz) : "") + " r=" +
                    std::to_string(R) + " steps=" + std::to_string(steps),
                g.to_host(), ref, std::vector<double>(ref.size(), 1.0), 16 * eps<T>() * steps);
      }
}

// ------------------------------------------------------------------ convolution
template <class T>
void check_conv2d(const Device& dev) {
  for (auto [H, W] : {std::pair<std::int64_t, std::int64_t>{67, 91}, {1, 1}, {40, 33}, {130, 75}})
    for (std::int64_t K : {1LL, 2LL, 3LL, 4LL, 5LL, 7LL, 8LL, 33LL, 70LL})
      for (ConvMode mode : {ConvMode::valid, ConvMode::same}) {
        const std::int64_t lo = mode == ConvMode::same ? (K - 1) / 2 : 0, hi = mode == ConvMode::same ? K / 2 : 0;
        const std::int64_t P = H + lo + hi - K + 1, Q = W + lo + hi - K + 1;
        if (P <= 0 || Q <= 0) continue;
        auto ih = random_vec<T>(static_cast<std::size_t>(H * W));
        auto fh = random_vec<T>(static_cast<std::size_t>(K * K));
        auto img = DenseMatrix<T>::from_host(dev, H, W, ih, W + 3);
        auto flt = DenseMatrix<T>::from_host(dev, K, K, fh, K + 2);
        DenseMatrix<T> out(dev, P, Q, Q + 1);
        conv2d(mode, img, flt, out);
        std::vector<double> ref(static_cast<std::size_t>(P * Q)), scale(ref.size());
        for (std::int64_t p = 0; p < P; ++p)
          for (std::int64_t q = 0; q < Q; ++q) {
            double acc = 0, aa = 0;
            for (std::int64_t a = 0; a < K; ++a)
              for (std::int64_t b = 0; b < K; ++b) {
                const std::int64_t y = p + a - lo, x = q + b - lo;
                if (y < 0 || y >= H || x < 0 || x >= W) continue;
                const double v = static_cast<double>(fh[static_cast<std::size_t>(a * K + b)]) * ih[static_cast<std::size_t>(y * W + x)];
                acc += v;
                aa += std::fabs(v);
              }
            ref[static_cast<std::size_t>(p * Q + q)] = acc;
            scale[static_cast<std::size_t>(p * Q + q)] = aa + 1e-30;
          }
        compare(std::string("conv2d ") + tname<T>() + " " + std::to_string(H) + "x" + std::to_string(W) + " K=" +
                    std::to_string(K) + (mode == ConvMode::same ? " same" : " valid"),
                out.to_host(), ref, scale, 4 * eps<T>() * (4 + static_cast<double>(K)));
      }
}

template <class T>
void check_conv_layer(const Device& dev) {
  struct S {
    std::int64_t N, C, H, W, K, R, S, ph, pw, sh, sw;
  };
  for (S s : {S{2, 3, 11, 13, 5, 3, 3, 1, 1, 1, 1}, S{3, 8, 17, 15, 33, 5, 3, 2, 0, 2, 3}, S{1, 1, 7, 7, 1, 7, 7, 0, 0, 1, 1},
              S{2, 16, 9, 9, 130, 1, 1, 0, 0, 1, 1}, S{1, 4, 20, 20, 7, 3, 3, 1, 1, 2, 2}}) {
    const std::int64_t P = (s.H + 2 * s.ph - s.R) / s.sh + 1, Q = (s.W + 2 * s.pw - s.S) / s.sw + 1;
    auto ih = random_vec<T>(static_cast<std::size_t>(s.N * s.C * s.H * s.W));
    auto fh = random_vec<T>(static_cast<std::size_t>(s.K * s.C * s.R * s.S));
    Tensor4<T> in(dev, s.N, s.C, s.H, s.W), flt(dev, s.K, s.C, s.R, s.S), out(dev, s.N, s.K, P, Q);
    in.upload(ih);
    flt.upload(fh);
    ConvParams p;
    p.pad_h = s.ph;
    p.pad_w = s.pw;
    p.stride_h = s.sh;
    p.stride_w = s.sw;
    conv_layer(p, in, flt, out);
    std::vector<double> ref(static_cast<std::size_t>(s.N * s.K * P * Q)), scale(ref.size());
    for (std::int64_t n = 0; n < s.N; ++n)
      for (std::int64_t k = 0; k < s.K; ++k)
        for (std::int64_t pp = 0; pp < P; ++pp)
          for (std::int64_t qq = 0; qq < Q; ++qq) {
            double acc = 0, aa = 0;
            for (std::int64_t c = 0; c < s.C; ++c)
              for (std::int64_t r = 0; r < s.R; ++r)
                for (std::int64_t t = 0; t < s.S; ++t) {
                  const std::int64_t y = pp * s.sh - s.ph + r, x = qq * s.sw - s.pw + t;
                  if (y < 0 || y >= s.H || x < 0 || x >= s.W) continue;
                  const double v = static_cast<double>(fh[static_cast<std::size_t>(((k * s.C + c) * s.R + r) * s.S + t)]) *
                                   ih[static_cast<std::size_t>(((n * s.C + c) * s.H + y) * s.W + x)];
                  acc += v;
                  aa += std::fabs(v);
                }
            const auto idx = static_cast<std::size_t>(((n * s.K + k) * P + pp) * Q + qq);
            ref[idx] = acc;
            scale[idx] = aa + 1e-30;
          }
    compare(std::string("conv_layer ") + tname<T>() + " N" + std::to_string(s.N) + " C" + std::to_string(s.C) + " " +
                std::to_string(s.H) + "x" + std::to_string(s.W) + " K" + std::to_string(s.K) + " " +
                std::to_string(s.R) + "x" + std::to_string(s.S) + " pad" + std::to_string(s.ph) + "," +
                std::to_string(s.pw) + " stride" + std::to_string(s.sh) + "," + std::to_string(s.sw),
            out.to_host(), ref, scale, 4 * eps<T>() * (4 + std::sqrt(static_cast<double>(s.C * s.R * s.S))));
  }
}

template <class T>
void check_all(const Device& dev) {
  if (selected("reduce")) check_reduce<T>(dev);
  if (selected("spmv")) check_spmv<T>(dev);
  if (selected("trsv")) check_trsv<T>(dev);
  if (selected("trsm")) check_trsm<T>(dev);
  if (selected("sptrsv")) check_sptrsv<T>(dev);
  if (selected("gemm")) check_gemm<T>(dev);
  if (selected("stencil")) check_stencil<T>(dev);
  if (selected("conv2d")) check_conv2d<T>(dev);
  if (selected("conv_layer")) check_conv_layer<T>(dev);
}

// ------------------------------------------------------------------ timings
// Median over 5 batches of `reps` calls, each batch closed by a synchronize.
double time_ms(const Device& dev, int reps, const std::function<void()>& f) {
  f();
  dev.synchronize();
  std::vector<double> t;
  for (int b = 0; b < 5; ++b) {
    const auto t0 = std::chrono::steady_clock::now();
    for (int r = 0; r < reps; ++r) f();
    dev.synchronize();
    t.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count() / reps);
  }
  std::sort(t.begin(), t.end());
  return t[2];
}

void line(const char* what, double ms, const std::string& rate) { std::printf("BENCH %-44s %9.3f ms  %s\n", what, ms, rate.c_str()); }
std::string gbs(double bytes, double ms) { return std::to_string(static_cast<int>(bytes / ms / 1e6)) + " GB/s"; }
std::string tflops(double flops, double ms) {
  char b[32];
  std::snprintf(b, sizeof b, "%.1f TFLOP/s", flops / ms / 1e9);
  return b;
}

template <class T>
void bench_reduce(const Device& dev) {
  const std::int64_t n = (std::int64_t(1) << 30) / static_cast<std::int64_t>(sizeof(T));
  Vector<T> x = Vector<T>::from_host(dev, random_vec<T>(static_cast<std::size_t>(n), 0, 1));
  const double ms = time_ms(dev, 10, [&] { (void)sum(x); });
  line((std::string("reduce sum 1 GiB ") + tname<T>()).c_str(), ms, gbs(1 << 30, ms));
}

template <class T>
void bench_gemm(const Device& dev, std::int64_t n) {
  auto h = random_vec<T>(static_cast<std::size_t>(n * n));
  auto A = DenseMatrix<T>::from_host(dev, n, n, h), B = DenseMatrix<T>::from_host(dev, n, n, h);
  DenseMatrix<T> C(dev, n, n);
  const double ms = time_ms(dev, n >= 8192 ? 2 : 5, [&] { gemm(Trans::N, Trans::N, T(1), A, B, T(0), C); });
  line((std::string("gemm NN ") + tname<T>() + " n=" + std::to_string(n)).c_str(), ms,
       tflops(2.0 * n * n * n, ms));
}

template <class T>
void bench_spmv(const Device& dev, const char* name, const HostCsr<T>& h) {
  auto A = CsrMatrix<T>::from_host(dev, h);
  auto x = Vector<T>::from_host(dev, random_vec<T>(static_cast<std::size_t>(h.cols)));
  Vector<T> y(dev, h.rows);
  const double ms = time_ms(dev, 20, [&] { spmv(T(1), A, x, T(0), y); });
  const double bytes = static_cast<double>(h.nnz()) * (sizeof(T) + 4) + (h.rows + 1) * 4.0 +
                       static_cast<double>(h.cols + h.rows) * sizeof(T);
  line((std::string("spmv ") + tname<T>() + " " + name).c_str(), ms, gbs(bytes, ms) + " (min traffic)");
}

void bench_trsv(const Device& dev) {
  const std::int64_t n = 16384;
  auto ah = triangular<float>(n, Uplo::lower, Diag::non_unit);
  for (auto& v : ah)
    if (std::isnan(v)) v = 0;
  auto A = DenseMatrix<float>::from_host(dev, n, n, ah);
  auto bh = random_vec<float>(static_cast<std::size_t>(n));
  auto x = Vector<float>::from_host(dev, bh), b = Vector<float>::from_host(dev, bh);
  // Each repetition restarts from b (a 64 KB device copy, a few microseconds).
  auto restart = [&] { dev.backend().copy(x.view().data, b.view().data, static_cast<std::size_t>(n) * 4); };
  const double ms = time_ms(dev, 10, [&] {
    restart();
    trsv(Uplo::lower, Trans::N, Diag::non_unit, A, x);
  });
  line("trsv f32 lower n=16384", ms, gbs(n * (n + 1) / 2.0 * 4, ms));
  const double msT = time_ms(dev, 10, [&] {
    restart();
    trsv(Uplo::lower, Trans::T, Diag::non_unit, A, x);
  });
  line("trsv f32 lower^T n=16384", msT, gbs(n * (n + 1) / 2.0 * 4, msT));
  auto Bh = random_vec<float>(static_cast<std::size_t>(n * 64));
  auto B = DenseMatrix<float>::from_host(dev, n, 64, Bh);
  const double ms2 = time_ms(dev, 2, [&] { trsm(Uplo::lower, Trans::N, Diag::non_unit, 1.0f, A, B); });
  line("trsm f32 lower n=16384 nrhs=64", ms2, tflops(double(n) * n * 64, ms2));
}

void bench_sptrsv(const Device& dev) {
  auto h = laplacian_3d<float>(128, 128, 128);
  auto A = CsrMatrix<float>::from_host(dev, h);
  dev.synchronize();
  auto t0 = std::chrono::steady_clock::now();
  auto plan = sptrsv_analyze(Uplo::lower, Diag::non_unit, A);
  dev.synchronize();
  const double an = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  line("sptrsv f32 analysis, lower(laplacian 128^3)", an, "");
  auto b = Vector<float>::from_host(dev, random_vec<float>(static_cast<std::size_t>(h.rows)));
  Vector<float> x(dev, h.rows);
  const double ms = time_ms(dev, 20, [&] { sptrsv_solve(plan, b, x); });
  line("sptrsv f32 solve, lower(laplacian 128^3)", ms, "");
}

void bench_stencil(const Device& dev) {
  const std::int64_t n = 512;
  Grid<float> g(dev, n, n, n);
  g.upload(random_vec<float>(static_cast<std::size_t>(n * n * n), 0, 1));
  const std::vector<float> c = {0.4f, 0.1f};
  const double ms = time_ms(dev, 1, [&] { stencil(c, g, 10); }) / 10;
  line("stencil f32 3D 7-point 512^3 (per step)", ms, gbs(2.0 * 4 * n * n * n, ms));
  const std::vector<float> c4 = {0.4f, 0.05f, 0.02f, 0.01f, 0.005f};
  const double ms4 = time_ms(dev, 1, [&] { stencil(c4, g, 10); }) / 10;
  line("stencil f32 3D 25-point 512^3 (per step)", ms4, gbs(2.0 * 4 * n * n * n, ms4));
  Grid<float> g2(dev, 8192, 8192);
  g2.upload(random_vec<float>(8192u * 8192u, 0, 1));
  const std::vector<float> c2 = {0.5f, 0.125f};
  const double ms2 = time_ms(dev, 1, [&] { stencil(c2, g2, 10); }) / 10;
  line("stencil f32 2D 5-point 8192^2 (per step)", ms2, gbs(2.0 * 4 * 8192 * 8192, ms2));
}

void bench_conv(const Device& dev) {
  const std::int64_t n = 4096;
  auto img = DenseMatrix<float>::from_host(dev, n, n, random_vec<float>(static_cast<std::size_t>(n * n)));
  auto flt = DenseMatrix<float>::from_host(dev, 5, 5, random_vec<float>(25));
  DenseMatrix<float> out(dev, n, n);
  const double ms = time_ms(dev, 20, [&] { conv2d(ConvMode::same, img, flt, out); });
  line("conv2d f32 4096^2 5x5 same", ms, gbs(2.0 * 4 * n * n, ms));
  // The book's layer: N=128, C=384, 13x13, K=256, 3x3, pad 1.
  Tensor4<float> in(dev, 128, 384, 13, 13), f(dev, 256, 384, 3, 3), o(dev, 128, 256, 13, 13);
  in.upload(random_vec<float>(static_cast<std::size_t>(in.size())));
  f.upload(random_vec<float>(static_cast<std::size_t>(f.size())));
  ConvParams p;
  p.pad_h = p.pad_w = 1;
  const double ms2 = time_ms(dev, 5, [&] { conv_layer(p, in, f, o); });
  line("conv_layer f32 N128 C384 13x13 K256 3x3 pad1", ms2, tflops(2.0 * 128 * 256 * 169 * 384 * 9, ms2));
}

void bench(const Device& dev) {
  auto want = [](const char* n) { return selected(n); };
  if (want("reduce")) {
    bench_reduce<float>(dev);
    bench_reduce<double>(dev);
  }
  if (want("gemm")) {
    bench_gemm<float>(dev, 4096);
    bench_gemm<float>(dev, 8192);
    bench_gemm<double>(dev, 4096);
  }
  if (want("spmv")) {
    bench_spmv<float>(dev, "laplacian_3d 256^3", laplacian_3d<float>(256, 256, 256));
    bench_spmv<float>(dev, "random 4M rows 5-8", random_csr<float>(4 << 20, 4 << 20, 5, 8, 7));
    bench_spmv<float>(dev, "power_law 2M rows", power_law_csr<float>(2 << 20, 1.2, 3, 20000, 7));
  }
  if (want("trsv")) bench_trsv(dev);
  if (want("sptrsv")) bench_sptrsv(dev);
  if (want("stencil")) bench_stencil(dev);
  if (want("conv2d")) bench_conv(dev);
}

}  // namespace

int main(int argc, char** argv) {
  bool do_bench = false;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--bench") == 0) do_bench = true;
    else if (std::strcmp(argv[i], "--only") == 0 && i + 1 < argc) g_only = argv[++i];
  }
  for (const auto& b : backends())
    if (b.name == "cuda" && !b.available) {
      std::printf("SKIP: cuda unavailable: %s\n", b.reason.c_str());
      return 0;
    }
  try {
    Device dev = Device::open("cuda:0");
    const DeviceInfo& info = dev.info();
    std::printf("device %s: %s, %d SMs, %.1f GiB, %s\n", info.spec.c_str(), info.name.c_str(), info.compute_units,
                static_cast<double>(info.memory_bytes) / (1u << 30), info.driver.c_str());
    for (const auto& kv : info.details) std::printf("  %-34s %s\n", kv.first.c_str(), kv.second.c_str());
    const auto t0 = std::chrono::steady_clock::now();
    check_all<float>(dev);
    check_all<double>(dev);
    std::printf("CHECK %d passed, %d failed (%.1f s)\n", g_pass, g_fail,
                std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    if (do_bench) bench(dev);
  } catch (const std::exception& e) {
    std::printf("ERROR: %s\n", e.what());
    return 2;
  }
  return g_fail == 0 ? 0 : 1;
}
