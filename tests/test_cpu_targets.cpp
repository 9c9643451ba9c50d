// The cpu device's SIMD targets: listing and capping them, and every memory-bound operation
// run once per compiled target (forced one at a time), against the reference device (the
// dense and convolution operations: test_cpu_targets_dense.cpp).
// Bounds follow tests/support/compare.hpp: a k-term sum in T is within gamma_k * sum |terms|.
#include <doctest/doctest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "support/compare.hpp"
#include "support/cpu_targets.hpp"
#include "support/random.hpp"
#include "support/scale.hpp"
#include "support/sparse.hpp"
#include "tessera/tessera.hpp"

using namespace tessera;
using tessera_test::gamma_bound;

namespace {

using TargetGuard = tessera_test::CpuTargetGuard;

template <class F>
void for_each_target(F&& body) {
  tessera_test::for_each_cpu_target(body);
}

Device cpu() { return Device::open("cpu"); }
Device ref() { return Device::open("reference"); }

// Odd sizes around SIMD widths (1, 2, 4, 8, 16 lanes; 8 accumulators), and sizes past the
// per-thread thresholds so the threaded paths run too.
const std::vector<std::int64_t> reduce_sizes = {0, 1, 2, 3, 5, 15, 16, 17, 31, 33, 127, 129, 1000, 2049, 4099,
                                                 tessera_test::scaled(300007, 131101)};  // >= 2 threads

template <class T>
void check_reductions() {
  for (const std::int64_t n : reduce_sizes) {
    INFO("n = " << n);
    const auto hx = tessera_test::random_vector<T>(static_cast<std::size_t>(n), 11 + static_cast<std::uint32_t>(n));
    const auto hy = tessera_test::random_vector<T>(static_cast<std::size_t>(n), 29 + static_cast<std::uint32_t>(n));
    const auto x = Vector<T>::from_host(cpu(), hx), y = Vector<T>::from_host(cpu(), hy);
    const auto rx = Vector<T>::from_host(ref(), hx), ry = Vector<T>::from_host(ref(), hy);
    double abs_sum = 0, sq_sum = 0, dot_abs = 0;
    for (std::size_t i = 0; i < hx.size(); ++i) {
      abs_sum += std::abs(static_cast<double>(hx[i]));
      sq_sum += static_cast<double>(hx[i]) * hx[i];
      dot_abs += std::abs(static_cast<double>(hx[i]) * hy[i]);
    }
    const double k = static_cast<double>(n), u = tessera_test::unit_roundoff<T>();
    const auto close = [&](double got, double want, double bound) {
      return std::abs(got - want) <= bound + 2 * u * std::abs(want);
    };
    CHECK(close(sum(x), sum(rx), gamma_bound<T>(k) * abs_sum));
    CHECK(close(sum_squares(x), sum_squares(rx), gamma_bound<T>(k) * sq_sum));
    CHECK(close(dot(x, y), dot(rx, ry), gamma_bound<T>(k) * dot_abs));
    CHECK(max_abs(x) == max_abs(rx));
    if (n > 0) {
      CHECK(min(x) == min(rx));
      CHECK(max(x) == max(rx));
    }
  }
}

// Tree-order summation: the error of a long float sum stays near the final rounding (a running
// float sum of 3M values in [0, 1) is off by ~1e-3 relative). Allow 64 u: log2(3M) ~ 22 levels.
void check_long_float_sum() {
  const std::int64_t n = 3000017;
  const auto h = tessera_test::random_vector<float>(static_cast<std::size_t>(n), 99, 0.0, 1.0);
  const double want = sum(Vector<float>::from_host(ref(), h));
  const double got = sum(Vector<float>::from_host(cpu(), h));
  CHECK(std::abs(got - want) <= 64 * tessera_test::unit_roundoff<float>() * want);
}

template <class T>
void check_reduction_nan() {
  for (const std::int64_t n : {std::int64_t{1}, std::int64_t{7}, std::int64_t{16}, std::int64_t{17}, std::int64_t{1000},
                               tessera_test::scaled(300007, 131101)}) {
    for (const std::int64_t at : {std::int64_t{0}, n / 2, n - 1}) {
      INFO("n = " << n << ", NaN at " << at);
      auto h = tessera_test::random_vector<T>(static_cast<std::size_t>(n), 5);
      h[static_cast<std::size_t>(at)] = std::numeric_limits<T>::quiet_NaN();
      const auto x = Vector<T>::from_host(cpu(), h);
      CHECK(std::isnan(min(x)));
      CHECK(std::isnan(max(x)));
      CHECK(std::isnan(max_abs(x)));
      CHECK(std::isnan(sum(x)));
    }
  }
}

template <class T>
void check_spmv() {
  struct Case {
    std::int64_t rows, cols;
    int min_len, max_len;
  };
  // Short rows (scalar path), long rows (gather path), a mix, and one past the thread threshold.
  for (const Case c : {Case{1, 1, 1, 1}, Case{7, 5, 0, 5}, Case{97, 101, 0, 40}, Case{1001, 997, 17, 33},
                       Case{tessera_test::scaled(40009, 12007), 40009, 0, 12}, Case{3001, 5003, 60, 140}}) {
    INFO("rows " << c.rows << ", lengths " << c.min_len << ".." << c.max_len);
    const auto h = tessera_test::local_random_csr<T>(c.rows, c.cols, c.min_len, c.max_len, 3, true, 0.05);
    const auto hx = tessera_test::random_vector<T>(static_cast<std::size_t>(c.cols), 7);
    const auto hy = tessera_test::random_vector<T>(static_cast<std::size_t>(c.rows), 8);
    for (const double beta : {0.0, -0.5}) {
      const T alpha = T(1.5), b = static_cast<T>(beta);
      // With beta == 0, y starts as NaN: it must not be read.
      const std::vector<T> y0 = beta == 0 ? std::vector<T>(hy.size(), std::numeric_limits<T>::quiet_NaN()) : hy;
      const auto A = CsrMatrix<T>::from_host(cpu(), h);
      const auto x = Vector<T>::from_host(cpu(), hx);
      auto y = Vector<T>::from_host(cpu(), y0);
      spmv(alpha, A, x, b, y);
      const auto rA = CsrMatrix<T>::from_host(ref(), h);
      const auto rx = Vector<T>::from_host(ref(), hx);
      auto ry = Vector<T>::from_host(ref(), hy);
      spmv(alpha, rA, rx, b, ry);
      std::vector<double> bound(hy.size());
      for (std::size_t i = 0; i < bound.size(); ++i) {
        double m = beta == 0 ? 0.0 : std::abs(beta * hy[i]);
        for (auto k = h.row_ptr[i]; k < h.row_ptr[i + 1]; ++k)
          m += std::abs(static_cast<double>(alpha) * h.values[static_cast<std::size_t>(k)] *
                        hx[static_cast<std::size_t>(h.col_idx[static_cast<std::size_t>(k)])]);
        bound[i] = gamma_bound<T>(h.row_ptr[i + 1] - h.row_ptr[i] + 2.0) * m;
      }
      tessera_test::check_close(y.to_host(), ry.to_host(), bound, "spmv beta " + std::to_string(beta));
    }
  }
}

template <class T>
void check_sptrsv() {
  for (const Uplo uplo : {Uplo::lower, Uplo::upper}) {
    for (const Diag diag : {Diag::non_unit, Diag::unit}) {
      for (const bool chain : {false, true}) {
        for (const std::int64_t n : {std::int64_t{1}, std::int64_t{2}, std::int64_t{17}, std::int64_t{500},
                                     tessera_test::scaled(60001, 20001)}) {
          INFO((uplo == Uplo::lower ? "lower" : "upper")
               << ", " << (diag == Diag::unit ? "unit" : "non-unit") << (chain ? ", chain" : "") << ", n = " << n);
          tessera_test::TriangularSpec spec;
          spec.uplo = uplo;
          spec.diag = diag;
          spec.chain = chain;
          const auto h = tessera_test::triangular_system<T>(n, spec, 13);
          const auto hb = tessera_test::random_vector<T>(static_cast<std::size_t>(n), 17);
          const auto A = CsrMatrix<T>::from_host(cpu(), h);
          const auto plan = sptrsv_analyze(uplo, diag, A);
          const auto b = Vector<T>::from_host(cpu(), hb);
          Vector<T> x(cpu(), n);
          sptrsv_solve(plan, b, x);
          const auto hx = x.to_host();
          const auto res = tessera_test::triangular_residual(h, uplo, diag, hx, hb);
          std::size_t bad = 0;
          for (std::size_t i = 0; i < hx.size(); ++i)
            if (!(std::abs(res.r[i]) <= gamma_bound<T>(res.k[i] + 1.0) * res.m[i])) ++bad;
          CHECK_MESSAGE(bad == 0, bad << " rows with a residual beyond the backward-error bound");
          // In place (x is b) gives the same bits.
          auto xb = Vector<T>::from_host(cpu(), hb);
          sptrsv_solve(plan, xb, xb);
          tessera_test::check_bitwise(xb.to_host(), hx, "sptrsv in place");
        }
      }
    }
  }
}

template <class T>
void check_stencil() {
  struct Case {
    int ndim;
    std::int64_t nx, ny, nz;
  };
  const std::vector<Case> cases = {{2, 1, 1, 1},     {2, 5, 3, 1}, {2, 17, 13, 1},  {2, 33, 9, 1},
                                   {2, 130, 260, 1}, {3, 7, 9, 5}, {3, 19, 11, 13}, {3, 64, 40, 30}};
  // Big enough that both grids overflow a 32 MiB last-level cache, with rows a multiple of every
  // target's vector: the streaming-store path. Scaled (TESSERA_TEST_SCALE) it is smaller than the
  // cache and takes the regular path (test_cpu_stencil_kernel.cpp tests streaming directly).
  const Case big{3, 208, 201, tessera_test::scaled(199, 33)};
  for (int r = 1; r <= StencilSpec::max_radius; ++r) {
    std::vector<Case> all = cases;
    if (r == 1) all.push_back(big);
    // c0 + 2 ndim sum |c_d| <= 1: the step is a contraction, so errors of earlier steps do not
    // grow and `steps` one-step bounds add up.
    for (const Case& c : all) {
      const int terms = 1 + 2 * c.ndim * r;
      std::vector<T> coeffs(static_cast<std::size_t>(r) + 1);
      coeffs[0] = T(0.375);
      for (int d = 1; d <= r; ++d)
        coeffs[static_cast<std::size_t>(d)] = static_cast<T>((d % 2 ? 0.6 : -0.6) / (terms - 1));
      for (const int steps : {1, 2, 3}) {
        if (c.nx == big.nx && steps == 3) continue;
        INFO("ndim " << c.ndim << ", " << c.nx << " x " << c.ny << " x " << c.nz << ", radius " << r << ", steps "
                     << steps);
        const std::size_t cells = static_cast<std::size_t>(c.nx * c.ny * c.nz);
        const auto h0 = tessera_test::random_vector<T>(cells, 23);
        auto make = [&](const Device& dev) {
          Grid<T> g = c.ndim == 3 ? Grid<T>(dev, c.nx, c.ny, c.nz) : Grid<T>(dev, c.nx, c.ny);
          g.upload(h0);
          return g;
        };
        auto g = make(cpu());
        auto rg = make(ref());
        stencil(coeffs, g, steps);
        stencil(coeffs, rg, steps);
        const auto got = g.to_host(), want = rg.to_host();
        tessera_test::check_close(got, want, steps * gamma_bound<T>(terms) * tessera_test::max_abs_of(h0), "stencil");
        // The boundary keeps its bits.
        auto boundary = [&](std::size_t i) {
          const std::int64_t x = static_cast<std::int64_t>(i) % c.nx, y = static_cast<std::int64_t>(i) / c.nx % c.ny,
                             z = static_cast<std::int64_t>(i) / (c.nx * c.ny);
          const auto near = [r](std::int64_t v, std::int64_t n) { return v < r || v >= n - r; };
          return near(x, c.nx) || near(y, c.ny) || (c.ndim == 3 && near(z, c.nz));
        };
        tessera_test::check_bitwise_where(got, h0, boundary, "stencil boundary");
      }
    }
  }
}

// The spmm row kernel on every target: k covering full vectors, every capped tail and passes
// of four vectors; bound as test_ops_spmm.cpp's (gamma of the longest row + 2, on magnitudes).
template <class T>
void check_spmm() {
  const HostCsr<T> h = tessera_test::local_random_csr<T>(70, 53, 0, 11, 17, true, 0.1);
  const HostCsr<T> abs_h = tessera_test::abs_values(h);
  for (const std::int64_t k : {1, 3, 7, 8, 17, 31, 64}) {
    INFO("k " << k);
    const auto hx = tessera_test::random_vector<T>(static_cast<std::size_t>(53 * k), 18);
    const auto hy = tessera_test::random_vector<T>(static_cast<std::size_t>(70 * k), 19);
    auto run = [&](const Device& dev, const HostCsr<T>& m, std::vector<T> x, std::vector<T> y, T a, T b) {
      const auto A = CsrMatrix<T>::from_host(dev, m);
      const auto X = DenseMatrix<T>::from_host(dev, 53, k, x);
      auto Y = DenseMatrix<T>::from_host(dev, 70, k, y);
      spmm(a, A, X, b, Y);
      return Y.to_host();
    };
    const auto got = run(cpu(), h, hx, hy, T(1.5), T(-0.5));
    const auto want = run(ref(), h, hx, hy, T(1.5), T(-0.5));
    const auto mag = run(ref(), abs_h, tessera_test::abs_of(hx), tessera_test::abs_of(hy), T(1.5), T(0.5));
    std::vector<double> bound(mag.size());
    for (std::size_t i = 0; i < mag.size(); ++i) bound[i] = gamma_bound<T>(13) * static_cast<double>(mag[i]);
    tessera_test::check_close(got, want, bound, "spmm");
  }
}

// The general stencil's row kernel (per-axis coefficients, every face kind, a source) against
// the reference; S = |centre| + 2 sum |c| = 1 as above, the source counted as one more term.
template <class T>
void check_stencil_general() {
  using B = StencilBoundary;
  const std::array<B, 6> face_sets[] = {{B::neumann, B::dirichlet, B::periodic, B::periodic, B::dirichlet, B::neumann},
                                        {B::periodic, B::periodic, B::neumann, B::dirichlet, B::periodic, B::periodic}};
  for (int r = 1; r <= StencilSpec::max_radius; ++r)
    for (const int ndim : {2, 3})
      for (const auto& faces : face_sets) {
        const std::int64_t nx = 37 + r, ny = 2 * r + 5, nz = ndim == 3 ? r + 6 : 1;
        INFO("ndim " << ndim << ", radius " << r);
        const int terms = 2 + 2 * ndim * r;
        const T c = static_cast<T>(0.5 / (terms - 2));
        StarStencil<T> s(T(0.5), std::vector<T>(static_cast<std::size_t>(r), c), std::vector<T>(static_cast<std::size_t>(r), -c),
                         ndim == 3 ? std::vector<T>(static_cast<std::size_t>(r), T(0.5) * c) : std::vector<T>{});
        s.faces = faces;
        s.source = T(0.125);
        const auto h0 = tessera_test::random_vector<T>(static_cast<std::size_t>(nx * ny * nz), 29);
        auto make = [&](const Device& dev) {
          return ndim == 3 ? Grid<T>::from_host(dev, nx, ny, nz, h0) : Grid<T>::from_host(dev, nx, ny, h0);
        };
        auto g = make(cpu());
        auto rg = make(ref());
        stencil(s, g, 3);
        stencil(s, rg, 3);
        tessera_test::check_close(g.to_host(), rg.to_host(),
                                  3 * gamma_bound<T>(terms + 1) * (tessera_test::max_abs_of(h0) + 3 * 0.125),
                                  "general stencil");
      }
}

}  // namespace

