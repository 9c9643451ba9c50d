// The vector algebra (fill, axpby, elementwise, convert and the fused axpby_dot, dot2, multiply_dot2,
// axpby_pair, axpy_multiply_dot2): one launch each on the queue's
// stream (kernels/cuda/vector.cu). Coefficients go to the kernels as the host value and pointers
// to the device factors, read on the device; the fused dots share the reductions' per-queue
// scratch (reduce_state.hpp) and write their results on the device. Nothing here allocates or
// waits: a small call costs one kernel launch.
#include "cuda_backend.hpp"
#include "kernels/cuda/launch.hpp"
#include "queue.hpp"
#include "reduce_state.hpp"

namespace tessera::cuda {

namespace {

template <class T>
DeviceCoef<T> device_coef(const Coef& c) {
  DeviceCoef<T> d;
  d.value = c.value;
  for (int k = 0; k < 2; ++k) {
    d.num[k] = dev_ptr<const T>(c.num[static_cast<std::size_t>(k)]);
    d.den[k] = dev_ptr<const T>(c.den[static_cast<std::size_t>(k)]);
  }
  return d;
}

}  // namespace

template <class T>
void CudaBackend::fill(QueueImpl& q, const Coef& value, const VecView& y) {
  if (y.n == 0) return;
  TESSERA_CUDA_CHECK(launch_fill<T>(device_coef<T>(value), dev_ptr<T>(y), y.n, vector_blocks_, stream_of(q)));
}

template <class T>
void CudaBackend::axpby(QueueImpl& q, const Coef& alpha, const VecView& x, const Coef& beta, const VecView& y) {
  if (y.n == 0) return;
  TESSERA_CUDA_CHECK(launch_axpby<T>(device_coef<T>(alpha), dev_ptr<const T>(x), device_coef<T>(beta), beta.is_zero(),
                                     dev_ptr<T>(y), y.n, vector_blocks_, stream_of(q)));
}

template <class T>
void CudaBackend::elementwise(QueueImpl& q, ElementwiseOp op, const VecView& x, const VecView& y, const VecView& z) {
  if (z.n == 0) return;
  const T* yp = op == ElementwiseOp::reciprocal ? nullptr : dev_ptr<const T>(y);
  TESSERA_CUDA_CHECK(
      launch_elementwise<T>(op, dev_ptr<const T>(x), yp, dev_ptr<T>(z), z.n, vector_blocks_, stream_of(q)));
}

template <class T>
void CudaBackend::axpby_dot(QueueImpl& q, const Coef& alpha, const VecView& x, const Coef& beta, const VecView& y,
                            const VecView& w, const VecView& out) {
  // Even for n = 0 the kernel runs: it writes the empty dot, 0, to out.
  CudaQueue& cq = queue_of(q);
  const ReduceState& st = ReduceState::of(cq, reduce_blocks_);
  TESSERA_CUDA_CHECK(launch_axpby_dot<T>(device_coef<T>(alpha), dev_ptr<const T>(x), device_coef<T>(beta),
                                         beta.is_zero(), dev_ptr<T>(y), dev_ptr<const T>(w), y.n, dev_ptr<T>(out),
                                         st.max_blocks, st.view(), cq.stream()));
}

template <class T>
void CudaBackend::dot2(QueueImpl& q, const VecView& x, const VecView& y, const VecView& z, const VecView& out_xy,
                       const VecView& out_xz) {
  CudaQueue& cq = queue_of(q);
  const ReduceState& st = ReduceState::of(cq, reduce_blocks_);
  TESSERA_CUDA_CHECK(launch_dot2<T>(dev_ptr<const T>(x), dev_ptr<const T>(y), dev_ptr<const T>(z), x.n,
                                    dev_ptr<T>(out_xy), dev_ptr<T>(out_xz), st.max_blocks, st.view(), cq.stream()));
}

template <class T>
void CudaBackend::multiply_dot2(QueueImpl& q, const VecView& d, const VecView& r, const VecView& z,
                                const VecView& out_rz, const VecView& out_rr) {
  CudaQueue& cq = queue_of(q);
  const ReduceState& st = ReduceState::of(cq, reduce_blocks_);
  TESSERA_CUDA_CHECK(launch_multiply_dot2<T>(dev_ptr<const T>(d), dev_ptr<const T>(r), dev_ptr<T>(z), r.n,
                                             dev_ptr<T>(out_rz), dev_ptr<T>(out_rr), st.max_blocks, st.view(),
                                             cq.stream()));
}

template <class T>
void CudaBackend::axpby_pair(QueueImpl& q, const Coef& a1, const VecView& x1, const Coef& b1, const VecView& y1,
                             const Coef& a2, const VecView& x2, const Coef& b2, const VecView& y2) {
  if (y1.n == 0) return;
  TESSERA_CUDA_CHECK(launch_axpby_pair<T>(device_coef<T>(a1), dev_ptr<const T>(x1), device_coef<T>(b1), b1.is_zero(),
                                          dev_ptr<T>(y1), device_coef<T>(a2), dev_ptr<const T>(x2), device_coef<T>(b2),
                                          b2.is_zero(), dev_ptr<T>(y2), y1.n, vector_blocks_, stream_of(q)));
}

template <class T>
void CudaBackend::axpy_multiply_dot2(QueueImpl& q, const Coef& alpha, const VecView& x, const VecView& d,
                                     const VecView& r, const VecView& z, const VecView& out_rz,
                                     const VecView& out_rr) {
  CudaQueue& cq = queue_of(q);
  const ReduceState& st = ReduceState::of(cq, reduce_blocks_);
  TESSERA_CUDA_CHECK(launch_axpy_multiply_dot2<T>(device_coef<T>(alpha), dev_ptr<const T>(x), dev_ptr<const T>(d),
                                                  dev_ptr<T>(r), dev_ptr<T>(z), r.n, dev_ptr<T>(out_rz),
                                                  dev_ptr<T>(out_rr), st.max_blocks, st.view(), cq.stream()));
}

template <class T>
void CudaBackend::convert(QueueImpl& q, const VecView& x, const VecView& y) {
  if (y.n == 0) return;
  TESSERA_CUDA_CHECK(
      launch_convert<T>(dev_ptr<const other_float_t<T>>(x), dev_ptr<T>(y), y.n, vector_blocks_, stream_of(q)));
}

TESSERA_INSTANTIATE_TYPED_OP(CudaBackend, fill)
TESSERA_INSTANTIATE_TYPED_OP(CudaBackend, axpby)
TESSERA_INSTANTIATE_TYPED_OP(CudaBackend, elementwise)
TESSERA_INSTANTIATE_TYPED_OP(CudaBackend, axpby_dot)
TESSERA_INSTANTIATE_TYPED_OP(CudaBackend, dot2)
TESSERA_INSTANTIATE_TYPED_OP(CudaBackend, multiply_dot2)
TESSERA_INSTANTIATE_TYPED_OP(CudaBackend, axpby_pair)
TESSERA_INSTANTIATE_TYPED_OP(CudaBackend, axpy_multiply_dot2)
TESSERA_INSTANTIATE_TYPED_OP(CudaBackend, convert)

}  // namespace tessera::cuda
