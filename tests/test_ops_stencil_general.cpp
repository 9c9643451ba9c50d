// stencil with a StarStencil: per-axis coefficients, Dirichlet / Neumann / periodic faces, a
// source. The reference is checked against a host loop written from the header's rules (ghost
// cells by index mapping) and against hand-computed answers; every device against the
// reference on odd grids, radius 1..4, every face kind on every face and mixed, 2D and 3D,
// several steps.
//
// Error bound: coefficients are random with S = |centre| + 2 sum_a sum_d |c_a[d]| = 1, so a step
// maps max|u| to at most max|u| + |source| and does not amplify earlier differences. A cell
// sums 2 + 2 ndim r terms (the source included), so after `steps` steps a device differs from
// the reference (which also rounds to T once per step) by at most
// steps * gamma_{3 + 2 ndim r} * (max|u0| + steps |source|). Cells the faces keep fixed must be
// bit for bit what they were.
#include <doctest/doctest.h>

#include <array>
#include <cmath>
#include <cstdint>
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

using B = StencilBoundary;
constexpr B D = B::dirichlet, N = B::neumann, P = B::periodic;

struct Shape {
  int ndim;
  std::int64_t nx, ny, nz;
  std::int64_t n(int a) const { return a == 0 ? nx : a == 1 ? ny : nz; }
};

template <class T>
Grid<T> make_grid(const Device& d, const Shape& g) {
  return g.ndim == 2 ? Grid<T>(d, g.nx, g.ny) : Grid<T>(d, g.nx, g.ny, g.nz);
}

// Random per-axis coefficients of radius r normalised to S = 1 (see the file comment).
template <class T>
StarStencil<T> random_stencil(int ndim, int r, std::array<B, 6> faces, double source, std::uint32_t seed) {
  Rng rng(seed);
  std::vector<double> c(static_cast<std::size_t>(1 + 3 * r));
  double s = 0;
  for (std::size_t i = 0; i < c.size(); ++i) {
    c[i] = rng.nonzero();
    const bool used = i == 0 || static_cast<int>(i - 1) / r < ndim;
    if (used) s += std::abs(c[i]) * (i == 0 ? 1.0 : 2.0);
  }
  auto axis = [&](int a) {
    std::vector<T> v;
    if (a < ndim)
      for (int d = 0; d < r; ++d) v.push_back(static_cast<T>(c[static_cast<std::size_t>(1 + a * r + d)] / s));
    return v;
  };
  StarStencil<T> st(static_cast<T>(c[0] / s), axis(0), axis(1), axis(2));
  st.faces = faces;
  st.source = static_cast<T>(source);
  return st;
}

// Whether the faces let cell index i of an axis of n cells update (the header's rule).
bool updated_along(std::int64_t i, std::int64_t n, int r, B lo, B hi) {
  return (lo != D || i >= r) && (hi != D || i < n - r);
}
bool updated(const Shape& g, int r, const std::array<B, 6>& f, std::int64_t x, std::int64_t y, std::int64_t z) {
  return updated_along(x, g.nx, r, f[0], f[1]) && updated_along(y, g.ny, r, f[2], f[3]) &&
         (g.ndim == 2 || updated_along(z, g.nz, r, f[4], f[5]));
}

// The host loop: long double, each step from the previous step's grid, rounded to T; ghost
// cells by the header's rule, written out per case.
template <class T>
std::vector<T> host_stencil(const Shape& g, const StarStencil<T>& s, std::vector<T> u, int steps) {
  const int r = static_cast<int>(s.x.size());
  auto read = [&](const std::vector<T>& v, std::int64_t i, int a, B lo, B hi) -> std::int64_t {
    const std::int64_t n = g.n(a);
    if (i < 0) {
      REQUIRE(lo != D);
      return lo == P ? n + i : -i - 1;  // -1 mirrors to 0, -2 to 1, ...
    }
    if (i >= n) {
      REQUIRE(hi != D);
      return hi == P ? i - n : n - 1 - (i - n);  // n mirrors to n - 1, ...
    }
    (void)v;
    return i;
  };
  for (int step = 0; step < steps; ++step) {
    std::vector<T> next = u;
    for (std::int64_t z = 0; z < g.nz; ++z)
      for (std::int64_t y = 0; y < g.ny; ++y)
        for (std::int64_t x = 0; x < g.nx; ++x) {
          if (!updated(g, r, s.faces, x, y, z)) continue;
          auto at = [&](std::int64_t xx, std::int64_t yy, std::int64_t zz) -> long double {
            xx = read(u, xx, 0, s.faces[0], s.faces[1]);
            yy = read(u, yy, 1, s.faces[2], s.faces[3]);
            if (g.ndim == 3) zz = read(u, zz, 2, s.faces[4], s.faces[5]);
            return u[static_cast<std::size_t>((zz * g.ny + yy) * g.nx + xx)];
          };
          long double v = static_cast<long double>(s.centre) * at(x, y, z);
          for (int d = 1; d <= r; ++d) {
            const auto k = static_cast<std::size_t>(d - 1);
            v += static_cast<long double>(s.x[k]) * (at(x - d, y, z) + at(x + d, y, z));
            v += static_cast<long double>(s.y[k]) * (at(x, y - d, z) + at(x, y + d, z));
            if (g.ndim == 3) v += static_cast<long double>(s.z[k]) * (at(x, y, z - d) + at(x, y, z + d));
          }
          v += static_cast<long double>(s.source);
          next[static_cast<std::size_t>((z * g.ny + y) * g.nx + x)] = static_cast<T>(v);
        }
    u = std::move(next);
  }
  return u;
}

