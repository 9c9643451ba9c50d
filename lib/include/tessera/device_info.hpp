/// \file
/// What a device says about itself (tessera-info, the bench header, Device::info()).
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace tessera {

/// What a device says about itself.
struct DeviceInfo {
  std::string spec;      ///< what Device::open accepts, e.g. "cpu", "opencl:1", "cuda:0"
  std::string backend;   ///< "reference", "cpu", "opencl", "cuda"
  int index = 0;         ///< N in "backend:N"
  std::string name;      ///< e.g. "AMD EPYC 9654", "NVIDIA H100 80GB HBM3"
  std::string vendor;    ///< the vendor as the driver names it
  std::string type;      ///< "cpu", "gpu", "accelerator", "other"
  int compute_units = 0; ///< threads (CPU), SMs (CUDA), compute units (OpenCL)
  std::uint64_t memory_bytes = 0;  ///< device memory (host memory for host backends)
  std::string simd_target;  ///< CPU backend: the Highway target that runs, e.g. "AVX3"
  std::string driver;    ///< driver or runtime version
  /// Backend-specific facts (profile in use, compute capability, platform, ...), in display order.
  std::vector<std::pair<std::string, std::string>> details;
  /// The tuning parameters in use (lib/src/tuning/: "spmv.wg" -> 256) and their device class
  /// ("opencl/nvidia"); TESSERA_TUNE overrides them.
  std::string tuning_class;
  std::vector<std::pair<std::string, std::int64_t>> tuning;  ///< (key, value), see tuning_class
};

/// One backend as the registry sees it: built in or a plugin, and why it is unavailable if so.
struct BackendStatus {
  std::string name;        ///< "reference", "cpu", "opencl", "cuda"
  bool available = false;  ///< it has at least one device that opens
  int device_count = 0;    ///< devices it reports
  std::string reason;      ///< why it is unavailable; when available, empty unless some of its
                           ///< devices could not be opened (then it names them and says why)
  std::string location;    ///< "built in" or the plugin's path
};

}  // namespace tessera
