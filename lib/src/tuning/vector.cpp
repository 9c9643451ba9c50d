// The vector algebra (fill, axpby, elementwise, axpby_dot, dot2): streaming kernels, one pass
// each. cpu device: one contiguous chunk per thread; the fused dots combine per-thread partial
// sums as reduce does (reduce.min_per_thread sets their threads). CUDA: grid-stride kernels of
// 256 threads, 16-byte accesses; the fused dots take reduce's grid (reduce.blocks_per_sm).
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
  };
  return p;
}

}  // namespace tessera::tuning
