// One Jacobi step of the star stencil of radius RADIUS on a 2D (DIM3 = 0) or 3D grid, x
// fastest: dst(interior) = c0 * src + sum_d c_d * (the 2 * ndim neighbours at distance d).
// The host ping-pongs between u and a scratch copy of it, so boundary cells (within RADIUS of
// a face), never written, keep their values in both. RADIUS and DIM3 are compile-time: the
// neighbour loop unrolls completely into straight-line code.
//
// stencil_step (gpu, and cpu with vw = 1): one cell per work-item, neighbouring work-items on
// neighbouring cells of a row (coalesced). stencil_step_vec (cpu): see below.

#ifndef RADIUS
#define RADIUS 1
#endif
#ifndef DIM3
#define DIM3 0
#endif

// Global size: the interior (nx - 2R, ny - 2R, nz - 2R), rounded up to the work-group shape.
__kernel void stencil_step(__global const REAL* src, __global REAL* dst, long nx, long ny, long nz, REAL c0,
                           REAL c1, REAL c2, REAL c3, REAL c4) {
  const long x = get_global_id(0) + RADIUS, y = get_global_id(1) + RADIUS;
#if DIM3
  const long z = get_global_id(2) + RADIUS;
  if (x >= nx - RADIUS || y >= ny - RADIUS || z >= nz - RADIUS) return;
  const long sz = nx * ny;
#else
  const long z = 0;
  if (x >= nx - RADIUS || y >= ny - RADIUS) return;
#endif
  const long i = (z * ny + y) * nx + x;
  const REAL c[5] = {c0, c1, c2, c3, c4};
  REAL v = c[0] * src[i];
#pragma unroll
  for (int d = 1; d <= RADIUS; ++d) {
    REAL nb = src[i - d] + src[i + d] + src[i - d * nx] + src[i + d * nx];
#if DIM3
    nb += src[i - d * sz] + src[i + d * sz];
#endif
    v += c[d] * nb;
  }
  dst[i] = v;
}

#ifndef STENCIL_VW
#define STENCIL_VW 16
#endif
#if !TESSERA_CPU_KERNELS && STENCIL_VW > 1
// gpu, nx % STENCIL_VW == 0 and buffers aligned to a vector (the host checks): a work-item per run
// of STENCIL_VW consecutive cells of an interior row, from x = 0, every neighbour read as one
// aligned vector. A cell per work-item issues a load per cell and neighbour, which bounded f32
// on CUDA's same kernel (kernels/cuda/stencil.cu, stencil3d_cell_kernel: 61 % of copy with a cell,
// 92 % with runs of 4). Cells of the run within RADIUS of the x faces are written back unchanged.
// The sum is stencil_step's, in its order. Global size: (nx / STENCIL_VW, ny - 2R, nz - 2R),
// rounded up to the work-group shape.
#define RUN_H ((RADIUS + STENCIL_VW - 1) / STENCIL_VW)  // runs on each side holding the x halo
typedef REALV(STENCIL_VW) run_t;
__kernel void stencil_step_run(__global const REAL* src, __global REAL* dst, long nx, long ny, long nz, REAL c0,
                               REAL c1, REAL c2, REAL c3, REAL c4) {
  const long x = get_global_id(0) * STENCIL_VW, y = get_global_id(1) + RADIUS;
#if DIM3
  const long z = get_global_id(2) + RADIUS;
  if (x >= nx || y >= ny - RADIUS || z >= nz - RADIUS) return;
  const long sz = nx * ny;
#else
  const long z = 0;
  if (x >= nx || y >= ny - RADIUS) return;
#endif
  const long i = (z * ny + y) * nx + x;
  const REAL c[5] = {c0, c1, c2, c3, c4};
  // row[RUN_H * STENCIL_VW + k] = src(x + k, y, z); runs past the row's ends (never read by a
  // computed cell) are 0.
  REAL row[(2 * RUN_H + 1) * STENCIL_VW];
#pragma unroll
  for (int h = -RUN_H; h <= RUN_H; ++h) {
    const long xh = x + h * STENCIL_VW;
    const run_t w = xh >= 0 && xh < nx ? *(__global const run_t*)(src + i + h * STENCIL_VW) : (run_t)(0);
    VSTOREN(STENCIL_VW)(w, 0, row + (h + RUN_H) * STENCIL_VW);
  }
  REAL ym[RADIUS][STENCIL_VW], yp[RADIUS][STENCIL_VW];
#if DIM3
  REAL zm[RADIUS][STENCIL_VW], zp[RADIUS][STENCIL_VW];
#endif
#pragma unroll
  for (int d = 1; d <= RADIUS; ++d) {
    VSTOREN(STENCIL_VW)(*(__global const run_t*)(src + i - d * nx), 0, ym[d - 1]);
    VSTOREN(STENCIL_VW)(*(__global const run_t*)(src + i + d * nx), 0, yp[d - 1]);
#if DIM3
    VSTOREN(STENCIL_VW)(*(__global const run_t*)(src + i - d * sz), 0, zm[d - 1]);
    VSTOREN(STENCIL_VW)(*(__global const run_t*)(src + i + d * sz), 0, zp[d - 1]);
#endif
  }
  REAL out[STENCIL_VW];
#pragma unroll
  for (int k = 0; k < STENCIL_VW; ++k) {
    const int m = RUN_H * STENCIL_VW + k;
    REAL v = row[m];
    if (x + k >= RADIUS && x + k < nx - RADIUS) {
      v = c[0] * row[m];
#pragma unroll
      for (int d = 1; d <= RADIUS; ++d) {
        REAL nb = row[m - d] + row[m + d] + ym[d - 1][k] + yp[d - 1][k];
#if DIM3
        nb += zm[d - 1][k] + zp[d - 1][k];
#endif
        v += c[d] * nb;
      }
    }
    out[k] = v;
  }
  *(__global run_t*)(dst + i) = VLOADN(STENCIL_VW)(0, out);
}
#undef RUN_H
#endif

