// The vector algebra, as the oracle computes it: each element in double, rounded once to T;
// dots compensated as in reduce.cpp. A coefficient naming device scalars is read once per call
// (they are host memory here) before any element is written, so a scalar that is also an
// element of the output (a one-element fill of a Scalar from itself) reads its old value.
#include <cstdint>

#include "reference/compensated_sum.hpp"
#include "reference/reference_backend.hpp"

namespace tessera {

template <class T>
void ReferenceBackend::fill(QueueImpl&, const Coef& value, const VecView& yv) {
  const T v = static_cast<T>(host_coef<T>(value));
  T* y = host_ptr<T>(yv);
  for (std::int64_t i = 0; i < yv.n; ++i) y[i] = v;
}

namespace {

// y = a x + b y in double; b zero on the host: y only written.
template <class T>
void axpby_in_double(double a, const T* x, double b, bool b_zero, T* y, std::int64_t n) {
  for (std::int64_t i = 0; i < n; ++i) {
    const double by = b_zero ? 0.0 : b * static_cast<double>(y[i]);
    y[i] = static_cast<T>(a * static_cast<double>(x[i]) + by);
  }
}

}  // namespace

template <class T>
void ReferenceBackend::axpby(QueueImpl&, const Coef& alpha, const VecView& x, const Coef& beta, const VecView& y) {
  axpby_in_double(host_coef<T>(alpha), host_ptr<const T>(x), host_coef<T>(beta), beta.is_zero(), host_ptr<T>(y), y.n);
}

template <class T>
void ReferenceBackend::elementwise(QueueImpl&, ElementwiseOp op, const VecView& xv, const VecView& yv,
                                   const VecView& zv) {
  const T* x = host_ptr<const T>(xv);
  const T* y = op == ElementwiseOp::reciprocal ? nullptr : host_ptr<const T>(yv);
  T* z = host_ptr<T>(zv);
  for (std::int64_t i = 0; i < zv.n; ++i) {
    const double a = static_cast<double>(x[i]);
    switch (op) {
      case ElementwiseOp::multiply: z[i] = static_cast<T>(a * static_cast<double>(y[i])); break;
      case ElementwiseOp::divide: z[i] = static_cast<T>(a / static_cast<double>(y[i])); break;
      case ElementwiseOp::reciprocal: z[i] = static_cast<T>(1.0 / a); break;
    }
  }
}

template <class T>
void ReferenceBackend::axpby_dot(QueueImpl&, const Coef& alpha, const VecView& x, const Coef& beta, const VecView& y,
                                 const VecView& w, const VecView& out) {
  axpby_in_double(host_coef<T>(alpha), host_ptr<const T>(x), host_coef<T>(beta), beta.is_zero(), host_ptr<T>(y), y.n);
  *host_ptr<T>(out) = static_cast<T>(dot_in_double(host_ptr<const T>(y), host_ptr<const T>(w), y.n));
}

template <class T>
void ReferenceBackend::dot2(QueueImpl&, const VecView& x, const VecView& y, const VecView& z, const VecView& out_xy,
                            const VecView& out_xz) {
  const double xy = dot_in_double(host_ptr<const T>(x), host_ptr<const T>(y), x.n);
  const double xz = dot_in_double(host_ptr<const T>(x), host_ptr<const T>(z), x.n);
  *host_ptr<T>(out_xy) = static_cast<T>(xy);
  *host_ptr<T>(out_xz) = static_cast<T>(xz);
}

template <class T>
void ReferenceBackend::multiply_dot2(QueueImpl& q, const VecView& d, const VecView& r, const VecView& z,
                                     const VecView& out_rz, const VecView& out_rr) {
  elementwise<T>(q, ElementwiseOp::multiply, d, r, z);
  dot2<T>(q, r, z, r, out_rz, out_rr);
}

template <class T>
void ReferenceBackend::axpby_pair(QueueImpl&, const Coef& a1, const VecView& x1, const Coef& b1, const VecView& y1,
                                  const Coef& a2, const VecView& x2, const Coef& b2, const VecView& y2) {
  // All four coefficients before any element is written; y1 whole, then y2 whole: the same as
  // element by element, since x2 is not y1 and y1 is not y2.
  const double ca1 = host_coef<T>(a1), cb1 = host_coef<T>(b1), ca2 = host_coef<T>(a2), cb2 = host_coef<T>(b2);
  axpby_in_double(ca1, host_ptr<const T>(x1), cb1, b1.is_zero(), host_ptr<T>(y1), y1.n);
  axpby_in_double(ca2, host_ptr<const T>(x2), cb2, b2.is_zero(), host_ptr<T>(y2), y2.n);
}

template <class T>
void ReferenceBackend::axpy_multiply_dot2(QueueImpl& q, const Coef& alpha, const VecView& x, const VecView& d,
                                          const VecView& r, const VecView& z, const VecView& out_rz,
                                          const VecView& out_rr) {
  axpby_in_double(host_coef<T>(alpha), host_ptr<const T>(x), 1.0, false, host_ptr<T>(r), r.n);
  multiply_dot2<T>(q, d, r, z, out_rz, out_rr);
}

template <class T>
void ReferenceBackend::convert(QueueImpl&, const VecView& xv, const VecView& yv) {
  // One C++ cast per element: round to nearest on IEEE hardware, out of f32's range -> +-inf.
  const other_float_t<T>* x = host_ptr<const other_float_t<T>>(xv);
  T* y = host_ptr<T>(yv);
  for (std::int64_t i = 0; i < yv.n; ++i) y[i] = static_cast<T>(x[i]);
}

TESSERA_INSTANTIATE_TYPED_OP(ReferenceBackend, fill)
TESSERA_INSTANTIATE_TYPED_OP(ReferenceBackend, axpby)
TESSERA_INSTANTIATE_TYPED_OP(ReferenceBackend, elementwise)
TESSERA_INSTANTIATE_TYPED_OP(ReferenceBackend, axpby_dot)
TESSERA_INSTANTIATE_TYPED_OP(ReferenceBackend, dot2)
TESSERA_INSTANTIATE_TYPED_OP(ReferenceBackend, multiply_dot2)
TESSERA_INSTANTIATE_TYPED_OP(ReferenceBackend, axpby_pair)
TESSERA_INSTANTIATE_TYPED_OP(ReferenceBackend, axpy_multiply_dot2)
TESSERA_INSTANTIATE_TYPED_OP(ReferenceBackend, convert)

}  // namespace tessera
