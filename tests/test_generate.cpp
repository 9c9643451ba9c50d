// The sparse-matrix generators: Laplacians compared entry by entry with the grid they come
// from, random and power-law matrices checked for their stated distributions, determinism in
// the seed, and argument validation.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <utility>
#include <vector>

#include "tessera/tessera.hpp"

namespace {

using Entries = std::map<std::pair<std::int64_t, std::int64_t>, double>;

template <class T>
Entries entries_of(const tessera::HostCsr<T>& A) {
  Entries e;
  for (std::int64_t r = 0; r < A.rows; ++r)
    for (std::int32_t k = A.row_ptr[static_cast<std::size_t>(r)]; k < A.row_ptr[static_cast<std::size_t>(r) + 1]; ++k)
      e[{r, A.col_idx[static_cast<std::size_t>(k)]}] += static_cast<double>(A.values[static_cast<std::size_t>(k)]);
  return e;
}

// Valid CSR (the library's own check, through from_host on the reference device) with
// strictly increasing columns in every row.
template <class T>
void check_csr(const tessera::HostCsr<T>& A) {
  CHECK_NOTHROW(tessera::CsrMatrix<T>::from_host(tessera::Device::open("reference"), A));
  REQUIRE(A.row_ptr.size() == static_cast<std::size_t>(A.rows) + 1);
  bool sorted = true;
  for (std::int64_t r = 0; r < A.rows; ++r)
    for (std::int32_t k = A.row_ptr[static_cast<std::size_t>(r)] + 1; k < A.row_ptr[static_cast<std::size_t>(r) + 1];
         ++k)
      if (A.col_idx[static_cast<std::size_t>(k)] <= A.col_idx[static_cast<std::size_t>(k) - 1]) sorted = false;
  CHECK_MESSAGE(sorted, "columns are not strictly increasing in some row");
}

// The stencil written directly from the grid: point (x, y, z) is row (z * ny + y) * nx + x.
Entries grid_stencil(std::int64_t nx, std::int64_t ny, std::int64_t nz, double diagonal) {
  Entries e;
  auto id = [&](std::int64_t x, std::int64_t y, std::int64_t z) { return (z * ny + y) * nx + x; };
  for (std::int64_t z = 0; z < nz; ++z)
    for (std::int64_t y = 0; y < ny; ++y)
      for (std::int64_t x = 0; x < nx; ++x) {
        const std::int64_t i = id(x, y, z);
        e[{i, i}] = diagonal;
        const std::int64_t d[6][3] = {{-1, 0, 0}, {1, 0, 0}, {0, -1, 0}, {0, 1, 0}, {0, 0, -1}, {0, 0, 1}};
        for (const auto& s : d) {
          const std::int64_t X = x + s[0], Y = y + s[1], Z = z + s[2];
          if (X >= 0 && X < nx && Y >= 0 && Y < ny && Z >= 0 && Z < nz) e[{i, id(X, Y, Z)}] = -1.0;
        }
      }
  return e;
}

std::uint64_t fnv1a(const std::vector<std::int32_t>& v, std::uint64_t h = 0xcbf29ce484222325ull) {
  for (std::int32_t x : v)
    for (int b = 0; b < 4; ++b) h = (h ^ ((static_cast<std::uint32_t>(x) >> (8 * b)) & 0xffu)) * 0x100000001b3ull;
  return h;
}

template <class T>
bool same(const tessera::HostCsr<T>& a, const tessera::HostCsr<T>& b) {
  return a.rows == b.rows && a.cols == b.cols && a.row_ptr == b.row_ptr && a.col_idx == b.col_idx &&
         a.values == b.values;
}

// Every value is in [-1, -0.1] U [0.1, 1].
template <class T>
bool values_in_range(const tessera::HostCsr<T>& A) {
  return std::all_of(A.values.begin(), A.values.end(), [](T v) {
    const T a = std::abs(v);
    return a >= T(0.1) && a <= T(1);
  });
}

}  // namespace

