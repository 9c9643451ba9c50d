// 3D star stencils on Hopper: the plane sweep with its planes brought into shared memory by the
// bulk tensor copy engine (TMA), stencil.plane_sweep = 3 (lib/src/tuning/stencil.cpp). Built with
// the other sm_90a kernels (backends/cuda/CMakeLists.txt), run on compute capability 9.0 only.
//
// Why: the register-queue sweep (stencil.cu) loads every plane's runs and halos with ordinary
// loads one plane ahead and stores the plane into shared memory itself. For radius 4 it needs
// 112 registers a thread, so few warps, and so few bytes in flight, that it ran at 60 % of the
// copy rate (ncu: no unit past 70 %). Here the copy engine moves each plane (the block's tile with
// its x and y halos) into a ring of `slots` planes: `prefetch` planes are in flight beyond the
// one being waited for, and they cost no registers; the engine zero-fills outside the grid,
// so the tile needs no bounds checks and no stores of its own. Each thread still keeps its
// column's 2R + 1 runs along z in registers (read from the ring as the plane arrives), so the
// z neighbours cost no shared-memory loads.
//
// Block: BX x BY threads (32 x 8, 32 x 16, 16 x 16 or 8 x 32: stencil.bulk_lanes x stencil.bulk_rows),
// each a run of V = 16 / sizeof(T) cells along x (one 16-byte vector), a tile of BX V x BY cells over
// z_chunk planes. Each cell's sum is the cell kernel's, in its order. Why narrower, taller tiles:
// every plane's box carries R halo rows above and below the tile and HX halo cells left and right,
// and at radius 4 a 128 x 8 tile brings 136 x 16 cells across L2 for 128 x 8 written (2.1x), a
// 64 x 16 tile 72 x 24 (1.7x), a 32 x 32 tile 40 x 40 (1.6x), at the same threads and registers a
// block (L2 is the busiest unit; ncu counts about 1.2x those sectors for every shape, bench/
// RESULTS.md session 40).
#include <algorithm>
#include <type_traits>

#include "kernels/cuda/common.cuh"
#include "kernels/cuda/sm90.cuh"
#include "kernels/cuda/tensor_map.hpp"

namespace tessera::cuda {

namespace {

template <class T, int R, int BX, int BY>
struct PlaneRing {
  static constexpr int V = 16 / static_cast<int>(sizeof(T));  // cells of a run
  static constexpr int HX = (R + V - 1) / V * V;              // x halo: whole runs (16-byte rows)
  static constexpr int W = BX * V + 2 * HX, H = BY + 2 * R;  // a plane's box
  static constexpr int BOX_BYTES = W * H * static_cast<int>(sizeof(T));
  static constexpr int PLANE_BYTES = (BOX_BYTES + 127) / 128 * 128;  // the copy's destination: 128-byte aligned
  static_assert(W <= 256 && H <= 256, "a box dimension of the copy engine");
  static std::size_t smem(int slots) { return static_cast<std::size_t>(slots) * (PLANE_BYTES + 8) + 128; }
};

// BX x BY threads. MIN_BLOCKS: blocks an SM the registers must allow (each block waits at its own
// barrier; more blocks keep more of the SM busy while one waits).
template <class T, int R, int BX, int BY, int MIN_BLOCKS>
__global__ __launch_bounds__(BX* BY, MIN_BLOCKS) void stencil3d_tma_kernel(const __grid_constant__ CUtensorMap map,
                                                                          StencilCoeffs<T> c, T* __restrict__ out,
                                                                          int nx, int ny, int nz, int z_chunk,
                                                                          int slots) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  using Ring = PlaneRing<T, R, BX, BY>;
  constexpr int V = Ring::V, HX = Ring::HX, W = Ring::W;
  using Run = CellRun<T, V>;
  extern __shared__ unsigned char tma_smem_raw[];
  unsigned char* ring =
      reinterpret_cast<unsigned char*>((reinterpret_cast<std::uintptr_t>(tma_smem_raw) + 127) & ~std::uintptr_t{127});
  std::uint64_t* full = reinterpret_cast<std::uint64_t*>(ring + static_cast<std::size_t>(slots) * Ring::PLANE_BYTES);

