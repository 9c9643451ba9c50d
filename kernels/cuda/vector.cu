// The vector algebra: fill, axpby, elementwise, convert, and the fused axpby_dot, dot2, multiply_dot2,
// axpby_pair and axpy_multiply_dot2. Each is one
// streaming pass, bound by memory traffic, so all share one skeleton (stream_kernel): a
// grid-stride loop over 16-byte packs (after a scalar head when the views' offsets leave the
// arrays off a 16-byte boundary, all scalar when they sit differently against it), the block's
// coefficients read once from the device before any element is written, and for the fused dots
// per-thread double sums finished by the last block (reduce.cuh), which writes the result to
// the device. A Body says what one pack of E elements does:
//
//   using T; static constexpr int kSums;        // sums it accumulates (0: a plain map)
//   __device__ void setup();                   // block-wide (synchronises): reads coefficients
//   template <int E> __device__ void apply(std::int64_t i, double (&acc)[...]);  // elements i..i+E
//   __device__ void finish(const double* totals);  // kSums > 0: thread 0 of the last block
//
// Arithmetic: axpby in double (f32 inputs too: the conversions are free at memory speed, and
// the result is the exactly rounded a x + b y of the reference's formula); the dots of the
// fused operations accumulate in double, as reduce does.
#include <algorithm>
#include <type_traits>
#include <utility>

#include "kernels/cuda/reduce.cuh"

