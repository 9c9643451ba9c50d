// The 3D 7-point stencil, several Jacobi steps per pass through memory, a thread per run of
// cells (temporal blocking; the 2.5D sweep with overlapped halos of AN5D / EBISU, written for
// this kernel set).
//
// Why a run a thread: the tile kernel (stencil.cu, a cell a thread) spent its time on shared
// memory, not on DRAM: every cell of every level took a store and four loads of single words
// there, with two barriers a plane (bench/RESULTS.md, session 12: 2-step passes at 46 % of the
// copy bandwidth). Here a thread holds V cells along x (one 16-byte vector) in M rows: the x
// neighbours come from the run itself and from the next lanes by warp shuffles, the y neighbours
// inside the thread's rows from its registers, and only its first and last rows go through
// shared memory (a 16-byte store each, a 16-byte load for each neighbour row), double-buffered so
// that one barrier a plane suffices.
//
// The pipeline along z is the tile kernel's: iteration k takes plane k (brought by cp.async into
// a ring of 3 planes in shared memory, D = 2 iterations ahead, each thread its own runs); level s
// (1..TB) computes plane k + 1 - 2s from level s - 1's planes k - 2s .. k + 2 - 2s, the z
// neighbours from a 3-deep register queue per level, the x and y neighbours of level s - 1's
// centre plane. The queues' roles rotate with the iteration's phase (the loop is unrolled by 3),
// so no plane is moved between registers; the thread's conditions live in one word of flags.
// (16 steps of 512^3 f32 on an H200, 2 steps a pass, 1 row: registers ahead and moved 4.39 ms,
// the ring and the rotation 3.34, the flags 2.75; bench/RESULTS.md session 23.)
//
// A block is one warp wide (32 runs, TX = 32 V cells) and BY warps tall (TY = BY M rows); level s
// is right in the tile less s cells from each edge, and the block writes the cells HX = ceil(TB /
// V) V from its x edges and TB from its y edges, every plane (face cells keep their value at
// every level, so both buffers always hold the boundary). One level (TB = 1, a one-step sweep)
// keeps the halo lanes: its end lanes reading their outer neighbours from `in` instead (whole-warp
// tiles, 4 of 128 cells for 512 f32 rather than 5 of 120) measured 12 % slower for f32 and 8 %
// for f64 on an H200 (the loads wait in the arithmetic; bench/RESULTS.md session 24). Each cell's
// sum is stencil3d_kernel's, in its order. z goes in chunks (a block's planes [z0, z1), the
// pipeline started TB planes below), their size chosen by plan/stencil_chunks.hpp so that every
// SM has tiles.
#include <algorithm>
#include <type_traits>

#include "kernels/cuda/common.cuh"