TEST_CASE("cpu targets: listed, current, forced one at a time") {
  const auto targets = cpu_targets();
  REQUIRE(!targets.empty());
  CHECK(std::find(targets.begin(), targets.end(), cpu_target()) != targets.end());
  TargetGuard guard;
  for (const auto& t : targets) {
    set_cpu_target(t);
    CHECK(cpu_target() == t);
    CHECK(cpu_targets() == targets);  // the list does not shrink under a cap
  }
  set_cpu_target("best");
  CHECK(cpu_target() == targets.front());
}

TEST_CASE("cpu targets: names are case-insensitive, with aliases") {
  const auto targets = cpu_targets();
  TargetGuard guard;
  // aarch64 has no portable fallback: NEON is the baseline of every ARMv8 CPU, Highway compiles
  // nothing below it, and "scalar" names no target there.
  if (targets.back() == "SCALAR" || targets.back() == "EMU128") {
    set_cpu_target("scalar");
    CHECK(cpu_target() == targets.back());
  } else {
    CHECK_THROWS_AS(set_cpu_target("scalar"), InvalidArgument);
  }
  if (std::find(targets.begin(), targets.end(), "AVX3") != targets.end()) {
    set_cpu_target("avx512");
    CHECK(cpu_target() == "AVX3");
  }
  std::string lower = targets.back();
  for (char& ch : lower) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  set_cpu_target("BEST");
  set_cpu_target(lower);
  CHECK(cpu_target() == targets.back());
}

