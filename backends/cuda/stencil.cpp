// stencil: `steps` Jacobi steps, one launch each, ping-ponging between u and a scratch grid kept
// in the queue; each launch writes every cell (boundary copied), so after an odd number of steps one
// device copy brings the result back to u. A 3D step is the plane sweep (stencil.plane_sweep; its
// z chunk is stencil.z_chunk, halved while the grid would have fewer than 8 blocks per SM), a
// thread per stencil.cells cells along x, or for radius 1 the runs kernel of the temporal
// blocking with one level (its z chunks from plan/stencil_chunks.hpp, as its blocked passes', or
// stencil.runs_z_chunk).
// 3D 7-point with steps > 1 on a grid beyond the L2: temporally blocked passes (below;
// stencil.time_block, stencil.tb_rows). Every case but the isotropic all-Dirichlet one without a
// source takes stencil_general (kernels/cuda/stencil_general.cu).
#include <algorithm>
#include <utility>

#include "cuda_backend.hpp"
#include "kernels/cuda/launch.hpp"
#include "plan/stencil_chunks.hpp"
#include "queue.hpp"

namespace tessera::cuda {

std::int64_t CudaBackend::tblock_runs_chunk(std::size_t elem, int levels, int rows, std::int64_t nx,
                                            std::int64_t ny, std::int64_t nz) {
  const StencilRunsTiling t = stencil3d_tblock_runs_tiling(levels, rows, elem, nx, ny);
  const int row_index = rows == 4 ? 2 : rows - 1;
  if (t.xy_tiles == 0 || row_index < 0 || row_index > 2)
    throw InvalidArgument("cuda: stencil: stencil.tb_rows must be 1, 2 or 4");
  if (const int chunk = tune_.get("stencil.runs_z_chunk"); chunk > 0) return chunk;  // the user's, not the model's
  const int slot = ((elem == 8 ? 1 : 0) * 4 + levels - 1) * 3 + row_index;
  std::atomic<int>& cached = runs_resident_[static_cast<std::size_t>(slot)];
  int resident = cached.load(std::memory_order_relaxed);
  if (resident == 0) {
    TESSERA_CUDA_CHECK(stencil3d_tblock_runs_resident(levels, rows, elem, &resident));
    resident = std::max(resident, 1);
    cached.store(resident, std::memory_order_relaxed);
  }
  plan::ZChunkQuery z;
  z.nz = nz;
  z.xy_tiles = t.xy_tiles;
  z.slots = static_cast<std::int64_t>(sm_count()) * resident;
  z.pipeline = t.pipeline;
  return plan::choose_z_chunk(z);
}

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
  if (!spec.plain(u.ndim)) {
    stencil_general<T>(q, spec, u, steps);
    return;
  }
  // An axis shorter than 2R + 1 has no interior cell: nothing changes.
  if (nx < 2 * R + 1 || ny < 2 * R + 1 || (u.ndim == 3 && nz < 2 * R + 1)) return;
  const std::size_t bytes = static_cast<std::size_t>(nx * ny * nz) * sizeof(T);
  StencilCoeffs<T> c{};
  c.c[0] = static_cast<T>(spec.centre);
  for (int d = 1; d <= R; ++d) c.c[d] = static_cast<T>(spec.axis[0][static_cast<std::size_t>(d)]);

