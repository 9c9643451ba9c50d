// The reference backend checked against values derived by hand. Every other backend is tested
// against the reference, so the reference itself is tested against nothing but arithmetic done
// on paper: small operands with small integer or dyadic values, so every expected result is
// exact in float and double alike and is compared with ==.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <vector>

#include "tessera/tessera.hpp"

using namespace tessera;

namespace {

Device reference() { return Device::open("reference"); }

constexpr double nan_v = std::numeric_limits<double>::quiet_NaN();

template <class T>
std::vector<T> as(const std::vector<double>& v) {
  return std::vector<T>(v.begin(), v.end());
}

template <class T>
void check_exact(const std::vector<T>& got, const std::vector<double>& expected) {
  REQUIRE(got.size() == expected.size());
  for (std::size_t i = 0; i < got.size(); ++i) {
    INFO("element " << i);
    CHECK(static_cast<double>(got[i]) == expected[i]);
  }
}

}  // namespace

// ---- reductions ----

TEST_CASE_TEMPLATE("reference reduce: small vector", T, float, double) {
  const Device dev = reference();
  const auto x = Vector<T>::from_host(dev, as<T>({3, -1, 4, -1.5, 5, -9, 2.5}));
  const auto y = Vector<T>::from_host(dev, as<T>({1, 2, 3, 4, 5, 6, 7}));
  CHECK(sum(x) == T(3));
  CHECK(min(x) == T(-9));
  CHECK(max(x) == T(5));
  CHECK(sum_squares(x) == T(140.5));
  CHECK(max_abs(x) == T(9));
  CHECK(dot(x, y) == T(-4.5));
}

TEST_CASE_TEMPLATE("reference reduce: sums do not lose small terms next to large ones", T, float, double) {
  // big + 1 rounds back to big in T (float spacing at 1e8 is 8, double spacing at 1e17 is 16),
  // so a running sum in T gives 1; double accumulation (float) or compensation (double) gives 2.
  const T big = std::is_same_v<T, float> ? T(1e8) : T(1e17);
  const Device dev = reference();
  const auto v = Vector<T>::from_host(dev, {big, T(1), -big, T(1)});
  const auto ones = Vector<T>::from_host(dev, {T(1), T(1), T(1), T(1)});
  CHECK(sum(v) == T(2));
  CHECK(dot(v, ones) == T(2));
}

TEST_CASE_TEMPLATE("reference reduce: NaN and inf", T, float, double) {
  const Device dev = reference();
  const T nan = std::numeric_limits<T>::quiet_NaN();
  const T inf = std::numeric_limits<T>::infinity();
  // min/max/max_abs return NaN when any element is NaN, wherever it is.
  for (const auto& host : {std::vector<T>{nan, 1, -2}, std::vector<T>{1, nan, -2}, std::vector<T>{1, -2, nan}}) {
    const auto x = Vector<T>::from_host(dev, host);
    CHECK(std::isnan(min(x)));
    CHECK(std::isnan(max(x)));
    CHECK(std::isnan(max_abs(x)));
    CHECK(std::isnan(sum(x)));
  }
  const auto with_inf = Vector<T>::from_host(dev, {T(1), inf, T(2)});
  CHECK(sum(with_inf) == inf);
  CHECK(sum_squares(with_inf) == inf);
  CHECK(max_abs(Vector<T>::from_host(dev, {T(1), -inf})) == inf);
  CHECK(std::isnan(sum(Vector<T>::from_host(dev, {inf, T(1), -inf}))));
}

// ---- gemm ----

