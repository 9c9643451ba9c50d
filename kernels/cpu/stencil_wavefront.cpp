// The wavefront of stencil_wavefront.hpp: the schedule and the ring's bookkeeping; the cells
// are computed by stencil_plane_rows_* (kernels/cpu/stencil.cpp, per SIMD target).
#include "kernels/cpu/stencil_wavefront.hpp"

#include <algorithm>
#include <cstring>
#include <type_traits>

#include "kernels/cpu/stencil.hpp"

namespace tessera::cpu {

std::int64_t stencil_wavefront_slot_elems(int radius, int levels, std::int64_t nx, std::int64_t block_rows) {
  // The first intermediate step holds the most rows; a slot is rounded to 64 bytes so every slot
  // starts as aligned as the ring (the streaming stores of the last step need aligned rows).
  const std::int64_t rows = block_rows + 2 * static_cast<std::int64_t>(levels - 1) * radius;
  return (rows * nx + 15) / 16 * 16;
}

std::int64_t stencil_wavefront_ring_elems(int radius, int levels, std::int64_t nx, std::int64_t block_rows) {
  return static_cast<std::int64_t>(levels - 1) * (2 * radius + 1) *
         stencil_wavefront_slot_elems(radius, levels, nx, block_rows);
}

namespace {

template <class T>
void plane_rows(const T* src, T* dst, int radius, const T* c, std::int64_t nx, std::int64_t rows,
                const std::int64_t* zoff, std::int64_t prefetch, bool stream) {
  if constexpr (std::is_same_v<T, float>)
    stencil_plane_rows_f32(src, dst, radius, c, nx, rows, zoff, prefetch, stream);
  else
    stencil_plane_rows_f64(src, dst, radius, c, nx, rows, zoff, prefetch, stream);
}

}  // namespace

template <class T>
void stencil_wavefront(const T* src, T* dst, T* ring, int radius, const T* c, std::int64_t nx, std::int64_t ny,
                       std::int64_t nz, int levels, std::int64_t ya, std::int64_t yb, std::int64_t block_rows,
                       bool stream) {
  const std::int64_t R = radius, M = 2 * R + 1, plane = nx * ny;
  const std::int64_t slot_elems = stencil_wavefront_slot_elems(radius, levels, nx, block_rows);
  // Slot rows are numbered from the lowest row any intermediate step holds.
  const std::int64_t y_org = ya - static_cast<std::int64_t>(levels - 1) * R;
  const std::size_t row_bytes = static_cast<std::size_t>(nx) * sizeof(T);
  // Row y of step s's plane z: the grid for step 0, else the ring slot of (s, z).
  auto slot = [&](int s, std::int64_t z) { return ring + ((s - 1) * M + z % M) * slot_elems; };
  auto row_of = [&](int s, std::int64_t z, std::int64_t y) -> const T* {
    return s == 0 ? src + z * plane + y * nx : slot(s, z) + (y - y_org) * nx;
  };
  // The z neighbours of step s's plane z, as offsets from a cell of it.
  auto offsets = [&](int s, std::int64_t z, std::int64_t* zoff) {
    for (std::int64_t d = 1; d <= R; ++d) {
      zoff[d - 1] = s == 0 ? -d * plane : ((z - d) % M - z % M) * slot_elems;
      zoff[R + d - 1] = s == 0 ? d * plane : ((z + d) % M - z % M) * slot_elems;
    }
  };

  std::int64_t zoff[8];
  for (std::int64_t k = 0; k < nz + static_cast<std::int64_t>(levels - 1) * R; ++k) {
    for (int s = 1; s <= levels; ++s) {
      const std::int64_t z = k - static_cast<std::int64_t>(s - 1) * R;
      if (z < 0 || z >= nz) continue;
      const bool z_face = z < R || z >= nz - R;
      // Step 1 reads plane z + R first from memory: the next plane's row prefetched with it.
      const std::int64_t prefetch = s == 1 && z + R + 1 < nz ? (R + 1) * plane : 0;
      if (s == levels) {  // the last step: the block's rows, into dst
        if (z_face) continue;
        offsets(s - 1, z, zoff);
        plane_rows(row_of(s - 1, z, ya), dst + z * plane + ya * nx, radius, c, nx, yb - ya, zoff, prefetch, stream);
        continue;
      }
      // An intermediate step: the rows later steps read, the fixed ones copied from src.
      const std::int64_t h = static_cast<std::int64_t>(levels - s) * R;
      const std::int64_t ra = std::max<std::int64_t>(0, ya - h), rb = std::min(ny, yb + h);
      const std::int64_t ca = std::max(R, ya - h), cb = std::min(ny - R, yb + h);
      T* out = slot(s, z);
      auto copy_rows = [&](std::int64_t a, std::int64_t b) {
        if (a < b) std::memcpy(out + (a - y_org) * nx, src + z * plane + a * nx, static_cast<std::size_t>(b - a) * row_bytes);
      };
      if (z_face) {
        copy_rows(ra, rb);
        continue;
      }
      copy_rows(ra, std::min(R, rb));
      copy_rows(std::max(ny - R, ra), rb);
      if (ca >= cb) continue;
      offsets(s - 1, z, zoff);
      plane_rows(row_of(s - 1, z, ca), out + (ca - y_org) * nx, radius, c, nx, cb - ca, zoff, prefetch, false);
      for (std::int64_t y = ca; y < cb; ++y) {  // the x boundary, from the step before (equal)
        const T* from = row_of(s - 1, z, y);
        T* to = out + (y - y_org) * nx;
        for (std::int64_t x = 0; x < R; ++x) {
          to[x] = from[x];
          to[nx - 1 - x] = from[nx - 1 - x];
        }
      }
    }
  }
}

template void stencil_wavefront<float>(const float*, float*, float*, int, const float*, std::int64_t, std::int64_t,
                                       std::int64_t, int, std::int64_t, std::int64_t, std::int64_t, bool);
template void stencil_wavefront<double>(const double*, double*, double*, int, const double*, std::int64_t,
                                        std::int64_t, std::int64_t, int, std::int64_t, std::int64_t, std::int64_t,
                                        bool);

}  // namespace tessera::cpu