  T* cur = static_cast<T*>(u.data);
  T* next = static_cast<T*>(StencilState::of(queue_of(q)).scratch.ensure(bytes));
  // One 3D step per pass: a plane sweep (the register queue's, or the bulk-copy ring's on
  // Hopper) or a thread per cells. The defaults' measurements: lib/src/tuning/stencil.cpp.
  enum class Step3d { cells, sweep, bulk, runs };
#ifdef TESSERA_CUDA_SM90A
  const bool bulk_ok = u.ndim == 3 && has_sm90a() && stencil3d_tma_applies(cur, next, nx, ny, nz, sizeof(T));
#else
  const bool bulk_ok = false;
#endif
  const int sweep_setting = tune_.get("stencil.plane_sweep");
  const bool runs_ok = u.ndim == 3 && R == 1 && stencil3d_tblock_runs_applies(cur, next, nx, sizeof(T));
  Step3d kind = Step3d::cells;
  switch (sweep_setting == 4 && !runs_ok ? 2 : sweep_setting) {
    case 0: kind = Step3d::cells; break;
    case 1: kind = Step3d::sweep; break;
    case 3: kind = bulk_ok ? Step3d::bulk : Step3d::sweep; break;
    case 4: kind = Step3d::runs; break;
    default:  // 2
      if (runs_ok) kind = Step3d::runs;
      else if (R > 1 && bulk_ok) kind = Step3d::bulk;
      else if (R > 1 && sizeof(T) == 4) kind = Step3d::sweep;
      break;
  }
  const int cells_setting = tune_.get("stencil.cells");
  const int cells = cells_setting != 0 ? cells_setting : (sizeof(T) == 4 ? 4 : 1);
  // The sweeps' z chunk, halved while the grid would have fewer blocks than keep every SM busy
  // to the end: 8 blocks an SM of the register sweep's 256 threads, 2 of the bulk sweep's 256
  // or 512 (its blocks hold a ring of planes; each chunk re-reads 2R planes, 12 % at R = 4 and 64).
  int z_chunk = tune_.get("stencil.z_chunk");
  const int bulk_rows = tune_.get("stencil.bulk_rows"), bulk_lanes = tune_.get("stencil.bulk_lanes");
  if (kind == Step3d::bulk && !stencil3d_tma_shape_built(bulk_lanes, bulk_rows))
    throw InvalidArgument("cuda: stencil: the bulk sweep's stencil.bulk_lanes x stencil.bulk_rows must be 32 x 8, "
                          "32 x 16, 16 x 16 or 8 x 32, not " +
                          std::to_string(bulk_lanes) + " x " + std::to_string(bulk_rows));
  if (u.ndim == 3) {
    const bool bulk = kind == Step3d::bulk;
    const std::int64_t tx = bulk ? stencil3d_tma_tile_x(bulk_lanes, sizeof(T)) : kStencil3dBlockX * kStencil3dCellsX;
    const std::int64_t ty = bulk ? bulk_rows : kStencil3dBlockY;
    const std::int64_t xy_blocks = ((nx + tx - 1) / tx) * ((ny + ty - 1) / ty);
    const std::int64_t min_blocks = (bulk ? 2LL : 8LL) * sm_count();
    while (z_chunk > 4 && xy_blocks * ((nz + z_chunk - 1) / z_chunk) < min_blocks) z_chunk /= 2;
  }
  // The runs kernel's rows a thread: stencil.tb_rows, one level as many (1 where that is the
  // tile kernel's 0).
  const int tb_rows = tune_.get("stencil.tb_rows"), one_level_rows = tb_rows > 0 ? tb_rows : 1;
  const std::int64_t one_level_chunk =
      kind == Step3d::runs ? tblock_runs_chunk(sizeof(T), 1, one_level_rows, nx, ny, nz) : std::int64_t{0};
  auto step3d = [&](const T* from, T* to) {
    switch (kind) {
#ifdef TESSERA_CUDA_SM90A
      case Step3d::bulk: {
        StencilBulkShape b;
        b.lanes = bulk_lanes;
        b.rows = bulk_rows;
        b.min_blocks = tune_.get("stencil.bulk_min_blocks");
        b.z_chunk = z_chunk;
        b.prefetch = tune_.get("stencil.bulk_prefetch");
        return launch_stencil3d_tma<T>(R, b, c, from, to, nx, ny, nz, stream);
      }
#endif
      case Step3d::sweep: return launch_stencil3d<T>(R, c, from, to, nx, ny, nz, z_chunk, stream);
      case Step3d::runs:
        return launch_stencil3d_tblock_runs<T>(1, one_level_rows, c, from, to, nx, ny, nz, one_level_chunk, stream);
      default: return launch_stencil3d_cell<T>(R, cells, c, from, to, nx, ny, nz, stream);
    }
  };
  // 3D 7-point, steps > 1, a grid beyond the L2: up to stencil.time_block steps per pass
  // (launch_stencil3d_tblock), the passes differing by at most one step; a one-step pass is
  // stencil3d's. Every launch writes every cell, so the ping-pong is unchanged.
  const int tb_lx = tune_.get("stencil.tb_lx"), tb_ly = tune_.get("stencil.tb_ly");
  const int tb_min_blocks_setting = tune_.get("stencil.tb_min_blocks");
  const int tb_min_blocks = tb_min_blocks_setting != 0 ? tb_min_blocks_setting : (sizeof(T) == 4 ? 2 : 1);
  // A thread per run of cells (stencil.tb_rows rows of them) where the grids allow the runs,
  // else the tile kernel's cell a thread in tb_lx x tb_ly tiles; stencil.time_block 0 takes 2
  // steps a pass, but one for f32 on the tile kernel, which loses there (tuning/stencil.cpp).
  const bool runs = tb_rows > 0 && runs_ok;
  const int tb_setting = tune_.get("stencil.time_block");
  const int tb_steps = tb_setting != 0 ? tb_setting : (runs || sizeof(T) == 8 ? 2 : 1);
  const int tb = runs ? std::min({tb_steps, steps, kStencilTblockMaxLevels})
                      : std::min({tb_steps, steps, kStencilTblockMaxLevels, (tb_lx - 1) / 2, (tb_ly - 1) / 2});
  if (u.ndim == 3 && R == 1 && tb > 1 && static_cast<std::int64_t>(2 * bytes) > tune_["stencil.time_block_min_bytes"]) {
    const int passes = (steps + tb - 1) / tb;
    for (int p = 0; p < passes; ++p) {
      const int levels = steps / passes + (p < steps % passes ? 1 : 0);
      if (levels == 1)
        TESSERA_CUDA_CHECK(step3d(cur, next));
      else if (runs)
        TESSERA_CUDA_CHECK(launch_stencil3d_tblock_runs<T>(levels, tb_rows, c, cur, next, nx, ny, nz,
                                                           tblock_runs_chunk(sizeof(T), levels, tb_rows, nx, ny, nz),
                                                           stream));
      else
        TESSERA_CUDA_CHECK(launch_stencil3d_tblock<T>(levels, c, cur, next, nx, ny, nz, tb_lx, tb_ly,
                                                                tb_min_blocks, stream));
      std::swap(cur, next);
    }
    if (cur != u.data) TESSERA_CUDA_CHECK(cudaMemcpyAsync(u.data, cur, bytes, cudaMemcpyDeviceToDevice, stream));
    return;
  }
  for (int s = 0; s < steps; ++s) {
    if (u.ndim == 3) TESSERA_CUDA_CHECK(step3d(cur, next));
    else TESSERA_CUDA_CHECK(launch_stencil2d<T>(R, c, cur, next, nx, ny, stream));
    std::swap(cur, next);
  }
  if (cur != u.data) TESSERA_CUDA_CHECK(cudaMemcpyAsync(u.data, cur, bytes, cudaMemcpyDeviceToDevice, stream));
}