namespace {
// A = [1 2 3; 4 5 6; 7 8 10], B = [2 0 1; 1 3 0; 0 1 4], C0 = [1 0 2; 0 1 0; 3 0 1].
const std::vector<double> gemm_A = {1, 2, 3, 4, 5, 6, 7, 8, 10};
const std::vector<double> gemm_B = {2, 0, 1, 1, 3, 0, 0, 1, 4};
const std::vector<double> gemm_C0 = {1, 0, 2, 0, 1, 0, 3, 0, 1};

struct GemmCase {
  Trans ta, tb;
  std::vector<double> product;        // op(A) * op(B)
  std::vector<double> alpha2_beta_m1;  // 2 * op(A) * op(B) - C0
};

const std::vector<GemmCase> gemm_cases = {
    {Trans::N, Trans::N, {4, 9, 13, 13, 21, 28, 22, 34, 47}, {7, 18, 24, 26, 41, 56, 41, 68, 93}},
    {Trans::T, Trans::N, {6, 19, 29, 9, 23, 34, 12, 28, 43}, {11, 38, 56, 18, 45, 68, 21, 56, 85}},
    {Trans::N, Trans::T, {5, 7, 14, 14, 19, 29, 24, 31, 48}, {9, 14, 26, 28, 37, 58, 45, 62, 95}},
    {Trans::T, Trans::T, {9, 13, 32, 12, 17, 37, 16, 21, 46}, {17, 26, 62, 24, 33, 74, 29, 42, 91}},
};
}  // namespace

TEST_CASE_TEMPLATE("reference gemm: 3x3, every op(A), op(B), beta != 0 and beta == 0", T, float, double) {
  const Device dev = reference();
  // Leading dimensions larger than 3, so a kernel that ignores ld reads the wrong elements.
  const auto A = DenseMatrix<T>::from_host(dev, 3, 3, as<T>(gemm_A), 4);
  const auto B = DenseMatrix<T>::from_host(dev, 3, 3, as<T>(gemm_B), 5);
  for (const GemmCase& c : gemm_cases) {
    INFO("ta = " << (c.ta == Trans::N ? "N" : "T") << ", tb = " << (c.tb == Trans::N ? "N" : "T"));
    auto C = DenseMatrix<T>::from_host(dev, 3, 3, as<T>(gemm_C0), 7);
    gemm(c.ta, c.tb, T(2), A, B, T(-1), C);
    check_exact(C.to_host(), c.alpha2_beta_m1);
    // beta == 0: C is not read, so NaN there does not propagate.
    auto D = DenseMatrix<T>::from_host(dev, 3, 3, std::vector<T>(9, std::numeric_limits<T>::quiet_NaN()));
    gemm(c.ta, c.tb, T(1), A, B, T(0), D);
    check_exact(D.to_host(), c.product);
  }
}

TEST_CASE_TEMPLATE("reference gemm: non-square 2x3 * 3x4", T, float, double) {
  const Device dev = reference();
  const auto A = DenseMatrix<T>::from_host(dev, 2, 3, as<T>({1, 2, 3, 4, 5, 6}), 5);
  const auto B = DenseMatrix<T>::from_host(dev, 3, 4, as<T>({1, 0, 2, 1, 0, 1, 1, 0, 2, 1, 0, 1}));
  DenseMatrix<T> C(dev, 2, 4, 6);
  gemm(Trans::N, Trans::N, T(0.5), A, B, T(0), C);
  // A * B = [7 5 4 4; 16 11 13 10]
  check_exact(C.to_host(), {3.5, 2.5, 2, 2, 8, 5.5, 6.5, 5});
}

// ---- spmv ----

TEST_CASE_TEMPLATE("reference spmv: unsorted columns, duplicates, an empty row", T, float, double) {
  const Device dev = reference();
  // A (3 x 4) = [1 0 3 0; 0 0 0 0; 0 2.5 0 -1], row 0 stored with unsorted columns, row 2 with
  // its (2, 1) entry split into 2 + 0.5.
  const auto A = CsrMatrix<T>::from_host(dev, 3, 4, {0, 2, 2, 5}, {2, 0, 1, 3, 1}, as<T>({3, 1, 2, -1, 0.5}));
  const auto x = Vector<T>::from_host(dev, as<T>({1, 2, 3, 4}));
  // A * x = [10, 0, 1]
  SUBCASE("beta != 0") {
    auto y = Vector<T>::from_host(dev, as<T>({1, 2, 3}));
    spmv(T(2), A, x, T(-1), y);
    check_exact(y.to_host(), {19, -2, -1});
  }
  SUBCASE("beta == 0 does not read y") {
    auto y = Vector<T>::from_host(dev, std::vector<T>(3, std::numeric_limits<T>::quiet_NaN()));
    spmv(T(2), A, x, T(0), y);
    check_exact(y.to_host(), {20, 0, 2});
  }
}

