// stencil: star stencils of radius 1..4 on 2D and 3D grids, several steps, on every device
// against the reference (and the reference against a host loop on small grids).
//
// Coefficients are random with S = |c0| + 2 ndim sum_{d>=1} |c_d| = 1, so one step maps
// max|u| to at most max|u| and does not amplify earlier errors. One step of one cell sums
// 1 + 2 ndim r products: its rounding error is at most gamma_{1 + 2 ndim r} * S * max|u|, and
// after `steps` steps the accumulated difference from the reference (which also rounds to T
// after every step) is at most steps * gamma_{2 + 2 ndim r} * max|u0|. Boundary cells (closer
// than r to a face) must be bit for bit what they were.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include "support/compare.hpp"
#include "support/devices.hpp"
#include "support/random.hpp"
#include "support/scale.hpp"
#include "tessera/tessera.hpp"

using namespace tessera;
using namespace tessera_test;

namespace {

struct GridShape {
  int ndim;
  std::int64_t nx, ny, nz;
};

template <class T>
Grid<T> make_grid(const Device& d, const GridShape& g) {
  return g.ndim == 2 ? Grid<T>(d, g.nx, g.ny) : Grid<T>(d, g.nx, g.ny, g.nz);
}

// Random coefficients c[0..r] normalised to S = |c0| + 2 ndim sum |c_d| = 1.
template <class T>
std::vector<T> stencil_coeffs(int ndim, int r, std::uint32_t seed) {
  Rng rng(seed);
  std::vector<double> c(static_cast<std::size_t>(r + 1));
  double s = 0;
  for (int d = 0; d <= r; ++d) {
    c[static_cast<std::size_t>(d)] = rng.nonzero();
    s += std::abs(c[static_cast<std::size_t>(d)]) * (d == 0 ? 1.0 : 2.0 * ndim);
  }
  std::vector<T> out;
  for (double v : c) out.push_back(static_cast<T>(v / s));
  return out;
}

// Whether cell (x, y, z) is a fixed boundary cell for radius r.
bool is_boundary(const GridShape& g, int r, std::int64_t x, std::int64_t y, std::int64_t z) {
  auto near = [r](std::int64_t i, std::int64_t n) { return i < r || i >= n - r; };
  return near(x, g.nx) || near(y, g.ny) || (g.ndim == 3 && near(z, g.nz));
}

template <class Pred>
std::vector<bool> cell_mask(const GridShape& g, Pred pred) {
  std::vector<bool> m(static_cast<std::size_t>(g.nx * g.ny * g.nz));
  for (std::int64_t z = 0; z < g.nz; ++z)
    for (std::int64_t y = 0; y < g.ny; ++y)
      for (std::int64_t x = 0; x < g.nx; ++x) m[static_cast<std::size_t>((z * g.ny + y) * g.nx + x)] = pred(x, y, z);
  return m;
}

// The host loop: each step in long double from the previous step's grid, rounded to T.
template <class T>
std::vector<T> host_stencil(const GridShape& g, const std::vector<T>& coeffs, std::vector<T> u, int steps) {
  const int r = static_cast<int>(coeffs.size()) - 1;
  const std::int64_t sx = 1, sy = g.nx, sz = g.nx * g.ny;
  for (int s = 0; s < steps; ++s) {
    std::vector<T> next = u;
    for (std::int64_t z = 0; z < g.nz; ++z)
      for (std::int64_t y = 0; y < g.ny; ++y)
        for (std::int64_t x = 0; x < g.nx; ++x) {
          if (is_boundary(g, r, x, y, z)) continue;
          const std::int64_t i = (z * g.ny + y) * g.nx + x;
          long double acc = static_cast<long double>(coeffs[0]) * u[static_cast<std::size_t>(i)];
          for (int d = 1; d <= r; ++d) {
            long double nb = static_cast<long double>(u[static_cast<std::size_t>(i - d * sx)]) + u[static_cast<std::size_t>(i + d * sx)] +
                             u[static_cast<std::size_t>(i - d * sy)] + u[static_cast<std::size_t>(i + d * sy)];
            if (g.ndim == 3) nb += static_cast<long double>(u[static_cast<std::size_t>(i - d * sz)]) + u[static_cast<std::size_t>(i + d * sz)];
            acc += static_cast<long double>(coeffs[static_cast<std::size_t>(d)]) * nb;
          }
          next[static_cast<std::size_t>(i)] = static_cast<T>(acc);
        }
    u = std::move(next);
  }
  return u;
}

std::string describe(const GridShape& g, int r, int steps) {
  std::ostringstream s;
  s << "stencil " << g.ndim << "D " << g.nx << " x " << g.ny;
  if (g.ndim == 3) s << " x " << g.nz;
  s << " radius " << r << " steps " << steps;
  return s.str();
}

template <class T>
void stencil_case(const GridShape& g, const std::vector<T>& coeffs, int steps, std::uint32_t seed,
                  bool check_host = false) {
  const int r = static_cast<int>(coeffs.size()) - 1;
  const std::string what = describe(g, r, steps);
  const auto u0 = random_vector<T>(static_cast<std::size_t>(g.nx * g.ny * g.nz), seed);
  const auto boundary = cell_mask(g, [&](std::int64_t x, std::int64_t y, std::int64_t z) { return is_boundary(g, r, x, y, z); });
  double s = std::abs(static_cast<double>(coeffs[0]));
  for (int d = 1; d <= r; ++d) s += 2.0 * g.ndim * std::abs(static_cast<double>(coeffs[static_cast<std::size_t>(d)]));
  const double growth = std::pow(std::max(s, 1.0), steps);
  const double bound = steps * gamma_bound<T>(2.0 + 2.0 * g.ndim * r) * growth * max_abs_of(u0);
  auto run = [&](const Device& d) {
    Grid<T> u = make_grid<T>(d, g);
    u.upload(u0);
    stencil(coeffs, u, steps);
    return u.to_host();
  };

  std::vector<T> expected;
  if (!on_reference(what.c_str(), [&] { expected = run(reference_device()); })) return;
  check_bitwise_where(expected, u0, [&](std::size_t i) { return static_cast<bool>(boundary[i]); },
                      what + " (reference): boundary changed");
  if (check_host) check_close(expected, host_stencil(g, coeffs, u0, steps), bound, what + " (reference vs host loop)");

  for_each_device<T>(Op::stencil, [&](const Device& d) {
    const auto got = run(d);
    check_bitwise_where(got, u0, [&](std::size_t i) { return static_cast<bool>(boundary[i]); }, what + ": boundary changed");
    check_close(got, expected, bound, what);
  });
}

// Every grid with each step count, fresh coefficients and data each time (seed advances).
template <class T, std::size_t N>
void grid_cases(int ndim, int r, const GridShape (&grids)[N], std::initializer_list<int> step_counts,
                std::uint32_t& seed) {
  for (const GridShape& g : grids)
    for (int steps : step_counts) {
      seed += 2;
      stencil_case<T>(g, stencil_coeffs<T>(ndim, r, seed), steps, seed + 1);
    }
}

}  // namespace

