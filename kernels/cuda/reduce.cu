// Reductions (sum, min, max, sum of squares, norm2, max |x|, dot). The bound is reading x (and y)
// once: 16-byte loads (after a scalar head when a view's offset leaves x off a 16-byte
// boundary; all scalar when x and y sit differently against it), four independent loads per
// thread in flight, a grid sized to the SMs looping over the data, per-thread accumulation in
// double (exact enough for any float length, and free: the kernel waits on memory, not on the
// FP64 units), and the last-block finish of reduce.cuh, which writes the result to the device.
#include <algorithm>
#include <type_traits>

#include "kernels/cuda/reduce.cuh"

namespace tessera::cuda {

namespace {

// The value one element contributes (y only read for dot).
template <RK op, class T>
__device__ __forceinline__ double element(T a, T b) {
  const double x = static_cast<double>(a);
  if constexpr (op == RK::sum_squares) return x * x;
  else if constexpr (op == RK::max_abs) return fabs(x);
  else if constexpr (op == RK::dot) return x * static_cast<double>(b);
  else return x;
}

// One load of the main loop: a 16-byte vector (VEC) or one element.
template <class T, bool VEC>
struct Load {
  using type = std::conditional_t<VEC, typename Vec16<T>::type, T>;
  static constexpr int n = VEC ? Vec16<T>::n : 1;
};

template <RK op, class T, bool VEC, class V>
__device__ __forceinline__ double fold(double acc, const V& a, const V& b) {
  const T* pa = reinterpret_cast<const T*>(&a);
  const T* pb = reinterpret_cast<const T*>(&b);
#pragma unroll
  for (int k = 0; k < Load<T, VEC>::n; ++k) acc = combine<op>(acc, element<op>(pa[k], pb[k]));
  return acc;
}

// x[0..head) and the tail after the vectors are done by block 0's first threads (fewer than a
// vector each). root: the result is the square root (norm2).
template <RK op, class T, int THREADS, bool VEC>
__global__ __launch_bounds__(THREADS, 2048 / THREADS) void reduce_kernel(const T* __restrict__ x,
                                                                          const T* __restrict__ y, std::int64_t n,
                                                                          std::int64_t head, bool root,
                                                                          T* __restrict__ out, ReduceScratch s) {
  using V = typename Load<T, VEC>::type;
  constexpr int W = Load<T, VEC>::n;
  constexpr bool kDot = op == RK::dot;
  const V* xv = reinterpret_cast<const V*>(x + head);  // 16-byte aligned (vec_split)
  const V* yv = reinterpret_cast<const V*>((kDot ? y : x) + head);
  const std::int64_t nv = (n - head) / W;
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * THREADS;
  std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * THREADS + threadIdx.x;

  double acc = identity<op>();
  // U independent loads per array before the first use keep enough bytes in flight per SM to
  // cover HBM latency: four, or two each of x and y for dot, whose registers must also fit the
  // 32 that let 8 blocks share an SM (more registers would leave a second, partial wave of the
  // grid-stride grid running after the first).
  constexpr int U = kDot ? 2 : 4;
  for (; i + (U - 1) * stride < nv; i += U * stride) {
    V a[U], b[U];
#pragma unroll
    for (int u = 0; u < U; ++u) {
      a[u] = __ldg(xv + i + u * stride);
      if constexpr (kDot) b[u] = __ldg(yv + i + u * stride);
      else b[u] = a[u];
    }
    double s0 = identity<op>(), s1 = identity<op>();
#pragma unroll
    for (int u = 0; u < U; u += 2) {
      s0 = fold<op, T, VEC>(s0, a[u], b[u]);
      s1 = fold<op, T, VEC>(s1, a[u + 1], b[u + 1]);
    }
    acc = combine<op>(acc, combine<op>(s0, s1));
  }
  for (; i < nv; i += stride) {
    V a = __ldg(xv + i), b = a;
    if constexpr (kDot) b = __ldg(yv + i);
    acc = fold<op, T, VEC>(acc, a, b);
  }
  if (blockIdx.x == 0) {
    const std::int64_t t = threadIdx.x, tail = head + nv * W;
    if (t < head) acc = combine<op>(acc, element<op>(x[t], kDot ? y[t] : x[t]));
    if (t < n - tail) acc = combine<op>(acc, element<op>(x[tail + t], kDot ? y[tail + t] : x[tail + t]));
  }

  double total[1] = {acc};
  if (last_block_totals<op, THREADS, 1>(total, s.partials, s.counter))
    *out = static_cast<T>(root ? sqrt(total[0]) : total[0]);
}

template <RK op, class T>
cudaError_t launch(const T* x, const T* y, std::int64_t n, bool root, T* out, int max_blocks, const ReduceScratch& s,
                   cudaStream_t st) {
  const VecSplit v = vec_split<T>(n, {x, op == RK::dot ? y : nullptr});
  const std::int64_t items = v.vec ? (n - v.head) / Vec16<T>::n : n;
  const int blocks = static_cast<int>(std::clamp<std::int64_t>(blocks_for(items, kReduceThreads), 1, max_blocks));
  if (v.vec)
    reduce_kernel<op, T, kReduceThreads, true><<<blocks, kReduceThreads, 0, st>>>(x, y, n, v.head, root, out, s);
  else
    reduce_kernel<op, T, kReduceThreads, false><<<blocks, kReduceThreads, 0, st>>>(x, y, n, 0, root, out, s);
  return cudaGetLastError();
}

}  // namespace

template <class T>
cudaError_t launch_reduce(ReduceOp op, const T* x, std::int64_t n, T* out, int max_blocks, const ReduceScratch& s,
                          cudaStream_t stream) {
  switch (op) {
    case ReduceOp::sum: return launch<RK::sum, T>(x, nullptr, n, false, out, max_blocks, s, stream);
    case ReduceOp::min: return launch<RK::min, T>(x, nullptr, n, false, out, max_blocks, s, stream);
    case ReduceOp::max: return launch<RK::max, T>(x, nullptr, n, false, out, max_blocks, s, stream);
    case ReduceOp::sum_squares: return launch<RK::sum_squares, T>(x, nullptr, n, false, out, max_blocks, s, stream);
    case ReduceOp::norm2: return launch<RK::sum_squares, T>(x, nullptr, n, true, out, max_blocks, s, stream);
    case ReduceOp::max_abs: return launch<RK::max_abs, T>(x, nullptr, n, false, out, max_blocks, s, stream);
  }
  return cudaErrorInvalidValue;
}

template <class T>
cudaError_t launch_dot(const T* x, const T* y, std::int64_t n, T* out, int max_blocks, const ReduceScratch& s,
                       cudaStream_t stream) {
  return launch<RK::dot, T>(x, y, n, false, out, max_blocks, s, stream);
}

template cudaError_t launch_reduce<float>(ReduceOp, const float*, std::int64_t, float*, int, const ReduceScratch&,
                                          cudaStream_t);
template cudaError_t launch_reduce<double>(ReduceOp, const double*, std::int64_t, double*, int, const ReduceScratch&,
                                           cudaStream_t);
template cudaError_t launch_dot<float>(const float*, const float*, std::int64_t, float*, int, const ReduceScratch&,
                                       cudaStream_t);
template cudaError_t launch_dot<double>(const double*, const double*, std::int64_t, double*, int,
                                        const ReduceScratch&, cudaStream_t);

}  // namespace tessera::cuda