// ---- dense triangular solves ----

namespace {
// Stored matrices, row-major 3 x 3. The triangle not named by uplo holds NaN, and so does the
// diagonal of the unit-diagonal ones: a solve that reads them returns NaN.
//   L = [2 0 0; 1 4 0; 3 -1 5]      U = [2 1 -1; 0 3 2; 0 0 4]
const std::vector<double> tri_lower = {2, nan_v, nan_v, 1, 4, nan_v, 3, -1, 5};
const std::vector<double> tri_lower_unit = {nan_v, nan_v, nan_v, 1, nan_v, nan_v, 3, -1, nan_v};
const std::vector<double> tri_upper = {2, 1, -1, nan_v, 3, 2, nan_v, nan_v, 4};
const std::vector<double> tri_upper_unit = {nan_v, 1, -1, nan_v, nan_v, 2, nan_v, nan_v, nan_v};

struct TriCase {
  const char* name;
  Uplo uplo;
  Trans trans;
  Diag diag;
  const std::vector<double>* A;
  std::vector<double> b;  // op(A) * [1, -2, 3]
};

const std::vector<TriCase> tri_cases = {
    {"lower N non-unit", Uplo::lower, Trans::N, Diag::non_unit, &tri_lower, {2, -7, 20}},
    {"lower T non-unit", Uplo::lower, Trans::T, Diag::non_unit, &tri_lower, {9, -11, 15}},
    {"lower N unit", Uplo::lower, Trans::N, Diag::unit, &tri_lower_unit, {1, -1, 8}},
    {"lower T unit", Uplo::lower, Trans::T, Diag::unit, &tri_lower_unit, {8, -5, 3}},
    {"upper N non-unit", Uplo::upper, Trans::N, Diag::non_unit, &tri_upper, {-3, 0, 12}},
    {"upper T non-unit", Uplo::upper, Trans::T, Diag::non_unit, &tri_upper, {2, -5, 7}},
    {"upper N unit", Uplo::upper, Trans::N, Diag::unit, &tri_upper_unit, {-4, 4, 3}},
    {"upper T unit", Uplo::upper, Trans::T, Diag::unit, &tri_upper_unit, {1, -1, -2}},
};
const std::vector<double> tri_solution = {1, -2, 3};
}  // namespace

TEST_CASE_TEMPLATE("reference trsv: lower/upper, N/T, unit/non-unit", T, float, double) {
  const Device dev = reference();
  for (const TriCase& c : tri_cases) {
    INFO(c.name);
    const auto A = DenseMatrix<T>::from_host(dev, 3, 3, as<T>(*c.A), 4);
    auto x = Vector<T>::from_host(dev, as<T>(c.b));
    trsv(c.uplo, c.trans, c.diag, A, x);
    check_exact(x.to_host(), tri_solution);
  }
}

TEST_CASE_TEMPLATE("reference trsm: every case with alpha and two right-hand sides", T, float, double) {
  const Device dev = reference();
  for (const TriCase& c : tri_cases) {
    INFO(c.name);
    const auto A = DenseMatrix<T>::from_host(dev, 3, 3, as<T>(*c.A));
    // B = [2b, -4b] with alpha = 0.5 gives X = [x, -2x].
    std::vector<double> B;
    for (double bi : c.b) B.insert(B.end(), {2 * bi, -4 * bi});
    auto X = DenseMatrix<T>::from_host(dev, 3, 2, as<T>(B), 3);
    trsm(c.uplo, c.trans, c.diag, T(0.5), A, X);
    check_exact(X.to_host(), {1, -2, -2, 4, 3, -6});
  }
}