// cpu: each work-item computes STENCIL_VW consecutive cells of STENCIL_ROWS consecutive rows with unaligned
// vector loads (explicit SIMD, not left to the implicit vectoriser), so there are few, fat
// work-items (a CPU driver pays per work-group, not per FLOP). A row's last vector is shifted
// back to end at the row's end: it recomputes a few cells of its neighbour with the same
// result instead of finishing cell by cell. Rows shorter than STENCIL_VW go cell by cell.
// Global size: (ceil((nx - 2R) / STENCIL_VW), ceil((ny - 2R) / STENCIL_ROWS), nz - 2R), rounded up to the group.
#ifndef STENCIL_ROWS
#define STENCIL_ROWS 4
#endif
#if TESSERA_CPU_KERNELS && STENCIL_VW > 1
// STENCIL_VW consecutive cells from i0: c0 u + sum_d c_d (the 2 * ndim neighbours at distance d), the
// neighbours as unaligned vector loads at shifted addresses (sz, the plane, is unused in 2D).
inline REALV(STENCIL_VW) point_vec(__global const REAL* src, long i0, long nx, long sz, const REAL* c) {
  REALV(STENCIL_VW) v = c[0] * VLOADN(STENCIL_VW)(0, src + i0);
#pragma unroll
  for (int d = 1; d <= RADIUS; ++d) {
    REALV(STENCIL_VW) nb = VLOADN(STENCIL_VW)(0, src + i0 - d) + VLOADN(STENCIL_VW)(0, src + i0 + d) +
                           VLOADN(STENCIL_VW)(0, src + i0 - d * nx) + VLOADN(STENCIL_VW)(0, src + i0 + d * nx);
#if DIM3
    nb += VLOADN(STENCIL_VW)(0, src + i0 - d * sz) + VLOADN(STENCIL_VW)(0, src + i0 + d * sz);
#endif
    v += c[d] * nb;
  }
  return v;
}
#endif

