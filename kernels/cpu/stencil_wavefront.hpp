// Temporal blocking of the 3D star stencil on the cpu (isotropic, all faces Dirichlet, no
// source: StencilSpec::plain): one pass through memory computes `levels` Jacobi steps of a
// block of rows, the intermediate steps kept in a small ring of plane slots that stays in the
// core's L2. backends/cpu/stencil.cpp decides when (plan_time_blocking) and runs the blocks on
// its threads.
#pragma once

#include <cstdint>

namespace tessera::cpu {

// The ring one call needs, in elements: (levels - 1 + pack) * (2 radius + 1) slots of
// stencil_wavefront_slot_elems(...) elements each.
std::int64_t stencil_wavefront_slot_elems(int radius, int levels, std::int64_t nx, std::int64_t block_rows, bool pack);
std::int64_t stencil_wavefront_ring_elems(int radius, int levels, std::int64_t nx, std::int64_t block_rows, bool pack);

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
// pack: step 0's planes (src) are read from the ring too, each plane's rows copied in once as
// the wavefront reaches it. For grids whose planes are a multiple of 4 KiB apart (256^2 f32,
// 512^2), the 2 radius + 1 planes a cell reads map to the same cache sets of L1 and L2, more
// lines than the ways of a set, and every z neighbour misses (3D 25-point 256^3 f32 on a Zen
// VM: 10x slower than 250^3); slots are a few lines off a 4 KiB multiple apart, so their rows
// do not collide. levels = 1 with pack is the one-step sweep through the ring.
// ring: stencil_wavefront_ring_elems(radius, levels, nx, block_rows, pack) elements, 64-byte
// aligned, owned by the calling thread. src and dst are grids nx x ny x nz (x fastest), not
// overlapping.
template <class T>
void stencil_wavefront(const T* src, T* dst, T* ring, int radius, const T* c, std::int64_t nx, std::int64_t ny,
                       std::int64_t nz, int levels, std::int64_t ya, std::int64_t yb, std::int64_t block_rows,
                       bool stream, bool pack);

}  // namespace tessera::cpu
