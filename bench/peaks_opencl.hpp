// FLOP/s peak of an OpenCL device ("opencl:N"), measured by an FMA loop of the bench's own:
// every work-item runs many independent chains of vector fma(), so neither latency nor
// memory limits it, on enough work-groups to fill every compute unit. Compiled only with the
// OpenCL plugin (TESSERA_BENCH_WITH_OPENCL); errors throw std::runtime_error.
#pragma once

#include <string>

namespace bench::opencl_peak {

struct FmaPeak {
  double gflops_f32 = 0;
  double gflops_f64 = 0;  // NaN without cl_khr_fp64
  std::string method;     // one line: kernel shape, launch size, repetitions
};

// Opens the device as the OpenCL baselines do (the same cl_device as Tessera's `spec`).
FmaPeak measure_fma_peak(const std::string& spec);

}  // namespace bench::opencl_peak
