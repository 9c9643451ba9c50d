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
      // GPU kernels: a run of vw cells per work-item read as aligned vectors, where nx % vw == 0.
      // NVIDIA OpenCL, H100, 512^3 one step per pass, % of copy, vw = 1 / 2 / 4 (bench/RESULTS.md,
      // session 15): 7-point f32 65 / 96 / 98, f64 93 / 105 / 101; 13-point f32 57 / 84 / 70, f64
      // 84 / 88 / 74; 25-point f32 43 / 54 / 45, f64 57 / 50 / 37: 2, best or within 2 points of it
      // but for 25-point f64.
      {"stencil.vw",
       "consecutive cells per work-item (explicit vectors; GPU kernels: aligned runs where nx allows, else 1)", 1, 16,
       Shape::vector_width, {{"opencl/pocl-cpu", 16}, {"opencl/intel-cpu", 8}, {"opencl/nvidia", 2}, {"opencl/*", 1}}},
      {"stencil.rows", "cpu kernels: consecutive rows per work-item", 1, 64, Shape::any, {{"opencl/*", 1}}},
      // clang builtins: PoCL only (untested on Intel's compiler).
      {"stencil.sweep_rows", "cpu kernels, 3D grids beyond the caches: rows per z sweep, stores streamed (0: off)", 0,
       1024, Shape::any, {{"opencl/pocl-cpu", 16}, {"opencl/*", 0}}},
      // CUDA 3D one step per pass, H100, 512^3, 10 steps, ms (bench/RESULTS.md, session 17; the
      // register sweep reading runs of 4 cells; a thread per 4 cells for f32, 1 for f64; the
      // bulk-copy sweep with 16 and with 8 rows, 3 planes in flight):
      //                 register sweep   a thread per cells   bulk, 16 rows   bulk, 8 rows
      //   7-point f32   4.22             3.97                 4.35            4.28
      //   7-point f64   8.45             7.84                 8.71            8.37
      //   13-point f32  4.89             4.72                 4.48            4.41
      //   13-point f64  13.08            8.98                 9.00            8.81
      //   25-point f32  6.18             8.59                 5.84            4.87
      //   25-point f64  16.50            15.16                11.42           9.10
      // so 2 takes the bulk-copy sweep for radius 2 or more where it applies (compute capability
      // 9.0, 16-byte rows), else the register sweep for f32 of radius 2 or more, else a thread per
      // cells; cells 0 takes 4 for 4-byte cells, 1 for 8-byte (session 15: a thread per 1 / 2 / 4
      // cells, 7-point f32 61 / 77 / 92 % of copy, f64 93 / 92 / 92). Session 24, an H200, 7-point,
      // 16 steps one step per pass (8 for 640^3: 4 steps), ms, a thread per cells / the runs
      // kernel with one level in 1 row a thread (2 rows, 4 rows):
      //   n = 256   f32 0.762 / 0.833   f64 1.430 / 1.402
      //   n = 384   f32 2.342 / 2.183 (2.260, 2.628)   f64 4.575 / 4.258 (4.240, 4.680)
      //   n = 512   f32 5.516 / 5.165 (5.275, 5.617)   f64 10.73 / 10.53 (10.43, 11.34)
      //   n = 640   f32 2.643 / 2.619   f64 5.231 / 5.049
      // (ncu, 512^3 f32: a thread per cells L2 94 % busy, DRAM 57 %; the runs kernel L2 84 %, DRAM
      // 63 %: the H200's DRAM outruns its L2 more than the H100's, and the runs read each cell
      // from L2 once, their halos aside), so 2 takes the runs kernel with one level for radius 1
      // where it applies (256^3, 9 % slower for f32, is left to the temporally blocked passes of
      // steps > 1, which grids of 64 MiB and more take).
      {"stencil.plane_sweep",
       "CUDA 3D, one step per pass: 1 the plane sweep (register queue along z), 0 a thread per cells "
       "(stencil.cells), 3 the plane sweep on Hopper's bulk tensor copy (compute capability 9.0; elsewhere, or "
       "grids it does not apply to, 1), 4 the temporal blocking's runs kernel with one level (radius 1 where the "
       "grids allow the runs, else 2's choice), 2 that for radius 1 where it applies, the bulk sweep for radius 2 "
       "or more where it applies, else the register sweep for f32 of radius 2 or more, else a thread per cells",
       0, 4, Shape::any, {{"cuda/*", 2}}},
      // The bulk sweep's shape (same runs, ms): 8 rows against 16 above (two blocks an SM, each
      // waiting at its own barrier, against one: ncu on 16 rows, 25-point f32: 25 % occupancy,
      // DRAM 45 %, L2 57 %, SM 51 %: latency); three blocks (80 registers) 4.97 / 8.96 ms at
      // 25-point f32 / f64 against two's 4.87 / 9.10, and with 2 planes in flight 5.00 / 8.99; 5
      // planes (16 rows) no faster than 3; z chunks of 32 and 128 planes: 6.06 and 5.80 at
      // 25-point f32 (16 rows), 64 5.84. (The 16-row column predates summing one distance at a
      // time, which only cut registers: 8 rows measured 5.25 / 9.47 before it.)
      // Those were an H100's. On an H200 (bench/RESULTS.md session 39; 512^3, 10 steps one step a
      // pass, ms, 13-point f32 / f64, 25-point f32 / f64), threads across x, rows and blocks an SM:
      //   32 x 8, 2 (the default before)   3.414  6.746  4.665  8.449
      //   32 x 8, 3                        3.415  6.746  4.249  8.294
      //   16 x 16, 2                       3.406  6.635  4.645  8.399
      //   16 x 16, 3                       3.411  6.674  4.117  8.325
      //   8 x 32, 2                        3.494  6.864  4.581  8.383
      // (ncu, 25-point f32, one pass: 32 x 8, 2 blocks 465 us, L2 77 %, DRAM 48 %, 66.0 M L2 read
      // sectors; 16 x 16, 3 blocks 411 us, L2 84 %, DRAM 56 %, 57.8 M), so 16 x 16 threads, three
      // blocks an SM (80 registers). The H100's 2 % loss with three blocks of 32 x 8 is not re-measured
      // (no H100 is lent now).
      {"stencil.bulk_prefetch", "CUDA 3D, the bulk-copy plane sweep: planes in flight beyond the one awaited", 1, 16,
       Shape::any, {{"cuda/*", 3}}},
      {"stencil.bulk_rows",
       "CUDA 3D, the bulk-copy plane sweep: rows of a block's tile (8 or 16 with 32 lanes, 16 with 16, 32 with 8)", 8,
       32, Shape::pow2, {{"cuda/*", 16}}},
      {"stencil.bulk_lanes",
       "CUDA 3D, the bulk-copy plane sweep: threads across a block's tile, a 16-byte run each (32, 16 or 8)", 8, 32,
       Shape::pow2, {{"cuda/*", 16}}},
      {"stencil.bulk_min_blocks",
       "CUDA 3D, the bulk-copy plane sweep of 256 threads: blocks an SM its registers are capped to fit (2 or 3)", 2, 3,
       Shape::any, {{"cuda/*", 3}}},
      {"stencil.cells",
       "CUDA 3D, a thread per cells: consecutive cells along x per thread, loaded as one vector (1, 2 or 4; 0: 4 "
       "for f32, 1 for f64); grids whose nx it does not divide take 1",
       0, 4, Shape::any, {{"cuda/*", 0}}},
      // The bulk sweep on its default shape (16 x 16 threads, three blocks an SM), 512^3 x10 one
      // step a pass on an H200, ms 25-point f32 / 13-point f32 (bench/RESULTS.md session 40, two
      // rounds alike): 48 planes 4.09 / 3.38, 64 4.13 / 3.44, 86-171 4.10-4.15 / 3.40-3.54, 256
      // 4.44 / 4.00, 512 4.44 / 4.00: 64 stays (48's 1 % is one call's spread).
      {"stencil.z_chunk", "CUDA 3D: planes per block along z (the plane sweeps' run)", 1, 1 << 20, Shape::any,
       {{"cuda/*", 64}}},
      // The model's chunk against fixed ones, one step of 512^3 x16 on an H200 (ms f32 / f64, one
      // round, bench/RESULTS.md session 37): within 0.3 % of the best for f32, 3.5 % for f64
      // (left as it is: one call's spread is 1 %): model 5.207 / 10.59; 8 planes 5.735 / 11.64, 16
      // 5.286 / 10.35, 24-48 5.190-5.200 / 10.22-10.27, 64 5.320 / 10.37, 128 5.313 / 10.59, 512
      // 5.930 / 13.79.
      {"stencil.runs_z_chunk",
       "CUDA 3D, the runs kernel (one level and the blocked passes): planes per block along z (0: "
       "plan/stencil_chunks.hpp's model)",
       0, 1 << 20, Shape::any, {{"cuda/*", 0}}},
      // 3D grids are blocked in y: per thread, the block's working set (2r+1 source row blocks
      // plus the destination block) should take about half of a 512 KiB - 1 MiB L2, leaving room
      // for the prefetched next plane.
      {"stencil.block_bytes", "cpu: bytes of a cache block of rows", 1024, 1LL << 32, Shape::any,
       {{"cpu/*", 256 * 1024}}},
      // Non-temporal stores for grids beyond the last-level cache: measured per process by
      // default (backends/cpu/stencil_stores.hpp says why a probe: they paid on some x86 VMs and
      // halved the sweep's speed on another).
      {"stencil.stream_stores",
       "cpu, grids beyond the last-level cache: non-temporal stores 0 never, 1 always, 2 where a probe of the sweep "
       "(once per process) finds them faster",
       0, 2, Shape::any, {{"cpu/*", 2}}, "off|on|measure"},
      {"stencil.pack_planes",
       "cpu 3D: source planes read through a ring of padded slots, 0 never, 1 always, 2 where planes a multiple of "
       "4 KiB apart put more of a cell's neighbours in one L1 set than 8 ways hold (backends/cpu/stencil.cpp)",
       0, 2, Shape::any, {{"cpu/*", 2}}, "off|on|aliasing"},
      {"stencil.min_cells_per_thread", "cpu: cells per thread below which fewer threads run", 1, 1LL << 40,
       Shape::any, {{"cpu/*", 1 << 14}}},
      // Temporal blocking (3D, isotropic, all faces Dirichlet, no source; steps > 1): several
      // steps per pass through memory. cpu: taken when both grids exceed the last-level cache
      // (one step per pass is then bound by memory), each thread's ring of intermediate planes
      // sized by stencil.time_block_bytes (backends/cpu/stencil.cpp, plan_time_blocking).
      // GPU (CUDA, NVIDIA OpenCL): the 7-point (radius 1) case, T steps per pass in tiles of
      // tb_lx x tb_ly cells whose inner (tb_lx - 2T) x (tb_ly - 2T) are written; taken for grids
      // beyond the 50-60 MB L2 of an H100 / H200. Measured on an H100 (512^3 f32, 16 steps, ms,
      // bench/RESULTS.md session 11; one step per pass 7.5 cuda, 7.3 opencl):
      //   tile    T:  2 cuda / opencl   3 cuda / opencl   4 cuda / opencl
      //   32x16       7.41 / 8.48       7.31 / 6.79       10.39 / 6.94
      //   32x32       6.35 / 9.25       7.30 / 6.91        7.71 / 5.13
      //   64x16       6.40 / 8.93       7.40 / 6.86        9.65 / 6.49
      // so 2 steps in 32 x 32 tiles on CUDA, 4 in 32 x 32 on NVIDIA OpenCL. Elsewhere 1: not
      // measured (ctests cuda.stencil_time_blocked* and opencl.stencil_time_blocked* force it on
      // the test grids). Since session 15 CUDA's one-step f32 kernel (4 cells a thread) takes
      // 3.96 ms for 10 steps against 4.33 in 2-step passes of the tile kernel, while f64 keeps
      // 7.84 against 6.96. Session 23's runs kernel (stencil.tb_rows below) beats one step per
      // pass in both dtypes, best at 2 steps: CUDA's 0 takes 2 on the runs kernel, and on the
      // tile kernel 1 for f32, 2 for f64.
      {"stencil.time_block",
       "3D stencil: time steps per pass through memory (1: one step per pass; 0, CUDA: 2, but 1 for f32 on the tile "
       "kernel)",
       0, 64, Shape::any, {{"cpu/*", 8}, {"cuda/*", 0}, {"opencl/nvidia", 4}, {"opencl/*", 1}}},
      {"stencil.time_block_min_bytes",
       "3D stencil: grids (both buffers) above this many bytes are blocked in time (cpu, 0: the last-level cache)", 0,
       1LL << 50, Shape::any, {{"cpu/*", 0}, {"cuda/*", 64LL << 20}, {"opencl/*", 64LL << 20}}},
      {"stencil.tb_lx", "GPU temporal blocking: tile width in cells (work-items along x)", 4, 1024, Shape::any,
       {{"cuda/*", 32}, {"opencl/*", 32}}},
      {"stencil.tb_ly", "GPU temporal blocking: tile height in cells (work-items along y)", 4, 1024, Shape::any,
       {{"cuda/*", 32}, {"opencl/nvidia", 32}, {"opencl/*", 16}}},
      // Registers a thread of the 1024-thread tiles takes (nvcc -Xptxas -v, sm_90), compiled for
      // one block per SM: f32 42 / 44 / 40 at T = 2 / 3 / 4, f64 51 / 54 / 56; for two (at most
      // 32): f32 no spill at T = 2 and 3, 40 bytes at 4; f64 40 / 116 / 172 bytes spilled.
      // Measured on an H100 (512^3 x16, ms, bench/RESULTS.md session 12; one step per pass 7.52
      // f32, 12.46 f64), f32 / f64:
      //   blocks/SM  tile    T = 2           3               4
      //   1          32x32   7.58 /  9.99    6.96 /  8.98    7.44 /  9.07
      //   1          64x16   7.50 /  9.61    6.90 /  8.80    9.29 / 11.38
      //   2          32x32   6.36 / 12.56    6.98 / 22.29    9.81 / 40.06
      //   2          64x16   6.41 / 12.30    7.10 / 24.70   12.07 / 50.79
      // so 0 (the default): two for f32, one for f64 (with the default 2 steps in 32 x 32 tiles:
      // 6.36 and 9.99 ms).
      // The CUDA runs kernel (kernels/cuda/stencil_tblock.cu): tiles one warp wide (128 f32 / 64
      // f64 cells) and 32 rows tall, in 32, 16 or 8 warps of 1, 2 or 4 rows a thread. Measured
      // on an H200 (512^3 x 16 steps, ms, bench/RESULTS.md session 23; one step per pass 5.52
      // f32, 10.72 f64), f32 / f64:
      //   rows   T = 2           3               4
      //   1      2.75 / 5.17     2.86 / 5.74     3.81 / 7.11*
      //   2      3.26 / 5.19*    3.14 / 5.17     3.02 / 5.65
      //   4      3.26 / 6.79*    3.15 / 6.61*    3.23 / 6.50*
      // (*: a build whose ring took a plane into the wrong slot, the same work; where both ran
      // they agree within 1 %), so 1 row (1024 threads, at most 64 registers: 2 steps need
      // 56-62) at 2 steps a pass. One level (stencil.plane_sweep above) also takes this many rows:
      // 1 best for f32, 2 within 1 % for f64.
      {"stencil.tb_rows",
       "CUDA temporal blocking: rows of 16-byte runs a thread holds (1, 2 or 4; kernels/cuda/stencil_tblock.cu); 0: "
       "the tile kernel, a cell a thread",
       0, 4, Shape::any, {{"cuda/*", 1}}},
      {"stencil.tb_min_blocks",
       "CUDA temporal blocking: blocks per SM the 1024-thread tiles are compiled to fit (2: at most 32 registers; 0: "
       "2 for f32, 1 for f64)",
       0, 2, Shape::any, {{"cuda/*", 0}}},
      // Measured (512^3 f32 x16, 2 threads, EPYC with 1 MiB L2 per core, loaded host): ring 256 KiB
      // 2350 ms, 512 KiB 1880, 1 MiB 1700 at 4 steps per pass; 1 MiB with up to 8 steps (6 fit,
      // see plan_time_blocking) 1480; one step per pass 2630. A ring past L2 still gains: the
      // intermediate planes come from the L3, not memory. Again on a Zen 5 VM (1 MiB L2 a core,
      // 32 MiB L3, 2 threads; bench/RESULTS.md, session 27), 512^3 x16, ms, f32 / f64, three
      // alternating rounds: one step per pass 380-415 / 794-863; ring 1 MiB (6 levels of 24
      // rows: 1.21x the cells computed) 274-302 / 543-568; 3 MiB 235-252 / 480-500; 4 MiB (8
      // levels of 64 rows, 1.11x) 225-239 / 504-513; 4 MiB with 4 or 5 levels alike. Hence 4 MiB:
      // a thread's ring lives in its share of the L3, and wider blocks recompute fewer halo rows.
      {"stencil.time_block_bytes", "cpu: bytes of a thread's ring of intermediate planes (temporal blocking)", 4096,
       1LL << 32, Shape::any, {{"cpu/*", 4 * 1024 * 1024}}},
      // Radius 2 and more: one step per pass is bound by the arithmetic, not memory, and blocking
      // only adds the halos' recomputation. Zen 5 VM (as above), ms f32 / f64, one step per pass /
      // blocked (1 MiB ring) / blocked (4 MiB): 384^3 x8 13-point 88-90 / 96 / 91-97, f64
      // 186-200 / 213 / 174-187; 320^3 x6 19-point 42-43 / 59-60 / 57-58, f64 95-98 / 129-131 /
      // 107-116; 256^3 x8 25-point 43-44 / 45 / 59, f64 88-90 / 91-92 / 102-117; 512^3 x4
      // 25-point 197-208 / 209-211 / 225-228, f64 429-442 / 420-434 / 460-510.
      {"stencil.time_block_max_radius", "cpu: temporal blocking only for stencils of at most this radius", 1, 4,
       Shape::any, {{"cpu/*", 1}}},
  };
  return p;
}

}  // namespace tessera::tuning