std::string describe(const Shape& g, int r, const std::array<B, 6>& f, double source, int steps) {
  std::ostringstream s;
  s << "stencil " << g.ndim << "D " << g.nx << " x " << g.ny;
  if (g.ndim == 3) s << " x " << g.nz;
  s << " radius " << r << " faces";
  for (int i = 0; i < 2 * g.ndim; ++i) s << ' ' << to_string(f[static_cast<std::size_t>(i)]);
  s << " source " << source << " steps " << steps;
  return s.str();
}

template <class T>
void general_case(const Shape& g, int r, const std::array<B, 6>& faces, double source, int steps,
                  std::uint32_t seed, bool check_host = false) {
  const std::string what = describe(g, r, faces, source, steps);
  const StarStencil<T> s = random_stencil<T>(g.ndim, r, faces, source, seed);
  const auto u0 = random_vector<T>(static_cast<std::size_t>(g.nx * g.ny * g.nz), seed + 1);
  const double bound =
      steps * gamma_bound<T>(3.0 + 2.0 * g.ndim * r) * (max_abs_of(u0) + steps * std::abs(source));
  auto fixed = [&](std::size_t i) {
    const std::int64_t c = static_cast<std::int64_t>(i);
    return !updated(g, r, faces, c % g.nx, (c / g.nx) % g.ny, c / (g.nx * g.ny));
  };
  auto run = [&](const Device& d) {
    Grid<T> u = make_grid<T>(d, g);
    u.upload(u0);
    stencil(s, u, steps);
    return u.to_host();
  };
  std::vector<T> expected;
  if (!on_reference(what.c_str(), [&] { expected = run(reference_device()); })) return;
  check_bitwise_where(expected, u0, fixed, what + " (reference): a fixed cell changed");
  if (check_host) check_close(expected, host_stencil(g, s, u0, steps), bound, what + " (reference vs host loop)");
  for_each_device<T>(Op::stencil, [&](const Device& d) {
    const auto got = run(d);
    check_bitwise_where(got, u0, fixed, what + ": a fixed cell changed");
    check_close(got, expected, bound, what);
  });
}

// Face sets covering every kind on every face, alone and mixed.
const std::vector<std::array<B, 6>>& face_sets() {
  static const std::vector<std::array<B, 6>> sets = {
      {D, D, D, D, D, D},  // anisotropic Dirichlet: the general path with today's faces
      {N, N, N, N, N, N}, {P, P, P, P, P, P},
      {P, P, D, N, N, D},  // mixed: periodic x, Dirichlet/Neumann y, Neumann/Dirichlet z
      {N, D, P, P, D, N}, {D, N, N, N, P, P}};
  return sets;
}

}  // namespace

TEST_CASE_TEMPLATE("stencil (general): known answers for Neumann and periodic faces and a source", T, float,
                   double) {
  // A 4 x 1 grid, radius 1, u' = u(x - 1) + u(x + 1) (+ 0.5): the y neighbours have weight 0.
  const std::vector<T> u0 = {1, 2, 3, 4};
  struct Case {
    B x_faces;
    T source;
    std::vector<T> want;
  };
  // Neumann: the ghost left of x = 0 is u(0), right of x = 3 is u(3). Periodic: they wrap.
  const Case cases[] = {{N, T(0), {3, 4, 6, 7}}, {P, T(0), {6, 4, 6, 4}}, {N, T(0.5), {3.5, 4.5, 6.5, 7.5}}};
  for (const Device& d : all_devices()) {
    run_on_device<T>(d, Op::stencil, [&](const Device& dev) {
      for (const Case& c : cases) {
        StarStencil<T> s(T(0), {T(1)}, {T(0)});
        s.boundary(0, c.x_faces).boundary(1, N);
        s.source = c.source;
        Grid<T> u = Grid<T>::from_host(dev, 4, 1, u0);
        stencil(s, u, 1);
        check_bitwise(u.to_host(), c.want, std::string("known answer, x faces ") + to_string(c.x_faces));
      }
    });
  }
}

