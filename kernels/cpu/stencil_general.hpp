// One Jacobi step of the general star stencil (per-axis coefficients, Dirichlet / Neumann /
// periodic faces, a source; semantics in lib/include/tessera/stencil.hpp) over a block of rows,
// on the calling thread; backends/cpu/stencil.cpp blocks the grid and owns the buffers.
#pragma once

#include <cstdint>

#include "tessera/types.hpp"

namespace tessera::cpu {

template <class T>
struct GeneralStencil {
  int ndim = 2, radius = 1;
  std::int64_t nx = 0, ny = 0, nz = 1;
  StencilBoundary faces[6] = {};
  T centre = 0;
  T axis[3][StencilSpec::max_radius + 1] = {};  // [a][d], d = 1..radius
  T source = 0;
  std::int64_t x_begin = 0, x_end = 0;  // the updated cells of a row
};

// The cell an index j along an axis of n cells reads, j within `radius` outside [0, n) at most
// and never beyond a Dirichlet face (whose cells are not updated).
inline std::int64_t stencil_ghost(std::int64_t j, std::int64_t n, StencilBoundary lo, StencilBoundary hi) {
  if (j < 0) return lo == StencilBoundary::periodic ? j + n : -1 - j;
  if (j >= n) return hi == StencilBoundary::periodic ? j - n : 2 * n - 1 - j;
  return j;
}

// dst(z, y, x) for z in [z0, z1), y in [y0, y1) (updated rows) and x in [s.x_begin, s.x_end);
// src and dst must not overlap. Order: centre u, then per distance the x, y (and z) pairs,
// then the source (when nonzero), each a multiply-add.
// ring (3D only, else ignored; nullptr: none): the source rows are read from 2 radius + 1
// slots of slot_elems elements (at least (y1 - y0 + 2 radius) nx each, the calling thread's),
// each plane's rows copied in once as the sweep along z reaches it: for grids whose planes
// alias in the cache (kernels/cpu/stencil_wavefront.hpp, pack, says why). Same bits either way.
void stencil_rows_general_f32(const float* src, float* dst, const GeneralStencil<float>& s, std::int64_t z0,
                              std::int64_t z1, std::int64_t y0, std::int64_t y1, float* ring = nullptr,
                              std::int64_t slot_elems = 0);
void stencil_rows_general_f64(const double* src, double* dst, const GeneralStencil<double>& s, std::int64_t z0,
                              std::int64_t z1, std::int64_t y0, std::int64_t y1, double* ring = nullptr,
                              std::int64_t slot_elems = 0);

}  // namespace tessera::cpu