TEST_CASE_TEMPLATE("generate: laplacian_2d is the 5-point stencil on the grid", T, float, double) {
  for (const auto& [nx, ny] : std::vector<std::pair<int, int>>{{1, 1}, {3, 4}, {5, 1}, {1, 7}, {17, 9}, {2, 2}}) {
    INFO(nx << " x " << ny);
    const auto A = tessera::laplacian_2d<T>(nx, ny);
    CHECK(A.rows == nx * ny);
    CHECK(A.cols == nx * ny);
    CHECK(A.nnz() == nx * ny + 2 * (nx - 1) * ny + 2 * nx * (ny - 1));
    check_csr(A);
    CHECK(entries_of(A) == grid_stencil(nx, ny, 1, 4.0));
  }
}

TEST_CASE_TEMPLATE("generate: laplacian_3d is the 7-point stencil, x fastest", T, float, double) {
  for (const auto& s :
       std::vector<std::vector<int>>{{1, 1, 1}, {3, 4, 5}, {4, 1, 1}, {1, 1, 6}, {2, 3, 1}, {7, 5, 3}}) {
    const int nx = s[0], ny = s[1], nz = s[2];
    INFO(nx << " x " << ny << " x " << nz);
    const auto A = tessera::laplacian_3d<T>(nx, ny, nz);
    CHECK(A.rows == nx * ny * nz);
    CHECK(A.nnz() == nx * ny * nz + 2 * ((nx - 1) * ny * nz + nx * (ny - 1) * nz + nx * ny * (nz - 1)));
    check_csr(A);
    CHECK(entries_of(A) == grid_stencil(nx, ny, nz, 6.5));
  }
  // Row (z * ny + y) * nx + x of a 4 x 3 x 2 grid: point (1, 1, 0) = row 5 has x neighbours
  // 4 and 6, y neighbours 1 and 9, z neighbour 17.
  const auto A = tessera::laplacian_3d<T>(4, 3, 2);
  CHECK(std::vector<std::int32_t>(A.col_idx.begin() + A.row_ptr[5], A.col_idx.begin() + A.row_ptr[6]) ==
        std::vector<std::int32_t>{1, 4, 5, 6, 9, 17});
}

TEST_CASE("generate: Laplacian sizes are validated before anything is allocated") {
  CHECK(tessera::laplacian_2d<double>(0, 5).rows == 0);
  CHECK(tessera::laplacian_2d<double>(0, 5).row_ptr == std::vector<std::int32_t>{0});
  CHECK(tessera::laplacian_3d<double>(4, 0, 3).nnz() == 0);
  CHECK_THROWS_AS(tessera::laplacian_2d<double>(-1, 5), tessera::InvalidArgument);
  CHECK_THROWS_AS(tessera::laplacian_3d<float>(3, 3, -2), tessera::InvalidArgument);
  CHECK_THROWS_WITH_AS(tessera::laplacian_3d<double>(2000, 2000, 2000), doctest::Contains("int32"),
                       tessera::InvalidArgument);
  CHECK_THROWS_AS(tessera::laplacian_2d<double>(1 << 20, 1 << 20), tessera::InvalidArgument);
  CHECK_THROWS_AS(tessera::laplacian_2d<double>(std::numeric_limits<std::int64_t>::max(), 3), tessera::InvalidArgument);
  CHECK_THROWS_AS(tessera::laplacian_3d<double>(std::numeric_limits<std::int64_t>::max(), 1 << 30, 1 << 30),
                  tessera::InvalidArgument);
}

TEST_CASE_TEMPLATE("generate: random_csr rows, columns and values", T, float, double) {
  const auto A = tessera::random_csr<T>(20000, 3001, 0, 20, 42);
  CHECK(A.rows == 20000);
  CHECK(A.cols == 3001);
  check_csr(A);
  CHECK(values_in_range(A));
  // Lengths: within bounds, every length occurs, mean (min + max) / 2.
  std::vector<int> seen(21, 0);
  bool in_bounds = true;
  for (std::int64_t r = 0; r < A.rows; ++r) {
    const std::int32_t len = A.row_ptr[static_cast<std::size_t>(r) + 1] - A.row_ptr[static_cast<std::size_t>(r)];
    in_bounds &= len >= 0 && len <= 20;
    if (len >= 0 && len <= 20) ++seen[static_cast<std::size_t>(len)];
  }
  CHECK(in_bounds);
  CHECK(std::count(seen.begin(), seen.end(), 0) == 0);
  CHECK(static_cast<double>(A.nnz()) / A.rows == doctest::Approx(10.0).epsilon(0.02));
  // Columns uniform: mean near the middle, both ends used; signs balanced.
  double col_sum = 0;
  for (std::int32_t c : A.col_idx) col_sum += c;
  CHECK(col_sum / static_cast<double>(A.nnz()) / 3000.0 == doctest::Approx(0.5).epsilon(0.02));
  CHECK(*std::min_element(A.col_idx.begin(), A.col_idx.end()) == 0);
  CHECK(*std::max_element(A.col_idx.begin(), A.col_idx.end()) == 3000);
  const auto negative = std::count_if(A.values.begin(), A.values.end(), [](T v) { return v < 0; });
  CHECK(static_cast<double>(negative) / static_cast<double>(A.nnz()) == doctest::Approx(0.5).epsilon(0.05));
}

