// Star stencils of radius R (1..4) on 2D and 3D grids, one Jacobi step per launch (the host
// ping-pongs between u and a scratch grid). Bound: one read and one write of every cell per
// step. Every launch writes every cell of `out` (boundary cells copied), so both buffers always
// hold the fixed boundary and no extra copy is needed between steps.
//
// 3D: the plane sweep (stencil3d_kernel), a thread per run of cells (stencil3d_cell_kernel), and
// several steps per pass for the 7-point stencil (stencil3d_tblock_kernel, the tile kernel: a
// cell a thread, for grids the runs kernel of stencil_tblock.cu does not take); the backend picks.
#include "kernels/cuda/common.cuh"

namespace tessera::cuda {

namespace {

template <class T, int R>
__global__ __launch_bounds__(kStencil2dBlockX* kStencil2dBlockY) void stencil2d_kernel(StencilCoeffs<T> c,
                                                                                       const T* __restrict__ in,
                                                                                       T* __restrict__ out,
                                                                                       std::int64_t nx,
                                                                                       std::int64_t ny) {
  constexpr int BX = kStencil2dBlockX, BY = kStencil2dBlockY * kStencil2dRowsPerThread;
  constexpr int SX = BX + 2 * R, SY = BY + 2 * R;
  __shared__ T tile[SY][SX];
  const std::int64_t x0 = static_cast<std::int64_t>(blockIdx.x) * BX, y0 = static_cast<std::int64_t>(blockIdx.y) * BY;
  const int tid = threadIdx.y * BX + threadIdx.x;
  for (int e = tid; e < SX * SY; e += BX * kStencil2dBlockY) {
    const int sy = e / SX, sx = e % SX;
    const std::int64_t gx = x0 + sx - R, gy = y0 + sy - R;
    tile[sy][sx] = gx >= 0 && gx < nx && gy >= 0 && gy < ny ? in[gy * nx + gx] : T(0);
  }
  __syncthreads();
  const int tx = threadIdx.x;
  const std::int64_t x = x0 + tx;
  if (x >= nx) return;
#pragma unroll
  for (int r = 0; r < kStencil2dRowsPerThread; ++r) {
    const int ty = threadIdx.y + r * kStencil2dBlockY;
    const std::int64_t y = y0 + ty;
    if (y >= ny) break;
    T v = tile[ty + R][tx + R];
    if (x >= R && x < nx - R && y >= R && y < ny - R) {
      T s = c.c[0] * v;
#pragma unroll
      for (int d = 1; d <= R; ++d)
        s += c.c[d] * ((tile[ty + R][tx + R - d] + tile[ty + R][tx + R + d]) +
                       (tile[ty + R - d][tx + R] + tile[ty + R + d][tx + R]));
      v = s;
    }
    out[y * nx + x] = v;
  }
}

// 3D plane sweep (the 2.5D method; stencil.plane_sweep): a block owns a 128 x 8 column of cells
// over a chunk of z, each thread a run of V = kStencil3dCellsX consecutive cells along x, read and
// written as one vector. The current x-y plane (with a one-run halo in x and an R-wide one in y)
// sits in shared memory as runs, so a thread reads its x neighbours as three runs and each y
// neighbour as one (V cells per shared-memory instruction: with a cell per access, 32 apart,
// the 25-point f32 sweep spent its issue slots on shared-memory loads); each thread keeps its
// runs' 2R + 1 planes along z in register queues, so every cell is loaded from global memory
// once per step (plus the halos, mostly L2 hits); every load (queue and halos) is issued one
// plane before the plane that needs it. Needs nx % V == 0 and V-aligned grids
// (launch_stencil3d falls back to a thread per cell). The sum is the cell kernel's, in its order.
template <class T, int R>
__global__ __launch_bounds__(kStencil3dBlockX* kStencil3dBlockY) void stencil3d_kernel(
    StencilCoeffs<T> c, const T* __restrict__ in, T* __restrict__ out, std::int64_t nx, std::int64_t ny,
    std::int64_t nz, int z_chunk) {
  constexpr int BX = kStencil3dBlockX, BY = kStencil3dBlockY, V = kStencil3dCellsX, D = kStencil3dPrefetch;
  static_assert(R <= V, "the x halo is one run on each side");
  using Run = CellRun<T, V>;
  __shared__ Run tile[BY + 2 * R][BX + 2];  // runs; column 0 and BX + 1: the x halo
  const int tx = threadIdx.x, ty = threadIdx.y;
  const std::int64_t x0 = static_cast<std::int64_t>(blockIdx.x) * BX * V, x = x0 + tx * V;
  const std::int64_t y = static_cast<std::int64_t>(blockIdx.y) * BY + ty;
  const std::int64_t z0 = static_cast<std::int64_t>(blockIdx.z) * z_chunk;
  const std::int64_t z1 = imin64(nz, z0 + z_chunk);
  const std::int64_t plane = nx * ny;
  // The run starting at xx (a multiple of V: wholly inside or outside the row), 0 outside the grid.
  auto at = [&](std::int64_t xx, std::int64_t yy, std::int64_t zz) -> Run {
    return xx >= 0 && xx < nx && yy >= 0 && yy < ny && zz >= 0 && zz < nz
               ? *reinterpret_cast<const Run*>(in + zz * plane + yy * nx + xx)
               : Run{};
  };

  // q[i] = the run at (x, y, z - R + i): q[0..2R] is this plane's column, q[2R+1..2R+D] loads in
  // flight for the next D planes.
  Run q[2 * R + 1 + D];
#pragma unroll
  for (int i = 0; i < 2 * R + D; ++i) q[i] = z0 - R + i < z1 + R ? at(x, y, z0 - R + i) : Run{};

  // Halos of a plane, fetched one plane ahead as well: the runs left and right of the tile
  // (threads 0 and 1 of each row), the R rows above and below it (threads ty < R).
  Run hx{}, hy[2];
  const std::int64_t hx_x = tx == 0 ? x0 - V : x0 + BX * V;
  auto halos = [&](std::int64_t z, Run& ax, Run (&ay)[2]) {
    if (tx < 2) ax = at(hx_x, y, z);
    if (ty < R) {
      ay[0] = at(x, static_cast<std::int64_t>(blockIdx.y) * BY - R + ty, z);
      ay[1] = at(x, static_cast<std::int64_t>(blockIdx.y) * BY + BY + ty, z);
    }
  };
  halos(z0, hx, hy);

  for (std::int64_t z = z0; z < z1; ++z) {
    q[2 * R + D] = z + D < z1 ? at(x, y, z + R + D) : Run{};
    Run nhx{}, nhy[2];
    if (z + 1 < z1) halos(z + 1, nhx, nhy);
    __syncthreads();  // the previous plane's readers are done
    tile[ty + R][1 + tx] = q[R];
    if (tx < 2) tile[ty + R][tx == 0 ? 0 : BX + 1] = hx;
    if (ty < R) {
      tile[ty][1 + tx] = hy[0];
      tile[ty + BY + R][1 + tx] = hy[1];
    }
    __syncthreads();
    if (x < nx && y < ny) {
      Run res = q[R];
      if (y >= R && y < ny - R && z >= R && z < nz - R) {
        // row[V + k] = u(x + k, y, z) for k in [-V, 2V).
        T row[3 * V];
        const Run left = tile[ty + R][tx], right = tile[ty + R][tx + 2];
#pragma unroll
        for (int k = 0; k < V; ++k) {
          row[k] = left.v[k];
          row[V + k] = q[R].v[k];
          row[2 * V + k] = right.v[k];
        }
        Run ym[R], yp[R];
#pragma unroll
        for (int d = 1; d <= R; ++d) {
          ym[d - 1] = tile[ty + R - d][1 + tx];
          yp[d - 1] = tile[ty + R + d][1 + tx];
        }
#pragma unroll
        for (int k = 0; k < V; ++k) {
          if (x + k < R || x + k >= nx - R) continue;
          T acc = c.c[0] * q[R].v[k];
#pragma unroll
          for (int d = 1; d <= R; ++d)
            acc += c.c[d] * ((row[V + k - d] + row[V + k + d]) + (ym[d - 1].v[k] + yp[d - 1].v[k]) +
                             (q[R - d].v[k] + q[R + d].v[k]));
          res.v[k] = acc;
        }
      }
      *reinterpret_cast<Run*>(out + z * plane + y * nx + x) = res;
    }
#pragma unroll
    for (int i = 0; i < 2 * R + D; ++i) q[i] = q[i + 1];
    hx = nhx;
    hy[0] = nhy[0];
    hy[1] = nhy[1];
  }
}

// 3D, a thread per V consecutive cells along x (stencil.plane_sweep = 0): the shape of the
// OpenCL GPU kernel (kernels/opencl/stencil.cl, stencil_step), whose x and y neighbours come from
// L1 and the z neighbours from L2; a block of 32 x 8 threads per plane, the grid's z blocks
// striding over the planes. V > 1 loads each neighbour as one V-wide vector (the row through
// the V cells and its R-wide halo as 2 ceil(R / V) + 1 of them), so a warp moves 32 V cells per
// load instruction: with V = 1, f32 ran at 63 % of copy against f64's 94 % with the same
// instruction count (bench/RESULTS.md, session 11), the loads' issue rather than memory being the
// bound. V > 1 needs nx % V == 0 and V-aligned grids (launch_stencil3d_cell checks). The sum is
// stencil3d_kernel's, in its order: the same result bit for bit.
template <class T, int R, int V>
__global__ __launch_bounds__(kStencil3dBlockX* kStencil3dBlockY) void stencil3d_cell_kernel(
    StencilCoeffs<T> c, const T* __restrict__ in, T* __restrict__ out, std::int64_t nx, std::int64_t ny,
    std::int64_t nz) {
  using Run = CellRun<T, V>;
  constexpr int H = (R + V - 1) / V;  // runs on each side holding the x halo
  const std::int64_t x = (static_cast<std::int64_t>(blockIdx.x) * kStencil3dBlockX + threadIdx.x) * V;
  const std::int64_t y = static_cast<std::int64_t>(blockIdx.y) * kStencil3dBlockY + threadIdx.y;
  if (x >= nx || y >= ny) return;
  const std::int64_t plane = nx * ny;
  const bool inner_y = y >= R && y < ny - R;
  auto run_at = [&](std::int64_t i) { return *reinterpret_cast<const Run*>(in + i); };
  for (std::int64_t z = blockIdx.z; z < nz; z += gridDim.z) {
    const std::int64_t i = z * plane + y * nx + x;
    const Run mid = run_at(i);
    Run res = mid;
    if (inner_y && z >= R && z < nz - R) {
      // row[H V + k] = u(x + k, y, z) for k in [-H V, (H + 1) V): runs past the row's ends are
      // never read by a computed cell (those lie R or more inside), so they are left 0.
      T row[(2 * H + 1) * V];
#pragma unroll
      for (int h = -H; h <= H; ++h) {
        const std::int64_t xh = x + static_cast<std::int64_t>(h) * V;
        const Run w = h == 0 ? mid : (xh >= 0 && xh < nx ? run_at(i + h * V) : Run{});
#pragma unroll
        for (int k = 0; k < V; ++k) row[(h + H) * V + k] = w.v[k];
      }
      Run ym[R], yp[R], zm[R], zp[R];
#pragma unroll
      for (int d = 1; d <= R; ++d) {
        ym[d - 1] = run_at(i - d * nx);
        yp[d - 1] = run_at(i + d * nx);
        zm[d - 1] = run_at(i - d * plane);
        zp[d - 1] = run_at(i + d * plane);
      }
#pragma unroll
      for (int k = 0; k < V; ++k) {
        if (x + k < R || x + k >= nx - R) continue;
        T acc = c.c[0] * mid.v[k];
#pragma unroll
        for (int d = 1; d <= R; ++d)
          acc += c.c[d] * ((row[H * V + k - d] + row[H * V + k + d]) + (ym[d - 1].v[k] + yp[d - 1].v[k]) +
                           (zm[d - 1].v[k] + zp[d - 1].v[k]));
        res.v[k] = acc;
      }
    }
    *reinterpret_cast<Run*>(out + i) = res;
  }
}

// 3D 7-point, TB Jacobi steps per pass (2.5D temporal blocking with overlapped halos; the
// AN5D / EBISU idea, written for this kernel set). A block of lx x ly threads holds an lx x ly
// column of cells, one per thread, and sweeps all of z. Iteration k loads plane k (issued one
// iteration ahead); step s (1..TB) computes plane k + 1 - 2s from step s - 1's planes
// k - 2s .. k + 2 - 2s: the z neighbours from a 3-deep register queue per step (its newest plane
// arrived one iteration earlier, hence 2 planes per step), the x and y neighbours from step
// s - 1's centre plane in shared memory. Step s is right in the tile less s cells from each
// edge; the block writes the inner (lx - 2TB) x (ly - 2TB) cells of step TB, every plane, faces
// included (a face cell keeps its value in every step), so both buffers always hold the boundary.
// The sum is stencil3d_kernel's, in its order: the same operations per cell.
// LX, LY > 0: the tile's shape at compile time (its shared-memory indexing constant); 0: the
// block's. MINB: blocks per SM the registers must allow (launch_stencil3d_tblock's min_blocks).
template <class T, int TB, int LX, int LY, int MINB = 1>
__global__ __launch_bounds__(1024, MINB) void stencil3d_tblock_kernel(StencilCoeffs<T> c, const T* __restrict__ in,
                                                                 T* __restrict__ out, std::int64_t nx,
                                                                 std::int64_t ny, std::int64_t nz) {
  extern __shared__ unsigned char stencil_smem[];
  T* planes = reinterpret_cast<T*>(stencil_smem);  // [TB][ly][lx]: step s's centre plane
  const int lx = LX > 0 ? LX : static_cast<int>(blockDim.x), ly = LY > 0 ? LY : static_cast<int>(blockDim.y);
  const int tx = threadIdx.x, ty = threadIdx.y;
  const std::int64_t x = static_cast<std::int64_t>(blockIdx.x) * (lx - 2 * TB) - TB + tx;
  const std::int64_t y = static_cast<std::int64_t>(blockIdx.y) * (ly - 2 * TB) - TB + ty;
  const bool in_grid = x >= 0 && x < nx && y >= 0 && y < ny;
  const bool face_xy = x < 1 || x >= nx - 1 || y < 1 || y >= ny - 1;
  const bool writes = in_grid && tx >= TB && tx < lx - TB && ty >= TB && ty < ly - TB;
  const int xl = max(tx - 1, 0), xr = min(tx + 1, lx - 1), yl = max(ty - 1, 0), yr = min(ty + 1, ly - 1);
  const std::int64_t sz = nx * ny, col = y * nx + x;
  auto at = [&](int s, int yy, int xx) -> T& { return planes[(s * ly + yy) * lx + xx]; };
  T q[TB][3];
#pragma unroll
  for (int s = 0; s < TB; ++s) q[s][0] = q[s][1] = q[s][2] = T(0);
  T ahead = in_grid && nz > 0 ? in[col] : T(0);
  for (std::int64_t k = 0; k < nz + 2 * TB - 1; ++k) {
    q[0][0] = q[0][1];
    q[0][1] = q[0][2];
    q[0][2] = ahead;
    ahead = in_grid && k + 1 < nz ? in[(k + 1) * sz + col] : T(0);
#pragma unroll
    for (int s = 0; s < TB; ++s) at(s, ty, tx) = q[s][1];
    __syncthreads();
    T v[TB];
#pragma unroll
    for (int s = 1; s <= TB; ++s) {
      const std::int64_t z = k + 1 - 2 * s;
      const T u = q[s - 1][1];
      T w = u;
      if (!face_xy && z >= 1 && z < nz - 1) {
        w = c.c[0] * u;
        w += c.c[1] * ((at(s - 1, ty, xl) + at(s - 1, ty, xr)) + (at(s - 1, yl, tx) + at(s - 1, yr, tx)) +
                       (q[s - 1][0] + q[s - 1][2]));
      }
      v[s - 1] = w;
    }
    __syncthreads();
#pragma unroll
    for (int s = 1; s < TB; ++s) {
      q[s][0] = q[s][1];
      q[s][1] = q[s][2];
      q[s][2] = v[s - 1];
    }
    const std::int64_t z = k + 1 - 2 * TB;
    if (writes && z >= 0 && z < nz) out[z * sz + col] = v[TB - 1];
  }
}

}  // namespace

template <class T>
cudaError_t launch_stencil2d(int radius, const StencilCoeffs<T>& c, const T* in, T* out, std::int64_t nx,
                             std::int64_t ny, cudaStream_t stream) {
  const dim3 block(kStencil2dBlockX, kStencil2dBlockY);
  const dim3 grid(blocks_for(nx, kStencil2dBlockX), blocks_for(ny, kStencil2dBlockY * kStencil2dRowsPerThread));
  if (grid.y > 65535u) return cudaErrorInvalidConfiguration;
  switch (radius) {
    case 1: stencil2d_kernel<T, 1><<<grid, block, 0, stream>>>(c, in, out, nx, ny); break;
    case 2: stencil2d_kernel<T, 2><<<grid, block, 0, stream>>>(c, in, out, nx, ny); break;
    case 3: stencil2d_kernel<T, 3><<<grid, block, 0, stream>>>(c, in, out, nx, ny); break;
    case 4: stencil2d_kernel<T, 4><<<grid, block, 0, stream>>>(c, in, out, nx, ny); break;
    default: return cudaErrorInvalidValue;
  }
  return cudaGetLastError();
}

template <class T>
cudaError_t launch_stencil3d(int radius, const StencilCoeffs<T>& c, const T* in, T* out, std::int64_t nx,
                             std::int64_t ny, std::int64_t nz, int z_chunk, cudaStream_t stream) {
  if (stencil3d_cell_run(kStencil3dCellsX, in, out, nx, sizeof(T)) != kStencil3dCellsX)
    return launch_stencil3d_cell<T>(radius, 1, c, in, out, nx, ny, nz, stream);
  const dim3 block(kStencil3dBlockX, kStencil3dBlockY);
  const dim3 grid(blocks_for(nx, kStencil3dBlockX * kStencil3dCellsX), blocks_for(ny, kStencil3dBlockY),
                  blocks_for(nz, z_chunk));
  if (grid.y > 65535u || grid.z > 65535u) return cudaErrorInvalidConfiguration;
  switch (radius) {
    case 1: stencil3d_kernel<T, 1><<<grid, block, 0, stream>>>(c, in, out, nx, ny, nz, z_chunk); break;
    case 2: stencil3d_kernel<T, 2><<<grid, block, 0, stream>>>(c, in, out, nx, ny, nz, z_chunk); break;
    case 3: stencil3d_kernel<T, 3><<<grid, block, 0, stream>>>(c, in, out, nx, ny, nz, z_chunk); break;
    case 4: stencil3d_kernel<T, 4><<<grid, block, 0, stream>>>(c, in, out, nx, ny, nz, z_chunk); break;
    default: return cudaErrorInvalidValue;
  }
  return cudaGetLastError();
}

namespace {
template <class T, int V>
void launch_cells(int radius, dim3 grid, dim3 block, const StencilCoeffs<T>& c, const T* in, T* out,
                  std::int64_t nx, std::int64_t ny, std::int64_t nz, cudaStream_t stream) {
  switch (radius) {
    case 1: stencil3d_cell_kernel<T, 1, V><<<grid, block, 0, stream>>>(c, in, out, nx, ny, nz); break;
    case 2: stencil3d_cell_kernel<T, 2, V><<<grid, block, 0, stream>>>(c, in, out, nx, ny, nz); break;
    case 3: stencil3d_cell_kernel<T, 3, V><<<grid, block, 0, stream>>>(c, in, out, nx, ny, nz); break;
    default: stencil3d_cell_kernel<T, 4, V><<<grid, block, 0, stream>>>(c, in, out, nx, ny, nz); break;
  }
}
}  // namespace

int stencil3d_cell_run(int cells, const void* in, const void* out, std::int64_t nx, std::size_t elem) {
  const auto aligned = [&](const void* p) { return reinterpret_cast<std::uintptr_t>(p) % (elem * cells) == 0; };
  return (cells == 2 || cells == 4) && nx % cells == 0 && aligned(in) && aligned(out) ? cells : 1;
}

template <class T>
cudaError_t launch_stencil3d_cell(int radius, int cells, const StencilCoeffs<T>& c, const T* in, T* out,
                                  std::int64_t nx, std::int64_t ny, std::int64_t nz, cudaStream_t stream) {
  if (radius < 1 || radius > 4) return cudaErrorInvalidValue;
  const int v = stencil3d_cell_run(cells, in, out, nx, sizeof(T));
  const dim3 block(kStencil3dBlockX, kStencil3dBlockY);
  const dim3 grid(blocks_for((nx + v - 1) / v, kStencil3dBlockX), blocks_for(ny, kStencil3dBlockY),
                  static_cast<unsigned>(imin64(nz, 65535)));
  if (grid.y > 65535u) return cudaErrorInvalidConfiguration;
  if (v == 4) launch_cells<T, 4>(radius, grid, block, c, in, out, nx, ny, nz, stream);
  else if (v == 2) launch_cells<T, 2>(radius, grid, block, c, in, out, nx, ny, nz, stream);
  else launch_cells<T, 1>(radius, grid, block, c, in, out, nx, ny, nz, stream);
  return cudaGetLastError();
}

namespace {
// One tblock launch with TB levels: a compile-time tile for the shapes listed, else the block's.
template <class T, int TB>
void launch_tblock_levels(dim3 grid, dim3 block, std::size_t smem, const StencilCoeffs<T>& c, const T* in, T* out,
                          std::int64_t nx, std::int64_t ny, std::int64_t nz, int min_blocks, cudaStream_t stream) {
  const bool two = min_blocks >= 2;
  if (block.x == 32 && block.y == 16)
    stencil3d_tblock_kernel<T, TB, 32, 16><<<grid, block, smem, stream>>>(c, in, out, nx, ny, nz);
  else if (block.x == 32 && block.y == 32 && two)
    stencil3d_tblock_kernel<T, TB, 32, 32, 2><<<grid, block, smem, stream>>>(c, in, out, nx, ny, nz);
  else if (block.x == 32 && block.y == 32)
    stencil3d_tblock_kernel<T, TB, 32, 32><<<grid, block, smem, stream>>>(c, in, out, nx, ny, nz);
  else if (block.x == 64 && block.y == 16 && two)
    stencil3d_tblock_kernel<T, TB, 64, 16, 2><<<grid, block, smem, stream>>>(c, in, out, nx, ny, nz);
  else if (block.x == 64 && block.y == 16)
    stencil3d_tblock_kernel<T, TB, 64, 16><<<grid, block, smem, stream>>>(c, in, out, nx, ny, nz);
  else
    stencil3d_tblock_kernel<T, TB, 0, 0><<<grid, block, smem, stream>>>(c, in, out, nx, ny, nz);
}
}  // namespace

template <class T>
cudaError_t launch_stencil3d_tblock(int levels, const StencilCoeffs<T>& c, const T* in, T* out, std::int64_t nx,
                                    std::int64_t ny, std::int64_t nz, int lx, int ly, int min_blocks,
                                    cudaStream_t stream) {
  if (levels < 2 || levels > kStencilTblockMaxLevels || lx <= 2 * levels || ly <= 2 * levels || lx * ly > 1024)
    return cudaErrorInvalidValue;
  const dim3 block(static_cast<unsigned>(lx), static_cast<unsigned>(ly));
  const dim3 grid(blocks_for(nx, lx - 2 * levels), blocks_for(ny, ly - 2 * levels));
  if (grid.y > 65535u) return cudaErrorInvalidConfiguration;
  const std::size_t smem = static_cast<std::size_t>(levels) * lx * ly * sizeof(T);
  switch (levels) {
    case 2: launch_tblock_levels<T, 2>(grid, block, smem, c, in, out, nx, ny, nz, min_blocks, stream); break;
    case 3: launch_tblock_levels<T, 3>(grid, block, smem, c, in, out, nx, ny, nz, min_blocks, stream); break;
    case 4: launch_tblock_levels<T, 4>(grid, block, smem, c, in, out, nx, ny, nz, min_blocks, stream); break;
    default: return cudaErrorInvalidValue;
  }
  return cudaGetLastError();
}

#define TESSERA_STENCIL_INSTANTIATE(T)                                                                        \
  template cudaError_t launch_stencil2d<T>(int, const StencilCoeffs<T>&, const T*, T*, std::int64_t,          \
                                           std::int64_t, cudaStream_t);                                       \
  template cudaError_t launch_stencil3d<T>(int, const StencilCoeffs<T>&, const T*, T*, std::int64_t,          \
                                           std::int64_t, std::int64_t, int, cudaStream_t);                    \
  template cudaError_t launch_stencil3d_cell<T>(int, int, const StencilCoeffs<T>&, const T*, T*, std::int64_t,\
                                                std::int64_t, std::int64_t, cudaStream_t);                    \
  template cudaError_t launch_stencil3d_tblock<T>(int, const StencilCoeffs<T>&, const T*, T*, std::int64_t,   \
                                                  std::int64_t, std::int64_t, int, int, int, cudaStream_t);
TESSERA_STENCIL_INSTANTIATE(float)
TESSERA_STENCIL_INSTANTIATE(double)

}  // namespace tessera::cuda
