// Generated sparse matrices: grid Laplacians and random / power-law row lengths.
//
// Every generator works in two parallel passes: the length of each row, a prefix sum, then
// each row filled on its own. Random rows draw from their own splitmix64 stream, seeded from
// (seed, row), so the matrix depends on the seed only, not on the number of OpenMP threads or
// on how rows are scheduled. The random mappings (bounded integers, values) are written out
// here instead of using std::uniform_*_distribution, whose output differs between standard
// libraries; integer outputs are therefore identical on every platform.
#include "tessera/generate.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "tessera/errors.hpp"

namespace tessera {
namespace {

constexpr std::int64_t kInt32Max = std::numeric_limits<std::int32_t>::max();

// CsrMatrix keeps int32 indices, and row_ptr has rows + 1 entries.
void check_shape(const char* op, std::int64_t rows, std::int64_t cols) {
  if (rows < 0 || cols < 0)
    throw InvalidArgument(std::string(op) + ": negative size " + std::to_string(rows) + " x " + std::to_string(cols));
  if (rows > kInt32Max - 1 || cols > kInt32Max)
    throw InvalidArgument(std::string(op) + ": " + std::to_string(rows) + " x " + std::to_string(cols) +
                          " does not fit int32 indices (at most " + std::to_string(kInt32Max - 1) + " rows and " +
                          std::to_string(kInt32Max) + " columns)");
}

// Grid extents: each must be >= 0, and their product (the row count) must fit int32. Checked
// one factor at a time so that the product cannot overflow int64 on the way.
std::int64_t grid_points(const char* op, std::initializer_list<std::int64_t> extents) {
  std::int64_t n = 1;
  std::string shape;
  for (std::int64_t e : extents) shape += (shape.empty() ? "" : " x ") + std::to_string(e);
  for (std::int64_t e : extents) {
    if (e < 0) throw InvalidArgument(std::string(op) + ": negative grid extent in " + shape);
    if (e > 0 && n > (kInt32Max - 1) / e)
      throw InvalidArgument(std::string(op) + ": a " + shape + " grid has more than " + std::to_string(kInt32Max - 1) +
                            " points, which int32 indices cannot hold");
    n *= e;
  }
  for (std::int64_t e : extents)
    if (e == 0) return 0;
  return n;
}

// row_ptr[r + 1] holds row r's length on entry; makes it the prefix sum and sizes the arrays.
template <class T>
void finish_row_ptr(HostCsr<T>& A, const char* op) {
  std::int64_t sum = 0;
  for (std::size_t r = 1; r < A.row_ptr.size(); ++r) {
    sum += A.row_ptr[r];
    if (sum > kInt32Max)
      throw InvalidArgument(std::string(op) + ": more than " + std::to_string(kInt32Max) +
                            " nonzeros, which int32 indices cannot hold");
    A.row_ptr[r] = static_cast<std::int32_t>(sum);
  }
  A.col_idx.resize(static_cast<std::size_t>(sum));
  A.values.resize(static_cast<std::size_t>(sum));
}

// splitmix64 (Steele, Lea and Flood, "Fast splittable pseudorandom number generators", 2014):
// a 64-bit counter through a bijective mixer; tiny state, so one stream per row is free.
constexpr std::uint64_t kGolden = 0x9E3779B97F4A7C15ull;
constexpr std::uint64_t mix64(std::uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

class RowRng {
 public:
  // Row streams start at mix64(mix64(seed) + row): distinct rows get distinct, scattered
  // starting points on the 2^64 cycle, so their (short) streams do not overlap in practice.
  RowRng(std::uint64_t seed, std::int64_t row) : s_(mix64(mix64(seed) + static_cast<std::uint64_t>(row))) {}

  std::uint64_t next() { return mix64(s_ += kGolden); }

  // Uniform in [0, n), n >= 1, without bias: Lemire's multiply-and-reject on 32 bits, so it
  // needs no 128-bit arithmetic (armhf has none).
  std::uint32_t below(std::uint32_t n) {
    std::uint64_t m = (next() >> 32) * n;
    if (static_cast<std::uint32_t>(m) < n) {
      const std::uint32_t threshold = static_cast<std::uint32_t>(-n) % n;  // 2^32 mod n
      while (static_cast<std::uint32_t>(m) < threshold) m = (next() >> 32) * n;
    }
    return static_cast<std::uint32_t>(m >> 32);
  }

  // Uniform in [0, 1) on the 2^-53 grid.
  double unit() { return static_cast<double>(next() >> 11) * 0x1p-53; }

  // Uniform magnitude in [0.1, 1) with a random sign: never zero, never tiny.
  template <class T>
  T value() {
    const std::uint64_t x = next();
    const double magnitude = 0.1 + 0.9 * (static_cast<double>(x >> 11) * 0x1p-53);
    return static_cast<T>((x & 1) ? -magnitude : magnitude);
  }

 private:
  std::uint64_t s_;
};

// Draws `count` distinct values of [0, n) into out[0..count), sorted: draw, sort, drop repeats,
// draw again for the shortfall. Given the final count, the set is uniform over all subsets.
// Callers keep count <= n / 2, so a round loses at most half its draws to repeats.
void draw_distinct(RowRng& rng, std::uint32_t n, std::int32_t* out, std::int64_t count) {
  std::int64_t have = 0;
  while (have < count) {
    for (std::int64_t k = have; k < count; ++k) out[k] = static_cast<std::int32_t>(rng.below(n));
    std::sort(out, out + count);
    have = std::unique(out, out + count) - out;
  }
}

// `count` distinct sorted columns of [0, n). For rows fuller than half, the columns left out are
// drawn instead, which keeps the work proportional to min(count, n - count).
void sample_columns(RowRng& rng, std::int64_t n, std::int32_t* out, std::int64_t count,
                    std::vector<std::int32_t>& scratch) {
  if (count == 0) return;
  const auto un = static_cast<std::uint32_t>(n);
  if (2 * count <= n) {
    draw_distinct(rng, un, out, count);
    return;
  }
  scratch.resize(static_cast<std::size_t>(n - count));
  draw_distinct(rng, un, scratch.data(), n - count);
  std::size_t skip = 0;
  std::int64_t w = 0;
  for (std::int32_t c = 0; c < n; ++c) {
    if (skip < scratch.size() && scratch[skip] == c) {
      ++skip;
      continue;
    }
    out[w++] = c;
  }
}

// Fills rows whose lengths come from length(rng, row) (drawn first from the row's stream) with
// random distinct columns of [0, cols) and random values.
template <class T, class Length>
HostCsr<T> random_rows(const char* op, std::int64_t rows, std::int64_t cols, std::uint64_t seed, Length length) {
  HostCsr<T> A;
  A.rows = rows;
  A.cols = cols;
  A.row_ptr.assign(static_cast<std::size_t>(rows) + 1, 0);
#pragma omp parallel for schedule(static)
  for (std::int64_t r = 0; r < rows; ++r) {
    RowRng rng(seed, r);
    A.row_ptr[static_cast<std::size_t>(r) + 1] = static_cast<std::int32_t>(length(rng));
  }
  finish_row_ptr(A, op);
#pragma omp parallel
  {
    std::vector<std::int32_t> scratch;
#pragma omp for schedule(dynamic, 1024)
    for (std::int64_t r = 0; r < rows; ++r) {
      RowRng rng(seed, r);
      const std::int64_t len = length(rng);  // the same draw as in the first pass
      const std::int32_t b = A.row_ptr[static_cast<std::size_t>(r)];
      sample_columns(rng, cols, A.col_idx.data() + b, len, scratch);
      for (std::int64_t k = 0; k < len; ++k) A.values[static_cast<std::size_t>(b + k)] = rng.value<T>();
    }
  }
  return A;
}

// Both Laplacians loop over grid lines (x runs fastest, index = (z * ny + y) * nx + x), so the
// inner loop has no divisions; the 2-D one is the 3-D one with nz = 1 and no z neighbours.
template <class T>
HostCsr<T> grid_laplacian(const char* op, std::int64_t n, std::int64_t nx, std::int64_t ny, std::int64_t nz,
                          T diagonal) {
  const std::int64_t plane = nx * ny, lines = ny * nz;
  HostCsr<T> A;
  A.rows = A.cols = n;
  A.row_ptr.assign(static_cast<std::size_t>(n) + 1, 0);
  if (n == 0) return A;
#pragma omp parallel for schedule(static)
  for (std::int64_t line = 0; line < lines; ++line) {
    const std::int64_t y = line % ny, z = line / ny;
    const std::int32_t outer = 1 + (y > 0) + (y + 1 < ny) + (z > 0) + (z + 1 < nz);
    std::int32_t* len = A.row_ptr.data() + line * nx + 1;
    for (std::int64_t x = 0; x < nx; ++x) len[x] = outer + (x > 0) + (x + 1 < nx);
  }
  finish_row_ptr(A, op);
#pragma omp parallel for schedule(static)
  for (std::int64_t line = 0; line < lines; ++line) {
    const std::int64_t y = line % ny, z = line / ny;
    std::int32_t* col = A.col_idx.data();
    T* val = A.values.data();
    std::size_t k = static_cast<std::size_t>(A.row_ptr[static_cast<std::size_t>(line * nx)]);
    for (std::int64_t x = 0, i = line * nx; x < nx; ++x, ++i) {
      // In column order, so each row comes out sorted.
      if (z > 0) col[k] = static_cast<std::int32_t>(i - plane), val[k++] = T(-1);
      if (y > 0) col[k] = static_cast<std::int32_t>(i - nx), val[k++] = T(-1);
      if (x > 0) col[k] = static_cast<std::int32_t>(i - 1), val[k++] = T(-1);
      col[k] = static_cast<std::int32_t>(i), val[k++] = diagonal;
      if (x + 1 < nx) col[k] = static_cast<std::int32_t>(i + 1), val[k++] = T(-1);
      if (y + 1 < ny) col[k] = static_cast<std::int32_t>(i + nx), val[k++] = T(-1);
      if (z + 1 < nz) col[k] = static_cast<std::int32_t>(i + plane), val[k++] = T(-1);
    }
  }
  return A;
}

}  // namespace

template <class T>
HostCsr<T> laplacian_2d(std::int64_t nx, std::int64_t ny) {
  const std::int64_t n = grid_points("laplacian_2d", {nx, ny});
  return grid_laplacian<T>("laplacian_2d", n, nx, ny, 1, T(4));
}

// Diagonal 6.5 rather than 6: strictly diagonally dominant, as in the vendor SpMV/solver figures.
template <class T>
HostCsr<T> laplacian_3d(std::int64_t nx, std::int64_t ny, std::int64_t nz) {
  const std::int64_t n = grid_points("laplacian_3d", {nx, ny, nz});
  return grid_laplacian<T>("laplacian_3d", n, nx, ny, nz, T(6.5));
}

template <class T>
HostCsr<T> random_csr(std::int64_t rows, std::int64_t cols, int min_per_row, int max_per_row, std::uint64_t seed) {
  check_shape("random_csr", rows, cols);
  if (min_per_row < 0 || min_per_row > max_per_row)
    throw InvalidArgument("random_csr: row lengths [" + std::to_string(min_per_row) + ", " +
                          std::to_string(max_per_row) + "], expected 0 <= min_per_row <= max_per_row");
  if (max_per_row > cols)
    throw InvalidArgument("random_csr: max_per_row = " + std::to_string(max_per_row) +
                          " exceeds cols = " + std::to_string(cols) + "; a row holds at most cols distinct columns");
  const auto span = static_cast<std::uint32_t>(max_per_row - min_per_row) + 1;
  return random_rows<T>("random_csr", rows, cols, seed,
                        [=](RowRng& rng) { return std::int64_t{min_per_row} + rng.below(span); });
}

template <class T>
HostCsr<T> power_law_csr(std::int64_t rows, double exponent, int min_len, int max_len, std::uint64_t seed) {
  check_shape("power_law_csr", rows, rows);
  if (!(exponent > 0) || !std::isfinite(exponent))
    throw InvalidArgument("power_law_csr: exponent = " + std::to_string(exponent) + ", expected a finite value > 0");
  if (min_len < 0 || min_len > max_len)
    throw InvalidArgument("power_law_csr: row lengths [" + std::to_string(min_len) + ", " + std::to_string(max_len) +
                          "], expected 0 <= min_len <= max_len");
  const std::int64_t cap = std::min<std::int64_t>(max_len, rows);
  const double inv_exponent = 1.0 / exponent;
  return random_rows<T>("power_law_csr", rows, rows, seed, [=](RowRng& rng) {
    // Inverse-CDF sampling of a Pareto law; 1 - u is in (0, 1], so the length is >= min_len
    // (the comparison is written so that an infinite length also lands on the cap).
    const double len = min_len / std::pow(1.0 - rng.unit(), inv_exponent);
    return len < static_cast<double>(cap) ? static_cast<std::int64_t>(len) : cap;
  });
}

#define TESSERA_INSTANTIATE_GENERATORS(T)                                                 \
  template HostCsr<T> laplacian_2d<T>(std::int64_t, std::int64_t);                        \
  template HostCsr<T> laplacian_3d<T>(std::int64_t, std::int64_t, std::int64_t);          \
  template HostCsr<T> random_csr<T>(std::int64_t, std::int64_t, int, int, std::uint64_t); \
  template HostCsr<T> power_law_csr<T>(std::int64_t, double, int, int, std::uint64_t);
TESSERA_INSTANTIATE_GENERATORS(float)
TESSERA_INSTANTIATE_GENERATORS(double)
#undef TESSERA_INSTANTIATE_GENERATORS

}  // namespace tessera