namespace tessera::cuda {

namespace {

template <int TB, int V>
constexpr int tblock_runs_halo_x() {
  return (TB + V - 1) / V * V;
}

template <class T, int V, int TB, int BY, int M, int D>
struct TblockRunsShape {
  using Run = CellRun<T, V>;
  static constexpr int WARPS = BY;  // a block's warps (32 threads each)
  static constexpr int HX = tblock_runs_halo_x<TB, V>(), TX = 32 * V, TY = BY * M;
  static constexpr int E = M == 1 ? 1 : 2;  // rows a thread shares: its first and its last
  static constexpr int NS = D + 1;          // slots of the input ring: D planes in flight + the one read
  static_assert(NS == 3, "the ring's slots rotate with the queues' phase (period 3)");
  static constexpr int RING = NS * BY * M * 32, SHARED = 2 * TB * BY * E * 32;  // in runs
  static constexpr int SMEM_BYTES = (RING + SHARED) * static_cast<int>(sizeof(Run));
};

template <class T, int V, int TB, int BY, int M, int D>
__global__ __launch_bounds__(32 * BY, 1) void stencil3d_tblock_runs_kernel(StencilCoeffs<T> c,
                                                                          const T* __restrict__ in,
                                                                          T* __restrict__ out, std::int64_t nx,
                                                                          std::int64_t ny, int nz, int z_chunk) {
  using S = TblockRunsShape<T, V, TB, BY, M, D>;
  using Run = typename S::Run;
  constexpr int HX = S::HX, TX = S::TX, TY = S::TY, E = S::E;
  constexpr int SLOT = BY * M * 32, LEVEL = BY * E * 32, BUFFER = TB * LEVEL;  // strides in runs
  extern __shared__ unsigned char stencil_tblock_smem[];
  Run* ring = reinterpret_cast<Run*>(stencil_tblock_smem);  // [NS][BY][M][32]: the input planes
  Run* shared = ring + S::RING;                              // [2][TB][BY][E][32]: the levels' edge rows
  const int lane = static_cast<int>(threadIdx.x), ty = static_cast<int>(threadIdx.y);
  const std::int64_t x = static_cast<std::int64_t>(blockIdx.x) * (TX - 2 * HX) - HX + lane * V;
  const std::int64_t y0 = static_cast<std::int64_t>(blockIdx.y) * (TY - 2 * TB) - TB + ty * M;
  const std::int64_t plane = nx * ny;
  // This block's planes [z0, z1): the pipeline starts TB planes below z0 (level s is right from
  // plane z0 - TB + s on), or at 0 where z0 <= TB (chunks may be shorter than TB planes), as the
  // first chunk's: the planes below are zeros and plane 0 a face, every level right from 0 on.
  const int z0 = static_cast<int>(blockIdx.z) * z_chunk, z1 = min(nz, z0 + z_chunk);
  const int k0 = z0 <= TB ? 0 : z0 - TB, k_end = z1 + 2 * TB - 1;
  const bool x_in = x >= 0 && x < nx;  // a run lies wholly inside the row or outside it (nx % V == 0)
  const bool writes_x = x_in && lane * V >= HX && lane * V < TX - HX;
  // Radius 1 and nx % V == 0: the x faces are the first cell of the run at 0 and the last of the
  // run ending at nx; cells outside the grid are computed but never read by a written cell.
  // The thread's conditions as bits of one word (predicate registers are few: as bools they
  // were recomputed from the 64-bit indices at every use): bit m row m in the grid, M + m
  // row m off the y faces, 2M + m row m written, 3M / 3M + 1 the run's first / last cell on an x face.
  unsigned flags = (x == 0 ? 1u << (3 * M) : 0u) | (x + V == nx ? 1u << (3 * M + 1) : 0u);
#pragma unroll
  for (int m = 0; m < M; ++m) {
    const std::int64_t y = y0 + m;
    const bool in_grid = x_in && y >= 0 && y < ny;
    if (in_grid) flags |= 1u << m;
    if (y >= 1 && y < ny - 1) flags |= 1u << (M + m);
    if (writes_x && in_grid && ty * M + m >= TB && ty * M + m < TY - TB) flags |= 1u << (2 * M + m);
  }
  // Opaque to the optimiser, which otherwise folds each bit test back into its comparisons.
  asm("mov.b32 %0, %0;" : "+r"(flags));
  auto flag = [&](int bit) { return (flags >> bit & 1u) != 0; };
  // Addresses advance by a plane an iteration; no index is recomputed in the loop. A row outside
  // the grid is zero-filled (cp.async with 0 source bytes) from `in` itself: compute-sanitizer
  // counts the address of a 0-byte source as read.
  const T* src = in + (static_cast<std::int64_t>(k0) + D) * plane + y0 * nx + x;  // plane k + D's
  T* dst = out + (static_cast<std::int64_t>(k0) + 1 - 2 * TB) * plane + y0 * nx + x;  // plane k + 1 - 2 TB's
  Run* ring_me = ring + ty * M * 32 + lane;
  Run* edge_me = shared + ty * E * 32 + lane;
  const Run* edge_up = shared + ((ty > 0 ? ty - 1 : 0) * E + E - 1) * 32 + lane;  // clamped: rows never right
  const Run* edge_down = shared + (ty + 1 < BY ? ty + 1 : BY - 1) * E * 32 + lane;
  auto fetch = [&](const T* from, bool in_z, int slot) {
#pragma unroll
    for (int m = 0; m < M; ++m)
      cp_async<16>(smem_u32(ring_me + slot * SLOT + m * 32), flag(m) && in_z ? from + m * nx : in,
                   flag(m) && in_z ? 16 : 0);
    cp_async_commit();
  };

  // q[s][(j + P) % 3][m] at phase P: level s's plane centre - 1 + j in row m (level 0: the input),
  // the roles rotating through the slots with the iteration's phase, so no plane is ever moved.
  Run q[TB][3][M];
#pragma unroll
  for (int s = 0; s < TB; ++s)
#pragma unroll
    for (int j = 0; j < 3; ++j)
#pragma unroll
      for (int m = 0; m < M; ++m) q[s][j][m] = Run{};
  // Plane k0 + i lands in ring slot i % 3.
#pragma unroll
  for (int d = 0; d < D; ++d) fetch(src - (D - d) * plane, k0 + d < nz, d);

  auto iteration = [&](auto phase, int k) {
    constexpr int P = decltype(phase)::value;
    constexpr int ZM = P % 3, ZC = (P + 1) % 3, ZP = (P + 2) % 3;
    fetch(src, k + D < nz, (P + D) % 3);  // plane k - 1's slot, which this thread alone read, last iteration
    src += plane;
    cp_async_wait<D>();
#pragma unroll
    for (int m = 0; m < M; ++m) q[0][ZP][m] = ring_me[P * SLOT + m * 32];
    const int buffer = (k & 1) * BUFFER;
#pragma unroll
    for (int s = 0; s < TB; ++s) {
      edge_me[buffer + s * LEVEL] = q[s][ZC][0];
      if (E == 2) edge_me[buffer + s * LEVEL + 32] = q[s][ZC][M - 1];
    }
    // One barrier a plane: this iteration writes buffer b, which the previous one did not read,
    // and every thread has passed this barrier before the next iteration overwrites b ^ 1.
    __syncthreads();
    // Levels from the last to the first: level s reads level s - 1's queue, so once level s is
    // done, its own queue (read by level s + 1, already done) takes the new plane in its oldest slot.
#pragma unroll
    for (int s = TB; s >= 1; --s) {
      const int z = k + 1 - 2 * s;
      const bool z_inner = z >= 1 && z < nz - 1;
      const Run up = edge_up[buffer + (s - 1) * LEVEL], down = edge_down[buffer + (s - 1) * LEVEL];
      Run w[M];
#pragma unroll
      for (int m = 0; m < M; ++m) {
        const Run& u = q[s - 1][ZC][m];
        const Run& ym = m > 0 ? q[s - 1][ZC][m - 1] : up;
        const Run& yp = m + 1 < M ? q[s - 1][ZC][m + 1] : down;
        // The warp's end lanes get their own value: cells of the tile's edge, never right.
        const T left = __shfl_up_sync(kFullMask, u.v[V - 1], 1);
        const T right = __shfl_down_sync(kFullMask, u.v[0], 1);
        if (z_inner && flag(M + m)) {
#pragma unroll
          for (int j = 0; j < V; ++j) {
            const T xl = j > 0 ? u.v[j - 1] : left, xr = j + 1 < V ? u.v[j + 1] : right;
            T acc = c.c[0] * u.v[j];
            acc += c.c[1] * ((xl + xr) + (ym.v[j] + yp.v[j]) + (q[s - 1][ZM][m].v[j] + q[s - 1][ZP][m].v[j]));
            w[m].v[j] = acc;
          }
          if (flag(3 * M)) w[m].v[0] = u.v[0];
          if (flag(3 * M + 1)) w[m].v[V - 1] = u.v[V - 1];
        } else {
          w[m] = u;
        }
      }
      if (s == TB) {
        if (z >= z0 && z < z1)
#pragma unroll
          for (int m = 0; m < M; ++m)
            if (flag(2 * M + m)) *reinterpret_cast<Run*>(dst + m * nx) = w[m];
        dst += plane;
      } else {
#pragma unroll
        for (int m = 0; m < M; ++m) q[s][ZM][m] = w[m];
      }
    }
  };
  for (int k = k0; k < k_end; k += 3) {
    iteration(std::integral_constant<int, 0>{}, k);
    if (k + 1 < k_end) iteration(std::integral_constant<int, 1>{}, k + 1);
    if (k + 2 < k_end) iteration(std::integral_constant<int, 2>{}, k + 2);
  }
  cp_async_wait<0>();
}

// The runs kernel of `levels` levels and `rows` rows a thread, handed to f as (kernel, its shape);
// cudaErrorInvalidValue for a pair not built.
template <class T, int TB, class F>
cudaError_t with_runs_rows(int rows, F&& f) {
  constexpr int V = 16 / static_cast<int>(sizeof(T)), D = kStencilTblockRunsPrefetch;
  switch (rows) {
    case 1: return f(stencil3d_tblock_runs_kernel<T, V, TB, 32, 1, D>, TblockRunsShape<T, V, TB, 32, 1, D>{});
    case 2: return f(stencil3d_tblock_runs_kernel<T, V, TB, 16, 2, D>, TblockRunsShape<T, V, TB, 16, 2, D>{});
    case 4: return f(stencil3d_tblock_runs_kernel<T, V, TB, 8, 4, D>, TblockRunsShape<T, V, TB, 8, 4, D>{});
    default: return cudaErrorInvalidValue;
  }
}

template <class T, class F>
cudaError_t with_runs_kernel(int levels, int rows, F&& f) {
  switch (levels) {
    case 1: return with_runs_rows<T, 1>(rows, f);
    case 2: return with_runs_rows<T, 2>(rows, f);
    case 3: return with_runs_rows<T, 3>(rows, f);
    case 4: return with_runs_rows<T, 4>(rows, f);
    default: return cudaErrorInvalidValue;
  }
}

template <class F>
cudaError_t with_runs_kernel_of(std::size_t elem, int levels, int rows, F&& f) {
  if (elem == sizeof(float)) return with_runs_kernel<float>(levels, rows, f);
  if (elem == sizeof(double)) return with_runs_kernel<double>(levels, rows, f);
  return cudaErrorInvalidValue;
}

}  // namespace

bool stencil3d_tblock_runs_applies(const void* in, const void* out, std::int64_t nx, std::size_t elem) {
  const int v = static_cast<int>(16 / elem);
  return stencil3d_cell_run(v, in, out, nx, elem) == v;
}

StencilRunsTiling stencil3d_tblock_runs_tiling(int levels, int rows, std::size_t elem, std::int64_t nx,
                                               std::int64_t ny) {
  StencilRunsTiling t;
  t.xy_tiles = 0;
  (void)with_runs_kernel_of(elem, levels, rows, [&](auto, auto shape) {
    using S = decltype(shape);
    t.xy_tiles = std::int64_t{blocks_for(nx, S::TX - 2 * S::HX)} * blocks_for(ny, S::TY - 2 * levels);
    t.pipeline = 3 * levels - 1;
    return cudaSuccess;
  });
  return t;
}

cudaError_t stencil3d_tblock_runs_resident(int levels, int rows, std::size_t elem, int* blocks) {
  return with_runs_kernel_of(elem, levels, rows, [&](auto kernel, auto shape) {
    using S = decltype(shape);
    if (cudaError_t e = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, S::SMEM_BYTES);
        e != cudaSuccess)
      return e;
    return cudaOccupancyMaxActiveBlocksPerMultiprocessor(blocks, kernel, 32 * S::WARPS, S::SMEM_BYTES);
  });
}

