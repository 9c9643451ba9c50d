// The plugin's one exported symbol. Device discovery must never throw or crash: on a machine
// without the driver (CI) or without a GPU it reports 0 devices and says why.
#include <cuda_runtime_api.h>

#include <cstring>
#include <string>

#include "cuda_backend.hpp"
#include "tessera/plugin_abi.hpp"

namespace {

void write_reason(char* reason, std::size_t size, const std::string& text) {
  if (reason == nullptr || size == 0) return;
  const std::size_t n = text.size() < size - 1 ? text.size() : size - 1;
  std::memcpy(reason, text.data(), n);
  reason[n] = '\0';
}

int device_count(char* reason, std::size_t reason_size) noexcept {
  try {
    int count = 0;
    const cudaError_t err = cudaGetDeviceCount(&count);
    if (err == cudaSuccess && count > 0) return count;
    std::string why;
    if (err == cudaSuccess || err == cudaErrorNoDevice) {
      why = "no CUDA device";
    } else if (err == cudaErrorInsufficientDriver) {
      // Also returned when libcuda.so.1 is present but older than the runtime in this plugin.
      int driver = 0;
      (void)cudaDriverGetVersion(&driver);
      why = driver == 0 ? "CUDA driver not found: " + std::string(cudaGetErrorString(err))
                        : "CUDA driver " + std::to_string(driver / 1000) + "." + std::to_string(driver % 1000 / 10) +
                              " is older than this plugin's runtime " + std::to_string(CUDART_VERSION / 1000) + "." +
                              std::to_string(CUDART_VERSION % 1000 / 10) + ": " + cudaGetErrorString(err);
    } else {
      why = "CUDA unavailable: cudaGetDeviceCount: " + tessera::cuda::cuda_error_text(err);
    }
    (void)cudaGetLastError();
    write_reason(reason, reason_size, why);
  } catch (...) {
    write_reason(reason, reason_size, "CUDA unavailable: device discovery failed");
  }
  return 0;
}

tessera::Backend* create_backend(int index) { return new tessera::cuda::CudaBackend(index); }

}  // namespace

extern "C" __attribute__((visibility("default"))) const TesseraPluginV1* tessera_plugin_entry() {
  static const TesseraPluginV1 api{TESSERA_PLUGIN_ABI_VERSION, "cuda", &device_count, &create_backend};
  return &api;
}
