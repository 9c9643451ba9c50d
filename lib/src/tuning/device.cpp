// Facts about a class of device that several operations' launch shapes derive from.
#include "tuning/tuning.hpp"

namespace tessera::tuning {

const std::vector<ParamSpec>& device_params() {
  static const std::vector<ParamSpec> p = {
      {"device.subgroup", "lanes executing in lock step: warp 32, wavefront 64, CPU SIMD lanes (float)", 1, 128,
       Shape::pow2,
       {{"opencl/nvidia", 32}, {"opencl/amd-gcn", 64}, {"opencl/pocl-cpu", 16},  // AVX-512 float lanes
        {"opencl/intel-cpu", 8},  // AVX2 float lanes, the common denominator of Intel's CPUs
        {"opencl/generic", 32}}},
      {"device.max_wg", "most work-items per group this class runs well (the device's own limit binds too)", 1,
       1 << 16, Shape::any,
       {{"opencl/nvidia", 1024}, {"opencl/amd-gcn", 256} /* GCN's hard limit per work-group */,
        {"opencl/pocl-cpu", 4096}, {"opencl/intel-cpu", 8192},
        {"opencl/generic", 64} /* the smallest CL_DEVICE_MAX_WORK_GROUP_SIZE common on GPUs */}},
      {"device.local_mem_kb", "local memory one work-group may use (KiB)", 1, 1 << 16, Shape::any,
       {{"opencl/nvidia", 48} /* the static shared memory limit per block */,
        {"opencl/amd-gcn", 32} /* LDS per work-group */, {"opencl/pocl-cpu", 1024} /* ordinary memory */,
        {"opencl/intel-cpu", 1024}, {"opencl/generic", 16} /* the OpenCL 1.2 minimum */}},
      // GPU kernels use work-group trees and tiles in local memory; CPU kernels give each
      // work-item a contiguous piece of work in registers (on a CPU driver local memory is
      // ordinary cached memory and barriers are pure overhead).
      {"device.cpu_kernels", "1: the kernels' CPU variants (register-blocked, no local memory); 0: GPU variants", 0,
       1, Shape::any,
       {{"opencl/pocl-cpu", 1}, {"opencl/intel-cpu", 1}, {"opencl/*", 0}}},
  };
  return p;
}

}  // namespace tessera::tuning