template <class T>
cudaError_t launch_stencil3d_tblock_runs(int levels, int rows, const StencilCoeffs<T>& c, const T* in, T* out,
                                         std::int64_t nx, std::int64_t ny, std::int64_t nz, std::int64_t z_chunk,
                                         cudaStream_t stream) {
  if (!stencil3d_tblock_runs_applies(in, out, nx, sizeof(T)) || z_chunk < 1) return cudaErrorInvalidValue;
  return with_runs_kernel<T>(levels, rows, [&](auto kernel, auto shape) {
    using S = decltype(shape);
    if (cudaError_t e = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, S::SMEM_BYTES);
        e != cudaSuccess)
      return e;
    const unsigned gx = blocks_for(nx, S::TX - 2 * S::HX), gy = blocks_for(ny, S::TY - 2 * levels);
    const std::int64_t gz = (nz + z_chunk - 1) / z_chunk;
    if (gy > 65535u || gz > 65535 || nz > (1 << 30)) return cudaErrorInvalidConfiguration;
    kernel<<<dim3(gx, gy, static_cast<unsigned>(gz)), dim3(32, S::WARPS), S::SMEM_BYTES, stream>>>(
        c, in, out, nx, ny, static_cast<int>(nz), static_cast<int>(std::min(z_chunk, nz)));
    return cudaGetLastError();
  });
}

template cudaError_t launch_stencil3d_tblock_runs<float>(int, int, const StencilCoeffs<float>&, const float*, float*,
                                                         std::int64_t, std::int64_t, std::int64_t, std::int64_t,
                                                         cudaStream_t);
template cudaError_t launch_stencil3d_tblock_runs<double>(int, int, const StencilCoeffs<double>&, const double*,
                                                          double*, std::int64_t, std::int64_t, std::int64_t,
                                                          std::int64_t, cudaStream_t);

}  // namespace tessera::cuda
