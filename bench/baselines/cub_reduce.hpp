// CUB's DeviceReduce::Sum behind a plain C++ declaration (cub_reduce.cu is the bench's only
// nvcc-compiled file). CUB's two phases: with temp == nullptr it only writes the temporary
// storage size to temp_bytes; then a call with that storage reduces x[0, n) into *out on `stream`.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

namespace bench::cudalibs {

int cub_version();  // CUB_VERSION: major * 100000 + minor * 100 + patch

template <class T>
cudaError_t cub_sum(void* temp, std::size_t& temp_bytes, const T* x, T* out, std::int64_t n, cudaStream_t stream);

}  // namespace bench::cudalibs