TEST_CASE_TEMPLATE("reference trsm: columns are independent", T, float, double) {
  const Device dev = reference();
  const auto A = DenseMatrix<T>::from_host(dev, 3, 3, as<T>(tri_lower));
  // X = [1 2; -2 0; 3 -1]; L X = [2 4; -7 2; 20 1], and B = L X / alpha with alpha = 2.
  auto B = DenseMatrix<T>::from_host(dev, 3, 2, as<T>({1, 2, -3.5, 1, 10, 0.5}));
  trsm(Uplo::lower, Trans::N, Diag::non_unit, T(2), A, B);
  check_exact(B.to_host(), {1, 2, -2, 0, 3, -1});
}

// ---- sparse triangular solve ----

namespace {
// 4 x 4, stored with both triangles, unsorted columns and a diagonal split into duplicates:
//   lower part L = [2 0 0 0; 1 4 0 0; 0 -1 5 0; 3 0 2 1]
//   upper part U = [2 0 0 7; 0 4 0 0; 0 0 5 0; 0 0 0 1]
const std::vector<std::int32_t> sp_row_ptr = {0, 2, 4, 7, 10};
const std::vector<std::int32_t> sp_col_idx = {0, 3, 1, 0, 2, 1, 2, 2, 0, 3};
const std::vector<double> sp_values = {2, 7, 4, 1, 2.5, -1, 2.5, 2, 3, 1};
const std::vector<double> sp_solution = {1, -2, 3, -1};
}  // namespace

TEST_CASE_TEMPLATE("reference sptrsv: lower, upper, unit, and x aliasing b", T, float, double) {
  const Device dev = reference();
  const auto A = CsrMatrix<T>::from_host(dev, 4, 4, sp_row_ptr, sp_col_idx, as<T>(sp_values));
  SUBCASE("lower non-unit") {
    const auto plan = sptrsv_analyze(Uplo::lower, Diag::non_unit, A);
    const auto b = Vector<T>::from_host(dev, as<T>({2, -7, 17, 8}));
    Vector<T> x(dev, 4);
    sptrsv_solve(plan, b, x);
    check_exact(x.to_host(), sp_solution);
    check_exact(b.to_host(), {2, -7, 17, 8});
  }
  SUBCASE("upper non-unit") {
    const auto plan = sptrsv_analyze(Uplo::upper, Diag::non_unit, A);
    const auto b = Vector<T>::from_host(dev, as<T>({-5, -8, 15, -1}));
    Vector<T> x(dev, 4);
    sptrsv_solve(plan, b, x);
    check_exact(x.to_host(), sp_solution);
  }
  SUBCASE("lower unit, solved in place") {
    const auto plan = sptrsv_analyze(Uplo::lower, Diag::unit, A);
    auto x = Vector<T>::from_host(dev, as<T>({1, -1, 5, 8}));
    sptrsv_solve(plan, x, x);
    check_exact(x.to_host(), sp_solution);
  }
  SUBCASE("upper non-unit, solved in place, plan reused") {
    const auto plan = sptrsv_analyze(Uplo::upper, Diag::non_unit, A);
    auto x = Vector<T>::from_host(dev, as<T>({-5, -8, 15, -1}));
    sptrsv_solve(plan, x, x);
    check_exact(x.to_host(), sp_solution);
    x.upload(as<T>({-10, -16, 30, -2}));
    sptrsv_solve(plan, x, x);
    check_exact(x.to_host(), {2, -4, 6, -2});
  }
}

