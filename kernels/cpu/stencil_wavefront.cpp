// The wavefront of stencil_wavefront.hpp: the schedule and the ring's bookkeeping; the cells
// are computed by stencil_plane_rows_* (kernels/cpu/stencil.cpp, per SIMD target).
#include "kernels/cpu/stencil_wavefront.hpp"

#include <algorithm>
#include <cstring>
#include <type_traits>

#include "kernels/cpu/stencil.hpp"

namespace tessera::cpu {

std::int64_t stencil_wavefront_slot_elems(int radius, int levels, std::int64_t nx, std::int64_t block_rows, bool pack) {
  // The first step held in the ring holds the most rows (step 0 with pack, else step 1). Slots
  // are 1024 elements' multiples plus 80 apart (f32: 4 KiB plus 5 cache lines; f64: 8 KiB plus
  // 10): aligned as the ring (the streaming stores of the last step need aligned rows), and the
  // same cell of the 2 radius + 1 slots a step reads in distinct cache sets, where a 4 KiB
  // multiple would map them all to one set.
  const std::int64_t rows = block_rows + 2 * static_cast<std::int64_t>(levels - (pack ? 0 : 1)) * radius;
  return (rows * nx + 1023) / 1024 * 1024 + 80;
}

std::int64_t stencil_wavefront_ring_elems(int radius, int levels, std::int64_t nx, std::int64_t block_rows, bool pack) {
  return static_cast<std::int64_t>(levels - 1 + (pack ? 1 : 0)) * (2 * radius + 1) *
         stencil_wavefront_slot_elems(radius, levels, nx, block_rows, pack);
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
                       bool stream, bool pack) {
  const std::int64_t R = radius, M = 2 * R + 1, plane = nx * ny;
  const std::int64_t slot_elems = stencil_wavefront_slot_elems(radius, levels, nx, block_rows, pack);
  // Slot rows are numbered from the lowest row any step held in the ring holds.
  const std::int64_t y_org = ya - static_cast<std::int64_t>(levels - (pack ? 0 : 1)) * R;
  const std::size_t row_bytes = static_cast<std::size_t>(nx) * sizeof(T);
  // Row y of step s's plane z: the ring slot of (s, z), or the grid for step 0 without pack
  // (grid0); the ring's first slots hold step 0 with pack, else step 1.
  const bool grid0 = !pack;
  auto slot = [&](int s, std::int64_t z) { return ring + ((s - (grid0 ? 1 : 0)) * M + z % M) * slot_elems; };
  auto row_of = [&](int s, std::int64_t z, std::int64_t y) -> const T* {
    return s == 0 && grid0 ? src + z * plane + y * nx : slot(s, z) + (y - y_org) * nx;
  };
  // The z neighbours of step s's plane z, as offsets from a cell of it.
  auto offsets = [&](int s, std::int64_t z, std::int64_t* zoff) {
    for (std::int64_t d = 1; d <= R; ++d) {
      zoff[d - 1] = s == 0 && grid0 ? -d * plane : ((z - d) % M - z % M) * slot_elems;
      zoff[R + d - 1] = s == 0 && grid0 ? d * plane : ((z + d) % M - z % M) * slot_elems;
    }
  };
  // pack: step 0's plane p, the rows step 1 reads, copied into its slot.
  const std::int64_t pa = std::max<std::int64_t>(0, y_org), pb = std::min(ny, yb + levels * R);
  auto pack_plane = [&](std::int64_t p) {
    std::memcpy(slot(0, p) + (pa - y_org) * nx, src + p * plane + pa * nx, static_cast<std::size_t>(pb - pa) * row_bytes);
  };
  if (pack)
    for (std::int64_t p = 0; p < std::min(R, nz); ++p) pack_plane(p);

  std::int64_t zoff[8];
  for (std::int64_t k = 0; k < nz + static_cast<std::int64_t>(levels - 1) * R; ++k) {
    // Step 1 computes plane k from step 0's planes k - R .. k + R: the newest one packed now,
    // over the slot of plane k - R - 1, which no step reads any more.
    if (pack && k + R < nz) pack_plane(k + R);
    for (int s = 1; s <= levels; ++s) {
      const std::int64_t z = k - static_cast<std::int64_t>(s - 1) * R;
      if (z < 0 || z >= nz) continue;
      const bool z_face = z < R || z >= nz - R;
      // Step 1 reads plane z + R first from memory: the next plane's row prefetched with it
      // (with pack the copy streams it).
      const std::int64_t prefetch = s == 1 && grid0 && z + R + 1 < nz ? (R + 1) * plane : 0;
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
                                       std::int64_t, int, std::int64_t, std::int64_t, std::int64_t, bool, bool);
template void stencil_wavefront<double>(const double*, double*, double*, int, const double*, std::int64_t,
                                        std::int64_t, std::int64_t, int, std::int64_t, std::int64_t, std::int64_t,
                                        bool, bool);

}  // namespace tessera::cpu
