// The vector algebra (fill, axpby, elementwise, axpby_dot, dot2): streaming kernels, one pass
// each. cpu device: one contiguous chunk per thread; the fused dots combine per-thread partial
// sums as reduce does (reduce.min_per_thread sets their threads).
#include "tuning/tuning.hpp"

namespace tessera::tuning {

const std::vector<ParamSpec>& vector_params() {
  static const std::vector<ParamSpec> p = {
      // An axpy thread streams ~3 x 8 bytes per element at ~10 GB/s: 64 Ki elements (~150 us)
      // amortise a fork/join of a few us, as for reduce.
      {"vector.min_per_thread", "cpu: elements per thread below which fewer threads run", 1, 1 << 30, Shape::any,
       {{"cpu/*", 1 << 16}}},
  };
  return p;
}

}  // namespace tessera::tuning