  const int tx = threadIdx.x, ty = threadIdx.y, tid = ty * BX + tx;
  const int x0 = static_cast<int>(blockIdx.x) * BX * V, y0 = static_cast<int>(blockIdx.y) * BY;
  const int z0 = static_cast<int>(blockIdx.z) * z_chunk, z1 = min(nz, z0 + z_chunk);
  // Planes first .. last - 1 pass through the ring, plane p in slot (p - first) % slots, its
  // ((p - first) / slots)-th fill.
  const int first = z0 - R, last = z1 + R;
  if (tid == 0) {
    for (int s = 0; s < slots; ++s) sm90::mbar_init(&full[s], 1);
    sm90::mbar_init_fence();
  }
  __syncthreads();
  auto slot_of = [&](int p) { return (p - first) % slots; };
  auto issue = [&](int p) {  // thread 0: plane p's box, zero-filled outside the grid
    const int s = slot_of(p);
    sm90::mbar_arrive_expect_tx(&full[s], Ring::BOX_BYTES);
    sm90::tma_load_3d(ring + static_cast<std::size_t>(s) * Ring::PLANE_BYTES, &map, x0 - HX, y0 - R, p, &full[s]);
  };
  auto wait = [&](int p) { sm90::mbar_wait(&full[slot_of(p)], ((p - first) / slots) & 1); };
  auto plane = [&](int p) {
    return reinterpret_cast<const T*>(ring + static_cast<std::size_t>(slot_of(p)) * Ring::PLANE_BYTES);
  };
  const int col = HX + tx * V;  // this thread's run within a plane row
  auto run_at = [&](const T* pl, int row, int at) { return *reinterpret_cast<const Run*>(pl + row * W + at); };

  if (tid == 0)
    for (int p = first; p < min(last, first + slots); ++p) issue(p);
  // q[i]: this thread's run of plane z - R + i while plane z is computed. Planes first .. z0 - 1
  // are needed only there: once read, their slots take the next planes, the ring's first R
  // slots being all the prologue needs at once (slots >= R + 2).
  Run q[2 * R + 1];
  auto column = [&](int i) {
    wait(first + i);
    q[i] = run_at(plane(first + i), ty + R, col);
  };
#pragma unroll
  for (int i = 0; i < R; ++i) column(i);
  __syncthreads();
  if (tid == 0)
    for (int p = first + slots; p < min(last, first + slots + R); ++p) issue(p);
#pragma unroll
  for (int i = R; i < 2 * R; ++i) column(i);

  const int x = x0 + tx * V, y = y0 + ty;
  const bool mine = x < nx && y < ny;
  const bool y_inside = y >= R && y < ny - R;
  for (int z = z0; z < z1; ++z) {
    wait(z + R);
    q[2 * R] = run_at(plane(z + R), ty + R, col);
    if (mine) {
      Run res = q[R];
      if (y_inside && z >= R && z < nz - R) {
        const T* cur = plane(z);
        // row[HX + k] = u(x + k, y, z) for k in [-HX, V + HX).
        T row[V + 2 * HX];
#pragma unroll
        for (int j = 0; j < (V + 2 * HX) / V; ++j) {
          const Run r = run_at(cur, ty + R, col - HX + j * V);
#pragma unroll
          for (int k = 0; k < V; ++k) row[j * V + k] = r.v[k];
        }
        // One distance at a time (its two y runs loaded as needed: fewer live registers), each
        // cell's sum in the cell kernel's order.
        T acc[V];
#pragma unroll
        for (int k = 0; k < V; ++k) acc[k] = c.c[0] * q[R].v[k];
#pragma unroll
        for (int d = 1; d <= R; ++d) {
          const Run ym = run_at(cur, ty + R - d, col), yp = run_at(cur, ty + R + d, col);
#pragma unroll
          for (int k = 0; k < V; ++k)
            acc[k] += c.c[d] * ((row[HX + k - d] + row[HX + k + d]) + (ym.v[k] + yp.v[k]) + (q[R - d].v[k] + q[R + d].v[k]));
        }
#pragma unroll
        for (int k = 0; k < V; ++k)
          if (x + k >= R && x + k < nx - R) res.v[k] = acc[k];
      }
      *reinterpret_cast<Run*>(out + (static_cast<std::int64_t>(z) * ny + y) * nx + x) = res;
    }
#pragma unroll
    for (int i = 0; i < 2 * R; ++i) q[i] = q[i + 1];
    __syncthreads();  // plane z is done with: its slot takes plane z + slots
    if (tid == 0 && z + slots < last) issue(z + slots);
  }
#endif
}

// The 3D map of the grid: x innermost, boxes of the ring's planes.
template <class T, int R, int BX, int BY>
bool encode_grid(CUtensorMap& map, const T* in, std::int64_t nx, std::int64_t ny, std::int64_t nz) {
  auto fn = tensor_map_encoder();
  if (!fn) return false;
  using Ring = PlaneRing<T, R, BX, BY>;
  const cuuint64_t dims[3] = {static_cast<cuuint64_t>(nx), static_cast<cuuint64_t>(ny), static_cast<cuuint64_t>(nz)};
  const cuuint64_t strides[2] = {static_cast<cuuint64_t>(nx) * sizeof(T), static_cast<cuuint64_t>(nx * ny) * sizeof(T)};
  const cuuint32_t box[3] = {static_cast<cuuint32_t>(Ring::W), static_cast<cuuint32_t>(Ring::H), 1};
  const cuuint32_t elem_strides[3] = {1, 1, 1};
  const CUtensorMapDataType type = sizeof(T) == 4 ? CU_TENSOR_MAP_DATA_TYPE_FLOAT32 : CU_TENSOR_MAP_DATA_TYPE_FLOAT64;
  return fn(&map, type, 3, const_cast<T*>(in), dims, strides, box, elem_strides, CU_TENSOR_MAP_INTERLEAVE_NONE,
            CU_TENSOR_MAP_SWIZZLE_NONE, CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
            CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) == CUDA_SUCCESS;
}

template <class T, int R, int BX, int BY, int MIN_BLOCKS>
cudaError_t launch_shape(const StencilCoeffs<T>& c, const T* in, T* out, std::int64_t nx, std::int64_t ny,
                         std::int64_t nz, int z_chunk, int prefetch, cudaStream_t stream) {
  using Ring = PlaneRing<T, R, BX, BY>;
  CUtensorMap map{};
  if (!encode_grid<T, R, BX, BY>(map, in, nx, ny, nz)) return cudaErrorInvalidValue;
  const int slots = R + 1 + std::max(prefetch, 1);
  const std::size_t smem = Ring::smem(slots);
  auto kernel = stencil3d_tma_kernel<T, R, BX, BY, MIN_BLOCKS>;
  if (cudaError_t e = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(smem));
      e != cudaSuccess)
    return e;
  const dim3 block(BX, BY);
  const dim3 grid(blocks_for(nx, BX * Ring::V), blocks_for(ny, BY), blocks_for(nz, z_chunk));
  if (grid.y > 65535u || grid.z > 65535u) return cudaErrorInvalidConfiguration;
  kernel<<<grid, block, smem, stream>>>(map, c, out, static_cast<int>(nx), static_cast<int>(ny), static_cast<int>(nz),
                                        z_chunk, slots);
  return cudaGetLastError();
}

