// CG's fused iterations (Backend::cg_steps): which systems run all iterations between two
// checks in one call. OpenCL GPUs: one work-group loops over the iterations (kernels/opencl/
// cg.cl), so an iteration costs barriers instead of four launches (~53 us per iteration on
// NVIDIA's OpenCL for any small system, bench/RESULTS.md); it reads the matrix with one
// compute unit's bandwidth, so past some size the separate whole-device kernels win. cpu: one
// thread team runs the iterations (backends/cpu/spmv.cpp), three barriers per iteration
// instead of three parallel regions.
#include "tuning/tuning.hpp"

namespace tessera::tuning {

const std::vector<ParamSpec>& cg_params() {
  static const std::vector<ParamSpec> p = {
      // The crossovers measured with tessera-bench --ops cg on the collection's SPD matrices
      // (bench/RESULTS.md, session 10), f64 per iteration, fused vs separate operations:
      // NVIDIA OpenCL (H100, 1024 work-items): 494_bus (1.7 k nonzeros) 10.7 vs
      // 46 us, nos6 (3.3 k) 11 vs 45, Chem97ZtZ (7.4 k) 18 vs 53, bcsstk13 (84 k) 59 vs 45,
      // Dubcova1 (253 k) 126 vs 46: one compute unit reads the matrix, so past ~50 k nonzeros
      // the whole-device kernels win. PoCL (2-core VM): 494_bus 13 vs 54, nos6 16 vs 58,
      // Chem97ZtZ 48 vs 53, bcsstk13 198 vs 79: a CPU runs a group's barriers as loops over its
      // work-items, so only the smallest systems gain. cpu: the team's three barriers cost less
      // than the separate operations' parallel regions at every size measured (16-core Xeon,
      // 16 threads: Dubcova1 60 vs 86 us, bcsstk16 28 vs 43 us, 64^3 0.43 vs 2.25 ms; 2-core VM:
      // 128^3 9.9-11.8 vs 11.1-12.1 ms), so no bound. 0 (never) on classes not measured.
      {"cg.fused_max_nnz",
       "CG runs fused (opencl: one work-group; cpu: one thread team) for matrices up to this many nonzeros (0: never)",
       0, std::int64_t{1} << 40, Shape::any,
       {{"opencl/nvidia", 40000}, {"opencl/pocl-cpu", 5000}, {"opencl/*", 0}, {"cpu/*", std::int64_t{1} << 40}}},
      // GPUs: the whole group's rows at once, 1024 work-items (the most an NVIDIA SM runs in one
      // group). PoCL: 32 (494_bus 13 us per iteration against 16 with 256; each barrier costs
      // a pass over the group's work-items).
      {"cg.wg", "opencl: work-group size of the fused CG kernel (a multiple of 32)", 32, 1024, Shape::pow2,
       {{"opencl/nvidia", 1024}, {"opencl/pocl-cpu", 32}, {"opencl/intel-cpu", 32}, {"opencl/*", 256}}},
  };
  return p;
}

}  // namespace tessera::tuning