TEST_CASE("cpu targets: an unknown name throws InvalidArgument naming what is available") {
  TargetGuard guard;
  const std::string before = cpu_target();
  CHECK_THROWS_AS(set_cpu_target("avx9000"), InvalidArgument);
  CHECK_THROWS_AS(set_cpu_target(""), InvalidArgument);
  try {
    set_cpu_target("avx9000");
  } catch (const InvalidArgument& e) {
    CHECK(std::string(e.what()).find(cpu_targets().front()) != std::string::npos);
  }
  CHECK(cpu_target() == before);
}

TEST_CASE("cpu device info names its SIMD target") {
  const auto& info = cpu().info();
  CHECK(info.type == "cpu");
  CHECK(!info.name.empty());
  CHECK(info.compute_units >= 1);
  CHECK(info.memory_bytes > 0);
  const auto targets = cpu_targets();
  CHECK(std::find(targets.begin(), targets.end(), info.simd_target) != targets.end());
}

TEST_CASE_TEMPLATE("cpu targets: reductions on every target", T, float, double) {
  for_each_target([](const std::string&) {
    check_reductions<T>();
    check_reduction_nan<T>();
    if (std::is_same_v<T, float>) check_long_float_sum();
  });
}

TEST_CASE_TEMPLATE("cpu targets: spmv on every target", T, float, double) {
  for_each_target([](const std::string&) { check_spmv<T>(); });
}

