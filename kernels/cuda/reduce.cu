// Reductions (sum, min, max, sum of squares, max |x|, dot). The bound is reading x (and y) once:
// 16-byte loads, four independent loads per thread in flight, a grid sized to the SMs looping
// over the data, per-thread accumulation in double (exact enough for any float length, and free:
// the kernel waits on memory, not on the FP64 units), shuffles within warps, and a last-block
// finish so one launch does it all.
#include <math_constants.h>

#include "kernels/cuda/common.cuh"

namespace tessera::cuda {

namespace {

enum class RK { sum, min, max, sum_squares, max_abs, dot };

template <RK op>
__device__ __forceinline__ double identity() {
  if constexpr (op == RK::min) return CUDART_INF;
  else if constexpr (op == RK::max) return -CUDART_INF;
  else return 0.0;
}

template <RK op>
__device__ __forceinline__ double combine(double a, double b) {
  if constexpr (op == RK::min) return fmin(a, b);
  else if constexpr (op == RK::max || op == RK::max_abs) return fmax(a, b);
  else return a + b;
}

// The value one element contributes (y only read for dot).
template <RK op, class T>
__device__ __forceinline__ double element(T a, T b) {
  const double x = static_cast<double>(a);
  if constexpr (op == RK::sum_squares) return x * x;
  else if constexpr (op == RK::max_abs) return fabs(x);
  else if constexpr (op == RK::dot) return x * static_cast<double>(b);
  else return x;
}

template <RK op, class V, class T>
__device__ __forceinline__ double fold_vector(double acc, const V& a, const V& b) {
  const T* pa = reinterpret_cast<const T*>(&a);
  const T* pb = reinterpret_cast<const T*>(&b);
#pragma unroll
  for (int k = 0; k < Vec16<T>::n; ++k) acc = combine<op>(acc, element<op>(pa[k], pb[k]));
  return acc;
}

template <RK op>
__device__ __forceinline__ double warp_combine(double v) {
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) v = combine<op>(v, __shfl_down_sync(kFullMask, v, o));
  return v;
}

// Reduces one value per thread to thread 0 of the block.
template <RK op, int THREADS>
__device__ __forceinline__ double block_combine(double v) {
  __shared__ double warp_part[THREADS / 32];
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  v = warp_combine<op>(v);
  if (lane == 0) warp_part[warp] = v;
  __syncthreads();
  v = threadIdx.x < THREADS / 32 ? warp_part[threadIdx.x] : identity<op>();
  if (warp == 0) v = warp_combine<op>(v);
  return v;
}

template <RK op, class T, int THREADS>
__global__ __launch_bounds__(THREADS) void reduce_kernel(const T* __restrict__ x, const T* __restrict__ y,
                                                         std::int64_t n, double* __restrict__ partials,
                                                         unsigned int* __restrict__ counter,
                                                         double* __restrict__ result) {
  using V = typename Vec16<T>::type;
  constexpr int W = Vec16<T>::n;
  constexpr bool kDot = op == RK::dot;
  const V* xv = reinterpret_cast<const V*>(x);  // views start at a cudaMalloc'd address: aligned
  const V* yv = reinterpret_cast<const V*>(kDot ? y : x);
  const std::int64_t nv = n / W;
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * THREADS;
  std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * THREADS + threadIdx.x;

  double acc = identity<op>();
  // Four independent 16-byte loads (eight for dot) before the first use keep enough bytes in
  // flight per SM to cover HBM latency.
  for (; i + 3 * stride < nv; i += 4 * stride) {
    V a0 = __ldg(xv + i), a1 = __ldg(xv + i + stride), a2 = __ldg(xv + i + 2 * stride),
      a3 = __ldg(xv + i + 3 * stride);
    V b0 = a0, b1 = a1, b2 = a2, b3 = a3;
    if constexpr (kDot) {
      b0 = __ldg(yv + i);
      b1 = __ldg(yv + i + stride);
      b2 = __ldg(yv + i + 2 * stride);
      b3 = __ldg(yv + i + 3 * stride);
    }
    double s0 = fold_vector<op, V, T>(identity<op>(), a0, b0);
    double s1 = fold_vector<op, V, T>(identity<op>(), a1, b1);
    s0 = fold_vector<op, V, T>(s0, a2, b2);
    s1 = fold_vector<op, V, T>(s1, a3, b3);
    acc = combine<op>(acc, combine<op>(s0, s1));
  }
  for (; i < nv; i += stride) {
    V a = __ldg(xv + i), b = a;
    if constexpr (kDot) b = __ldg(yv + i);
    acc = fold_vector<op, V, T>(acc, a, b);
  }
  // The n % W trailing elements.
  if (blockIdx.x == 0 && threadIdx.x < n - nv * W) {
    const std::int64_t k = nv * W + threadIdx.x;
    acc = combine<op>(acc, element<op>(x[k], kDot ? y[k] : x[k]));
  }

  acc = block_combine<op, THREADS>(acc);
  __shared__ bool is_last;
  if (threadIdx.x == 0) {
    partials[blockIdx.x] = acc;
    __threadfence();  // the partial is visible device-wide before the ticket is taken
    is_last = atomicAdd(counter, 1u) == gridDim.x - 1;
  }
  __syncthreads();
  if (!is_last) return;
  // Last block: fold the partials (read through L2: other SMs wrote them).
  double v = identity<op>();
  for (unsigned int b = threadIdx.x; b < gridDim.x; b += THREADS) v = combine<op>(v, __ldcg(partials + b));
  v = block_combine<op, THREADS>(v);
  if (threadIdx.x == 0) {
    *result = v;
    *counter = 0;  // ready for the next launch
  }
}

template <RK op, class T>
cudaError_t launch(const T* x, const T* y, std::int64_t n, int blocks, const ReduceScratch& s, cudaStream_t st) {
  reduce_kernel<op, T, kReduceThreads><<<blocks, kReduceThreads, 0, st>>>(x, y, n, s.partials, s.counter, s.result);
  return cudaGetLastError();
}

}  // namespace

