// CG's fused iterations (Backend::cg_steps): which systems run all iterations between two
// checks in one call. OpenCL GPUs: one work-group loops over the iterations (kernels/opencl/
// cg.cl), so an iteration costs barriers instead of four launches (~53 us per iteration on
// NVIDIA's OpenCL for any small system, bench/RESULTS.md); it reads the matrix with one
// compute unit's bandwidth, so past some size the separate whole-device kernels win.
#include "tuning/tuning.hpp"

namespace tessera::tuning {

const std::vector<ParamSpec>& cg_params() {
  static const std::vector<ParamSpec> p = {
      // The crossovers measured with tessera-bench --ops cg on the collection's SPD matrices
      // (bench/RESULTS.md, session 10). PoCL (2-core VM, f64): 494_bus (1.7 k nonzeros) 13 vs
      // 54 us per iteration, nos6 (3.3 k) 16 vs 58, Chem97ZtZ (7.4 k) 48 vs 53, bcsstk13 (84 k)
      // 198 vs 79: a CPU runs a group's barriers as loops over its work-items, so only the
      // smallest systems gain. cpu: off until measured to win (2-core VM: even with the
      // vector kernels, Dubcova1 0.14 vs 0.10 ms with the team's three barriers per iteration);
      // ctest cg.fused_forced_cpu runs it. 0 (never) on classes not measured.
      {"cg.fused_max_nnz",
       "CG runs fused (opencl: one work-group; cpu: one thread team) for matrices up to this many nonzeros (0: never)",
       0, std::int64_t{1} << 40, Shape::any,
       {{"opencl/nvidia", 200000}, {"opencl/pocl-cpu", 5000}, {"opencl/*", 0}, {"cpu/*", 0}}},
      // GPUs: the whole group's rows at once, 1024 work-items (the most an NVIDIA SM runs in one
      // group). PoCL: 32 (494_bus 13 us per iteration against 16 with 256; each barrier costs
      // a pass over the group's work-items).
      {"cg.wg", "opencl: work-group size of the fused CG kernel (a multiple of 32)", 32, 1024, Shape::pow2,
       {{"opencl/nvidia", 1024}, {"opencl/pocl-cpu", 32}, {"opencl/intel-cpu", 32}, {"opencl/*", 256}}},
  };
  return p;
}

}  // namespace tessera::tuning