TEST_CASE("generate: random_csr is deterministic in the seed and the same in float and double") {
  const auto a = tessera::random_csr<double>(5000, 777, 1, 9, 7);
  const auto b = tessera::random_csr<double>(5000, 777, 1, 9, 7);
  const auto c = tessera::random_csr<double>(5000, 777, 1, 9, 8);
  CHECK(same(a, b));
  CHECK_FALSE(a.col_idx == c.col_idx);
  const auto f = tessera::random_csr<float>(5000, 777, 1, 9, 7);
  CHECK(f.row_ptr == a.row_ptr);
  CHECK(f.col_idx == a.col_idx);
  bool rounded = true;
  for (std::size_t k = 0; k < f.values.size(); ++k) rounded &= f.values[k] == static_cast<float>(a.values[k]);
  CHECK(rounded);
  // A row does not depend on the rows around it (each row has its own stream): the first
  // rows of a taller matrix are the same rows.
  const auto tall = tessera::random_csr<double>(9000, 777, 1, 9, 7);
  CHECK(std::equal(a.row_ptr.begin(), a.row_ptr.end(), tall.row_ptr.begin()));
  CHECK(std::equal(a.col_idx.begin(), a.col_idx.end(), tall.col_idx.begin()));
  // Pinned: the structure is specified (splitmix64 streams, Lemire's bounded integers), so it is
  // the same on every platform, compiler and thread count. Changing the generator changes this.
  const auto pinned = tessera::random_csr<double>(1000, 1000, 0, 16, 12345);
  CHECK(fnv1a(pinned.col_idx, fnv1a(pinned.row_ptr)) == 3602733329884335040ull);
}

TEST_CASE("generate: random_csr full and nearly full rows, empty shapes") {
  const auto full = tessera::random_csr<double>(50, 10, 10, 10, 3);
  check_csr(full);
  bool all_columns = full.nnz() == 500;
  for (std::size_t k = 0; all_columns && k < 500; ++k)
    all_columns = full.col_idx[k] == static_cast<std::int32_t>(k % 10);
  CHECK(all_columns);
  const auto dense = tessera::random_csr<float>(400, 10, 6, 9, 4);  // the "columns left out" path
  check_csr(dense);
  CHECK(values_in_range(dense));
  CHECK(tessera::random_csr<double>(0, 0, 0, 0, 1).row_ptr == std::vector<std::int32_t>{0});
  const auto no_cols = tessera::random_csr<double>(5, 0, 0, 0, 1);
  CHECK(no_cols.row_ptr == std::vector<std::int32_t>(6, 0));
  check_csr(no_cols);
  const auto wide = tessera::random_csr<double>(3, 2000000000, 4, 4, 5);
  check_csr(wide);
  CHECK(wide.nnz() == 12);
}

TEST_CASE("generate: random_csr argument validation") {
  using tessera::InvalidArgument;
  CHECK_THROWS_AS(tessera::random_csr<double>(-1, 5, 0, 1, 1), InvalidArgument);
  CHECK_THROWS_AS(tessera::random_csr<double>(5, -1, 0, 1, 1), InvalidArgument);
  CHECK_THROWS_AS(tessera::random_csr<double>(5, 5, -1, 1, 1), InvalidArgument);
  CHECK_THROWS_WITH_AS(tessera::random_csr<double>(5, 5, 3, 2, 1), doctest::Contains("min_per_row"), InvalidArgument);
  CHECK_THROWS_WITH_AS(tessera::random_csr<double>(5, 5, 1, 6, 1), doctest::Contains("cols = 5"), InvalidArgument);
  CHECK_THROWS_AS(tessera::random_csr<double>(std::int64_t{1} << 31, 5, 0, 1, 1), InvalidArgument);
  CHECK_THROWS_AS(tessera::random_csr<double>(5, std::int64_t{1} << 31, 0, 1, 1), InvalidArgument);
  // More than 2^31 - 1 nonzeros in all: refused after the lengths are drawn, before the fill.
  CHECK_THROWS_WITH_AS(tessera::random_csr<float>(2000000, 2000, 1100, 1100, 1), doctest::Contains("nonzeros"),
                       InvalidArgument);
}

