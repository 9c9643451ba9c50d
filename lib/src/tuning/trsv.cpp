// Dense triangular solves (trsv, trsm).
#include "tuning/tuning.hpp"

namespace tessera::tuning {

const std::vector<ParamSpec>& trsv_params() {
  static const std::vector<ParamSpec> p = {
      // nvidia: inverted 64 x 64 diagonal blocks (as the CUDA backend); amd-gcn: one wavefront
      // solves a block; pocl/intel: few launches (PoCL's launch costs ~10-50 us), the diagonal
      // block solved by one work-item.
      {"trsv.block", "unknowns per diagonal block (one launch per block unless trsv.inverse)", 1, 4096, Shape::any,
       {{"opencl/nvidia", 64}, {"opencl/amd-gcn", 64}, {"opencl/pocl-cpu", 128}, {"opencl/intel-cpu", 128},
        {"opencl/generic", 32}}},
      {"trsv.vw", "cpu kernels: right-hand sides per work-item (a vector along B's rows)", 1, 16, Shape::vector_width,
       {{"opencl/pocl-cpu", 16}, {"opencl/intel-cpu", 8}, {"opencl/*", 1}}},
      {"trsv.inverse",
       "gpu kernels, 1: invert the diagonal blocks first, then trsv in one launch of groups synchronised by flags", 0,
       1, Shape::any, {{"opencl/nvidia", 1}, {"opencl/*", 0}}},
      {"trsv.wg", "trsv.inverse: work-items per group", 1, 1024, Shape::any, {{"opencl/*", 256}}},
      // 2 groups of 256 per SM are resident (registers).
      {"trsv.groups_per_cu", "trsv.inverse: resident groups per compute unit", 1, 64, Shape::any,
       {{"opencl/*", 2}}},
      // Below this many A elements per thread, one thread streams A faster than a team syncs.
      {"trsv.min_elems_per_thread", "cpu: matrix elements per thread below which fewer threads run", 1, 1LL << 40,
       Shape::any, {{"cpu/*", 1 << 18}}},
  };
  return p;
}

}  // namespace tessera::tuning