template <class T>
cudaError_t launch_reduce(ReduceOp op, const T* x, std::int64_t n, int blocks, const ReduceScratch& s,
                          cudaStream_t stream) {
  switch (op) {
    case ReduceOp::sum: return launch<RK::sum, T>(x, nullptr, n, blocks, s, stream);
    case ReduceOp::min: return launch<RK::min, T>(x, nullptr, n, blocks, s, stream);
    case ReduceOp::max: return launch<RK::max, T>(x, nullptr, n, blocks, s, stream);
    case ReduceOp::sum_squares: return launch<RK::sum_squares, T>(x, nullptr, n, blocks, s, stream);
    case ReduceOp::max_abs: return launch<RK::max_abs, T>(x, nullptr, n, blocks, s, stream);
  }
  return cudaErrorInvalidValue;
}

template <class T>
cudaError_t launch_dot(const T* x, const T* y, std::int64_t n, int blocks, const ReduceScratch& s,
                       cudaStream_t stream) {
  return launch<RK::dot, T>(x, y, n, blocks, s, stream);
}

template cudaError_t launch_reduce<float>(ReduceOp, const float*, std::int64_t, int, const ReduceScratch&,
                                          cudaStream_t);
template cudaError_t launch_reduce<double>(ReduceOp, const double*, std::int64_t, int, const ReduceScratch&,
                                           cudaStream_t);
template cudaError_t launch_dot<float>(const float*, const float*, std::int64_t, int, const ReduceScratch&,
                                       cudaStream_t);
template cudaError_t launch_dot<double>(const double*, const double*, std::int64_t, int, const ReduceScratch&,
                                        cudaStream_t);

}  // namespace tessera::cuda