TEST_CASE_TEMPLATE("reference sptrsv: a singular triangle is rejected naming the row", T, float, double) {
  const Device dev = reference();
  SUBCASE("missing diagonal entry") {
    // Row 1 holds only (1, 0) in the lower triangle; its (1, 2) entry is in the upper one.
    const auto A = CsrMatrix<T>::from_host(dev, 3, 3, {0, 1, 3, 4}, {0, 0, 2, 2}, as<T>({1, 1, 5, 1}));
    CHECK_THROWS_WITH_AS(sptrsv_analyze(Uplo::lower, Diag::non_unit, A), doctest::Contains("row 1 has no diagonal"),
                         InvalidArgument);
    // The upper triangle has every diagonal entry but row 1's; a unit diagonal needs none.
    CHECK_THROWS_WITH_AS(sptrsv_analyze(Uplo::upper, Diag::non_unit, A), doctest::Contains("row 1"),
                         InvalidArgument);
    CHECK_NOTHROW(sptrsv_analyze(Uplo::lower, Diag::unit, A));
  }
  SUBCASE("duplicates that sum to zero") {
    const auto A = CsrMatrix<T>::from_host(dev, 3, 3, {0, 1, 2, 5}, {0, 1, 2, 0, 2}, as<T>({1, 1, 1.5, 4, -1.5}));
    CHECK_THROWS_WITH_AS(sptrsv_analyze(Uplo::lower, Diag::non_unit, A), doctest::Contains("row 2 has a zero diagonal"),
                         InvalidArgument);
    CHECK_NOTHROW(sptrsv_analyze(Uplo::lower, Diag::unit, A));
  }
}

// ---- stencil ----

TEST_CASE_TEMPLATE("reference stencil: 2D radius 1 on 5x5, one and two steps", T, float, double) {
  const Device dev = reference();
  const std::vector<double> u0 = {1, 2, 3, 4, 5,  //
                                  6, 8, 1, 0, 2,  //
                                  4, 3, 7, 5, 9,  //
                                  2, 6, 0, 8, 1,  //
                                  3, 1, 4, 1, 5};
  const std::vector<T> coeffs = {T(0.5), T(0.125)};
  Grid<T> u(dev, 5, 5);
  u.upload(as<T>(u0));
  // new = 0.5 * centre + 0.125 * (up + down + left + right) on the 3x3 interior.
  const std::vector<double> one_step = {1, 2,     3,     4,   5,  //
                                        6, 5.5,   2.75,  1.5, 2,  //
                                        4, 4.625, 4.625, 5.5, 9,  //
                                        2, 3.75,  3.125, 4.875, 1,  //
                                        3, 1,     4,     1,   5};
  SUBCASE("one step") {
    stencil(coeffs, u, 1);
    check_exact(u.to_host(), one_step);
  }
  SUBCASE("two steps read the previous step, not the cells already updated") {
    stencil(coeffs, u, 2);
    const auto h = u.to_host();
    // Centre: 0.5 * 4.625 + 0.125 * (2.75 + 3.125 + 4.625 + 5.5) = 2.3125 + 2.
    CHECK(h[12] == T(4.3125));
    // Two steps are one step applied twice; the boundary still holds its first values.
    Grid<T> w(dev, 5, 5);
    w.upload(as<T>(one_step));
    stencil(coeffs, w, 1);
    CHECK(h == w.to_host());
    for (int i : {0, 1, 2, 3, 4, 5, 9, 10, 14, 15, 19, 20, 21, 22, 23, 24}) {
      INFO("boundary cell " << i);
      CHECK(static_cast<double>(h[static_cast<std::size_t>(i)]) == u0[static_cast<std::size_t>(i)]);
    }
  }
}

TEST_CASE_TEMPLATE("reference stencil: 3D radius 2", T, float, double) {
  const Device dev = reference();
  // nx = 6, ny = 5, nz = 5: the interior (index >= 2 and < n - 2 on every axis) is the two
  // cells (z, y, x) = (2, 2, 2) and (2, 2, 3). u = x^2 + 2 y^2 + 3 z^2.
  const std::int64_t nx = 6, ny = 5, nz = 5;
  std::vector<double> u0;
  for (std::int64_t z = 0; z < nz; ++z)
    for (std::int64_t y = 0; y < ny; ++y)
      for (std::int64_t x = 0; x < nx; ++x) u0.push_back(static_cast<double>(x * x + 2 * y * y + 3 * z * z));
  Grid<T> u(dev, nx, ny, nz);
  u.upload(as<T>(u0));
  stencil(std::vector<T>{T(0.5), T(0.25), T(-0.125)}, u, 1);
  // (2,2,2): centre 24, distance-1 neighbours 21+29+18+34+15+39 = 156, distance-2
  // 20+36+16+48+12+60 = 192: 12 + 39 - 24 = 27.
  // (2,2,3): centre 29, distance 1: 24+36+23+39+20+44 = 186, distance 2: 21+45+21+53+17+65 = 222:
  // 14.5 + 46.5 - 27.75 = 33.25.
  std::vector<double> expected = u0;
  expected[static_cast<std::size_t>((2 * ny + 2) * nx + 2)] = 27;
  expected[static_cast<std::size_t>((2 * ny + 2) * nx + 3)] = 33.25;
  check_exact(u.to_host(), expected);
}