namespace tessera::cuda {

namespace {

template <class T>
__device__ __forceinline__ double coef_value(const DeviceCoef<T>& c) {
  // In the reference's order (lib/src/host_memory_backend.hpp host_coef): f64 coefficients agree
  // bit for bit.
  double v = c.value;
  if (c.num[0] != nullptr) v *= static_cast<double>(*c.num[0]);
  if (c.num[1] != nullptr) v *= static_cast<double>(*c.num[1]);
  if (c.den[0] != nullptr) v /= static_cast<double>(*c.den[0]);
  if (c.den[1] != nullptr) v /= static_cast<double>(*c.den[1]);
  return v;
}

// Both coefficients for every thread of the block, read from the device by thread 0 once. The
// block synchronises here, before any thread writes an element: a coefficient that is an
// element of the output (a one-element fill of a Scalar from itself) is read before it changes.
template <class T>
__device__ __forceinline__ void block_coefs(const DeviceCoef<T>& a, const DeviceCoef<T>& b, double& va,
                                            double& vb) {
  __shared__ double s[2];
  if (threadIdx.x == 0) {
    s[0] = coef_value(a);
    s[1] = coef_value(b);
  }
  __syncthreads();
  va = s[0];
  vb = s[1];
}

template <class T_>
struct FillBody {
  using T = T_;
  static constexpr int kSums = 0;
  DeviceCoef<T> value;
  T* y;
  T v;
  __device__ void setup() {
    double a, unused;
    block_coefs(value, value, a, unused);
    v = static_cast<T>(a);
  }
  template <int E>
  __device__ void apply(std::int64_t i, double (&)[1]) {
    Pack<T, E> p;
#pragma unroll
    for (int k = 0; k < E; ++k) p.v[k] = v;
    store_pack<E>(y + i, p);
  }
  __device__ void finish(const double*) {}
};

// y = a x + b y, rounded once to T; BETA_ZERO: y not read.
template <class T, int E, bool BETA_ZERO>
__device__ __forceinline__ Pack<T, E> axpby_pack(double a, const T* x, double b, const T* y) {
  const Pack<T, E> xs = load_pack<E>(x);
  Pack<T, E> ys;
  if constexpr (!BETA_ZERO) ys = load_pack<E>(y);
  Pack<T, E> r;
#pragma unroll
  for (int k = 0; k < E; ++k) {
    const double ax = a * static_cast<double>(xs.v[k]);
    r.v[k] = static_cast<T>(BETA_ZERO ? ax : fma(b, static_cast<double>(ys.v[k]), ax));
  }
  return r;
}

template <class T_, bool BETA_ZERO>
struct AxpbyBody {
  using T = T_;
  static constexpr int kSums = 0;
  DeviceCoef<T> alpha, beta;
  const T* x;
  T* y;
  double a, b;
  __device__ void setup() { block_coefs(alpha, beta, a, b); }
  template <int E>
  __device__ void apply(std::int64_t i, double (&)[1]) {
    store_pack<E>(y + i, axpby_pack<T, E, BETA_ZERO>(a, x + i, b, y + i));
  }
  // Two packs, every load issued before either store: x may be y, so the compiler may not hoist
  // the second pack's loads above the first's store itself, and with one pack in flight per
  // thread f64 axpy reached 0.95x cuBLAS (bench/RESULTS.md).
  template <int E>
  __device__ void apply_two(std::int64_t i, std::int64_t j) {
    const Pack<T, E> ri = axpby_pack<T, E, BETA_ZERO>(a, x + i, b, y + i);
    const Pack<T, E> rj = axpby_pack<T, E, BETA_ZERO>(a, x + j, b, y + j);
    store_pack<E>(y + i, ri);
    store_pack<E>(y + j, rj);
  }
  __device__ void finish(const double*) {}
};

// y1 = a1 x1 + b1 y1, then y2 = a2 x2 + b2 y2, per pack: every load before either store, so
// y2 may be x1 (CG's x += alpha p; p = z + beta p reads p once). Z1, Z2: b1, b2 host zeros.
template <class T_, bool Z1, bool Z2>
struct AxpbyPairBody {
  using T = T_;
  static constexpr int kSums = 0;
  DeviceCoef<T> alpha1, beta1, alpha2, beta2;
  const T* x1;
  T* y1;
  const T* x2;
  T* y2;
  double a1, b1, a2, b2;
  __device__ void setup() {
    // All four coefficients before any element is written (block_coefs' shared slots hold two).
    block_coefs(alpha1, beta1, a1, b1);
    __syncthreads();  // every thread has a1, b1 before the slots are reused
    block_coefs(alpha2, beta2, a2, b2);
  }
  template <int E>
  __device__ void apply(std::int64_t i, double (&)[1]) {
    const Pack<T, E> r1 = axpby_pack<T, E, Z1>(a1, x1 + i, b1, y1 + i);
    const Pack<T, E> r2 = axpby_pack<T, E, Z2>(a2, x2 + i, b2, y2 + i);
    store_pack<E>(y1 + i, r1);
    store_pack<E>(y2 + i, r2);
  }
  __device__ void finish(const double*) {}
};

// y = x converted from the other float type (T is y's). Element by element only (stream_kernel's
// VEC = false): a 16-byte pack of y is not one of x.
template <class T_>
struct ConvertBody {
  using T = T_;
  static constexpr int kSums = 0;
  const other_float_t<T>* x;
  T* y;
  __device__ void setup() {}
  template <int E>
  __device__ void apply(std::int64_t i, double (&)[1]) {
    static_assert(E == 1, "convert runs one element per access");
    y[i] = static_cast<T>(x[i]);
  }
  __device__ void finish(const double*) {}
};

// Whether a Body has apply_two (two packs per step of the grid-stride loop).
template <class B, class = void>
struct has_apply_two : std::false_type {};
template <class B>
struct has_apply_two<B, decltype(std::declval<B&>().template apply_two<1>(0, 0))> : std::true_type {};

template <class T_, ElementwiseOp OP>
struct ElementwiseBody {
  using T = T_;
  static constexpr int kSums = 0;
  const T* x;
  const T* y;
  T* z;
  __device__ void setup() {}
  template <int E>
  __device__ void apply(std::int64_t i, double (&)[1]) {
    // In T: a correctly rounded product or quotient of two T is what the double formula rounds to.
    const Pack<T, E> xs = load_pack<E>(x + i);
    Pack<T, E> ys;
    if constexpr (OP != ElementwiseOp::reciprocal) ys = load_pack<E>(y + i);
    Pack<T, E> r;
#pragma unroll
    for (int k = 0; k < E; ++k) {
      if constexpr (OP == ElementwiseOp::multiply) r.v[k] = xs.v[k] * ys.v[k];
      else if constexpr (OP == ElementwiseOp::divide) r.v[k] = xs.v[k] / ys.v[k];
      else r.v[k] = T(1) / xs.v[k];
    }
    store_pack<E>(z + i, r);
  }
  __device__ void finish(const double*) {}
};

// y = a x + b y, then acc += y . w on the new y, in registers: W_IS_Y (w is y) reads nothing more.
template <class T_, bool BETA_ZERO, bool W_IS_Y>
struct AxpbyDotBody {
  using T = T_;
  static constexpr int kSums = 1;
  DeviceCoef<T> alpha, beta;
  const T* x;
  T* y;
  const T* w;
  T* out;
  double a, b;
  __device__ void setup() { block_coefs(alpha, beta, a, b); }
  template <int E>
  __device__ void apply(std::int64_t i, double (&acc)[1]) {
    const Pack<T, E> yn = axpby_pack<T, E, BETA_ZERO>(a, x + i, b, y + i);
    store_pack<E>(y + i, yn);
    Pack<T, E> ws = yn;
    if constexpr (!W_IS_Y) ws = load_pack<E>(w + i);
#pragma unroll
    for (int k = 0; k < E; ++k) acc[0] = fma(static_cast<double>(yn.v[k]), static_cast<double>(ws.v[k]), acc[0]);
  }
  __device__ void finish(const double* totals) { *out = static_cast<T>(totals[0]); }
};

template <class T_>
struct Dot2Body {
  using T = T_;
  static constexpr int kSums = 2;
  const T* x;
  const T* y;
  const T* z;
  T* out_xy;
  T* out_xz;
  __device__ void setup() {}
  template <int E>
  __device__ void apply(std::int64_t i, double (&acc)[2]) {
    const Pack<T, E> xs = load_pack<E>(x + i), ys = load_pack<E>(y + i), zs = load_pack<E>(z + i);
#pragma unroll
    for (int k = 0; k < E; ++k) {
      const double xk = static_cast<double>(xs.v[k]);
      acc[0] = fma(xk, static_cast<double>(ys.v[k]), acc[0]);
      acc[1] = fma(xk, static_cast<double>(zs.v[k]), acc[1]);
    }
  }
  __device__ void finish(const double* totals) {
    *out_xy = static_cast<T>(totals[0]);
    *out_xz = static_cast<T>(totals[1]);
  }
};

// z = d * r and the sums r . z, r . r; with UPDATE first r = r + a x (rounded to T): CG's
// residual update, Jacobi apply and both dots in one pass (axpy_multiply_dot2).
template <class T_, bool UPDATE>
struct MultiplyDot2Body {
  using T = T_;
  static constexpr int kSums = 2;
  DeviceCoef<T> alpha;  // UPDATE only
  const T* x;           // UPDATE only
  const T* d;
  T* r;                 // written with UPDATE only
  T* z;
  T* out_rz;
  T* out_rr;
  double a;
  __device__ void setup() {
    if constexpr (UPDATE) {
      double unused;
      block_coefs(alpha, alpha, a, unused);
    }
  }
  template <int E>
  __device__ void apply(std::int64_t i, double (&acc)[2]) {
    const Pack<T, E> ds = load_pack<E>(d + i);
    Pack<T, E> rs;
    if constexpr (UPDATE) {
      rs = axpby_pack<T, E, false>(a, x + i, 1.0, r + i);
      store_pack<E>(r + i, rs);
    } else {
      rs = load_pack<E>(r + i);
    }
    Pack<T, E> zs;
#pragma unroll
    for (int k = 0; k < E; ++k) zs.v[k] = ds.v[k] * rs.v[k];
    store_pack<E>(z + i, zs);
#pragma unroll
    for (int k = 0; k < E; ++k) {
      const double rk = static_cast<double>(rs.v[k]);
      acc[0] = fma(rk, static_cast<double>(zs.v[k]), acc[0]);
      acc[1] = fma(rk, rk, acc[1]);
    }
  }
  __device__ void finish(const double* totals) {
    *out_rz = static_cast<T>(totals[0]);
    *out_rr = static_cast<T>(totals[1]);
  }
};

// Elements [head, head + nv W) in packs of W, grid-stride; the head and the tail (fewer than W
// each) one element per thread of the first threads. No thread returns early: setup() and the
// reduction's finish synchronise the block.
template <class Body, bool VEC>
__global__ __launch_bounds__(kVectorThreads, 2048 / kVectorThreads) void stream_kernel(Body body, std::int64_t n,
                                                                                     std::int64_t head,
                                                                                     ReduceScratch s) {
  using T = typename Body::T;
  constexpr int K = Body::kSums;
  constexpr int W = VEC ? Vec16<T>::n : 1;
  body.setup();
  double acc[K > 0 ? K : 1] = {};
  const std::int64_t tid = static_cast<std::int64_t>(blockIdx.x) * kVectorThreads + threadIdx.x;
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * kVectorThreads;
  const std::int64_t nv = (n - head) / W;
  std::int64_t i = tid;
  if constexpr (has_apply_two<Body>::value) {
    for (; i + stride < nv; i += 2 * stride) body.template apply_two<W>(head + i * W, head + (i + stride) * W);
  }
  for (; i < nv; i += stride) body.template apply<W>(head + i * W, acc);
  if constexpr (VEC) {
    const std::int64_t tail = head + nv * W;
    if (tid < head) body.template apply<1>(tid, acc);
    if (tid < n - tail) body.template apply<1>(tail + tid, acc);
  }
  if constexpr (K > 0) {
    if (last_block_totals<RK::sum, kVectorThreads, K>(acc, s.partials, s.counter)) body.finish(acc);
  }
}

// One launch of `body` over n elements of `arrays` (those it addresses; null: unused), with at
// most max_blocks blocks: enough to fill every SM, and no more, so a short vector is a short grid.
template <class Body>
cudaError_t launch_stream(const Body& body, std::int64_t n, std::initializer_list<const void*> arrays, int max_blocks,
                          const ReduceScratch& s, cudaStream_t stream) {
  using T = typename Body::T;
  const VecSplit v = vec_split<T>(n, arrays);
  const std::int64_t items = v.vec ? (n - v.head) / Vec16<T>::n : n;
  const int blocks = static_cast<int>(std::clamp<std::int64_t>(blocks_for(items, kVectorThreads), 1, max_blocks));
  if (v.vec) stream_kernel<Body, true><<<blocks, kVectorThreads, 0, stream>>>(body, n, v.head, s);
  else stream_kernel<Body, false><<<blocks, kVectorThreads, 0, stream>>>(body, n, 0, s);
  return cudaGetLastError();
}

}  // namespace

template <class T>
cudaError_t launch_fill(const DeviceCoef<T>& value, T* y, std::int64_t n, int max_blocks, cudaStream_t stream) {
  FillBody<T> body{value, y, T(0)};
  return launch_stream(body, n, {y}, max_blocks, ReduceScratch{}, stream);
}

template <class T>
cudaError_t launch_axpby(const DeviceCoef<T>& alpha, const T* x, const DeviceCoef<T>& beta, bool beta_zero, T* y,
                         std::int64_t n, int max_blocks, cudaStream_t stream) {
  if (beta_zero)
    return launch_stream(AxpbyBody<T, true>{alpha, beta, x, y, 0.0, 0.0}, n, {x, y}, max_blocks, ReduceScratch{},
                         stream);
  return launch_stream(AxpbyBody<T, false>{alpha, beta, x, y, 0.0, 0.0}, n, {x, y}, max_blocks, ReduceScratch{},
                       stream);
}

template <class T>
cudaError_t launch_elementwise(ElementwiseOp op, const T* x, const T* y, T* z, std::int64_t n, int max_blocks,
                               cudaStream_t stream) {
  const ReduceScratch none{};
  switch (op) {
    case ElementwiseOp::multiply:
      return launch_stream(ElementwiseBody<T, ElementwiseOp::multiply>{x, y, z}, n, {x, y, z}, max_blocks, none,
                           stream);
    case ElementwiseOp::divide:
      return launch_stream(ElementwiseBody<T, ElementwiseOp::divide>{x, y, z}, n, {x, y, z}, max_blocks, none, stream);
    case ElementwiseOp::reciprocal:
      return launch_stream(ElementwiseBody<T, ElementwiseOp::reciprocal>{x, nullptr, z}, n, {x, z}, max_blocks, none,
                           stream);
  }
  return cudaErrorInvalidValue;
}

template <class T>
cudaError_t launch_axpby_dot(const DeviceCoef<T>& alpha, const T* x, const DeviceCoef<T>& beta, bool beta_zero, T* y,
                             const T* w, std::int64_t n, T* out, int max_blocks, const ReduceScratch& s,
                             cudaStream_t stream) {
  const bool w_is_y = w == y;
  const void* w_arr = w_is_y ? nullptr : w;
  if (beta_zero) {
    if (w_is_y)
      return launch_stream(AxpbyDotBody<T, true, true>{alpha, beta, x, y, w, out, 0.0, 0.0}, n, {x, y}, max_blocks,
                           s, stream);
    return launch_stream(AxpbyDotBody<T, true, false>{alpha, beta, x, y, w, out, 0.0, 0.0}, n, {x, y, w_arr},
                         max_blocks, s, stream);
  }
  if (w_is_y)
    return launch_stream(AxpbyDotBody<T, false, true>{alpha, beta, x, y, w, out, 0.0, 0.0}, n, {x, y}, max_blocks, s,
                         stream);
  return launch_stream(AxpbyDotBody<T, false, false>{alpha, beta, x, y, w, out, 0.0, 0.0}, n, {x, y, w_arr},
                       max_blocks, s, stream);
}

template <class T>
cudaError_t launch_dot2(const T* x, const T* y, const T* z, std::int64_t n, T* out_xy, T* out_xz, int max_blocks,
                        const ReduceScratch& s, cudaStream_t stream) {
  return launch_stream(Dot2Body<T>{x, y, z, out_xy, out_xz}, n, {x, y, z}, max_blocks, s, stream);
}

template <class T>
cudaError_t launch_multiply_dot2(const T* d, const T* r, T* z, std::int64_t n, T* out_rz, T* out_rr, int max_blocks,
                                 const ReduceScratch& s, cudaStream_t stream) {
  // r is only read without UPDATE.
  return launch_stream(MultiplyDot2Body<T, false>{DeviceCoef<T>{}, nullptr, d, const_cast<T*>(r), z, out_rz, out_rr, 0.0},
                       n, {d, r, z}, max_blocks, s, stream);
}

template <class T>
cudaError_t launch_axpby_pair(const DeviceCoef<T>& a1, const T* x1, const DeviceCoef<T>& b1, bool b1_zero, T* y1,
                              const DeviceCoef<T>& a2, const T* x2, const DeviceCoef<T>& b2, bool b2_zero, T* y2,
                              std::int64_t n, int max_blocks, cudaStream_t stream) {
  const ReduceScratch none{};
  const std::initializer_list<const void*> arrays = {x1, y1, x2, y2};
  if (b1_zero && b2_zero)
    return launch_stream(AxpbyPairBody<T, true, true>{a1, b1, a2, b2, x1, y1, x2, y2, 0.0, 0.0, 0.0, 0.0}, n, arrays, max_blocks, none,
                         stream);
  if (b1_zero)
    return launch_stream(AxpbyPairBody<T, true, false>{a1, b1, a2, b2, x1, y1, x2, y2, 0.0, 0.0, 0.0, 0.0}, n, arrays, max_blocks, none,
                         stream);
  if (b2_zero)
    return launch_stream(AxpbyPairBody<T, false, true>{a1, b1, a2, b2, x1, y1, x2, y2, 0.0, 0.0, 0.0, 0.0}, n, arrays, max_blocks, none,
                         stream);
  return launch_stream(AxpbyPairBody<T, false, false>{a1, b1, a2, b2, x1, y1, x2, y2, 0.0, 0.0, 0.0, 0.0}, n, arrays, max_blocks, none,
                       stream);
}

template <class T>
cudaError_t launch_axpy_multiply_dot2(const DeviceCoef<T>& alpha, const T* x, const T* d, T* r, T* z, std::int64_t n,
                                      T* out_rz, T* out_rr, int max_blocks, const ReduceScratch& s,
                                      cudaStream_t stream) {
  return launch_stream(MultiplyDot2Body<T, true>{alpha, x, d, r, z, out_rz, out_rr, 0.0}, n, {x, d, r, z}, max_blocks,
                       s, stream);
}

template <class T>
cudaError_t launch_convert(const other_float_t<T>* x, T* y, std::int64_t n, int max_blocks, cudaStream_t stream) {
  const int blocks = static_cast<int>(std::clamp<std::int64_t>(blocks_for(n, kVectorThreads), 1, max_blocks));
  stream_kernel<ConvertBody<T>, false><<<blocks, kVectorThreads, 0, stream>>>(ConvertBody<T>{x, y}, n, 0,
                                                                               ReduceScratch{});
  return cudaGetLastError();
}

#define TESSERA_VECTOR_INSTANTIATE(T)                                                                              \
  template cudaError_t launch_fill<T>(const DeviceCoef<T>&, T*, std::int64_t, int, cudaStream_t);                  \
  template cudaError_t launch_axpby<T>(const DeviceCoef<T>&, const T*, const DeviceCoef<T>&, bool, T*, std::int64_t, \
                                       int, cudaStream_t);                                                         \
  template cudaError_t launch_elementwise<T>(ElementwiseOp, const T*, const T*, T*, std::int64_t, int, cudaStream_t); \
  template cudaError_t launch_axpby_dot<T>(const DeviceCoef<T>&, const T*, const DeviceCoef<T>&, bool, T*, const T*, \
                                           std::int64_t, T*, int, const ReduceScratch&, cudaStream_t);             \
  template cudaError_t launch_dot2<T>(const T*, const T*, const T*, std::int64_t, T*, T*, int, const ReduceScratch&, \
                                      cudaStream_t);                                                             \
  template cudaError_t launch_multiply_dot2<T>(const T*, const T*, T*, std::int64_t, T*, T*, int,                 \
                                               const ReduceScratch&, cudaStream_t);                              \
  template cudaError_t launch_axpby_pair<T>(const DeviceCoef<T>&, const T*, const DeviceCoef<T>&, bool, T*,        \
                                            const DeviceCoef<T>&, const T*, const DeviceCoef<T>&, bool, T*,        \
                                            std::int64_t, int, cudaStream_t);                                      \
  template cudaError_t launch_axpy_multiply_dot2<T>(const DeviceCoef<T>&, const T*, const T*, T*, T*, std::int64_t, \
                                                    T*, T*, int, const ReduceScratch&, cudaStream_t);      \
  template cudaError_t launch_convert<T>(const other_float_t<T>*, T*, std::int64_t, int, cudaStream_t);
TESSERA_VECTOR_INSTANTIATE(float)
TESSERA_VECTOR_INSTANTIATE(double)

}  // namespace tessera::cuda