TEST_CASE_TEMPLATE("generate: power_law_csr row lengths follow the stated law", T, float, double) {
  const double exponent = 2.0;
  const int min_len = 3, max_len = 400;
  const auto A = tessera::power_law_csr<T>(20000, exponent, min_len, max_len, 9);
  CHECK(A.rows == 20000);
  CHECK(A.cols == 20000);
  check_csr(A);
  CHECK(values_in_range(A));
  std::int64_t at_least_double = 0, at_cap = 0;
  bool in_bounds = true;
  for (std::int64_t r = 0; r < A.rows; ++r) {
    const std::int32_t len = A.row_ptr[static_cast<std::size_t>(r) + 1] - A.row_ptr[static_cast<std::size_t>(r)];
    in_bounds &= len >= min_len && len <= max_len;
    at_least_double += len >= 2 * min_len;
    at_cap += len == max_len;
  }
  // P(length >= 2 min_len) = 2^-exponent; P(length >= max_len) = (min_len / max_len)^exponent.
  CHECK(in_bounds);
  CHECK(static_cast<double>(at_least_double) / 20000.0 == doctest::Approx(0.25).epsilon(0.08));
  CHECK(at_cap > 0);
  CHECK(at_cap < 20);
  CHECK(same(A, tessera::power_law_csr<T>(20000, exponent, min_len, max_len, 9)));
  CHECK_FALSE(A.col_idx == tessera::power_law_csr<T>(20000, exponent, min_len, max_len, 10).col_idx);
}

TEST_CASE("generate: power_law_csr caps at the column count and validates its arguments") {
  const auto small = tessera::power_law_csr<double>(12, 0.5, 3, 100, 1);
  check_csr(small);
  for (std::int64_t r = 0; r < 12; ++r)
    CHECK(small.row_ptr[static_cast<std::size_t>(r) + 1] - small.row_ptr[static_cast<std::size_t>(r)] <= 12);
  const auto capped = tessera::power_law_csr<double>(5, 1.0, 8, 10, 1);  // min_len > cols: every row full
  CHECK(capped.nnz() == 25);
  CHECK(tessera::power_law_csr<double>(0, 1.5, 1, 4, 1).rows == 0);
  CHECK(tessera::power_law_csr<double>(30, 1.5, 0, 0, 1).nnz() == 0);
  // A tiny exponent sends lengths to infinity; they land on the cap.
  const auto heavy = tessera::power_law_csr<double>(200, 1e-3, 1, 50, 2);
  check_csr(heavy);
  using tessera::InvalidArgument;
  CHECK_THROWS_AS(tessera::power_law_csr<double>(-1, 1.5, 1, 4, 1), InvalidArgument);
  CHECK_THROWS_AS(tessera::power_law_csr<double>(10, 0.0, 1, 4, 1), InvalidArgument);
  CHECK_THROWS_AS(tessera::power_law_csr<double>(10, -2.0, 1, 4, 1), InvalidArgument);
  CHECK_THROWS_AS(tessera::power_law_csr<double>(10, std::nan(""), 1, 4, 1), InvalidArgument);
  CHECK_THROWS_AS(tessera::power_law_csr<double>(10, HUGE_VAL, 1, 4, 1), InvalidArgument);
  CHECK_THROWS_AS(tessera::power_law_csr<double>(10, 1.5, 5, 4, 1), InvalidArgument);
  CHECK_THROWS_AS(tessera::power_law_csr<double>(10, 1.5, -1, 4, 1), InvalidArgument);
  CHECK_THROWS_AS(tessera::power_law_csr<double>(std::int64_t{1} << 31, 1.5, 1, 4, 1), InvalidArgument);
}
