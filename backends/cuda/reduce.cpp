// reduce and dot: one launch (last-block finish), then the 8-byte result comes back through
// pinned memory. The grid is the SM count times reduce.blocks_per_sm, or fewer for short
// vectors (each thread should have at least one 16-byte load).
#include <algorithm>

#include "cuda_backend.hpp"
#include "kernels/cuda/launch.hpp"

namespace tessera::cuda {

// Scratch [result][counter][partials...], the counter zeroed once (the kernel's last block
// leaves it at zero), and the pinned double the result is read back through.
struct CudaBackend::ReduceState {
  DeviceBuffer scratch;
  double* host = nullptr;
  int max_blocks = 0;

  static ReduceState& of(CudaBackend& b) {
    if (!b.reduce_) b.reduce_ = std::make_shared<ReduceState>(b.tune_.get("reduce.blocks_per_sm") * b.sm_count(), b.stream_);
    return *b.reduce_;
  }
  ReduceState(int blocks, cudaStream_t stream) : max_blocks(std::max(1, blocks)) {
    scratch.ensure(2 * sizeof(double) + static_cast<std::size_t>(max_blocks) * sizeof(double));
    TESSERA_CUDA_CHECK(cudaMemsetAsync(scratch.as<void>(), 0, 2 * sizeof(double), stream));
    void* p = nullptr;
    TESSERA_CUDA_CHECK(cudaMallocHost(&p, sizeof(double)));
    host = static_cast<double*>(p);
  }
  ~ReduceState() {
    if (host != nullptr) (void)cudaFreeHost(host);
  }
  ReduceState(const ReduceState&) = delete;
  ReduceState& operator=(const ReduceState&) = delete;

  // One reduction, or the dot product with *y.
  template <class T>
  double run(ReduceOp op, const VecView& x, const VecView* y, cudaStream_t stream) {
    const std::int64_t n = x.n;
    if (n == 0) return 0.0;  // lib/ answers empty inputs itself; min/max never get here
    const std::int64_t vectors = (n + 16 / static_cast<std::int64_t>(sizeof(T)) - 1) / (16 / sizeof(T));
    const int blocks =
        static_cast<int>(std::clamp<std::int64_t>((vectors + kReduceThreads - 1) / kReduceThreads, 1, max_blocks));
    ReduceScratch s;
    auto* base = scratch.as<double>();
    s.result = base;
    s.counter = reinterpret_cast<unsigned int*>(base + 1);
    s.partials = base + 2;
    const T* xp = static_cast<const T*>(x.data);
    if (y != nullptr) TESSERA_CUDA_CHECK(launch_dot<T>(xp, static_cast<const T*>(y->data), n, blocks, s, stream));
    else TESSERA_CUDA_CHECK(launch_reduce<T>(op, xp, n, blocks, s, stream));
    TESSERA_CUDA_CHECK(cudaMemcpyAsync(host, s.result, sizeof(double), cudaMemcpyDeviceToHost, stream));
    TESSERA_CUDA_CHECK(cudaStreamSynchronize(stream));
    return *host;
  }
};

template <class T>
double CudaBackend::reduce(ReduceOp op, const VecView& x) {
  return ReduceState::of(*this).run<T>(op, x, nullptr, stream_);
}

template <class T>
double CudaBackend::dot(const VecView& x, const VecView& y) {
  return ReduceState::of(*this).run<T>(ReduceOp::sum, x, &y, stream_);
}

TESSERA_INSTANTIATE_TYPED_OP(CudaBackend, reduce)
TESSERA_INSTANTIATE_TYPED_OP(CudaBackend, dot)

}  // namespace tessera::cuda