#if TESSERA_CPU_KERNELS && STENCIL_VW > 1
__kernel void stencil_step_vec(__global const REAL* src, __global REAL* dst, long nx, long ny, long nz, REAL c0,
                               REAL c1, REAL c2, REAL c3, REAL c4) {
  const long x_end = nx - RADIUS;
  long x0 = get_global_id(0) * STENCIL_VW + RADIUS;
  const long y0 = get_global_id(1) * STENCIL_ROWS + RADIUS;
  const long sz = nx * ny;
#if DIM3
  const long z = get_global_id(2) + RADIUS;
  if (x0 >= x_end || y0 >= ny - RADIUS || z >= nz - RADIUS) return;
#else
  const long z = 0;
  if (x0 >= x_end || y0 >= ny - RADIUS) return;
#endif
  const REAL c[5] = {c0, c1, c2, c3, c4};
  const long y1 = min(y0 + STENCIL_ROWS, ny - RADIUS);
  if (x_end - RADIUS >= STENCIL_VW) {
    if (x0 + STENCIL_VW > x_end) x0 = x_end - STENCIL_VW;
    for (long y = y0; y < y1; ++y) {
      const long i0 = (z * ny + y) * nx + x0;
      VSTOREN(STENCIL_VW)(point_vec(src, i0, nx, sz, c), 0, dst + i0);
    }
    return;
  }
  for (long y = y0; y < y1; ++y) {
    for (long x = x0; x < x_end; ++x) {
      const long i = (z * ny + y) * nx + x;
      REAL v = c[0] * src[i];
#pragma unroll
      for (int d = 1; d <= RADIUS; ++d) {
        REAL nb = src[i - d] + src[i + d] + src[i - d * nx] + src[i + d * nx];
#if DIM3
        nb += src[i - d * sz] + src[i + d * sz];
#endif
        v += c[d] * nb;
      }
      dst[i] = v;
    }
  }
}
#endif

#ifndef STENCIL_SWEEP_ROWS
#define STENCIL_SWEEP_ROWS 0  // rows per z sweep; 0: no sweep kernel
#endif
#if TESSERA_CPU_KERNELS && STENCIL_VW > 1 && DIM3 && STENCIL_SWEEP_ROWS > 0
// cpu, 3D grids beyond the caches (the host checks nx % STENCIL_VW == 0 and vector-aligned buffers):
// the CPU backend's method. A work-item sweeps z over its chunk of planes for a block of
// STENCIL_SWEEP_ROWS rows, so the block's 2R + 1 source planes stay in its core's L2 and each source
// cell comes from memory once per step; the interior vectors (aligned, from x = 0) are written
// with non-temporal stores (no write-allocate read of dst) while the row of the next plane is
// prefetched; the first and last vector of a row keep the boundary lanes from src and are
// stored normally. Loads left of x = 0 and right of nx read the neighbouring rows, which
// exist. Clang builtins: PoCL. Global size: (y blocks, z chunks); `zc` planes per chunk (last,
// so the arguments before it are stencil_step's).
__kernel void stencil_sweep(__global const REAL* src, __global REAL* dst, long nx, long ny, long nz, REAL c0,
                            REAL c1, REAL c2, REAL c3, REAL c4, long zc) {
  const long y0 = get_global_id(0) * STENCIL_SWEEP_ROWS + RADIUS, z0 = get_global_id(1) * zc + RADIUS;
  const long y1 = min(y0 + STENCIL_SWEEP_ROWS, ny - RADIUS), z1 = min(z0 + zc, nz - RADIUS);
  const long sz = nx * ny;
  const REAL c[5] = {c0, c1, c2, c3, c4};
  for (long z = z0; z < z1; ++z) {
    for (long y = y0; y < y1; ++y) {
      const long row = (z * ny + y) * nx;
      if (z + 1 < z1)
        for (long b = 0; b < nx; b += 64 / sizeof(REAL)) __builtin_prefetch(src + row + (RADIUS + 1) * sz + b);
      for (long x0 = 0; x0 < nx; x0 += STENCIL_VW) {
        const long i0 = row + x0;
        const REALV(STENCIL_VW) v = point_vec(src, i0, nx, sz, c);
        if (x0 < RADIUS || x0 + STENCIL_VW > nx - RADIUS) {
          REAL lanes[STENCIL_VW];
          VSTOREN(STENCIL_VW)(v, 0, lanes);
          for (int l = 0; l < STENCIL_VW; ++l)
            if (x0 + l < RADIUS || x0 + l >= nx - RADIUS) lanes[l] = src[i0 + l];
          VSTOREN(STENCIL_VW)(VLOADN(STENCIL_VW)(0, lanes), 0, dst + i0);
        } else {
          __builtin_nontemporal_store(v, (__global REALV(STENCIL_VW)*)(dst + i0));
        }
      }
    }
  }
}
#endif

