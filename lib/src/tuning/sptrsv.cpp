// Sparse triangular solve. The level schedule is computed once (plan/level_schedule.hpp); these
// set how a device walks it.
#include "tuning/tuning.hpp"

namespace tessera::tuning {

const std::vector<ParamSpec>& sptrsv_params() {
  static const std::vector<ParamSpec> p = {
      {"sptrsv.wg", "OpenCL level kernels: work-group size (smaller levels run as one group with barriers)", 1, 1024,
       Shape::any,
       {{"opencl/nvidia", 256}, {"opencl/amd-gcn", 256}, {"opencl/pocl-cpu", 64}, {"opencl/intel-cpu", 64},
        {"opencl/generic", 64}}},
      // H200, 2026-11-22, lower triangle of the 128^3 Laplacian on NVIDIA OpenCL: sync-free
      // 0.72 / 1.56 ms (f32 / f64) against 2.10 / 2.91 ms for one launch per level.
      // CUDA (H100, 2026-11-27, f32): one block against cuSPARSE on the real SPD triangles
      // (3.5-45 rows a level on average) 1.5-2.2x where sync-free ran at 0.4-1.3x; on the
      // Laplacians one block lost once levels averaged a few hundred rows (32^3: 348 rows,
      // 0.216 against cuSPARSE's 0.153 ms; 48^3: 779 rows, 0.61 against 0.21 ms).
      {"sptrsv.syncfree",
       "gpu: one sync-free launch when the levels hold this many rows on average, else the levels walked with barriers "
       "(CUDA: by one block; 0: never sync-free)",
       0, 1 << 20, Shape::any, {{"cuda/*", 256}, {"opencl/nvidia", 32}, {"opencl/*", 0}}},
      {"sptrsv.groups_per_cu", "OpenCL sync-free: groups per compute unit", 1, 64, Shape::any,
       {{"opencl/nvidia", 2}, {"opencl/*", 4}}},
      {"sptrsv.syncfree_wg", "OpenCL sync-free: work-items per group and rows per task", 1, 1024, Shape::any,
       {{"opencl/nvidia", 128}, {"opencl/generic", 64}, {"opencl/*", 256}}},
      // 1 or 4 groups per SM, groups of 64 or 256, back-off up to 1 or 1024 ns were within
      // -5%..+32% of 2 x 128 with 256 ns (H200, NVIDIA OpenCL). CUDA (H100, 2026-11-27, lower
      // triangle of the 128^3 Laplacian, f32, ms; blocks per SM / longest back-off): 1 / 0: 0.817,
      // 1 / 64: 0.831, 1 / 256: 0.852, 1 / 1024: 0.896, 2 / 0: 0.859, 2 / 64: 0.865, 2 / 256:
      // 0.893, 2 / 1024: 0.984, 3 / 256: 1.019 (cuSPARSE 0.74-0.75): fewer waiting rows and
      // shorter sleeps win; 64 ns keeps the level analysis, whose whole grid waits, from spinning.
      {"sptrsv.sleep_ns", "sync-free solves: longest back-off of a waiting thread, ns (0: spin)", 0, 1 << 20,
       Shape::any, {{"cuda/*", 64}, {"opencl/nvidia", 256}, {"opencl/*", 0}}},
      // H200, lower triangle of the 128^3 Laplacian, persistent grid: 2 -> 0.75 ms, 4 -> 0.88 ms,
      // 8 -> 1.37 ms (more waiting rows, more polls competing with the stores they wait for);
      // H100 above: 1 per SM. A persistent grid of that many blocks taking chunk after chunk, a
      // waiting row loading the next one's data, was slower (H100, 128^3 Laplacian f32: 0.958 /
      // 0.932 ms at 1 / 2 blocks per SM against 0.812 / 0.862): the launches are not what
      // bounds the solve.
      {"sptrsv.blocks_per_sm", "CUDA: resident blocks per SM of the sync-free solve", 1, 32, Shape::any,
       {{"cuda/*", 1}}},
      // H200, 2026-11-30, lower triangles of n^3 Laplacians, f32, ms. 128^3 (cuSPARSE 0.72 in
      // each run): the sync-free launch (0) 0.82-0.83; parts of the rows: 2 (33 blocks) 1.76,
      // 4 (66) 0.745-0.75, 8 (132) 0.76, 16 (264) 0.875. Other sizes, 4 against 0: 32^3 0.132 /
      // 0.149, 48^3 0.291 / 0.228, 64^3 0.252 / 0.312, 96^3 0.848 / 0.528. The losses were the
      // widest levels' second round of rows (bench/models/sptrsv_parts.py): with sptrsv.part_groups
      // = 4 (session 30, one call; cuSPARSE alongside) 48^3 0.192 (0.201), 64^3 0.252 (0.277),
      // 96^3 0.545 (0.527), 128^3 0.748 (0.719) against the sync-free launch's 0.230, 0.313,
      // 0.531, 0.823: parts win but at 96^3 (3 % behind), so they are the default. 3, 6
      // and 8 in the same session: 128^3 1.382, 0.783, 0.771, 96^3 0.539, 0.532, 0.536; 4 kept.
      // The real FEM triangles' narrow levels take one block either way.
      // f64 (session 30, parts 4 against the sync-free launch, ms): 32^3 0.137 / 0.163, 48^3
      // 0.194 / 0.250, 64^3 0.251 / 0.353, 96^3 0.621-0.634 / 0.628-0.634, 128^3 0.978-1.008 /
      // 0.955-0.969: as f32, ahead but at the largest (3-4 % behind), so one default for both.
      // Session 32 (H200, bench/RESULTS.md): with 4, sizes past 128^3 ran 1.5-2.6x slower than
      // with 8 (f32 120^3 1.10 ms against 0.71, 144^3 1.49 / 0.92, 256^3 7.0 / 3.9, 0.38x
      // cuSPARSE): a part's level cost grew ~10 ns a row, every row a cache line a load (fixed:
      // the walks read the analysis's copy of the triangle), and a larger part's x no longer fit
      // shared memory. With that copy, f32 / f64 ms by eighths (4, 8, 16; parts capped by
      // residency, f64 at one a SM by its registers): 128^3 0.612 / 0.639 / 0.618 and 0.753 /
      // 0.713 / 0.710, 144^3 1.031 / 0.749 / 0.773 and 1.232 / 0.849 / 0.828, 192^3 2.591 / 1.474
      // / 1.271 and 2.683 / 1.690 / 1.700, 256^3 5.512 / 3.061 / 2.151 and 5.781 / 3.323 / 3.356,
      // 64^3 0.205 / 0.216 / 0.224 and 0.186 / 0.195 / 0.194 (cuSPARSE 128^3 0.711 / 0.795, 256^3
      // 2.614 / 2.736, 64^3 0.276 / 0.293): 16, within 10 % of the best at every size but 80^3
      // f32 and 96^3 - 112^3 f64 (10-12 %). Session 33: f64 published as one word a row (126-128
      // registers, two parts a SM as f32): f64 16 against 8, 192^3 1.312 / 1.495, 256^3 2.226 /
      // 3.064, 128^3 0.571 / 0.572, 64^3 0.198 / 0.198.
      {"sptrsv.parts",
       "CUDA, wide levels: blocks that each walk the levels over their own part of the rows, in eighths of the SM "
       "count (8: one a SM; 0: the sync-free launch instead), at most as many as are resident at once",
       0, 64, Shape::any, {{"cuda/*", 16}}},
      // Tiles against contiguous parts: bench/models/sptrsv_parts.py (the 128^3 Laplacian: 264
      // half-plane parts in one chain of hops, 16 x 16 tiles in chains of 32) and
      // bench/RESULTS.md, session 33.
      {"sptrsv.tiles",
       "CUDA, parts of a banded triangle: tiles of the band's periods (1) or contiguous rows (0); tiles only where "
       "they cut fewer dependencies and none points to a later part",
       0, 1, Shape::any, {{"cuda/*", 1}}},
      {"sptrsv.tile_shape",
       "CUDA, tiled parts: blocks of periods = sqrt(parts x this / 8) (8: as many as blocks of places)", 1, 64,
       Shape::any, {{"cuda/*", 8}}},
      // Chem97ZtZ (2 levels of 2 410 and 131 rows, rows of up to 101 entries), H200, session 30,
      // f32 / f64 us: the sync-free launch 34.7 / 39.0 (a thread walks its row batch after
      // dependent batch), by parts 48; a launch a level 15.2 / 16.0; this one launch 12.7 / 11.3,
      // with the second level computing the first's values from b (no wait, no ticket) 11.7 /
      // 10.4, and without the per-solve event wait 10.1 / 10.1 (cuSPARSE 9.4-11.4 in the same
      // runs). A level's wait costs about a sync-free hop (494_bus's 11 narrow levels forced here:
      // 26-28 us against one block's 14), so beyond a handful of levels the other launches serve.
      {"sptrsv.few_levels",
       "CUDA, wide levels: schedules of at most this many levels (at most 16; 0: none) solved by one launch whose "
       "blocks take them level by level",
       0, 16, Shape::any, {{"cuda/*", 4}}},
      // 4 against 2 (H200, 2026-11-30, f32): bcsstk16 by one block 0.49 against 0.45 ms (idle
      // warps still issue every level's instructions); the 128^3 Laplacian by parts 1.25 against
      // 1.27 ms (a first, slower build of the parts walk).
      {"sptrsv.walk_groups",
       "CUDA, one block that walks the levels: rows held a step, in multiples of the mean rows a level has", 1, 16,
       Shape::any, {{"cuda/*", 2}}},
      // 4 against 2 (H200, session 30, parts 4, f32, ms): 48^3 Laplacian 0.192 against 0.291, 96^3
      // 0.545 against 0.859, 64^3 and 128^3 alike (0.252, 0.748): the widest (part, level)
      // segments hold several times the mean rows, and a second round of rows is not fetched ahead.
      // Session 33 (tiled parts, busy on a part of the levels only): the rule above gave the 128^3
      // Laplacian's 16 x 16 tiles 128 threads for at most 64 rows a level (0.487 ms; 2, 64
      // threads: 0.477) and 96^3's 64 for at most 36 (0.358; 2, 32 threads: 0.704, a second
      // round); now quarters of the widest segment's rows. Session 34 (the walk two levels ahead,
      // f32 / f64 ms): 2 lost (128^3 0.948 / 1.031 against 0.441 / 0.414), 8 within 1 % of 4.
      {"sptrsv.part_groups",
       "CUDA, parts that walk the levels: rows held a step, in quarters of the widest (level, part) segment's rows "
       "(at most 256 threads)",
       1, 16, Shape::any, {{"cuda/*", 4}}},
      // The analysis's level chain (H200, 2026-11-30, session 31, f32 lower triangles, the second
      // analysis in ms; cuSPARSE's in brackets). Blocks with their own rows' levels in shared
      // memory, a thread a row, against the chain before (every dependency an acquire load from
      // L2), by threads a block: 128^3 Laplacian 3.44 -> 2.76 (32), 1.85 (128), 1.86 (256), 1.92
      // (512), 1.98 (1024) [2.32]; 64^3 0.665 -> 0.55, 0.44, 0.45, 0.45, 0.50 [0.79].
      // Rows a thread, taken in order (thread t: rows t, t + threads, ... of its block's chunk):
      // the 128^3 Laplacian 2.17 (1), 1.99 (2), 1.30 (4), 1.08-1.20 (8) [2.31]: a grid in natural
      // order has its level fronts across every plane, and more rows resident reach more of
      // them. But only because a block's 128 threads match the grid's 128-row lines, so a
      // thread's next row is one line on, one level deeper: 100^3 1.29 (1) against 272-275
      // (2, 4, or by occupancy) [1.47], 120^3 1.90 against 469-654 [2.05-2.12], 96^3 1.15 against
      // 3.5-5.3, 80^3 0.63 against 1.7-51, and 128^3 with 64 threads 9.6-10.1: where a thread's
      // next row is shallower than its last, it waits behind it, and the waits chain. And
      // Dubcova1 (banded) 1.05 (1) against 4.6-5.0 (4-32). Hence a row a thread.
      {"sptrsv.level_threads",
       "CUDA analysis: threads of a block computing the levels (the block's rows depend on each other through shared "
       "memory)",
       32, 1024, Shape::pow2, {{"cuda/*", 128}}},
      {"sptrsv.level_rows", "CUDA analysis: rows a thread computes the levels of, in order (see above)", 1, 256,
       Shape::any, {{"cuda/*", 1}}},
      // One block holding every level (a thread's rows 1 024 apart, in order) against 128-row
      // blocks, two rounds: Chem97ZtZ (2 541 rows) 0.081-0.086 against 0.106 [0.119], nos6 (675)
      // 0.099-0.106 against 0.113, bcsstk16 (4 884) 1.16-1.17 against 1.35, bcsstk13 (2 003) and
      // 494_bus alike, Dubcova1 (16 129) 2.09-2.22 against 1.10 [3.07]: gains of 15-25 % on the
      // smallest, but the rows a thread are in order, as above, so it is off by default.
      {"sptrsv.level_block_rows",
       "CUDA analysis: triangles of at most this many rows have their levels computed by one block in shared memory "
       "(as far as it holds them; 0: never)",
       0, 1 << 20, Shape::any, {{"cuda/*", 0}}},
      // The barrier that ends a level (~1 us) costs more than splitting less work saves.
      {"sptrsv.parallel_level_work", "cpu: rows + nonzeros from which a level runs in parallel", 1, 1LL << 40,
       Shape::any, {{"cpu/*", 8192}}},
  };
  return p;
}

}  // namespace tessera::tuning