TEST_CASE_TEMPLATE("stencil: known answer (one step of the 2D 5-point heat stencil)", T, float, double) {
  // 3 x 3 grid, only the centre is interior: u' = 0.5 * 4 + 0.125 * (1 + 2 + 3 + 4) = 3.25.
  const std::vector<T> u0 = {9, 1, 9, 2, 4, 3, 9, 4, 9};
  for (const Device& d : all_devices()) {
    run_on_device<T>(d, Op::stencil, [&](const Device& dev) {
      Grid<T> u(dev, 3, 3);
      u.upload(u0);
      stencil<T>({T(0.5), T(0.125)}, u, 1);
      std::vector<T> expected = u0;
      expected[4] = T(3.25);
      CHECK(u.to_host() == expected);
      stencil<T>({T(0.5), T(0.125)}, u, 0);  // zero steps: nothing happens
      CHECK(u.to_host() == expected);
    });
  }
}

TEST_CASE_TEMPLATE("stencil: the reference matches a host loop on small grids", T, float, double) {
  std::uint32_t seed = 70;
  for (int r = 1; r <= 4; ++r) {
    seed += 2;
    stencil_case<T>({2, 13 + r, 11, 1}, stencil_coeffs<T>(2, r, seed), 3, seed + 1, true);
    stencil_case<T>({3, 2 * r + 3, 10, 2 * r + 2}, stencil_coeffs<T>(3, r, seed), 2, seed + 1, true);
  }
}

TEST_CASE_TEMPLATE("stencil: 2D, radius 1..4, steps 1/2/5, odd and degenerate grids", T, float, double) {
  std::uint32_t seed = 100;
  for (int r = 1; r <= 4; ++r) {
    const GridShape grids[] = {
        {2, 17, 13, 1}, {2, 33, 7 + 2 * r, 1}, {2, 2 * r + 1, 30, 1},  // one interior column
        {2, 2 * r, 19, 1},                                             // x shorter than 2r + 1: no interior
        {2, 40, 2 * r, 1},                                             // y shorter than 2r + 1
        {2, 1, 1, 1},       {2, 0, 5, 1},                              // a single cell; an empty grid
        {2, 129, 67, 1}};
    grid_cases<T>(2, r, grids, {1, 2, 5}, seed);
  }
}

