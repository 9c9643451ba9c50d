// Cases at the GPU kernels' edges, on every device against the reference (they were the CUDA
// plugin's own check before): reductions long enough for several grid-stride passes, the SpMV
// merge path with rows longer than the column count, trsm around and past the diagonal block
// sizes (128 f32 / 64 f64; trsv's sizes are in test_ops_trsv.cpp), gemm on exact and partial
// tiles and k = 0 / 1, 3D stencils longer in z than a block's z chunk, conv2d filters past the
// constant-memory (32) and shared tile (65) limits.
//
// Bounds are first-order: a k-term sum of products is within gamma_k = 2 k u of the exact sum,
// relative to the sum of the terms' magnitudes (computed on the host in double).
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "support/compare.hpp"
#include "support/devices.hpp"
#include "support/random.hpp"
#include "support/scale.hpp"
#include "tessera/tessera.hpp"

using namespace tessera;
using namespace tessera_test;

namespace {

template <class T>
std::vector<double> to_double(const std::vector<T>& v) {
  return std::vector<double>(v.begin(), v.end());
}

// ------------------------------------------------------------------ triangular solves
// n x n, row-major with leading dimension ld: |diagonal| in [2, 3], strict entries in [-1, 1] / n
// (so ||op(A)||_inf < 4 and ||op(A)^{-1}||_inf <= 1), NaN wherever the solver must not read.
template <class T>
std::vector<T> triangle(std::int64_t n, std::int64_t ld, Uplo uplo, Diag diag, std::uint32_t seed) {
  Rng rng(seed);
  std::vector<T> a(static_cast<std::size_t>(n * ld), std::numeric_limits<T>::quiet_NaN());
  for (std::int64_t i = 0; i < n; ++i)
    for (std::int64_t j = 0; j < n; ++j) {
      T& e = a[static_cast<std::size_t>(i * ld + j)];
      if (uplo == Uplo::lower ? j < i : j > i) e = static_cast<T>(rng.signed_unit() / static_cast<double>(n));
      if (i == j && diag == Diag::non_unit) e = static_cast<T>(rng.coin(0.5) ? rng.uniform(2, 3) : -rng.uniform(2, 3));
    }
  return a;
}

// A backward-stable solution differs from another by at most
// ||op(A)^{-1}|| gamma_{n+1} ||op(A)|| (||x|| + ||x_ref||) <= 4 gamma_{n+1} (||x|| + ||x_ref||).
template <class T>
void check_solve(const std::vector<T>& got, const std::vector<T>& ref, std::int64_t n, const std::string& what) {
  const double bound = 4.0 * gamma_bound<T>(static_cast<double>(n + 1)) * (max_abs_of(got) + max_abs_of(ref));
  check_close(got, ref, bound, what);
}

TEST_CASE_TEMPLATE("gpu cases: trsm with 64 right-hand sides past a diagonal block", T, float, double) {
  const Device ref = reference_device();
  std::uint32_t seed = 6000;
  for (std::int64_t n : {std::int64_t{129}, std::int64_t{300}})
    for (std::int64_t nrhs : {std::int64_t{7}, std::int64_t{64}})
      for (Uplo uplo : {Uplo::lower, Uplo::upper})
        for (Trans trans : {Trans::N, Trans::T})
          for (Diag diag : {Diag::non_unit, Diag::unit}) {
            const std::int64_t lda = n + 1, ldb = nrhs + 2;
            std::ostringstream w;
            w << "trsm n=" << n << " nrhs=" << nrhs << " " << (uplo == Uplo::lower ? "L" : "U")
              << (trans == Trans::N ? "N" : "T") << (diag == Diag::unit ? "U" : "N");
            const auto ha = triangle<T>(n, lda, uplo, diag, ++seed);
            const auto hb = padded_random<T>(n, nrhs, ldb, ++seed);
            const T alpha = static_cast<T>(-1.25);
            std::vector<T> x_ref;
            if (!on_reference(w.str().c_str(), [&] {
                  DenseMatrix<T> A(ref, n, n, lda), B(ref, n, nrhs, ldb);
                  A.upload(ha.data(), lda);
                  B.upload(hb.data(), ldb);
                  trsm(uplo, trans, diag, alpha, A, B);
                  x_ref = B.to_host();
                }))
              continue;
            for_each_device<T>(Op::trsm, [&](const Device& d) {
              DenseMatrix<T> A(d, n, n, lda), B(d, n, nrhs, ldb);
              A.upload(ha.data(), lda);
              B.upload(hb.data(), ldb);
              trsm(uplo, trans, diag, alpha, A, B);
              check_solve(B.to_host(), x_ref, n, w.str());
            });
          }
}

// ------------------------------------------------------------------ gemm
TEST_CASE_TEMPLATE("gpu cases: gemm on exact tiles, k = 0 and 1, several tiles and k-steps", T, float, double) {
  struct Shape {
    std::int64_t m, n, k;
  };
  const Device ref = reference_device();
  std::uint32_t seed = 7000;
  // k in 16-wide tiles: 1, 2, 4 and 5 tiles besides 33 and 21, so that a main loop unrolled by
  // its 3 stages (CUDA's f64 kernel) ends after each of them.
  for (Shape s : {Shape{128, 128, 8}, Shape{128, 128, 16}, Shape{128, 128, 32}, Shape{136, 200, 50},
                  Shape{200, 136, 71}, Shape{64, 300, 1}, Shape{33, 17, 0}, Shape{257, 131, 517}, Shape{400, 301, 333}})
    for (Trans ta : {Trans::N, Trans::T})
      for (Trans tb : {Trans::N, Trans::T})
        for (double beta : {0.0, -0.5}) {
          const std::int64_t ar = ta == Trans::N ? s.m : s.k, ac = ta == Trans::N ? s.k : s.m;
          const std::int64_t br = tb == Trans::N ? s.k : s.n, bc = tb == Trans::N ? s.n : s.k;
          const std::int64_t lda = ac + 1, ldb = bc + 5, ldc = s.n + 3;
          const auto ha = padded_random<T>(ar, ac, lda, ++seed);
          const auto hb = padded_random<T>(br, bc, ldb, ++seed);
          auto hc = padded_random<T>(s.m, s.n, ldc, ++seed);
          if (beta == 0.0)  // C is only written: NaN in it must not reach the result
            for (T& e : hc) e = std::numeric_limits<T>::quiet_NaN();
          const double alpha = 1.25;
          std::ostringstream w;
          w << "gemm " << s.m << "x" << s.n << "x" << s.k << " " << (ta == Trans::N ? "N" : "T")
            << (tb == Trans::N ? "N" : "T") << " beta=" << beta;
          std::vector<T> c_ref;
          if (!on_reference(w.str().c_str(), [&] {
                DenseMatrix<T> A(ref, ar, ac, lda), B(ref, br, bc, ldb), C(ref, s.m, s.n, ldc);
                A.upload(ha.data(), lda);
                B.upload(hb.data(), ldb);
                C.upload(hc.data(), ldc);
                gemm(ta, tb, static_cast<T>(alpha), A, B, static_cast<T>(beta), C);
                c_ref = C.to_host();
              }))
            continue;
          std::vector<double> bound(c_ref.size());
          for (std::int64_t i = 0; i < s.m; ++i)
            for (std::int64_t j = 0; j < s.n; ++j) {
              double mag = 0;
              for (std::int64_t p = 0; p < s.k; ++p) {
                const double a = ha[static_cast<std::size_t>(ta == Trans::N ? i * lda + p : p * lda + i)];
                const double b = hb[static_cast<std::size_t>(tb == Trans::N ? p * ldb + j : j * ldb + p)];
                mag += std::abs(a * b);
              }
              const double c = beta == 0.0 ? 0.0 : std::abs(beta * hc[static_cast<std::size_t>(i * ldc + j)]);
              bound[static_cast<std::size_t>(i * s.n + j)] =
                  gamma_bound<T>(static_cast<double>(s.k + 2)) * (std::abs(alpha) * mag + c);
            }
          for_each_device<T>(Op::gemm, [&](const Device& d) {
            DenseMatrix<T> A(d, ar, ac, lda), B(d, br, bc, ldb), C(d, s.m, s.n, ldc);
            A.upload(ha.data(), lda);
            B.upload(hb.data(), ldb);
            C.upload(hc.data(), ldc);
            gemm(ta, tb, static_cast<T>(alpha), A, B, static_cast<T>(beta), C);
            check_close(C.to_host(), c_ref, bound, w.str());
          });
        }
}

// ------------------------------------------------------------------ reduce
TEST_CASE_TEMPLATE("gpu cases: reductions over several grid-stride passes", T, float, double) {
  // Past one pass of a full GPU grid (132 SMs x 8 blocks x 256 threads x 16 bytes: 1.08 M f32).
  const std::int64_t n = scaled(4000037, 1200007);
  const auto hx = random_vector<T>(static_cast<std::size_t>(n), 8001);
  const auto hy = random_vector<T>(static_cast<std::size_t>(n), 8002);
  double abs_sum = 0, squares = 0, abs_dot = 0;
  for (std::size_t i = 0; i < hx.size(); ++i) {
    abs_sum += std::abs(static_cast<double>(hx[i]));
    squares += static_cast<double>(hx[i]) * static_cast<double>(hx[i]);
    abs_dot += std::abs(static_cast<double>(hx[i]) * static_cast<double>(hy[i]));
  }
  const double g = gamma_bound<T>(static_cast<double>(n + 1));
  const Device ref = reference_device();
  std::vector<T> expected;  // sum, sum_squares, min, max, max_abs, dot
  if (!on_reference("reduce", [&] {
        const auto x = Vector<T>::from_host(ref, hx);
        const auto y = Vector<T>::from_host(ref, hy);
        expected = {sum(x), sum_squares(x), min(x), max(x), max_abs(x), dot(x, y)};
      }))
    return;
  const std::vector<double> bound = {g * abs_sum, g * squares, 0, 0, 0, g * abs_dot};
  for_each_device<T>(Op::reduce, [&](const Device& d) {
    const auto x = Vector<T>::from_host(d, hx);
    const auto y = Vector<T>::from_host(d, hy);
    const std::vector<T> got = {sum(x), sum_squares(x), min(x), max(x), max_abs(x), dot(x, y)};
    check_close(got, expected, bound,
                "sum, sum_squares, min, max, max_abs, dot of n = " + std::to_string(n));
  });
}

// ------------------------------------------------------------------ spmv
TEST_CASE_TEMPLATE("gpu cases: spmv merge path, rows longer than the column count (repeated columns)", T, float,
                   double) {
  // Mostly 0..3 entries per row, and three rows far longer than the matrix is wide: each column
  // repeats there (every stored entry counts), and each such row spans many merge tiles.
  const std::int64_t rows = scaled(30011, 3001), cols = 3001, long_len = 20000;
  HostCsr<T> h;
  h.rows = rows;
  h.cols = cols;
  h.row_ptr.assign(1, 0);
  Rng rng(9001);
  for (std::int64_t r = 0; r < rows; ++r) {
    const bool is_long = r % (rows / 3 + 1) == 5;
    const std::int64_t len = is_long ? long_len : rng.index(4);
    for (std::int64_t k = 0; k < len; ++k) {
      h.col_idx.push_back(static_cast<std::int32_t>(is_long ? (k * 7919) % cols : rng.index(cols)));
      h.values.push_back(static_cast<T>(rng.uniform(0.1, 1.0)));
    }
    h.row_ptr.push_back(static_cast<std::int32_t>(h.col_idx.size()));
  }
  const auto hx = random_vector<T>(static_cast<std::size_t>(cols), 9002);
  const auto hy0 = random_vector<T>(static_cast<std::size_t>(rows), 9003);
  const Device ref = reference_device();
  for (double beta : {0.0, -0.5}) {
    const double alpha = 1.5;
    std::vector<T> hy = hy0;
    if (beta == 0.0) hy.assign(hy.size(), std::numeric_limits<T>::quiet_NaN());
    const std::string what = "spmv, 3 rows of 20000 in " + std::to_string(rows) + " x 3001, beta=" + std::to_string(beta);
    std::vector<T> expected;
    if (!on_reference(what.c_str(), [&] {
          const auto A = CsrMatrix<T>::from_host(ref, h);
          const auto x = Vector<T>::from_host(ref, hx);
          auto y = Vector<T>::from_host(ref, hy);
          spmv(static_cast<T>(alpha), A, x, static_cast<T>(beta), y);
          expected = y.to_host();
        }))
      continue;
    std::vector<double> bound(static_cast<std::size_t>(rows));
    for (std::int64_t r = 0; r < rows; ++r) {
      double mag = 0;
      for (auto p = h.row_ptr[static_cast<std::size_t>(r)]; p < h.row_ptr[static_cast<std::size_t>(r + 1)]; ++p)
        mag += std::abs(static_cast<double>(h.values[static_cast<std::size_t>(p)]) *
                        static_cast<double>(hx[static_cast<std::size_t>(h.col_idx[static_cast<std::size_t>(p)])]));
      const double yb = beta == 0.0 ? 0.0 : std::abs(beta * static_cast<double>(hy[static_cast<std::size_t>(r)]));
      const double k = static_cast<double>(h.row_ptr[static_cast<std::size_t>(r + 1)] - h.row_ptr[static_cast<std::size_t>(r)]);
      bound[static_cast<std::size_t>(r)] = gamma_bound<T>(k + 2) * (alpha * mag + yb);
    }
    for_each_device<T>(Op::spmv, [&](const Device& d) {
      const auto A = CsrMatrix<T>::from_host(d, h);
      const auto x = Vector<T>::from_host(d, hx);
      for (int call = 0; call < 2; ++call) {  // the second from a plan the device may have kept
        auto y = Vector<T>::from_host(d, hy);
        spmv(static_cast<T>(alpha), A, x, static_cast<T>(beta), y);
        check_close(y.to_host(), expected, bound, what + (call ? " (second call)" : ""));
      }
    });
  }
}

// ------------------------------------------------------------------ stencil
TEST_CASE_TEMPLATE("gpu cases: 3D stencils longer in z than a block's chunk, radius 1..4, steps 1..3", T, float,
                   double) {
  struct Dims {
    std::int64_t nx, ny, nz;
  };
  const Device ref = reference_device();
  std::uint32_t seed = 10000;
  for (Dims g : {Dims{33, 20, 19}, Dims{9, 9, 70}, Dims{40, 12, 5}, Dims{10, 11, 133}})
    for (int r = 1; r <= 4; ++r)
      for (int steps : {1, 2, 3}) {
        // Non-negative coefficients summing to below 1: values stay in [0, 1].
        std::vector<T> c(static_cast<std::size_t>(r + 1));
        c[0] = static_cast<T>(0.4);
        for (int k = 1; k <= r; ++k) c[static_cast<std::size_t>(k)] = static_cast<T>(0.1 / k / 3);
        const auto hu = random_vector<T>(static_cast<std::size_t>(g.nx * g.ny * g.nz), ++seed, 0.0, 1.0);
        std::ostringstream w;
        w << "stencil 3D " << g.nx << "x" << g.ny << "x" << g.nz << " r=" << r << " steps=" << steps;
        std::vector<T> expected;
        if (!on_reference(w.str().c_str(), [&] {
              Grid<T> u(ref, g.nx, g.ny, g.nz);
              u.upload(hu);
              stencil(c, u, steps);
              expected = u.to_host();
            }))
          continue;
        // Each step: a (6r + 1)-term sum of values <= 1 with coefficients summing below 1.
        const double bound = steps * gamma_bound<T>(6.0 * r + 2);
        for_each_device<T>(Op::stencil, [&](const Device& d) {
          Grid<T> u(d, g.nx, g.ny, g.nz);
          u.upload(hu);
          stencil(c, u, steps);
          check_close(u.to_host(), expected, bound, w.str());
        });
      }
}

// ------------------------------------------------------------------ conv2d
TEST_CASE_TEMPLATE("gpu cases: conv2d with K = 8, 33 and 70 (past constant memory and the shared tile)", T, float,
                   double) {
  const Device ref = reference_device();
  std::uint32_t seed = 11000;
  for (const auto& hw : {std::vector<std::int64_t>{67, 91}, std::vector<std::int64_t>{130, 75}})
    for (std::int64_t K : {8, 33, 70})
      for (ConvMode mode : {ConvMode::valid, ConvMode::same}) {
        const std::int64_t H = hw[0], W = hw[1];
        if (mode == ConvMode::valid && (K > H || K > W)) continue;
        const std::int64_t lo = mode == ConvMode::same ? (K - 1) / 2 : 0;
        const std::int64_t P = mode == ConvMode::same ? H : H - K + 1, Q = mode == ConvMode::same ? W : W - K + 1;
        const std::int64_t ld_img = W + 3, ld_f = K + 2, ld_out = Q + 1;
        const auto hi = padded_random<T>(H, W, ld_img, ++seed);
        const auto hf = padded_random<T>(K, K, ld_f, ++seed);
        std::ostringstream w;
        w << "conv2d " << H << "x" << W << " K=" << K << (mode == ConvMode::same ? " same" : " valid");
        std::vector<T> expected;
        if (!on_reference(w.str().c_str(), [&] {
              DenseMatrix<T> img(ref, H, W, ld_img), f(ref, K, K, ld_f), out(ref, P, Q, ld_out);
              img.upload(hi.data(), ld_img);
              f.upload(hf.data(), ld_f);
              conv2d(mode, img, f, out);
              expected = out.to_host();
            }))
          continue;
        std::vector<double> bound(expected.size());
        for (std::int64_t p = 0; p < P; ++p)
          for (std::int64_t q = 0; q < Q; ++q) {
            double mag = 0;
            for (std::int64_t a = 0; a < K; ++a)
              for (std::int64_t b = 0; b < K; ++b) {
                const std::int64_t y = p + a - lo, x = q + b - lo;
                if (y < 0 || y >= H || x < 0 || x >= W) continue;
                mag += std::abs(static_cast<double>(hf[static_cast<std::size_t>(a * ld_f + b)]) *
                                static_cast<double>(hi[static_cast<std::size_t>(y * ld_img + x)]));
              }
            bound[static_cast<std::size_t>(p * Q + q)] = gamma_bound<T>(static_cast<double>(K * K + 1)) * mag;
          }
        for_each_device<T>(Op::conv2d, [&](const Device& d) {
          DenseMatrix<T> img(d, H, W, ld_img), f(d, K, K, ld_f), out(d, P, Q, ld_out);
          img.upload(hi.data(), ld_img);
          f.upload(hf.data(), ld_f);
          conv2d(mode, img, f, out);
          check_close(out.to_host(), expected, bound, w.str());
        });
      }
}

}  // namespace
