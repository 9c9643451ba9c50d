// reduce and dot: one launch (last-block finish), then the 8-byte result comes back through
// pinned memory. The grid is the SM count times the blocks that fill an SM, or fewer for short
// vectors (each thread should have at least one 16-byte load).
#include <algorithm>

#include "cuda_backend.hpp"
#include "kernels/cuda/launch.hpp"

namespace tessera::cuda {

template <class T>
double CudaBackend::reduce_t(ReduceOp op, const VecView& x, const VecView* y) {
  const std::int64_t n = x.n;
  if (n == 0) return 0.0;  // lib/ answers empty inputs itself; min/max never get here
  const std::int64_t vectors = (n + 16 / static_cast<std::int64_t>(sizeof(T)) - 1) / (16 / sizeof(T));
  const int blocks = static_cast<int>(
      std::clamp<std::int64_t>((vectors + kReduceThreads - 1) / kReduceThreads, 1, reduce_max_blocks_));
  ReduceScratch s;
  auto* base = reduce_scratch_.as<double>();
  s.result = base;
  s.counter = reinterpret_cast<unsigned int*>(base + 1);
  s.partials = base + 2;
  const T* xp = static_cast<const T*>(x.data);
  if (y != nullptr) TESSERA_CUDA_CHECK(launch_dot<T>(xp, static_cast<const T*>(y->data), n, blocks, s, stream_));
  else TESSERA_CUDA_CHECK(launch_reduce<T>(op, xp, n, blocks, s, stream_));
  TESSERA_CUDA_CHECK(cudaMemcpyAsync(reduce_host_, s.result, sizeof(double), cudaMemcpyDeviceToHost, stream_));
  TESSERA_CUDA_CHECK(cudaStreamSynchronize(stream_));
  return *reduce_host_;
}

double CudaBackend::reduce(DType t, ReduceOp op, const VecView& x) {
  make_current();
  return t == DType::f32 ? reduce_t<float>(op, x, nullptr) : reduce_t<double>(op, x, nullptr);
}

double CudaBackend::dot(DType t, const VecView& x, const VecView& y) {
  make_current();
  return t == DType::f32 ? reduce_t<float>(ReduceOp::sum, x, &y) : reduce_t<double>(ReduceOp::sum, x, &y);
}

}  // namespace tessera::cuda
