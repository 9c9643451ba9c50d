// Star stencil, Jacobi time stepping: every step reads a copy of the previous step's grid and
// writes the interior of u; boundary cells (within r of a face) are never written. Each step
// is evaluated in double and rounded to T, so `steps` steps equal `steps` calls of one step.
#include <cstdint>
#include <vector>

#include "reference/reference_backend.hpp"

namespace tessera {

template <class T>
void ReferenceBackend::stencil(QueueImpl&, const StencilSpec& spec, const GridView& g, int steps) {
  const int r = spec.radius;
  const std::int64_t nx = g.nx, ny = g.ny, nz = g.nz;
  const bool is_3d = g.ndim == 3;
  // Interior ranges; an axis shorter than 2r + 1 leaves the range empty, so nothing changes.
  const std::int64_t z_begin = is_3d ? r : 0, z_end = is_3d ? nz - r : 1;
  auto index = [&](std::int64_t z, std::int64_t y, std::int64_t x) { return (z * ny + y) * nx + x; };

  T* u = static_cast<T*>(g.data);
  std::vector<T> prev(static_cast<std::size_t>(nx * ny * nz));
  auto old = [&](std::int64_t z, std::int64_t y, std::int64_t x) {
    return static_cast<double>(prev[static_cast<std::size_t>(index(z, y, x))]);
  };

  for (int step = 0; step < steps; ++step) {
    prev.assign(u, u + prev.size());
    for (std::int64_t z = z_begin; z < z_end; ++z) {
      for (std::int64_t y = r; y < ny - r; ++y) {
        for (std::int64_t x = r; x < nx - r; ++x) {
          double value = spec.coeffs[0] * old(z, y, x);
          for (int d = 1; d <= r; ++d) {
            double neighbours = old(z, y, x - d) + old(z, y, x + d) + old(z, y - d, x) + old(z, y + d, x);
            if (is_3d) neighbours += old(z - d, y, x) + old(z + d, y, x);
            value += spec.coeffs[static_cast<std::size_t>(d)] * neighbours;
          }
          u[index(z, y, x)] = static_cast<T>(value);
        }
      }
    }
  }
}

TESSERA_INSTANTIATE_TYPED_OP(ReferenceBackend, stencil)

}  // namespace tessera
