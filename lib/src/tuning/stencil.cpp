// Star stencils. OpenCL: work-group shape in work-items (x fastest); cpu kernels: a work-item
// computes vw consecutive cells of `rows` consecutive rows.
#include "tuning/tuning.hpp"

namespace tessera::tuning {

const std::vector<ParamSpec>& stencil_params() {
  // A warp (wavefront) spans a row segment: coalesced. pocl: a work-item does 16 cells of one
  // row, a group 256 consecutive cells; groups spanning several rows, or work-items several
  // rows, were slower (more concurrent streams).
  static const std::vector<ParamSpec> p = {
      {"stencil.lx", "work-items along x per group", 1, 1024, Shape::any,
       {{"opencl/nvidia", 32}, {"opencl/amd-gcn", 64}, {"opencl/*", 16}}},
      {"stencil.ly", "work-items along y per group", 1, 1024, Shape::any,
       {{"opencl/nvidia", 8}, {"opencl/amd-gcn", 4}, {"opencl/pocl-cpu", 1}, {"opencl/intel-cpu", 1},
        {"opencl/generic", 4}}},
      {"stencil.vw", "cpu kernels: consecutive cells per work-item (explicit vectors)", 1, 16, Shape::vector_width,
       {{"opencl/pocl-cpu", 16}, {"opencl/intel-cpu", 8}, {"opencl/*", 1}}},
      {"stencil.rows", "cpu kernels: consecutive rows per work-item", 1, 64, Shape::any, {{"opencl/*", 1}}},
      // clang builtins: PoCL only (untested on Intel's compiler).
      {"stencil.sweep_rows", "cpu kernels, 3D grids beyond the caches: rows per z sweep, stores streamed (0: off)", 0,
       1024, Shape::any, {{"opencl/pocl-cpu", 16}, {"opencl/*", 0}}},
      {"stencil.z_chunk", "CUDA 3D: planes per block along z (the register queue's run)", 1, 1 << 20, Shape::any,
       {{"cuda/*", 64}}},
      // 3D grids are blocked in y: per thread, the block's working set (2r+1 source row blocks
      // plus the destination block) should take about half of a 512 KiB - 1 MiB L2, leaving room
      // for the prefetched next plane.
      {"stencil.block_bytes", "cpu: bytes of a cache block of rows", 1024, 1LL << 32, Shape::any,
       {{"cpu/*", 256 * 1024}}},
      {"stencil.min_cells_per_thread", "cpu: cells per thread below which fewer threads run", 1, 1LL << 40,
       Shape::any, {{"cpu/*", 1 << 14}}},
      // Temporal blocking (3D, isotropic, all faces Dirichlet, no source; steps > 1): several
      // steps per pass through memory. cpu: taken when both grids exceed the last-level cache
      // (one step per pass is then bound by memory), each thread's ring of intermediate planes
      // sized by stencil.time_block_bytes (backends/cpu/stencil.cpp, plan_time_blocking).
      // GPU (CUDA, NVIDIA OpenCL): the 7-point (radius 1) case, T steps per pass in tiles of
      // tb_lx x tb_ly cells whose inner (tb_lx - 2T) x (tb_ly - 2T) are written; taken for grids
      // beyond the 50-60 MB L2 of an H100 / H200. Measured on an H100 (512^3 f32, 16 steps,
      // bench/RESULTS.md): NVIDIA OpenCL 9.54 ms one step per pass, 8.49 / 6.83 / 6.97 ms with
      // 2 / 3 / 4 steps: 3 on opencl/nvidia; the CUDA kernel is slower than its one-step kernel
      // (7.49 ms; 9.12 / 9.16 / 10.99), so CUDA stays at 1 until it is reworked. Elsewhere 1: not
      // measured (ctest cuda.stencil_time_blocked and opencl.stencil_time_blocked force it on
      // the test grids).
      {"stencil.time_block", "3D stencil: time steps per pass through memory (1: one step per pass)", 1, 64,
       Shape::any, {{"cpu/*", 8}, {"cuda/*", 1}, {"opencl/nvidia", 3}, {"opencl/*", 1}}},
      {"stencil.time_block_min_bytes",
       "3D stencil: grids (both buffers) above this many bytes are blocked in time (cpu, 0: the last-level cache)", 0,
       1LL << 50, Shape::any, {{"cpu/*", 0}, {"cuda/*", 64LL << 20}, {"opencl/*", 64LL << 20}}},
      {"stencil.tb_lx", "GPU temporal blocking: tile width in cells (work-items along x)", 4, 1024, Shape::any,
       {{"cuda/*", 32}, {"opencl/*", 32}}},
      {"stencil.tb_ly", "GPU temporal blocking: tile height in cells (work-items along y)", 4, 1024, Shape::any,
       {{"cuda/*", 16}, {"opencl/*", 16}}},
      // Measured (512^3 f32 x16, 2 threads, EPYC with 1 MiB L2 per core, loaded host): ring 256 KiB
      // 2350 ms, 512 KiB 1880, 1 MiB 1700 at 4 steps per pass; 1 MiB with up to 8 steps (6 fit,
      // see plan_time_blocking) 1480; one step per pass 2630. A ring past L2 still gains: the
      // intermediate planes come from the L3, not memory.
      {"stencil.time_block_bytes", "cpu: bytes of a thread's ring of intermediate planes (temporal blocking)", 4096,
       1LL << 32, Shape::any, {{"cpu/*", 1024 * 1024}}},
  };
  return p;
}

}  // namespace tessera::tuning