// Every stencil but StencilSpec::plain: launch_stencil_general writes every cell, so the
// ping-pong needs no boundary copy (the same final copy after an odd step count).
template <class T>
void CudaBackend::stencil_general(QueueImpl& q, const StencilSpec& spec, const GridView& u, int steps) {
  static_assert(static_cast<int>(StencilBoundary::dirichlet) == 0 && static_cast<int>(StencilBoundary::neumann) == 1 &&
                    static_cast<int>(StencilBoundary::periodic) == 2,
                "the general kernel reads the face kinds as 0/1/2");
  const cudaStream_t stream = stream_of(q);
  GeneralStencilArgs<T> a;
  a.ndim = u.ndim;
  a.nx = u.nx;
  a.ny = u.ny;
  a.nz = u.ndim == 3 ? u.nz : 1;
  a.centre = static_cast<T>(spec.centre);
  a.source = static_cast<T>(spec.source);
  for (int ax = 0; ax < 3; ++ax)
    for (int d = 1; d <= spec.radius; ++d)
      a.axis[ax][d - 1] = static_cast<T>(spec.axis[static_cast<std::size_t>(ax)][static_cast<std::size_t>(d)]);
  for (int f = 0; f < 6; ++f) a.faces[f] = static_cast<int>(spec.faces[static_cast<std::size_t>(f)]);
  const std::size_t bytes = static_cast<std::size_t>(a.nx * a.ny * a.nz) * sizeof(T);
  T* cur = static_cast<T*>(u.data);
  T* next = static_cast<T*>(StencilState::of(queue_of(q)).scratch.ensure(bytes));
  for (int s = 0; s < steps; ++s) {
    TESSERA_CUDA_CHECK(launch_stencil_general<T>(spec.radius, a, cur, next, stream));
    std::swap(cur, next);
  }
  if (cur != u.data) TESSERA_CUDA_CHECK(cudaMemcpyAsync(u.data, cur, bytes, cudaMemcpyDeviceToDevice, stream));
}

TESSERA_INSTANTIATE_TYPED_OP(CudaBackend, stencil)

}  // namespace tessera::cuda