// The x faces of the boundary (the RADIUS cells at each end of every interior row), copied
// from src to dst: a work-item per row, global (ny - 2R, nz - 2R) (nz - 2R = 1 in 2D). The
// host copies the wide y and z faces with rectangular buffer copies, which drivers run at copy
// speed; rows only RADIUS cells wide are what they run slowly.
__kernel void stencil_copy_x_faces(__global const REAL* src, __global REAL* dst, long nx, long ny, long rows,
                                   long planes) {
  const long y = get_global_id(0), z = get_global_id(1);
  if (y >= rows || z >= planes) return;
  const long row = ((z + (DIM3 ? RADIUS : 0)) * ny + y + RADIUS) * nx;
  for (int k = 0; k < RADIUS; ++k) {
    dst[row + k] = src[row + k];
    dst[row + nx - 1 - k] = src[row + nx - 1 - k];
  }
}

// The general star stencil (lib/include/tessera/stencil.hpp): per-axis coefficients
// cx/cy/cz[d - 1], a face kind each (0 Dirichlet, 1 Neumann, 2 periodic: StencilBoundary's
// values) and a source added last when nonzero. One work-item per cell of the whole grid,
// global (nx, ny, nz) rounded up to the group: a cell the faces do not let update is copied,
// so both buffers of the ping-pong always hold the fixed cells.
inline long stencil_ghost(long j, long n, int lo, int hi) {
  if (j < 0) return lo == 2 ? j + n : -1 - j;
  if (j >= n) return hi == 2 ? j - n : 2 * n - 1 - j;
  return j;
}
inline bool stencil_updated(long i, long n, int lo, int hi) {
  return (lo != 0 || i >= RADIUS) && (hi != 0 || i < n - RADIUS);
}

__kernel void stencil_step_general(__global const REAL* src, __global REAL* dst, long nx, long ny, long nz,
                                   REAL c0, REAL cx1, REAL cx2, REAL cx3, REAL cx4, REAL cy1, REAL cy2, REAL cy3,
                                   REAL cy4, REAL cz1, REAL cz2, REAL cz3, REAL cz4, REAL source, int fx0,
                                   int fx1, int fy0, int fy1, int fz0, int fz1) {
  const long x = get_global_id(0), y = get_global_id(1);
#if DIM3
  const long z = get_global_id(2);
  if (x >= nx || y >= ny || z >= nz) return;
#else
  const long z = 0;
  if (x >= nx || y >= ny) return;
#endif
  const long i = (z * ny + y) * nx + x;
  bool upd = stencil_updated(x, nx, fx0, fx1) && stencil_updated(y, ny, fy0, fy1);
#if DIM3
  upd = upd && stencil_updated(z, nz, fz0, fz1);
#endif
  if (!upd) {
    dst[i] = src[i];
    return;
  }
  const REAL cx[4] = {cx1, cx2, cx3, cx4}, cy[4] = {cy1, cy2, cy3, cy4}, cz[4] = {cz1, cz2, cz3, cz4};
  const long row = (z * ny + y) * nx, plane = nx * ny;
  REAL v = c0 * src[i];
#pragma unroll
  for (int d = 1; d <= RADIUS; ++d) {
    v += cx[d - 1] * (src[row + stencil_ghost(x - d, nx, fx0, fx1)] + src[row + stencil_ghost(x + d, nx, fx0, fx1)]);
    v += cy[d - 1] * (src[(z * ny + stencil_ghost(y - d, ny, fy0, fy1)) * nx + x] +
                      src[(z * ny + stencil_ghost(y + d, ny, fy0, fy1)) * nx + x]);
#if DIM3
    v += cz[d - 1] * (src[stencil_ghost(z - d, nz, fz0, fz1) * plane + y * nx + x] +
                      src[stencil_ghost(z + d, nz, fz0, fz1) * plane + y * nx + x]);
#endif
  }
  if (source != 0) v += source;
  dst[i] = v;
}

