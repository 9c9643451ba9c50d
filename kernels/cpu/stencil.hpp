// One Jacobi step of the star stencil over a block of rows, on the calling thread;
// backends/cpu/stencil.cpp blocks the grid, runs the steps and owns the buffers.
#pragma once

#include <cstdint>

namespace tessera::cpu {

// dst(z, y, x) = c[0] src(z, y, x) + sum_{d=1..radius} c[d] * (the 2*ndim neighbours of src at
// distance d) for z in [z0, z1), y in [y0, y1), x in [radius, nx - radius); cell (z, y, x) is at
// (z * ny + y) * nx + x. The caller keeps the ranges at least `radius` inside the grid
// (for 2D: ndim = 2, z0 = 0, z1 = 1). src and dst must not overlap.
// stream: write dst with non-temporal stores, for grids larger than the caches; taken where nx
// is a multiple of the SIMD width and both grids are vector aligned (else ignored), and then
// dst's boundary cells on the block's rows are rewritten with src's (they must be equal).
void stencil_block_f32(const float* src, float* dst, int ndim, int radius, const float* c, std::int64_t nx,
                       std::int64_t ny, std::int64_t z0, std::int64_t z1, std::int64_t y0, std::int64_t y1,
                       bool stream);
void stencil_block_f64(const double* src, double* dst, int ndim, int radius, const double* c, std::int64_t nx,
                       std::int64_t ny, std::int64_t z0, std::int64_t z1, std::int64_t y0, std::int64_t y1,
                       bool stream);

// 3D: `rows` consecutive rows (x fastest, row stride nx) of one plane, cells x in [radius,
// nx - radius): dst row y = the step from src row y, y = 0..rows-1, with the neighbours along y
// at +-d * nx from a cell and along z at zoff[d - 1] (plane z - d) and zoff[radius + d - 1]
// (plane z + d) elements from it. The buffers need not be one grid: the temporally blocked path
// (stencil_wavefront.hpp) keeps the intermediate time levels in a ring of plane slots. Every
// cell is computed with exactly stencil_block's operations (same bits on the same SIMD target).
// prefetch: when nonzero, each row's cells at that offset are prefetched as the row is computed.
// stream: as stencil_block (non-temporal stores where nx and both rows are vector aligned).
void stencil_plane_rows_f32(const float* src, float* dst, int radius, const float* c, std::int64_t nx,
                            std::int64_t rows, const std::int64_t* zoff, std::int64_t prefetch, bool stream);
void stencil_plane_rows_f64(const double* src, double* dst, int radius, const double* c, std::int64_t nx,
                            std::int64_t rows, const std::int64_t* zoff, std::int64_t prefetch, bool stream);

}  // namespace tessera::cpu