TEST_CASE_TEMPLATE("reference stencil: an axis shorter than 2r+1 leaves no interior", T, float, double) {
  const Device dev = reference();
  const std::vector<double> u0 = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
  SUBCASE("2D, ny = 2") {
    Grid<T> u(dev, 5, 2);
    u.upload(as<T>(u0));
    stencil(std::vector<T>{T(1), T(1)}, u, 3);
    check_exact(u.to_host(), u0);
  }
  SUBCASE("3D radius 2, nx = 4") {
    std::vector<double> big(4 * 5 * 5);
    for (std::size_t i = 0; i < big.size(); ++i) big[i] = static_cast<double>(i);
    Grid<T> u(dev, 4, 5, 5);
    u.upload(as<T>(big));
    stencil(std::vector<T>{T(1), T(1), T(1)}, u, 1);
    check_exact(u.to_host(), big);
  }
}

// ---- convolution ----

namespace {
// I = [1 2 3 0; 4 5 6 1; 7 8 9 2; 0 1 2 3]; F has no symmetry, so a flipped or transposed
// filter gives other values.
const std::vector<double> conv_image = {1, 2, 3, 0, 4, 5, 6, 1, 7, 8, 9, 2, 0, 1, 2, 3};
const std::vector<double> conv_f3 = {1, 2, 0, 0, 1, -1, 3, 0, 0};
const std::vector<double> conv_f2 = {1, 2, 3, -1};
}  // namespace

TEST_CASE_TEMPLATE("reference conv2d: valid and same, 3x3 and 2x2 filters", T, float, double) {
  const Device dev = reference();
  const auto image = DenseMatrix<T>::from_host(dev, 4, 4, as<T>(conv_image), 6);
  SUBCASE("3x3 valid") {
    // out(p,q) = I(p,q) + 2 I(p,q+1) + I(p+1,q+1) - I(p+1,q+2) + 3 I(p+2,q)
    const auto f = DenseMatrix<T>::from_host(dev, 3, 3, as<T>(conv_f3));
    DenseMatrix<T> out(dev, 2, 2, 3);
    conv2d(ConvMode::valid, image, f, out);
    check_exact(out.to_host(), {25, 37, 13, 27});
  }
  SUBCASE("3x3 same (pad 1 on every side)") {
    const auto f = DenseMatrix<T>::from_host(dev, 3, 3, as<T>(conv_f3), 4);
    DenseMatrix<T> out(dev, 4, 4, 5);
    conv2d(ConvMode::same, image, f, out);
    check_exact(out.to_host(), {-1, 11, 18, 18,  //
                                1,  25, 37, 31,  //
                                7,  13, 27, 16,  //
                                13, 22, 25, 16});
  }
  SUBCASE("2x2 valid") {
    // out(p,q) = I(p,q) + 2 I(p,q+1) + 3 I(p+1,q) - I(p+1,q+1)
    const auto f = DenseMatrix<T>::from_host(dev, 2, 2, as<T>(conv_f2));
    DenseMatrix<T> out(dev, 3, 3);
    conv2d(ConvMode::valid, image, f, out);
    check_exact(out.to_host(), {12, 17, 20, 27, 32, 33, 22, 27, 16});
  }
  SUBCASE("2x2 same (no pad before, 1 after)") {
    const auto f = DenseMatrix<T>::from_host(dev, 2, 2, as<T>(conv_f2));
    DenseMatrix<T> out(dev, 4, 4);
    conv2d(ConvMode::same, image, f, out);
    check_exact(out.to_host(), {12, 17, 20, 3,  //
                                27, 32, 33, 7,  //
                                22, 27, 16, 11,  //
                                2,  5,  8,  3});
  }
}

