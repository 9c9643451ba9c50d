// SpMV (CSR, SELL-C-sigma). The format and kernel choice itself is one policy for every device (plan/spmv_policy.hpp);
// these are its thresholds and the kernels' launch shapes.
#include "tuning/tuning.hpp"

namespace tessera::tuning {

const std::vector<ParamSpec>& spmv_params() {
  static const std::vector<ParamSpec> p = {
      {"spmv.wg", "OpenCL work-group size of the spmv kernels", 1, 1024, Shape::pow2,
       {{"opencl/nvidia", 256}, {"opencl/amd-gcn", 256}, {"opencl/pocl-cpu", 64}, {"opencl/intel-cpu", 64},
        {"opencl/generic", 64}}},
      // A warp (wavefront) per row at most: its tree needs no cross-warp traffic.
      {"spmv.max_lanes", "vector kernel: most work-items per row", 1, 64, Shape::pow2,
       {{"cuda/*", 32}, {"opencl/amd-gcn", 64}, {"opencl/pocl-cpu", 1}, {"opencl/intel-cpu", 1}, {"opencl/*", 32}}},
      {"spmv.min_lanes", "vector kernel: fewest work-items per row", 1, 64, Shape::pow2,
       {{"cuda/*", 2}, {"opencl/*", 1}}},
      // CUDA halves the power of two at or above the mean row length, so each lane does about
      // two products; OpenCL keeps it (one product per lane).
      {"spmv.lanes_shift", "vector kernel: lanes = (power of two >= mean row length) >> this", 0, 4, Shape::any,
       {{"cuda/*", 1}, {"opencl/*", 0}}},
      {"spmv.rows_per_item", "cpu kernels: consecutive rows per work-item", 1, 1024, Shape::any,
       {{"opencl/pocl-cpu", 32}, {"opencl/*", 16}}},
      // Short, even rows read as one coalesced run per group (a warp per 32 rows on CUDA).
      {"spmv.stream_mean", "stream kernel for unskewed rows of mean length up to this (0: never)", 0, 1 << 20,
       Shape::any, {{"cuda/*", 12}, {"opencl/nvidia", 12}, {"opencl/*", 0}}},
      // CG on the 256^3 Laplacian (7 entries a row), H100, cuda:0, ms per 50 iterations, f64 / f32
      // (bench/RESULTS.md, session 15): spmv_dot on the stream kernel 1.232 / 0.743, on the vector
      // kernel with 2 lanes 1.179 / 0.719, with 4 lanes 1.181 / 0.803; plain spmv (f32) stream 0.450,
      // vector with 2 lanes 0.614: the choice differs between the two.
      {"spmv.dot_lanes",
       "spmv_dot: rows the stream kernel would take run on the vector kernel with this many lanes (0: the stream "
       "kernel)",
       0, 32, Shape::any, {{"cuda/*", 2}, {"opencl/*", 0}}},
      // H200, 2026-11-22, 4M power-law rows of 3-10000 on NVIDIA OpenCL: merge 0.285 / 0.396 ms
      // (f32 / f64) against 0.466 / 0.788 ms for the vector kernel.
      {"spmv.merge_skew", "merge-path kernel when the longest row exceeds spmv.long_row and this x the mean (0: never)",
       0, 1 << 20, Shape::any, {{"cuda/*", 8}, {"opencl/nvidia", 8}, {"opencl/amd-gcn", 8}, {"opencl/*", 0}}},
      {"spmv.long_row", "rows up to this long never count as skewed", 1, 1 << 20, Shape::any,
       {{"cuda/*", 64}, {"opencl/*", 64}}},
      // A skewed matrix whose longest row is still short leaves a vector kernel's group of lanes
      // a few dozen steps on it, less than the merge kernel's partition search, shared-memory
      // staging and fix-up pass cost. H200, dblp-2010 (326 K rows of 5 on average, longest 238),
      // median ms f32 / f64, one call (bench/RESULTS.md, session 35): vector (4 lanes) 0.0199 and
      // 0.0182 / 0.0262 and 0.0244 (two rounds), merge 0.0249 / 0.0261, cuSPARSE CSR 0.0215 /
      // 0.0285; 8 lanes 0.0239 / 0.0264. OpenCL: not measured (0: as before).
      {"spmv.merge_long_row",
       "merge-path kernel only where the longest row exceeds this; shorter skewed rows take the vector kernel",
       0, 1 << 20, Shape::any, {{"cuda/*", 256}, {"opencl/*", 0}}},
      // Merge path's balance costs a partition search, the tile's staging and a fix-up pass:
      // on a small skewed matrix, where a call is latency-bound, more than the imbalance it
      // removes. H200, median ms f32, two rounds of one bench process per matrix and setting,
      // cuSPARSE CSR in each (bench/RESULTS.md, session 36): vsp_model1 (380 K entries, rows up
      // to 17 663) split 0.0127 / 0.0124, merge 0.0144 / 0.0150, cuSPARSE 0.0141 / 0.0137;
      // power-law 2M (30 M entries) split 0.352 / 0.352 against merge 0.280 / 0.279 (cuSPARSE
      // 0.263): there the vector groups' imbalance (rows up to 64 on 4 lanes) costs more than
      // merge's passes. The bound lies between the two (not narrowed further; 4 M entries, 32 MB
      // in f32, still fit the H100's and H200's 50 MB L2 across calls). CUDA's alone; needs the
      // host row offsets. (dblp-2010, whose longest row is 238, keeps the vector kernel:
      // spmv.merge_long_row; split there 0.0187 / 0.0187 against 0.0181 / 0.0181.)
      {"spmv.split_max_nnz",
       "skewed matrices of at most this many entries: long rows in chunks beside the vector kernel instead of merge "
       "path (0: never)",
       0, 1LL << 40, Shape::any, {{"cuda/*", 1 << 22}}},
      // The longest row left to the vector groups (4 lanes on vsp_model1): each of their steps
      // waits for a column index and then for x. vsp_model1, median ms f32 / f64 over two
      // rounds (bench/RESULTS.md, session 36): 16: 0.0133, 0.0131 / 0.0136, 0.0132; 32: 0.0117,
      // 0.0120 / 0.0120, 0.0136; 64: 0.0131, 0.0133 / 0.0133, 0.0138; 128: 0.0151, 0.0133 /
      // 0.0163, 0.0144; only the rows past 256: 0.0156, 0.0140 (f32).
      {"spmv.split_row", "split kernel: rows of more entries than this are cut into chunks", 1, 1 << 30, Shape::any,
       {{"cuda/*", 32}}},
      // Tiles of spmv.wg x merge_items rows + nonzeros; on NVIDIA 2 or 8 items per work-item
      // were slower (f64 0.456 / 0.760 ms against 0.396 ms with 4, H200, 2026-11-22).
      {"spmv.merge_items", "OpenCL merge kernel: path items per work-item", 1, 64, Shape::any, {{"opencl/*", 4}}},
      // Per thread: nonzeros + rows (a row costs its row_ptr entry and y element).
      // Storage (plan/spmv_policy.hpp): auto chooses SELL-C-sigma from the row statistics and the
      // built layout's padding; csr or sell force one (TESSERA_TUNE=spmv.format=sell).
      {"spmv.format", "storage: 0 auto (from the row statistics), 1 csr, 2 sell (SELL-C-sigma)", 0, 2, Shape::any,
       {{"cpu/*", 0}, {"cuda/*", 0}, {"opencl/*", 0}}, "auto|csr|sell"},
      // Auto picks SELL only for even rows: stddev / mean at most this (percent) ... Off by
      // default until it is shown to pay on a device class. cpu, a Zen 4 VM (AVX-512, where CSR
      // avoids gathers; one thread, medians of 4 interleaved runs, 2026-11-26), SELL / CSR time:
      // laplace3d 48^3 (in cache) 0.77 f32, 0.96 f64; 96^3 0.96 f32, 1.19 f64; 128^3 1.09 f32,
      // 0.81 f64; random 1M rows of 5-8 1.14 f32: no clear gain in DRAM. 10 takes Laplacian-like
      // rows (cv 2-6%) and leaves random 5-8 rows (cv 17%) on CSR. CUDA (H200, session 38,
      // bench/RESULTS.md; f32, sigma 1, 4 steps at a time, median ms, two rounds): laplace3d
      // 256^3 CSR 0.347 / 0.352, SELL 0.321 / 0.314; random 4M rows of 5-8 (cv 17%, 23%
      // padded) CSR 0.228 / 0.230, SELL 0.221 / 0.214: 20 takes both. NVIDIA OpenCL (H200,
      // session 39, the same kernel since 8d32563; f32 median ms, one round): laplace3d 256^3
      // CSR (stream) 0.368 / 0.383, SELL sigma 1 0.367, sigma 256 0.447; random 4M CSR 0.244 /
      // 0.248, SELL sigma 1 0.231, sigma 256 0.245; power-law 2M CSR (merge) 0.297, SELL 5.5-5.8
      // (835-1377 % padded, which the padding limit refuses): CUDA's four values. Other OpenCL
      // classes: not measured.
      // cpu on Intel cores (cpu/intel: gathers pay there, spmv.gathers): SELL's loop of gathers
      // beat CSR's rows on nearly every matrix whose layout pads little, so the padding limit
      // alone decides (1000: any spread). Emerald Rapids VM (2 cores, AVX-512, 2026-12-02,
      // bench/RESULTS.md session 44; SELL / CSR median ms, two alternating rounds each): one
      // thread, f32 / f64: Dubcova1 0.48 / 0.81, EX5 0.57 / 0.84, bcsstk16 0.89 / 0.77, cage11
      // 0.53 / 0.75, cavity14 0.34 / 0.75, 2dcyl1 0.42 / 0.83; two threads (a noisy 2-vCPU VM,
      // f64, best median of four rounds): Dubcova1 0.71, EX5 0.94, bcsstk16 0.91, cage10 0.66,
      // cage11 1.10, cavity14 1.01; from memory (256^3 Laplacian, random 4M rows, two threads)
      // alike within the spread, hence spmv.sell_max_llc.
      {"spmv.sell_max_cv", "auto: SELL when the row lengths' stddev is at most this percent of their mean (0: never)",
       0, 1000, Shape::any,
       {{"cpu/intel", 1000}, {"cpu/*", 0}, {"cuda/*", 20}, {"opencl/nvidia", 20}, {"opencl/*", 0}}},
      // ... and the layout pads by at most this percent of the nonzeros (measured once built).
      // ... or irregular short rows (plan::irregular_short_rows: consecutive short rows differ in
      // length): a CSR loop mispredicts its exit about once a row, SELL's slices of rows sorted by
      // length (spmv.sell_sigma) run fixed-length loops. cpu, AVX2 Zen VM, 1 thread, 2026-11-29,
      // CSR / SELL (sigma 1024) ms: ct2010 f32 0.77 / 0.33, f64 0.86 / 0.41; delaunay_n16 0.71 /
      // 0.36, 0.64 / 0.44; dblp-2010 4.19 / 2.19, 4.07 / 3.73; vsp_model 0.63 / 0.50, 0.59 / 0.49.
      // GPUs: not measured (their CSR kernels have no per-row branch of that kind).
      {"spmv.sell_irregular",
       "auto: SELL (rows sorted by length) for irregular short rows in matrices within spmv.sell_max_llc (0: never)",
       0, 1, Shape::any, {{"cpu/*", 1}, {"cuda/*", 0}, {"opencl/*", 0}}},
      // Both routes on the cpu, only for matrices that stay in the cache between products: from
      // memory SELL's padding is bytes (power-law 2M rows, 57 % padded: 43 -> 127 ms, below), its
      // gain on the loop is hidden behind the stream, and its layout costs the first call a pass
      // that many products do not pay back (cpu/intel, the 256^3 7-point Laplacian, 2 threads,
      // bench/RESULTS.md session 44: SELL 55-57 / 82-90 ms against CSR 56-71 / 79-86 (f32 / f64),
      // the first call 3.8 / 7.5 s against 0.06 / 0.17). GPUs: no bound (their SELL gains where
      // the matrix streams from DRAM).
      {"spmv.sell_max_llc",
       "auto: SELL only for matrices (values and column indices) within this many times the host's last-level "
       "cache (0: any size)",
       0, 1 << 20, Shape::any, {{"cpu/*", 2}, {"cuda/*", 0}, {"opencl/*", 0}}},
      // In cache padding costs little and the branches it saves a lot: vsp_model (66.8 % padded
      // in f32) 0.57 -> 0.32 ms, dblp-2010 (13.2 %) 3.28 -> 1.39 (2 threads, same VM); from memory
      // it is bytes: power-law 2M rows (57 %, 300 MB) 43 -> 127 ms, hence the cache bound above.
      // On a Zen 5 VM (AVX-512, 2 threads; bench/RESULTS.md session 27) the padding costs more:
      // CSR / SELL ms, vsp_model f64 (C = 16, 66.8 %) 0.156 / 0.204-0.212, wiki-Vote f32 (83.4 %)
      // 0.021 / 0.028, rajat01 f64 (97.1 %) 0.017 / 0.022, while dblp-2010 f32 (29.1 %) 0.93 /
      // 0.50-0.52 and PGPgiantcompo f32 (41.7 %, one thread each; it now runs CSR on two, under
      // spmv.short_gather_min_rows) 0.021 / 0.013 gained: 50.
      {"spmv.sell_irregular_max_padding", "auto, irregular rows: SELL when its padding is at most this percent of "
       "the nonzeros", 0, 1000, Shape::any, {{"cpu/*", 50}, {"cuda/*", 10}, {"opencl/*", 10}}},
      // CUDA: padding is masked (no gather, kernels/cuda/spmv.cu) and costs only its streamed
      // bytes: random 5-8 rows unsorted (23%) still gain (above).
      {"spmv.sell_max_padding", "auto: SELL when its padding is at most this percent of the nonzeros", 0, 1000,
       Shape::any, {{"cpu/*", 10}, {"cuda/*", 25}, {"opencl/nvidia", 25}, {"opencl/*", 10}}},
      // CUDA: SELL gains where the matrix streams from DRAM; matrices in L2 lost (SELL sigma 1 /
      // CSR ms, f32, H200, session 38: delaunay_n16 (65 k rows) 0.0116 / 0.0088, ct2010 (132 k)
      // 0.0167 / 0.0092, dblp-2010 (326 k) 0.062 / 0.021), so only past about 1M rows.
      {"spmv.sell_min_rows", "auto: SELL only for matrices of at least this many rows", 0, 1 << 30, Shape::any,
       {{"cpu/*", 4096}, {"cuda/*", 1 << 20}, {"opencl/nvidia", 1 << 20}, {"opencl/*", 1 << 16}}},
      // Rows are sorted by length within windows of sigma (a multiple of C; 1: unsorted, the
      // row order kept, no permutation), so a slice's rows are alike and pad little.
      // cpu: sorting gains where rows vary, the one case auto takes SELL for there
      // (spmv.sell_irregular; 256 / 1024 / 8192 measured alike there, 1 up to 2.4x slower); it
      // cost 10% on the even Laplacian rows (the permuted stores of y), which only a forced
      // spmv.format=sell runs as SELL.
      // CUDA: sorting lost on both (sigma 256 / 1, ms, f32, H200, session 38, the same calls and
      // kernel builds): laplace3d 256^3 0.432-0.481 / 0.347-0.406 (the permuted stores of y, x
      // read out of order), random 4M 0.222-0.235 / 0.214-0.226 (padding costs no gather there).
      {"spmv.sell_sigma", "SELL: rows sorted by length within windows of this many rows (1: not sorted)", 1, 1 << 20,
       Shape::pow2, {{"cpu/*", 1024}, {"cuda/*", 1}, {"opencl/nvidia", 1}, {"opencl/*", 256}}},
      // C: a warp / wavefront on GPUs, one row per work-item of it (cpu: two SIMD vectors of
      // the dtype, from the Highway target at run time, not a table value).
      {"spmv.sell_c", "SELL on GPUs: rows per slice (the warp or wavefront width)", 1, 1024, Shape::pow2,
       {{"cuda/*", 32}, {"opencl/amd-gcn", 64}, {"opencl/*", 32}}},
      // A thread's SELL steps whose column and value loads are issued together before their
      // gathers (kernels/cuda/spmv.cu). H200, session 38 (bench/RESULTS.md), median ms of two
      // rounds, f32, sigma 1, steps 1 / 2 / 4 / 8: laplace3d 256^3 (7 steps a slice) 0.397,
      // 0.416 / 0.351, 0.356 / 0.321, 0.314 / 0.419, 0.411; random 4M (8 steps) 0.219, 0.219 /
      // 0.218, 0.215 / 0.221, 0.214 / 0.217, 0.216.
      // OpenCL: the same kernel (kernels/opencl/spmv.cl), CUDA's value; not measured there.
      {"spmv.sell_steps", "SELL on GPUs: slice steps a work-item loads at a time (1, 2, 4 or 8)", 1, 8, Shape::pow2,
       {{"cuda/*", 4}, {"opencl/*", 4}}},
      // Narrow CSR columns (plan/csr_columns.hpp): int16 offsets from the row where every
      // column lies within +-32767 of it, 2 bytes per nonzero less to stream. Off by default:
      // no gain measured yet (7-point Laplacian 128^3 f64, int32 / int16 median ms: Zen 5 VM one
      // thread 8.66-10.95 / 8.82-9.22, CG at 2 ranks 9.48 / 9.43; 16-core Xeon, 16 threads
      // 1.94-2.11 / 1.97-2.17, 4 threads 7.12-7.75 / 7.14-7.30): the row loop is bound by its
      // loads, not by memory, on those cores.
      {"spmv.index", "cpu CSR column storage: 0 int32, 1 int16 offsets from the row where they fit", 0, 1,
       Shape::any, {{"cpu/*", 0}}, "int32|int16"},
      // Zen 5 VM, 2 threads (bench/RESULTS.md, session 27; the real matrices, two alternating
      // rounds, ms at 32768 / 8192): sherman3 (25 k nonzeros + rows) f64 0.0092 / 0.0055, add32
      // 0.0098 / 0.0054, 2dcyl1 (36 k) 0.0119 / 0.0071, PGPgiantcompo (59 k) 0.0211 / 0.0127;
      // dwt_992 (18 k) 0.0059 / 0.0036; nos6 and nnc1374 (under 16 k: one thread either way)
      // alike. Eigen's product takes two threads past 20 000 nonzeros.
      {"spmv.min_work_per_thread", "cpu: nonzeros + rows per thread below which fewer threads run", 1, 1 << 30,
       Shape::any, {{"cpu/*", 1 << 13}}},
      // AMD's x86 cores run vector gathers as microcode, slower than the scalar loads they
      // replace: on a Zen 5 VM (one thread, AVX-512) gathers made in-cache matrices 1.3-2x slower
      // (f64 rows of 8+, f32 rows of 16+) and the DRAM-bound random case no faster. Intel cores
      // (the gather path was tuned on Sapphire Rapids) and SVE keep them. (Intel cores with the
      // Gather Data Sampling microcode mitigation run gathers several times slower: not measured
      // here; TESSERA_TUNE=cpu:spmv.gathers=off is the switch.) Read by backends/cpu/gathers.hpp.
      {"spmv.gathers",
       "cpu CSR spmv and sptrsv: x read by SIMD gathers in rows of a vector or more, where the target has hardware "
       "gathers (0 off: scalar loads)",
       0, 1, Shape::any, {{"cpu/amd", 0}, {"cpu/*", 1}}, "off|on"},
      // The branch-free short-row gather (irregular rows of at most one vector) pays where the
      // scalar loop's exit branch is mispredicted once per row. Multiplied again and again (CG),
      // a small matrix's row-length sequence is learnt by the branch predictor and the scalar
      // loop wins. Measured on an AVX-512 Zen VM (2 vCPUs, loaded; best of 7, two runs), random
      // rows of 1-8 nonzeros, ns per row gather / scalar: 1 thread, 256-16384 rows 7.9-11.0 /
      // 2.7-4.7; 32768 rows 6.0-9.6 / 10.8-13.0; 65536-262144 6.0-11.2 / 9.5-15.7. 2 threads:
      // 16384 rows 12.0-12.9 / 4.7-5.6; 32768 11.4-12.3 / 14.9-16.6: the cut follows the
      // matrix's rows, not each thread's share (the 2 vCPUs may share one core's predictor).
      // 494_bus in CG: spmv 2.9 us gather, 1.3 us scalar. Not measured on Intel cores, whose
      // gathers are cheaper (TESSERA_TUNE=cpu:spmv.short_gather_min_rows=0 gives the old choice).
      {"spmv.short_gather_min_rows",
       "cpu: matrices of fewer rows take the scalar loop for irregular short rows (and CSR, not SELL)",
       0, 1 << 30, Shape::any, {{"cpu/*", 24576}}},
  };
  return p;
}

}  // namespace tessera::tuning
