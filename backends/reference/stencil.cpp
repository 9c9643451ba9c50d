// Star stencil, Jacobi time stepping: every step reads a copy of the previous step's grid and
// writes the updated cells of u (StarStencil, stencil.hpp, defines which); the others are never
// written. Each step is evaluated in double, in the documented order, and rounded to T, so
// `steps` steps equal `steps` calls of one step.
#include <cstdint>
#include <vector>

#include "reference/reference_backend.hpp"

namespace tessera {

namespace {

// One axis: its extent, its faces, and the range of cells a step updates along it.
struct Axis {
  std::int64_t n = 1;
  StencilBoundary lo = StencilBoundary::dirichlet, hi = StencilBoundary::dirichlet;
  std::int64_t begin = 0, end = 1;

  Axis(std::int64_t extent, StencilBoundary low, StencilBoundary high, int r) : n(extent), lo(low), hi(high) {
    begin = lo == StencilBoundary::dirichlet ? r : 0;
    end = hi == StencilBoundary::dirichlet ? n - r : n;
  }
  Axis() = default;  // the z axis of a 2D grid: one plane, updated, never read beyond
  // The cell that index j (at most r outside the grid) reads.
  std::int64_t cell(std::int64_t j) const {
    if (j < 0) return lo == StencilBoundary::periodic ? j + n : -1 - j;
    if (j >= n) return hi == StencilBoundary::periodic ? j - n : 2 * n - 1 - j;
    return j;
  }
};

}  // namespace

template <class T>
void ReferenceBackend::stencil(QueueImpl&, const StencilSpec& spec, const GridView& g, int steps) {
  const int r = spec.radius;
  const bool is_3d = g.ndim == 3;
  const bool plain = spec.plain(g.ndim);
  const Axis ax(g.nx, spec.faces[0], spec.faces[1], r), ay(g.ny, spec.faces[2], spec.faces[3], r);
  const Axis az = is_3d ? Axis(g.nz, spec.faces[4], spec.faces[5], r) : Axis();
  const std::int64_t nx = g.nx, ny = g.ny, nz = is_3d ? g.nz : 1;
  auto index = [&](std::int64_t z, std::int64_t y, std::int64_t x) { return (z * ny + y) * nx + x; };

  T* u = static_cast<T*>(g.data);
  std::vector<T> prev(static_cast<std::size_t>(nx * ny * nz));
  auto old = [&](std::int64_t z, std::int64_t y, std::int64_t x) {
    return static_cast<double>(prev[static_cast<std::size_t>(index(az.cell(z), ay.cell(y), ax.cell(x)))]);
  };

  for (int step = 0; step < steps; ++step) {
    prev.assign(u, u + prev.size());
    for (std::int64_t z = az.begin; z < az.end; ++z) {
      for (std::int64_t y = ay.begin; y < ay.end; ++y) {
        for (std::int64_t x = ax.begin; x < ax.end; ++x) {
          double value = spec.centre * old(z, y, x);
          for (int d = 1; d <= r; ++d) {
            const auto k = static_cast<std::size_t>(d);
            const double px = old(z, y, x - d) + old(z, y, x + d), py = old(z, y - d, x) + old(z, y + d, x);
            const double pz = is_3d ? old(z - d, y, x) + old(z + d, y, x) : 0.0;
            if (plain) {
              value += spec.axis[0][k] * (is_3d ? (px + py) + pz : px + py);
            } else {
              value += spec.axis[0][k] * px;
              value += spec.axis[1][k] * py;
              if (is_3d) value += spec.axis[2][k] * pz;
            }
          }
          if (spec.source != 0) value += spec.source;
          u[index(z, y, x)] = static_cast<T>(value);
        }
      }
    }
  }
}

TESSERA_INSTANTIATE_TYPED_OP(ReferenceBackend, stencil)

}  // namespace tessera
