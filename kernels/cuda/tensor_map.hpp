// The driver's cuTensorMapEncodeTiled, which builds the maps the bulk tensor copy engine (TMA)
// reads (gemm_wgmma.cu, stencil_tma.cu). The plugin links only the static runtime, not libcuda,
// so the entry point is looked up once through the runtime; nullptr where the driver lacks it.
#pragma once

#include <cudaTypedefs.h>
#include <cuda_runtime.h>

namespace tessera::cuda {

inline PFN_cuTensorMapEncodeTiled_v12000 tensor_map_encoder() {
  static const PFN_cuTensorMapEncodeTiled_v12000 fn = [] {
    void* f = nullptr;
    cudaDriverEntryPointQueryResult q{};
    if (cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &f, 12000, cudaEnableDefault, &q) != cudaSuccess ||
        q != cudaDriverEntryPointSuccess)
      f = nullptr;
    return reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(f);
  }();
  return fn;
}

}  // namespace tessera::cuda
