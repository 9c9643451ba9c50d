// stencil: `steps` Jacobi steps, one launch each, ping-ponging between u and a scratch grid kept
// in the queue; each launch writes every cell (boundary copied), so after an odd number of steps one
// device copy brings the result back to u. The 3D z chunk is stencil.z_chunk, halved while the
// grid would have fewer than 8 blocks per SM.
#include <utility>

#include "cuda_backend.hpp"
#include "kernels/cuda/launch.hpp"
#include "queue.hpp"

namespace tessera::cuda {

// A queue's second grid of the ping-pong.
struct CudaBackend::StencilState {
  DeviceBuffer scratch;

  static StencilState& of(CudaQueue& q) {
    if (!q.state.stencil) q.state.stencil = std::make_shared<StencilState>();
    return *q.state.stencil;
  }
};

template <class T>
void CudaBackend::stencil(QueueImpl& q, const StencilSpec& spec, const GridView& u, int steps) {
  if (steps <= 0) return;
  const cudaStream_t stream = stream_of(q);
  const int R = spec.radius;
  const std::int64_t nx = u.nx, ny = u.ny, nz = u.ndim == 3 ? u.nz : 1;
  // An axis shorter than 2R + 1 has no interior cell: nothing changes.
  if (nx < 2 * R + 1 || ny < 2 * R + 1 || (u.ndim == 3 && nz < 2 * R + 1)) return;
  const std::size_t bytes = static_cast<std::size_t>(nx * ny * nz) * sizeof(T);
  StencilCoeffs<T> c{};
  for (int d = 0; d <= R; ++d) c.c[d] = static_cast<T>(spec.coeffs[static_cast<std::size_t>(d)]);

  int z_chunk = tune_.get("stencil.z_chunk");
  if (u.ndim == 3) {
    const std::int64_t xy_blocks =
        ((nx + kStencil3dBlockX * kStencil3dCellsX - 1) / (kStencil3dBlockX * kStencil3dCellsX)) *
        ((ny + kStencil3dBlockY - 1) / kStencil3dBlockY);
    while (z_chunk > 4 && xy_blocks * ((nz + z_chunk - 1) / z_chunk) < 8LL * sm_count()) z_chunk /= 2;
  }

  T* cur = static_cast<T*>(u.data);
  T* next = static_cast<T*>(StencilState::of(queue_of(q)).scratch.ensure(bytes));
  for (int s = 0; s < steps; ++s) {
    if (u.ndim == 3) TESSERA_CUDA_CHECK(launch_stencil3d<T>(R, c, cur, next, nx, ny, nz, z_chunk, stream));
    else TESSERA_CUDA_CHECK(launch_stencil2d<T>(R, c, cur, next, nx, ny, stream));
    std::swap(cur, next);
  }
  if (cur != u.data) TESSERA_CUDA_CHECK(cudaMemcpyAsync(u.data, cur, bytes, cudaMemcpyDeviceToDevice, stream));
}

TESSERA_INSTANTIATE_TYPED_OP(CudaBackend, stencil)

}  // namespace tessera::cuda