TEST_CASE_TEMPLATE("stencil: 3D, radius 1..4, steps 1/2/5, odd and degenerate grids", T, float, double) {
  std::uint32_t seed = 200;
  for (int r = 1; r <= 4; ++r) {
    const GridShape grids[] = {
        {3, 9 + 2 * r, 11, 13}, {3, 17, 2 * r + 3, 33},   // odd sizes
        {3, 2 * r + 1, 2 * r + 1, 2 * r + 1},             // a single interior cell
        {3, 20, 20, 2 * r},                               // z shorter than 2r + 1: no interior
        {3, 2 * r, 20, 20},                               // x shorter than 2r + 1
        {3, 33, 17, 2 * r + 4}};
    grid_cases<T>(3, r, grids, {1, 2, 5}, seed);
  }
}

// Rows a whole number of 16-byte runs (nx % 4 == 0): the grids the vector kernels take (CUDA's
// runs of cells, the bulk-copy plane sweep, OpenCL's vw), with x and y tiles cut short by the grid
// (128 / 64 cells along x per tile of f32 / f64, 8 or 16 rows) and z chunks shorter than the radius.
TEST_CASE_TEMPLATE("stencil: 3D, radius 1..4, rows of whole 16-byte runs, tiles cut by the grid", T, float, double) {
  std::uint32_t seed = 260;
  for (int r = 1; r <= 4; ++r) {
    const GridShape grids[] = {{3, 8 * r + 12, 2 * r + 9, 2 * r + 7}, {3, 132, 19, 2 * r + 5}, {3, 68, 37, 3}};
    grid_cases<T>(3, r, grids, {1, 2, 5}, seed);
  }
}

// Step counts that split unevenly into passes of the temporally blocked paths (cpu: taken for
// grids beyond the last-level cache, forced onto these by the ctest entry
// cpu.stencil_time_blocked; GPU: the radius-1 time-blocked kernels), on odd grids, and one grid
// of whole 16-byte rows spanning several tiles each way (CUDA's runs: 120 / 56-60 cells along x
// and 26-30 rows a tile).
TEST_CASE_TEMPLATE("stencil: 3D, radius 1..4, steps 3/7/16, odd grids (the temporally blocked paths)", T, float,
                   double) {
  std::uint32_t seed = 300;
  for (int r = 1; r <= 4; ++r) {
    const GridShape grids[] = {{3, 4 * r + 17, 6 * r + 11, 2 * r + 19}, {3, 2 * r + 1, 2 * r + 3, 2 * r + 2},
                               {3, 67, 2 * r + 2, 9 + 2 * r}, {3, 252, 61, 2 * r + 9}};
    grid_cases<T>(3, r, grids, {3, 7, 16}, seed);
  }
}

TEST_CASE_TEMPLATE("stencil: the reference cases (2D heat, 3D 7-point, 3D 25-point), larger grids", T, float, double) {
  // 2D 5-point heat equation, 20 steps (coefficients 1 - 4k and k, k = 0.2).
  stencil_case<T>({2, 513, 257, 1}, {T(0.2), T(0.2)}, 20, 1);
  // 3D 7-point (radius 1) and 25-point (radius 4) with random normalised coefficients.
  stencil_case<T>({3, 65, 33, 31}, stencil_coeffs<T>(3, 1, 2), 6, 3);
  stencil_case<T>({3, 64, 40, 37}, stencil_coeffs<T>(3, 4, 4), 5, 5);
}

// Two grids larger than a 32 MiB cache, rows a multiple of every vector width: the cpu device's
// and PoCL's streaming paths (non-temporal stores; boundary lanes from the source), one odd and
// one even step count. A scaled run (emulated: tests/support/scale.hpp) takes thinner slabs,
// within the cache: there the streaming kernels are the per-target tests' (the stencil kernel
// and wavefront tests, tests/test_cpu_stencil_*.cpp, run them on every target), and under QEMU
// these grids took 38 s.
TEST_CASE_TEMPLATE("stencil: grids beyond the last-level cache (streaming stores)", T, float, double) {
  // 17 MiB per grid either way at full scale.
  const std::int64_t nz = tessera_test::scaled(std::is_same_v<T, float> ? 66 : 34, 6);
  for (int r = 1; r <= 2; ++r)
    for (int steps : {1, 2}) stencil_case<T>({3, 256, 256, nz}, stencil_coeffs<T>(3, r, 900u + r), steps, 910u + r);
}
