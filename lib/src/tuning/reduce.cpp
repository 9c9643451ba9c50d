// reduce and dot. OpenCL gpu kernels: grid-stride compensated sums of vw-wide vectors, then a
// tree in local memory per group; cpu kernels: each work-item sums `chunk` consecutive elements
// in two vw-wide accumulators. CUDA: one pass, the last block folds the partials. cpu device:
// one contiguous chunk per thread.
#include "tuning/tuning.hpp"

namespace tessera::tuning {

const std::vector<ParamSpec>& reduce_params() {
  static const std::vector<ParamSpec> p = {
      {"reduce.wg", "work-group size of the tree kernels and of the final pass", 1, 1024, Shape::pow2,
       {{"opencl/nvidia", 256}, {"opencl/amd-gcn", 256}, {"opencl/pocl-cpu", 64}, {"opencl/intel-cpu", 64},
        {"opencl/generic", 64}}},
      // nvidia: 8 x 256 work-items keep an SM's 2048 thread slots busy. amd-gcn: few groups per
      // CU, since each group writes one partial and on GCN many writes of neighbouring words
      // from different groups are not coalesced.
      {"reduce.groups_per_cu", "gpu kernels: groups of the first pass per compute unit", 1, 64, Shape::any,
       {{"opencl/nvidia", 8}, {"opencl/amd-gcn", 4}, {"opencl/pocl-cpu", 1}, {"opencl/intel-cpu", 1},
        {"opencl/generic", 4}}},
      // pocl: 4096 / (2 accumulators x 16 lanes) = 128 additions per lane; intel: 2048 / (2 x 8).
      {"reduce.chunk", "cpu kernels: elements per work-item (a multiple of 2 x reduce.vw)", 2, 1 << 20, Shape::any,
       {{"opencl/intel-cpu", 2048}, {"opencl/*", 4096}}},
      // nvidia: 16-byte loads; a scalar-load loop reached ~52% of the H200's bandwidth in f32
      // against 87% in f64 (bench/RESULTS.md). amd-gcn: dwordx4 loads.
      {"reduce.vw", "vector width of the loads", 1, 16, Shape::vector_width,
       {{"opencl/nvidia", 4}, {"opencl/amd-gcn", 4}, {"opencl/pocl-cpu", 16}, {"opencl/intel-cpu", 8},
        {"opencl/generic", 1}}},
      // nvidia: a launch costs ~8 us of a CG iteration's ~75 us on small systems (NVIDIA's
      // OpenCL has no graphs), far more than the last group's sum of a few hundred partials.
      // Elsewhere off until measured (PoCL's work-groups are threads: a launch is cheap there).
      {"reduce.single_pass", "gpu kernels: the first pass's last group finishes an additive reduction (1) "
       "instead of a second launch (0)", 0, 1, Shape::any, {{"opencl/nvidia", 1}, {"opencl/*", 0}}},
      // 8 x 256 threads = a full SM: enough bytes in flight for HBM.
      {"reduce.blocks_per_sm", "blocks of 256 threads per SM", 1, 64, Shape::any, {{"cuda/*", 8}}},
      // One thread streams ~10 GB/s from memory, so 64 Ki elements (~25 us) amortised a fork/join
      // of a few us; but a vector pair that overflows one core's L2 fits in two. Zen 5 VM (1 MiB
      // L2 a core), 2 threads, f64, three alternating rounds (bench/RESULTS.md, session 27), us
      // with one thread / two: dot n = 100 000 12.9-13.2 / 4.2-5.5, reduce n = 100 000 3.7-3.8 /
      // 2.9-4.0; n = 40 000, two threads lose a round in two to the fork/join (dot 2.5 / 2.2-3.4,
      // reduce 1.9 / 1.6-2.8). So two threads from 64 Ki elements; then (two rounds, us, 64 Ki /
      // 32 Ki a thread) n = 70 000: dot f64 7.3-7.5 / 2.8-4.4, f32 3.4-3.5 / 2.4-2.5, reduce f64
      // 3.2 / 2.3; n = 100 000: dot f64 13.0-13.1 / 4.1-4.7, f32 5.0-5.4 / 3.1-3.3, reduce f64
      // 4.0-4.1 / 2.9-3.0.
      {"reduce.min_per_thread", "elements per thread below which fewer threads run", 1, 1 << 30, Shape::any,
       {{"cpu/*", 1 << 15}}},
  };
  return p;
}

}  // namespace tessera::tuning