#ifndef STENCIL_TB_LEVELS
#define STENCIL_TB_LEVELS 1
#endif
#if DIM3 && RADIUS == 1 && STENCIL_TB_LEVELS > 1 && !TESSERA_CPU_KERNELS
// GPU, 3D 7-point: STENCIL_TB_LEVELS (T) Jacobi steps per pass through memory (2.5D temporal
// blocking with overlapped halos; the AN5D / EBISU idea, written for this kernel set). A work-group
// of LX x LY work-items holds an LX x LY column of cells, one per work-item, and sweeps all of z.
// Iteration k loads plane k of the source; step s (1..T) then computes plane k + 1 - 2s of its
// (tile-local) grid from step s - 1's planes k - 2s .. k + 2 - 2s (the centre of its 3-deep
// register queue, whose newest plane came one iteration earlier: hence 2 planes per step), the
// z neighbours from that queue, the x and y neighbours from step s - 1's centre plane in local
// memory. Step s is right in the tile less s cells from each edge, so the group writes the
// inner (LX - 2T) x (LY - 2T) cells of step T: groups overlap by 2T cells (recomputed halos),
// and every cell of the source is read about LX LY / ((LX - 2T)(LY - 2T)) times per T steps.
// Cells on a face (the fixed boundary) keep their value in every step and are not written (the
// host keeps them in both buffers, as for stencil_step). The sum is stencil_step's, in its
// order, so a cell gets the same operations. Global size: (groups_x * LX, groups_y * LY),
// local (LX, LY) = (STENCIL_TB_LX, STENCIL_TB_LY); groups_x = ceil((nx - 2) / (LX - 2T)), likewise y.
__kernel __attribute__((reqd_work_group_size(STENCIL_TB_LX, STENCIL_TB_LY, 1))) void stencil_tblock(
    __global const REAL* src, __global REAL* dst, long nx, long ny, long nz, REAL c0, REAL c1) {
#define TB STENCIL_TB_LEVELS
  __local REAL plane_of[TB][STENCIL_TB_LY][STENCIL_TB_LX];
  const int tx = get_local_id(0), ty = get_local_id(1);
  const long x = (long)get_group_id(0) * (STENCIL_TB_LX - 2 * TB) - TB + 1 + tx;
  const long y = (long)get_group_id(1) * (STENCIL_TB_LY - 2 * TB) - TB + 1 + ty;
  const bool in_grid = x >= 0 && x < nx && y >= 0 && y < ny;
  const bool face_xy = x < 1 || x >= nx - 1 || y < 1 || y >= ny - 1;
  // Written: the tile's inner cells of step T that are interior cells of the grid.
  const bool writes = tx >= TB && tx < STENCIL_TB_LX - TB && ty >= TB && ty < STENCIL_TB_LY - TB && in_grid && !face_xy;
  const int xl = max(tx - 1, 0), xr = min(tx + 1, STENCIL_TB_LX - 1);
  const int yl = max(ty - 1, 0), yr = min(ty + 1, STENCIL_TB_LY - 1);
  const long sz = nx * ny, col = y * nx + x;
  // q[s][0..2]: step s's planes (newest last); step 0 is the source.
  REAL q[TB][3];
  for (int s = 0; s < TB; ++s) q[s][0] = q[s][1] = q[s][2] = 0;
  for (long k = 0; k < nz + 2 * TB - 1; ++k) {
    q[0][0] = q[0][1];
    q[0][1] = q[0][2];
    q[0][2] = in_grid && k < nz ? src[k * sz + col] : 0;
    for (int s = 0; s < TB; ++s) plane_of[s][ty][tx] = q[s][1];
    barrier(CLK_LOCAL_MEM_FENCE);
    REAL v[TB];
    for (int s = 1; s <= TB; ++s) {
      const long z = k + 1 - 2 * s;  // the plane step s computes
      const REAL u = q[s - 1][1];
      REAL w = u;
      if (!face_xy && z >= 1 && z < nz - 1) {
        w = c0 * u;
        REAL nb = plane_of[s - 1][ty][xl] + plane_of[s - 1][ty][xr] + plane_of[s - 1][yl][tx] + plane_of[s - 1][yr][tx];
        nb += q[s - 1][0] + q[s - 1][2];
        w += c1 * nb;
      }
      v[s - 1] = w;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int s = 1; s < TB; ++s) {
      q[s][0] = q[s][1];
      q[s][1] = q[s][2];
      q[s][2] = v[s - 1];
    }
    const long z = k + 1 - 2 * TB;
    if (writes && z >= 1 && z < nz - 1) dst[z * sz + col] = v[TB - 1];
  }
#undef TB
}
#endif