TEST_CASE_TEMPLATE("stencil (general): the isotropic Dirichlet StarStencil equals the coefficient-vector call", T,
                   float, double) {
  for (int r = 1; r <= 4; ++r) {
    const Shape g{3, 2 * r + 9, 2 * r + 5, 2 * r + 3};
    const std::vector<T> c = {T(0.4), T(0.1), T(-0.05), T(0.02), T(-0.01)};
    const std::vector<T> coeffs(c.begin(), c.begin() + r + 1);
    const std::vector<T> axis(c.begin() + 1, c.begin() + r + 1);
    const auto u0 = random_vector<T>(static_cast<std::size_t>(g.nx * g.ny * g.nz), 40u + static_cast<unsigned>(r));
    for (const Device& d : all_devices()) {
      run_on_device<T>(d, Op::stencil, [&](const Device& dev) {
        Grid<T> a = Grid<T>::from_host(dev, g.nx, g.ny, g.nz, u0), b = Grid<T>::from_host(dev, g.nx, g.ny, g.nz, u0);
        stencil(coeffs, a, 3);
        stencil(StarStencil<T>(coeffs[0], axis, axis, axis), b, 3);
        check_bitwise(b.to_host(), a.to_host(), "radius " + std::to_string(r) + " on " + dev.spec());
      });
    }
  }
}

TEST_CASE_TEMPLATE("stencil (general): the reference matches a host loop", T, float, double) {
  std::uint32_t seed = 300;
  for (int r = 1; r <= 4; ++r)
    for (const auto& f : face_sets()) {
      seed += 2;
      general_case<T>({2, 2 * r + 7, r + 4, 1}, r, f, 0.0, 3, seed, true);
      general_case<T>({3, 2 * r + 3, 2 * r + 1, r + 2}, r, f, 0.25, 2, seed, true);
    }
}

TEST_CASE_TEMPLATE("stencil (general): 2D, radius 1..4, every face kind, steps 1/2/5", T, float, double) {
  std::uint32_t seed = 400;
  for (int r = 1; r <= 4; ++r) {
    const Shape grids[] = {{2, 37, 23, 1}, {2, 2 * r + 1, 19, 1}, {2, 129, 2 * r + 3, 1},
                           {2, r, 17, 1},  // x as short as a Neumann / periodic face allows
                           {2, 1, 1, 1}};
    for (const Shape& g : grids)
      for (const auto& f : face_sets()) {
        if (g.nx < r && (f[0] != D || f[1] != D)) continue;  // bad input (test_bad_input.cpp)
        if (g.ny < r && (f[2] != D || f[3] != D)) continue;
        for (int steps : {1, 2, 5}) {
          seed += 2;
          general_case<T>(g, r, f, steps == 2 ? -0.125 : 0.0, steps, seed);
        }
      }
  }
}

TEST_CASE_TEMPLATE("stencil (general): 3D, radius 1..4, every face kind, steps 1/2/5", T, float, double) {
  std::uint32_t seed = 500;
  for (int r = 1; r <= 4; ++r) {
    const Shape grids[] = {{3, 2 * r + 11, 13, 9}, {3, 17, r, 2 * r + 3}, {3, 33, 2 * r + 1, r + 1}};
    for (const Shape& g : grids)
      for (const auto& f : face_sets()) {
        bool bad = false;
        for (int a = 0; a < 3; ++a)
          bad = bad || (g.n(a) < r && (f[static_cast<std::size_t>(2 * a)] != D || f[static_cast<std::size_t>(2 * a + 1)] != D));
        if (bad) continue;
        for (int steps : {1, 2, 5}) {
          seed += 2;
          general_case<T>(g, r, f, steps == 5 ? 0.0625 : 0.0, steps, seed);
        }
      }
  }
}

TEST_CASE_TEMPLATE("stencil (general): a larger 3D grid, isotropic coefficients with Neumann and periodic faces", T,
                   float, double) {
  general_case<T>({3, 131, 67, 45}, 1, {N, N, P, P, N, D}, 0.01, 4, 600);
  general_case<T>({3, 64, 40, 37}, 4, {P, P, P, P, P, P}, 0.0, 3, 602);
}

// More planes than a CUDA grid has blocks along z (65535): the general kernel's z stride.
TEST_CASE_TEMPLATE("stencil (general): a grid longer in z than a launch's z extent", T, float, double) {
  general_case<T>({3, 3, 2, 70001}, 1, {N, N, P, P, P, P}, 0.5, 2, 700);
  general_case<T>({3, 5, 4, 65541}, 2, {P, P, N, N, D, N}, 0.0, 1, 702);
}
