// The CUB reduce baseline's device code: cub::DeviceReduce::Sum instantiated for float and double
// (accumulating in the input type, as CUB does by default). See cub_reduce.hpp.
#include <cub/device/device_reduce.cuh>

#include <limits>

#include "baselines/cub_reduce.hpp"

namespace bench::cudalibs {

int cub_version() { return CUB_VERSION; }

template <class T>
cudaError_t cub_sum(void* temp, std::size_t& temp_bytes, const T* x, T* out, std::int64_t n, cudaStream_t stream) {
  // 32-bit offsets where they suffice, as a caller with int sizes gets (CUB's usual path); the
  // size query and the run take the same branch, so the storage fits.
  if (n <= std::numeric_limits<int>::max())
    return cub::DeviceReduce::Sum(temp, temp_bytes, x, out, static_cast<int>(n), stream);
  return cub::DeviceReduce::Sum(temp, temp_bytes, x, out, n, stream);
}

template cudaError_t cub_sum<float>(void*, std::size_t&, const float*, float*, std::int64_t, cudaStream_t);
template cudaError_t cub_sum<double>(void*, std::size_t&, const double*, double*, std::int64_t, cudaStream_t);

}  // namespace bench::cudalibs