template <class T, int R>
cudaError_t launch_radius(const StencilBulkShape& b, const StencilCoeffs<T>& c, const T* in, T* out, std::int64_t nx,
                          std::int64_t ny, std::int64_t nz, cudaStream_t stream) {
  const int z_chunk = b.z_chunk, prefetch = b.prefetch;
  const bool three = b.min_blocks >= 3;
  // The 256-thread shapes, built for two or three blocks an SM; 32 x 16 for one.
  auto shape = [&](auto bx, auto by) {
    constexpr int BX = decltype(bx)::value, BY = decltype(by)::value;
    return three ? launch_shape<T, R, BX, BY, 3>(c, in, out, nx, ny, nz, z_chunk, prefetch, stream)
                 : launch_shape<T, R, BX, BY, 2>(c, in, out, nx, ny, nz, z_chunk, prefetch, stream);
  };
  if (b.lanes == 32 && b.rows == 8) return shape(std::integral_constant<int, 32>{}, std::integral_constant<int, 8>{});
  if (b.lanes == 16 && b.rows == 16) return shape(std::integral_constant<int, 16>{}, std::integral_constant<int, 16>{});
  if (b.lanes == 8 && b.rows == 32) return shape(std::integral_constant<int, 8>{}, std::integral_constant<int, 32>{});
  if (b.lanes == 32 && b.rows == 16)
    return launch_shape<T, R, 32, 16, 1>(c, in, out, nx, ny, nz, z_chunk, prefetch, stream);
  return cudaErrorInvalidValue;
}

}  // namespace

bool stencil3d_tma_applies(const void* in, const void* out, std::int64_t nx, std::int64_t ny, std::int64_t nz,
                           std::size_t elem) {
  const auto aligned = [](const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 16 == 0; };
  // The copy engine: a 16-byte aligned base, row and plane strides multiples of 16 bytes.
  // The kernel: runs of 16 bytes along x, int coordinates.
  return aligned(in) && aligned(out) && (nx * static_cast<std::int64_t>(elem)) % 16 == 0 && nx <= INT32_MAX &&
         ny <= INT32_MAX && nz <= INT32_MAX && nx * ny * nz <= (std::int64_t{1} << 40) / static_cast<std::int64_t>(elem) &&
         tensor_map_encoder() != nullptr;
}

template <class T>
cudaError_t launch_stencil3d_tma(int radius, const StencilBulkShape& b, const StencilCoeffs<T>& c, const T* in, T* out,
                                 std::int64_t nx, std::int64_t ny, std::int64_t nz, cudaStream_t stream) {
  switch (radius) {
    case 1: return launch_radius<T, 1>(b, c, in, out, nx, ny, nz, stream);
    case 2: return launch_radius<T, 2>(b, c, in, out, nx, ny, nz, stream);
    case 3: return launch_radius<T, 3>(b, c, in, out, nx, ny, nz, stream);
    case 4: return launch_radius<T, 4>(b, c, in, out, nx, ny, nz, stream);
    default: return cudaErrorInvalidValue;
  }
}

template cudaError_t launch_stencil3d_tma<float>(int, const StencilBulkShape&, const StencilCoeffs<float>&, const float*,
                                                 float*, std::int64_t, std::int64_t, std::int64_t, cudaStream_t);
template cudaError_t launch_stencil3d_tma<double>(int, const StencilBulkShape&, const StencilCoeffs<double>&,
                                                  const double*, double*, std::int64_t, std::int64_t, std::int64_t,
                                                  cudaStream_t);

}  // namespace tessera::cuda
