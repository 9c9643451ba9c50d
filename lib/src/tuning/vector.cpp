// The vector algebra (fill, axpby, elementwise, axpby_dot, dot2): streaming kernels, one pass
// each. cpu device: one contiguous chunk per thread; the fused dots combine per-thread partial
// sums as reduce does (reduce.min_per_thread sets their threads). CUDA: grid-stride kernels of
// 256 threads, 16-byte accesses; the fused dots take reduce's grid (reduce.blocks_per_sm).
// OpenCL: streaming kernels of vector.wg work-items per group; the fused dots use reduce's
// shapes (reduce.wg, groups_per_cu).
#include "tuning/tuning.hpp"

namespace tessera::tuning {

const std::vector<ParamSpec>& vector_params() {
  static const std::vector<ParamSpec> p = {
      // An axpy thread streams ~3 x 8 bytes per element at ~10 GB/s: 64 Ki elements (~150 us)
      // amortise a fork/join of a few us, as for reduce.
      {"vector.min_per_thread", "cpu: elements per thread below which fewer threads run", 1, 1 << 30, Shape::any,
       {{"cpu/*", 1 << 16}}},
      // 8 x 256 threads fill an SM's 2048 thread slots; each thread keeps 16-32 bytes of loads in
      // flight, several times what covers HBM latency at full bandwidth, so no more blocks (and
      // no unrolling) are needed, and a grid-stride loop over one wave has no tail of blocks.
      {"vector.blocks_per_sm", "cuda: blocks of 256 threads per SM of fill/axpby/elementwise", 1, 64, Shape::any,
       {{"cuda/*", 8}}},
      // OpenCL: fill, axpby and elementwise run one element per work-item. GPUs: 256 keeps
      // several groups per SM/CU resident; PoCL and Intel's CPU runtime run a group as a
      // vectorised loop, where bigger groups mean fewer group launches per call.
      {"vector.wg", "opencl: work-group size of the streaming kernels (fill, axpby, elementwise)", 1, 1024,
       Shape::pow2,
       {{"opencl/nvidia", 256}, {"opencl/amd-gcn", 256}, {"opencl/pocl-cpu", 1024}, {"opencl/intel-cpu", 1024},
        {"opencl/generic", 64}}},
      // CPUs: a work-item's loop over consecutive elements is what their compilers vectorise
      // (PoCL, n = 1e6 f32: fill at 4% of copy bandwidth with one element per work-item);
      // the fused dots then take contiguous ranges too. GPUs: 1 (coalesced neighbours).
      {"vector.chunk", "opencl: consecutive elements per work-item (1: grid order, GPUs)", 1, 1 << 20, Shape::any,
       {{"opencl/pocl-cpu", 4096}, {"opencl/intel-cpu", 4096}, {"opencl/*", 1}}},
      // GPUs (chunk 1): 8 groups of 256 fill an SM's or CU's thread slots; four such waves keep
      // the grid-stride loop short while every work-item still forms its coefficient once for
      // several elements.
      {"vector.groups_per_cu", "opencl, vector.chunk 1: groups of the streaming kernels per compute unit", 1, 1024,
       Shape::any, {{"opencl/*", 32}}},
  };
  return p;
}

}  // namespace tessera::tuning
