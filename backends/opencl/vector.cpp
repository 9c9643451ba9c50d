// The vector algebra (kernels/opencl/vector.cl): fill, axpby, elementwise and convert are one streaming
// launch each (vector.wg work-items per group, vector.chunk elements each); axpby_dot and dot2 are a
// reduction's first pass (reduce.wg x a bounded number of groups, as reduce's gpu kernels) and
// reduce.cl's final pass into `out` (reduce.hpp), with the partials in the queue's ReduceScratch.
// Coefficients go to the kernels as a value and four (buffer, offset) factors, read on the device.
#include <algorithm>
#include <type_traits>
#include <string>

#include "reduce.hpp"
#include "tessera/errors.hpp"

namespace tessera::opencl {

namespace {

std::size_t round_up(std::int64_t v, std::int64_t m) { return static_cast<std::size_t>((v + m - 1) / m * m); }

template <class T>
std::string vector_defines(const OpenCLBackend& cl) {
  return reduce_defines<T>(cl) + " " + cl.tuning().defines("vector");
}

template <class T>
cl::Kernel& vector_kernel(OpenCLBackend& cl, const char* name) {
  return cl.kernel("vector.cl", dtype_v<T>, vector_defines<T>(cl), name);
}

// A streaming kernel's launch over n elements: a work-item per vector.chunk of them, and with
// chunk 1 (GPUs) at most vector.groups_per_cu groups per compute unit, grid-stride
// (vector.cl's FOR_EACH_ELEMENT).
template <class T>
cl::NDRange stream_global(const OpenCLBackend& cl, std::int64_t n) {
  const std::int64_t chunk = cl.tuning()["vector.chunk"], wg = cl.tuning()["vector.wg"];
  std::int64_t items = (n + chunk - 1) / chunk;
  if (chunk == 1) {  // a work-item per pack of vector.cl's STREAM_VW elements (f32), grid-stride
    const std::int64_t vw = std::is_same_v<T, float> ? cl.tuning()["reduce.vw"] : 1;
    items = std::clamp<std::int64_t>((n + vw - 1) / vw, 1,
                                     wg * static_cast<std::int64_t>(cl.compute_units()) * cl.tuning()["vector.groups_per_cu"]);
  }
  return round_up(items, wg);
}
cl::NDRange stream_local(const OpenCLBackend& cl) { return static_cast<std::size_t>(cl.tuning()["vector.wg"]); }

// Groups of a fused dot's first pass over n elements: as reduce's gpu kernels.
std::int64_t fused_groups(const OpenCLBackend& cl, std::int64_t n) {
  const std::int64_t wg = cl.tuning()["reduce.wg"];
  return std::max<std::int64_t>(1, std::min<std::int64_t>((n + wg - 1) / wg, static_cast<std::int64_t>(cl.compute_units()) *
                                                                                  cl.tuning()["reduce.groups_per_cu"]));
}

}  // namespace

template <class T>
void OpenCLBackend::fill(QueueImpl& qi, const Coef& value, const VecView& y) {
  launch<T>(cl_queue(qi), vector_kernel<T>(*this, "vector_fill"), stream_global<T>(*this, y.n), stream_local(*this), value,
            y.data, y.offset, y.n);
}

template <class T>
void OpenCLBackend::axpby(QueueImpl& qi, const Coef& alpha, const VecView& x, const Coef& beta, const VecView& y) {
  launch<T>(cl_queue(qi), vector_kernel<T>(*this, "vector_axpby"), stream_global<T>(*this, y.n), stream_local(*this), alpha,
            x.data, x.offset, beta, y.data, y.offset, y.n, beta.is_zero() ? 0 : 1);
}

template <class T>
void OpenCLBackend::elementwise(QueueImpl& qi, ElementwiseOp op, const VecView& x, const VecView& y, const VecView& z) {
  const int code = op == ElementwiseOp::multiply ? 0 : op == ElementwiseOp::divide ? 1 : 2;
  const bool has_y = op != ElementwiseOp::reciprocal;
  launch<T>(cl_queue(qi), vector_kernel<T>(*this, "vector_elementwise"), stream_global<T>(*this, z.n), stream_local(*this),
            code, x.data, x.offset, has_y ? y.data : x.data, has_y ? y.offset : x.offset, z.data, z.offset, z.n);
}

template <class T>
void OpenCLBackend::axpby_dot(QueueImpl& qi, const Coef& alpha, const VecView& x, const Coef& beta, const VecView& y,
                              const VecView& w, const VecView& out) {
  OpenClQueue& q = cl_queue(qi);
  const std::int64_t wg = tuning_["reduce.wg"], groups = fused_groups(*this, y.n);
  cl::Buffer& part =
      grow(q.state<ReduceScratch>().partials, static_cast<std::size_t>(groups) * reduce_partial_bytes<T>(*this));
  const bool w_is_y = w.data == y.data && w.offset == y.offset;
  launch<T>(q, vector_kernel<T>(*this, "vector_axpby_dot"), cl::NDRange(static_cast<std::size_t>(groups * wg)),
            cl::NDRange(static_cast<std::size_t>(wg)), alpha, x.data, x.offset, beta, y.data, y.offset, w.data,
            w.offset, w_is_y ? 1 : 0, y.n, beta.is_zero() ? 0 : 1, part, reduce_ticket(*this, q), out.data, out.offset);
  if (!single_pass(*this)) reduce_sum_final<T>(*this, q, part, 0, groups, out, false);
}

template <class T>
void OpenCLBackend::dot2(QueueImpl& qi, const VecView& x, const VecView& y, const VecView& z, const VecView& out_xy,
                         const VecView& out_xz) {
  OpenClQueue& q = cl_queue(qi);
  const std::int64_t wg = tuning_["reduce.wg"], groups = fused_groups(*this, x.n);
  cl::Buffer& part =
      grow(q.state<ReduceScratch>().partials, static_cast<std::size_t>(2 * groups) * reduce_partial_bytes<T>(*this));
  launch<T>(q, vector_kernel<T>(*this, "vector_dot2"), cl::NDRange(static_cast<std::size_t>(groups * wg)),
            cl::NDRange(static_cast<std::size_t>(wg)), x.data, x.offset, y.data, y.offset, z.data, z.offset, x.n, part,
            reduce_ticket(*this, q), out_xy.data, out_xy.offset, out_xz.data, out_xz.offset);
  if (single_pass(*this)) return;
  reduce_sum_final<T>(*this, q, part, 0, groups, out_xy, false);
  reduce_sum_final<T>(*this, q, part, groups, groups, out_xz, false);
}

namespace {

// multiply_dot2, after r = r + alpha x when x is given (axpy_multiply_dot2): one kernel for both.
template <class T>
void multiply_dot2_pass(OpenCLBackend& cl, OpenClQueue& q, const Coef& alpha, const VecView* x, const VecView& d,
                        const VecView& r, const VecView& z, const VecView& out_rz, const VecView& out_rr) {
  const std::int64_t wg = cl.tuning()["reduce.wg"], groups = fused_groups(cl, r.n);
  cl::Buffer& part =
      cl.grow(q.state<ReduceScratch>().partials, static_cast<std::size_t>(2 * groups) * reduce_partial_bytes<T>(cl));
  const VecView& xs = x ? *x : d;  // unread without the update
  cl.launch<T>(q, vector_kernel<T>(cl, "vector_multiply_dot2"), cl::NDRange(static_cast<std::size_t>(groups * wg)),
               cl::NDRange(static_cast<std::size_t>(wg)), alpha, xs.data, xs.offset, x ? 1 : 0, d.data, d.offset,
               r.data, r.offset, z.data, z.offset, r.n, part, reduce_ticket(cl, q), out_rz.data, out_rz.offset,
               out_rr.data, out_rr.offset);
  if (single_pass(cl)) return;
  reduce_sum_final<T>(cl, q, part, 0, groups, out_rz, false);
  reduce_sum_final<T>(cl, q, part, groups, groups, out_rr, false);
}

}  // namespace

template <class T>
void OpenCLBackend::multiply_dot2(QueueImpl& qi, const VecView& d, const VecView& r, const VecView& z,
                                  const VecView& out_rz, const VecView& out_rr) {
  multiply_dot2_pass<T>(*this, cl_queue(qi), Coef{}, nullptr, d, r, z, out_rz, out_rr);
}

template <class T>
void OpenCLBackend::axpy_multiply_dot2(QueueImpl& qi, const Coef& alpha, const VecView& x, const VecView& d,
                                       const VecView& r, const VecView& z, const VecView& out_rz,
                                       const VecView& out_rr) {
  multiply_dot2_pass<T>(*this, cl_queue(qi), alpha, &x, d, r, z, out_rz, out_rr);
}

template <class T>
void OpenCLBackend::axpby_pair(QueueImpl& qi, const Coef& a1, const VecView& x1, const Coef& b1, const VecView& y1,
                               const Coef& a2, const VecView& x2, const Coef& b2, const VecView& y2) {
  launch<T>(cl_queue(qi), vector_kernel<T>(*this, "vector_axpby_pair"), stream_global<T>(*this, y1.n),
            stream_local(*this), a1, x1.data, x1.offset, b1, y1.data, y1.offset, b1.is_zero() ? 0 : 1, a2, x2.data,
            x2.offset, b2, y2.data, y2.offset, b2.is_zero() ? 0 : 1, y1.n);
}

template <class T>
void OpenCLBackend::convert(QueueImpl& qi, const VecView& x, const VecView& y) {
  // One side is f64 whichever T is: without cl_khr_fp64 the kernel does not exist (vector.cl).
  if (const Support s = support(Op::vector, DType::f64); !s.ok)
    throw NotImplemented(std::string("vector (convert) in ") + to_string(dtype_v<T>) + ": " + s.reason);
  launch<T>(cl_queue(qi), vector_kernel<T>(*this, "vector_convert"), stream_global<T>(*this, y.n), stream_local(*this),
            x.data, x.offset, y.data, y.offset, y.n);
}

TESSERA_INSTANTIATE_TYPED_OP(OpenCLBackend, fill)
TESSERA_INSTANTIATE_TYPED_OP(OpenCLBackend, axpby)
TESSERA_INSTANTIATE_TYPED_OP(OpenCLBackend, elementwise)
TESSERA_INSTANTIATE_TYPED_OP(OpenCLBackend, axpby_dot)
TESSERA_INSTANTIATE_TYPED_OP(OpenCLBackend, dot2)
TESSERA_INSTANTIATE_TYPED_OP(OpenCLBackend, multiply_dot2)
TESSERA_INSTANTIATE_TYPED_OP(OpenCLBackend, axpby_pair)
TESSERA_INSTANTIATE_TYPED_OP(OpenCLBackend, axpy_multiply_dot2)
TESSERA_INSTANTIATE_TYPED_OP(OpenCLBackend, convert)

}  // namespace tessera::opencl
