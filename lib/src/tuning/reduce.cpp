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
      // One thread streams ~10 GB/s, so 64 Ki elements (~25 us) amortise a fork/join of a few us.
      {"reduce.min_per_thread", "elements per thread below which fewer threads run", 1, 1 << 30, Shape::any,
       {{"cpu/*", 1 << 16}}},
  };
  return p;
}

}  // namespace tessera::tuning
