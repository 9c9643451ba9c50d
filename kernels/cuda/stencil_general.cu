// The general star stencil (per-axis coefficients, Dirichlet / Neumann / periodic faces, a
// source; semantics in lib/include/tessera/stencil.hpp), one Jacobi step per launch: a thread
// per cell of an x-y tile, sweeping z with the grid's stride. Neighbours come straight from
// global memory (read-only path; the tile's reuse is served by L1/L2): the isotropic Dirichlet
// case keeps the 2.5D kernel of stencil.cu, this one serves every other case. Every cell of
// `out` is written, so both buffers of the host's ping-pong hold the cells the faces fix.
#include "kernels/cuda/common.cuh"

namespace tessera::cuda {

namespace {

// The cell index j (at most R outside [0, n), never beyond a Dirichlet face) reads.
__device__ __forceinline__ std::int64_t ghost(std::int64_t j, std::int64_t n, int lo, int hi) {
  if (j < 0) return lo == 2 ? j + n : -1 - j;
  if (j >= n) return hi == 2 ? j - n : 2 * n - 1 - j;
  return j;
}
template <int R>
__device__ __forceinline__ bool updated(std::int64_t i, std::int64_t n, int lo, int hi) {
  return (lo != 0 || i >= R) && (hi != 0 || i < n - R);
}

template <class T, int R>
__global__ __launch_bounds__(kStencilGeneralBlockX* kStencilGeneralBlockY) void stencil_general_kernel(
    GeneralStencilArgs<T> a, const T* __restrict__ in, T* __restrict__ out) {
  const std::int64_t x = static_cast<std::int64_t>(blockIdx.x) * kStencilGeneralBlockX + threadIdx.x;
  const std::int64_t y = static_cast<std::int64_t>(blockIdx.y) * kStencilGeneralBlockY + threadIdx.y;
  const std::int64_t nx = a.nx, ny = a.ny, nz = a.nz, plane = nx * ny;
  if (x >= nx || y >= ny) return;
  const bool is_3d = a.ndim == 3;
  const bool upd_xy = updated<R>(x, nx, a.faces[0], a.faces[1]) && updated<R>(y, ny, a.faces[2], a.faces[3]);
  for (std::int64_t z = blockIdx.z; z < nz; z += gridDim.z) {
    const std::int64_t row = z * plane + y * nx, i = row + x;
    const T u = in[i];
    if (!upd_xy || (is_3d && !updated<R>(z, nz, a.faces[4], a.faces[5]))) {
      out[i] = u;
      continue;
    }
    T v = a.centre * u;
#pragma unroll
    for (int d = 1; d <= R; ++d) {
      v += a.axis[0][d - 1] * (in[row + ghost(x - d, nx, a.faces[0], a.faces[1])] +
                               in[row + ghost(x + d, nx, a.faces[0], a.faces[1])]);
      v += a.axis[1][d - 1] * (in[z * plane + ghost(y - d, ny, a.faces[2], a.faces[3]) * nx + x] +
                               in[z * plane + ghost(y + d, ny, a.faces[2], a.faces[3]) * nx + x]);
      if (is_3d)
        v += a.axis[2][d - 1] * (in[ghost(z - d, nz, a.faces[4], a.faces[5]) * plane + y * nx + x] +
                                 in[ghost(z + d, nz, a.faces[4], a.faces[5]) * plane + y * nx + x]);
    }
    if (a.source != T(0)) v += a.source;
    out[i] = v;
  }
}

}  // namespace

template <class T>
cudaError_t launch_stencil_general(int radius, const GeneralStencilArgs<T>& a, const T* in, T* out,
                                   cudaStream_t stream) {
  const dim3 block(kStencilGeneralBlockX, kStencilGeneralBlockY);
  const dim3 grid(blocks_for(a.nx, kStencilGeneralBlockX), blocks_for(a.ny, kStencilGeneralBlockY),
                  static_cast<unsigned>(imin64(a.nz, 65535)));
  if (grid.y > 65535u) return cudaErrorInvalidConfiguration;
  switch (radius) {
    case 1: stencil_general_kernel<T, 1><<<grid, block, 0, stream>>>(a, in, out); break;
    case 2: stencil_general_kernel<T, 2><<<grid, block, 0, stream>>>(a, in, out); break;
    case 3: stencil_general_kernel<T, 3><<<grid, block, 0, stream>>>(a, in, out); break;
    case 4: stencil_general_kernel<T, 4><<<grid, block, 0, stream>>>(a, in, out); break;
    default: return cudaErrorInvalidValue;
  }
  return cudaGetLastError();
}

template cudaError_t launch_stencil_general<float>(int, const GeneralStencilArgs<float>&, const float*, float*,
                                                   cudaStream_t);
template cudaError_t launch_stencil_general<double>(int, const GeneralStencilArgs<double>&, const double*, double*,
                                                    cudaStream_t);

}  // namespace tessera::cuda
