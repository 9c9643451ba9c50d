// Temporal blocking of the 3D star stencil on the cpu (isotropic, all faces Dirichlet, no
// source: StencilSpec::plain): one pass through memory computes `levels` Jacobi steps of a
// block of rows, the intermediate steps kept in a small ring of plane slots that stays in the
// core's L2. backends/cpu/stencil.cpp decides when (plan_time_blocking) and runs the blocks on
// its threads.
#pragma once

#include <cstdint>

namespace tessera::cpu {

// The ring one call needs, in elements: (levels - 1) * (2 radius + 1) slots of
// stencil_wavefront_slot_elems(...) elements each.
std::int64_t stencil_wavefront_slot_elems(int radius, int levels, std::int64_t nx, std::int64_t block_rows);
std::int64_t stencil_wavefront_ring_elems(int radius, int levels, std::int64_t nx, std::int64_t block_rows);

// `levels` (>= 1) Jacobi steps of the rows y in [ya, yb) (radius <= ya < yb <= ny - radius,
// yb - ya <= block_rows) of every interior plane, from src (step 0) to dst (step `levels`):
// a wavefront along z (Wellein et al.'s pipelined temporal blocking, one thread per block): for
// k = 0, 1, ..., step s = 1..levels computes plane k - (s - 1) * radius from step s - 1's planes
// k - s * radius .. k - (s - 2) * radius, which are still in the ring (2 radius + 1 slots per
// step). Step s computes the rows the later steps need, (levels - s) * radius beyond the block
// on each side (overlapped halos, recomputed by the neighbouring block); a cell gets exactly
// the one-step kernel's operations (stencil_plane_rows_*), so the result has its bits.
// dst's boundary cells are not written (as the one-step kernel; stream: the same
// non-temporal stores, which rewrite the x boundary of the block's rows with src's, equal).
// ring: stencil_wavefront_ring_elems(radius, levels, nx, block_rows) elements, 64-byte aligned,
// owned by the calling thread. src and dst are grids nx x ny x nz (x fastest), not overlapping.
template <class T>
void stencil_wavefront(const T* src, T* dst, T* ring, int radius, const T* c, std::int64_t nx, std::int64_t ny,
                       std::int64_t nz, int levels, std::int64_t ya, std::int64_t yb, std::int64_t block_rows,
                       bool stream);

}  // namespace tessera::cpu
