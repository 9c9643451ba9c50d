// Which tuning class (lib/src/tuning) an OpenCL device gets, and the constraints between tuning
// values that the OpenCL kernels and the device impose. The values themselves, their defaults
// per class and TESSERA_TUNE overrides live in lib/src/tuning/<op>.cpp; vendor quirks belong
// there (as values), not in `if`s in the op code.
#pragma once

#include <cstddef>
#include <string>

#include "tuning/tuning.hpp"

namespace tessera::opencl {

// What the selection looks at.
struct DeviceFacts {
  std::string platform_name;
  std::string vendor;
  std::string device_name;
  bool is_gpu = false;
  bool is_cpu = false;
};

// "opencl/pocl-cpu", "opencl/intel-cpu", "opencl/nvidia", "opencl/amd-gcn" or "opencl/generic":
// the first rule that matches vendor, platform and device type (TESSERA_TUNE's class= item may
// replace it, see tuning::Tuning::for_device).
std::string device_class(const DeviceFacts& facts);

// Checks what the kernels rely on beyond each value's own range and shape: divisibility between
// values, work-group sizes within device.max_wg and the device's limit, local memory within
// device.local_mem_kb and the device's. Throws InvalidArgument naming the parameter.
void validate_tuning(const tuning::Tuning& t, std::size_t device_max_wg, std::size_t device_local_mem_bytes);

}  // namespace tessera::opencl
