// The heat equation u_t = u_xx + u_yy [+ u_zz] + f by FTCS (forward Euler in time, central
// differences in space) with the general star stencil, checked against the analytic solution:
//   heat_equation [device] [f32|f64]     e.g. heat_equation cuda:0 f32  (default: auto, f64)
//
// One step is u' = u + dt * (discrete Laplacian of u) + dt * f: with r_a = dt / h_a^2 per axis,
// the stencil's coefficients are x = {r_x}, y = {r_y} [, z = {r_z}], centre = 1 - 2 sum r_a and
// source = dt * f; stable while sum r_a <= 1/2.
//
// Three cases, each a single Fourier mode (wave numbers k_a) that the continuous equation
// damps by exp(-lambda t), lambda = sum k_a^2:
//   dirichlet  2D box [0,1] x [0,2], hx != hy, u = sin(pi x) sin(pi y / 2); the fixed face
//              cells hold the boundary value 0
//   neumann    2D box [0,1] x [0,1.5] of cells centred at (i + 1/2) h, u = 1 + cos(pi x) cos(pi y / 1.5):
//              zero normal flux, so the mean 1 stays
//   periodic   3D box [0, 2 pi)^3, u = sin(x) cos(2y) sin(z) + f t with a source f
//
// Error bound (printed, and the exit status is 1 when exceeded). The discrete Laplacian's
// eigenvalue for the mode is lambda_h = sum_a (4 / h_a^2) sin^2(k_a h_a / 2), with
// lambda - sum_a k_a^4 h_a^2 / 12 <= lambda_h <= lambda; a step multiplies the mode by
// g = 1 - dt lambda_h in [0, 1], and 0 <= exp(-x) - (1 - x) <= x^2 / 2. After n steps
// (t = n dt) the mode's amplitude differs from exp(-lambda t) by at most
//   t * (sum_a k_a^4 h_a^2 / 12 + lambda^2 dt / 2)        (space + time truncation)
// times its initial amplitude, plus rounding: n * (3 + 2 ndim) * eps * max|u|.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "tessera/tessera.hpp"

using namespace tessera;

namespace {

struct Axis {
  std::int64_t n;  // cells
  double h;        // spacing
  double first;    // position of cell 0
  double k;        // wave number of the mode along this axis
};

struct Case {
  const char* name;
  std::vector<Axis> axes;  // x, y[, z]
  StencilBoundary faces;   // on every face
  double mean;             // constant added to the mode at t = 0
  double source;           // f
  double (*mode)(double x, double y, double z);
  double t_end;
};

double dirichlet_mode(double x, double y, double) { return std::sin(M_PI * x) * std::sin(M_PI * y / 2); }
double neumann_mode(double x, double y, double) { return std::cos(M_PI * x) * std::cos(M_PI * y / 1.5); }
double periodic_mode(double x, double y, double z) { return std::sin(x) * std::cos(2 * y) * std::sin(z); }

template <class T>
bool run(const Device& dev, const Case& c) {
  const int ndim = static_cast<int>(c.axes.size());
  const Axis& ax = c.axes[0];
  const Axis& ay = c.axes[1];
  const Axis az = ndim == 3 ? c.axes[2] : Axis{1, 1.0, 0.0, 0.0};
  double rsum = 0, lambda = 0, space = 0;
  for (const Axis& a : c.axes) {
    rsum += 1 / (a.h * a.h);
    lambda += a.k * a.k;
    space += std::pow(a.k, 4) * a.h * a.h / 12;
  }
  const double dt = 0.4 / (2 * rsum);  // sum r_a = 0.4 <= 1/2
  const int steps = static_cast<int>(std::ceil(c.t_end / dt));
  const double t = steps * dt;

  auto r_of = [&](const Axis& a) { return std::vector<T>{static_cast<T>(dt / (a.h * a.h))}; };
  StarStencil<T> heat(static_cast<T>(1 - 2 * dt * rsum), r_of(ax), r_of(ay), ndim == 3 ? r_of(az) : std::vector<T>{});
  heat.faces.fill(c.faces);
  heat.source = static_cast<T>(dt * c.source);

  std::vector<T> u0(static_cast<std::size_t>(ax.n * ay.n * az.n));
  std::vector<double> exact(u0.size());
  const double decay = std::exp(-lambda * t);
  for (std::int64_t z = 0; z < az.n; ++z)
    for (std::int64_t y = 0; y < ay.n; ++y)
      for (std::int64_t x = 0; x < ax.n; ++x) {
        const double m = c.mode(ax.first + x * ax.h, ay.first + y * ay.h, az.first + z * az.h);
        const auto i = static_cast<std::size_t>((z * ay.n + y) * ax.n + x);
        u0[i] = static_cast<T>(c.mean + m);
        exact[i] = c.mean + decay * m + c.source * t;
      }
  Grid<T> u = ndim == 3 ? Grid<T>::from_host(dev, ax.n, ay.n, az.n, u0) : Grid<T>::from_host(dev, ax.n, ay.n, u0);
  stencil(heat, u, steps);
  const std::vector<T> got = u.to_host();

  double err = 0, umax = 0;
  for (std::size_t i = 0; i < got.size(); ++i) {
    err = std::max(err, std::abs(static_cast<double>(got[i]) - exact[i]));
    umax = std::max(umax, std::abs(exact[i]) + std::abs(static_cast<double>(u0[i])));
  }
  const double eps = std::numeric_limits<T>::epsilon() / 2;
  const double bound = t * (space + lambda * lambda * dt / 2) + steps * (3 + 2 * ndim) * eps * umax;
  const bool ok = err <= bound;
  std::printf("%-9s %dD %4lld steps, t = %.4f, decay %.4f: max error %.3e, bound %.3e  %s\n", c.name, ndim,
              static_cast<long long>(steps), t, decay, err, bound, ok ? "ok" : "EXCEEDED");
  return ok;
}

}  // namespace

int main(int argc, char** argv) {
  const Device dev = Device::open(argc > 1 ? argv[1] : "auto");
  const bool f32 = argc > 2 && std::strcmp(argv[2], "f32") == 0;
  const double pi = M_PI;
  const Case cases[] = {
      {"dirichlet", {{33, 1.0 / 32, 0.0, pi}, {49, 2.0 / 48, 0.0, pi / 2}}, StencilBoundary::dirichlet, 0.0, 0.0,
       dirichlet_mode, 0.05},
      {"neumann", {{24, 1.0 / 24, 0.5 / 24, pi}, {30, 1.5 / 30, 0.75 / 30, pi / 1.5}}, StencilBoundary::neumann, 1.0,
       0.0, neumann_mode, 0.05},
      {"periodic", {{32, 2 * pi / 32, 0.0, 1.0}, {32, 2 * pi / 32, 0.0, 2.0}, {32, 2 * pi / 32, 0.0, 1.0}},
       StencilBoundary::periodic, 0.0, 0.5, periodic_mode, 0.2},
  };
  std::printf("heat equation, FTCS, on %s (%s)\n", dev.spec().c_str(), f32 ? "f32" : "f64");
  bool ok = true;
  for (const Case& c : cases) ok = (f32 ? run<float>(dev, c) : run<double>(dev, c)) && ok;
  return ok ? 0 : 1;
}