TEST_CASE_TEMPLATE("cpu targets: sptrsv on every target", T, float, double) {
  for_each_target([](const std::string&) { check_sptrsv<T>(); });
}

TEST_CASE_TEMPLATE("cpu targets: stencil on every target", T, float, double) {
  for_each_target([](const std::string&) { check_stencil<T>(); });
}

TEST_CASE_TEMPLATE("cpu targets: spmm on every target", T, float, double) {
  for_each_target([](const std::string&) { check_spmm<T>(); });
}

TEST_CASE_TEMPLATE("cpu targets: general stencil on every target", T, float, double) {
  for_each_target([](const std::string&) { check_stencil_general<T>(); });
}

TEST_CASE("cpu sptrsv: a missing or zero diagonal names the row") {
  // Lower bidiagonal, 20 rows, with the diagonal of row `missing` left out and that of `zero` 0.
  const auto bidiagonal = [](std::int32_t missing, std::int32_t zero) {
    HostCsr<double> h;
    h.rows = h.cols = 20;
    for (std::int32_t i = 0; i < 20; ++i) {
      if (i > 0) {
        h.col_idx.push_back(i - 1);
        h.values.push_back(0.5);
      }
      if (i != missing) {
        h.col_idx.push_back(i);
        h.values.push_back(i == zero ? 0.0 : 2.0);
      }
      h.row_ptr.push_back(static_cast<std::int32_t>(h.col_idx.size()));
    }
    return CsrMatrix<double>::from_host(cpu(), h);
  };
  const auto message = [](const CsrMatrix<double>& A, Uplo uplo) -> std::string {
    try {
      (void)sptrsv_analyze(uplo, Diag::non_unit, A);
    } catch (const InvalidArgument& e) {
      return e.what();
    }
    return "no exception";
  };
  const auto no_diag = bidiagonal(17, -1), zero_diag = bidiagonal(-1, 3);
  CHECK(message(no_diag, Uplo::lower) ==
        "sptrsv_analyze: row 17 has no diagonal entry: the triangular matrix is singular");
  CHECK(message(zero_diag, Uplo::lower).find("row 3 has a zero diagonal") != std::string::npos);
  CHECK(message(zero_diag, Uplo::upper).find("row 3 ") != std::string::npos);  // upper: only diagonals
  CHECK_NOTHROW((void)sptrsv_analyze(Uplo::lower, Diag::unit, no_diag));
  CHECK_NOTHROW((void)sptrsv_analyze(Uplo::upper, Diag::unit, zero_diag));
}