TEST_CASE_TEMPLATE("reference conv_layer: pad 1, stride 2, two images, two channels, two filters", T, float, double) {
  const Device dev = reference();
  // in(0) = [I, ones], in(1) = [2I, ones]; filter 0 = [F, all ones], filter 1 = [2 at the
  // centre, -1 at (0,0)]. With pad 1 and stride 2, output (p,q) sees rows and columns 2p-1..2p+1
  // and 2q-1..2q+1: channel 0 under F is the 'same' 3x3 result at (2p, 2q), channel 1 under
  // all ones counts the in-bounds cells (4, 6, 6, 9), and the centre tap reads I(2p, 2q).
  std::vector<double> in;
  for (double scale : {1.0, 2.0}) {
    for (double v : conv_image) in.push_back(scale * v);
    in.insert(in.end(), 16, 1.0);
  }
  std::vector<double> filter = conv_f3;
  filter.insert(filter.end(), 9, 1.0);
  filter.insert(filter.end(), {0, 0, 0, 0, 2, 0, 0, 0, 0});
  filter.insert(filter.end(), {-1, 0, 0, 0, 0, 0, 0, 0, 0});

  Tensor4<T> x(dev, 2, 2, 4, 4), w(dev, 2, 2, 3, 3), out(dev, 2, 2, 2, 2);
  x.upload(as<T>(in));
  w.upload(as<T>(filter));
  ConvParams p;
  p.pad_h = p.pad_w = 1;
  p.stride_h = p.stride_w = 2;
  conv_layer(p, x, w, out);
  check_exact(out.to_host(), {3, 24, 13, 36,  // n 0, k 0: [-1 18; 7 27] + [4 6; 6 9]
                              2, 6, 14, 17,   // n 0, k 1: 2 [1 3; 7 9] - [0 0; 0 1]
                              2, 42, 20, 63,  // n 1, k 0: 2 [-1 18; 7 27] + [4 6; 6 9]
                              4, 12, 28, 35});
}

TEST_CASE_TEMPLATE("reference conv_layer: different padding and stride per axis", T, float, double) {
  const Device dev = reference();
  // in = the first 3 rows of I (1 x 1 x 3 x 4), filter [1 2; 3 -1], pad (0, 1), stride (1, 2):
  // P = (3 - 2) / 1 + 1 = 2, Q = (4 + 2 - 2) / 2 + 1 = 3, and
  // out(p,q) = in(p,2q-1) + 2 in(p,2q) + 3 in(p+1,2q-1) - in(p+1,2q).
  Tensor4<T> x(dev, 1, 1, 3, 4), w(dev, 1, 1, 2, 2), out(dev, 1, 1, 2, 3);
  x.upload(as<T>({1, 2, 3, 0, 4, 5, 6, 1, 7, 8, 9, 2}));
  w.upload(as<T>(conv_f2));
  ConvParams p;
  p.pad_h = 0;
  p.pad_w = 1;
  p.stride_h = 1;
  p.stride_w = 2;
  conv_layer(p, x, w, out);
  check_exact(out.to_host(), {-2, 17, 3, 1, 32, 7});
}

// ---- device info ----

TEST_CASE("reference device: info") {
  const DeviceInfo info = reference().info();
  CHECK(info.name == "Tessera reference (sequential, double accumulation)");
  CHECK(info.vendor == "Tessera");
  CHECK(info.type == "cpu");
  CHECK(info.compute_units == 1);
  CHECK(info.memory_bytes > 0);
  CHECK(info.simd_target.empty());
  for (Op op : all_ops) {
    CHECK(reference().backend().support(op, DType::f32).ok);
    CHECK(reference().backend().support(op, DType::f64).ok);
  }
}
