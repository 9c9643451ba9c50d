// The vector algebra (algebra.hpp) and the Scalar calls that enqueue work: checks, then the
// operands' device runs it on the given queue. Elements are compared as ranges of their
// allocation, so views of one vector may be combined where they do not overlap.
#include "tessera/algebra.hpp"

#include <string>

#include "queue_state.hpp"
#include "tessera/errors.hpp"

namespace tessera {

namespace {

// An operand's device `v` against the first operand's `d` (both of any dtype).
void check_device(const char* op, const Device& d, const Device& v) {
  if (!v) throw InvalidArgument(std::string(op) + ": an operand is empty (default-constructed)");
  if (v != d)
    throw DeviceMismatch(std::string(op) + ": operands live on different devices (" + d.spec() + " and " + v.spec() +
                         "); move them to one device first");
}

void check_queue(const char* op, const Queue& q, const Device& d) {
  if (q.device() != d)
    throw DeviceMismatch(std::string(op) + ": the queue belongs to " + q.device().spec() + ", the operands to " +
                         d.spec());
}

void check_size(const char* op, std::int64_t n, std::int64_t m) {
  if (m != n)
    throw DimensionMismatch(std::string(op) + ": vectors of " + std::to_string(n) + " and " + std::to_string(m) +
                            " elements; expected equal sizes");
}

template <class T>
const Device& check_operands(const char* op, const Queue& q, std::initializer_list<const Vector<T>*> vectors) {
  const Device& d = (*vectors.begin())->device();
  for (const Vector<T>* v : vectors) check_device(op, d, v->device());
  check_queue(op, q, d);
  return d;
}

template <class T>
void check_sizes(const char* op, std::initializer_list<const Vector<T>*> vectors) {
  const std::int64_t n = (*vectors.begin())->size();
  for (const Vector<T>* v : vectors) check_size(op, n, v->size());
}

template <class T>
void check_scalar(const char* op, const Scalar<T>& s, const Device& d) {
  if (!s) throw InvalidArgument(std::string(op) + ": the Scalar is empty (default-constructed)");
  if (s.device() != d)
    throw DeviceMismatch(std::string(op) + ": the Scalar lives on " + s.device().spec() + ", the operands on " +
                         d.spec());
}

template <class T>
Coef coef(const char* op, const ScalarArg<T>& a, const Device& d) {
  a.check_device(op, d);
  return a.coef();
}

// An output written element by element may be an input itself (the same elements) but must not
// partly overlap one: element i would then read what element j already wrote.
template <class T>
void check_same_or_disjoint(const char* op, const char* out_name, const Vector<T>& out, const char* in_name,
                            const Vector<T>& in) {
  const VecView o = out.view(), i = in.view();
  if (o.data == nullptr || o.data != i.data) return;
  const bool disjoint = o.offset + o.n <= i.offset || i.offset + i.n <= o.offset;
  if (!disjoint && o.offset != i.offset)
    throw InvalidArgument(std::string(op) + ": the output " + out_name + " partly overlaps the input " + in_name +
                          "; pass the same vector or separate storage");
}

// The output must share no element with the input (an op whose result would depend on the
// order in which it reads and writes).
template <class T>
void check_disjoint(const char* op, const char* out_name, const Vector<T>& out, const char* in_name,
                    const Vector<T>& in) {
  const VecView o = out.view(), i = in.view();
  if (o.data == nullptr || o.data != i.data || o.n == 0 || i.n == 0) return;
  if (o.offset + o.n <= i.offset || i.offset + i.n <= o.offset) return;
  throw InvalidArgument(std::string(op) + ": the output " + out_name + " overlaps the input " + in_name +
                        "; it needs separate storage");
}

}  // namespace

template <class T>
Scalar<T>::Scalar(const Device& device, T value) : v_(device, 1) {
  set(value);
}

template <class T>
void Scalar<T>::set(T value) {
  set(device().queue(), value);
}

template <class T>
void Scalar<T>::set(const Queue& q, T value) {
  fill(q, ScalarArg<T>(value), *this);
}

template <class T>
void fill(const Queue& q, detail::same_t<ScalarArg<T>> value, Vector<T>& y) {
  const Device& d = check_operands<T>("fill", q, {&y});
  const Coef c = coef("fill", value, d);
  if (y.size() == 0) return;
  detail::Enqueue e(q);
  e.backend().fill(dtype_v<T>, e.impl(), c, y.view());
}

template <class T>
void fill(const Queue& q, detail::same_t<ScalarArg<T>> value, Scalar<T>& s) {
  if (!s) throw InvalidArgument("fill: the Scalar is empty (default-constructed)");
  Vector<T> v = s.as_vector();
  fill(q, value, v);
}

template <class T>
void copy(const Queue& q, const Vector<T>& x, Vector<T>& y) {
  check_operands<T>("copy", q, {&x, &y});
  check_sizes<T>("copy", {&x, &y});
  if (x.size() == 0) return;
  const auto bytes = static_cast<std::size_t>(x.size()) * sizeof(T);
  y.storage()->copy_from(q, static_cast<std::size_t>(y.offset()) * sizeof(T), *x.storage(),
                         static_cast<std::size_t>(x.offset()) * sizeof(T), bytes);
}

namespace {

// copy between dtypes: the backend's convert, whose dtype is y's.
template <class S, class D>
void convert_copy(const Queue& q, const Vector<S>& x, Vector<D>& y) {
  const char* name = "copy";
  check_device(name, x.device(), x.device());
  check_device(name, x.device(), y.device());
  check_queue(name, q, x.device());
  check_size(name, x.size(), y.size());
  // Vectors of two dtypes may still share a storage (Vector's storage constructor): compare bytes.
  const VecView xv = x.view(), yv = y.view();
  if (xv.data == yv.data && xv.n > 0) {
    const auto xb = xv.offset * static_cast<std::int64_t>(sizeof(S)), yb = yv.offset * static_cast<std::int64_t>(sizeof(D));
    if (xb < yb + yv.n * static_cast<std::int64_t>(sizeof(D)) && yb < xb + xv.n * static_cast<std::int64_t>(sizeof(S)))
      throw InvalidArgument("copy: the output overlaps the input (one storage); a conversion needs separate storage");
  }
  if (x.size() == 0) return;
  detail::Enqueue e(q);
  e.backend().convert(dtype_v<D>, e.impl(), xv, yv);
}

}  // namespace

void copy(const Queue& q, const Vector<double>& x, Vector<float>& y) { convert_copy(q, x, y); }
void copy(const Queue& q, const Vector<float>& x, Vector<double>& y) { convert_copy(q, x, y); }

template <class T>
void axpby(const Queue& q, detail::same_t<ScalarArg<T>> alpha, const Vector<T>& x, detail::same_t<ScalarArg<T>> beta,
           Vector<T>& y) {
  const Device& d = check_operands<T>("axpby", q, {&x, &y});
  check_sizes<T>("axpby", {&x, &y});
  check_same_or_disjoint("axpby", "y", y, "x", x);
  const Coef a = coef("axpby", alpha, d), b = coef("axpby", beta, d);
  if (y.size() == 0) return;
  detail::Enqueue e(q);
  e.backend().axpby(dtype_v<T>, e.impl(), a, x.view(), b, y.view());
}

template <class T>
void axpy(const Queue& q, detail::same_t<ScalarArg<T>> alpha, const Vector<T>& x, Vector<T>& y) {
  axpby(q, alpha, x, ScalarArg<T>(T(1)), y);
}

template <class T>
void scal(const Queue& q, detail::same_t<ScalarArg<T>> alpha, Vector<T>& x) {
  // x = alpha * x + 0 * x: beta a host zero, so x is read once, as the "x" operand.
  axpby(q, alpha, x, ScalarArg<T>(T(0)), x);
}

namespace {

template <class T>
void elementwise(const char* name, const Queue& q, ElementwiseOp op, const Vector<T>& x, const Vector<T>* y,
                 Vector<T>& z) {
  if (y != nullptr) {
    check_operands<T>(name, q, {&x, y, &z});
    check_sizes<T>(name, {&x, y, &z});
    check_same_or_disjoint(name, "z", z, "y", *y);
  } else {
    check_operands<T>(name, q, {&x, &z});
    check_sizes<T>(name, {&x, &z});
  }
  check_same_or_disjoint(name, "z", z, "x", x);
  if (z.size() == 0) return;
  detail::Enqueue e(q);
  e.backend().elementwise(dtype_v<T>, e.impl(), op, x.view(), y != nullptr ? y->view() : x.view(), z.view());
}

}  // namespace

template <class T>
void multiply(const Queue& q, const Vector<T>& x, const Vector<T>& y, Vector<T>& z) {
  elementwise("multiply", q, ElementwiseOp::multiply, x, &y, z);
}
template <class T>
void divide(const Queue& q, const Vector<T>& x, const Vector<T>& y, Vector<T>& z) {
  elementwise("divide", q, ElementwiseOp::divide, x, &y, z);
}
template <class T>
void reciprocal(const Queue& q, const Vector<T>& x, Vector<T>& z) {
  elementwise<T>("reciprocal", q, ElementwiseOp::reciprocal, x, nullptr, z);
}

template <class T>
void axpby_dot(const Queue& q, detail::same_t<ScalarArg<T>> alpha, const Vector<T>& x,
               detail::same_t<ScalarArg<T>> beta, Vector<T>& y, const Vector<T>& w, Scalar<T>& out) {
  const Device& d = check_operands<T>("axpby_dot", q, {&x, &y, &w});
  check_sizes<T>("axpby_dot", {&x, &y, &w});
  check_scalar("axpby_dot", out, d);
  check_same_or_disjoint("axpby_dot", "y", y, "x", x);
  check_same_or_disjoint("axpby_dot", "y", y, "w", w);
  const Coef a = coef("axpby_dot", alpha, d), b = coef("axpby_dot", beta, d);
  if (y.size() == 0) return fill(q, ScalarArg<T>(T(0)), out);
  detail::Enqueue e(q);
  e.backend().axpby_dot(dtype_v<T>, e.impl(), a, x.view(), b, y.view(), w.view(), out.view());
}

template <class T>
void dot2(const Queue& q, const Vector<T>& x, const Vector<T>& y, const Vector<T>& z, Scalar<T>& out_xy,
          Scalar<T>& out_xz) {
  const Device& d = check_operands<T>("dot2", q, {&x, &y, &z});
  check_sizes<T>("dot2", {&x, &y, &z});
  check_scalar("dot2", out_xy, d);
  check_scalar("dot2", out_xz, d);
  if (out_xy.view().data == out_xz.view().data && out_xy.view().offset == out_xz.view().offset)
    throw InvalidArgument("dot2: out_xy and out_xz are the same Scalar; the two dots need one each");
  if (x.size() == 0) {
    fill(q, ScalarArg<T>(T(0)), out_xy);
    return fill(q, ScalarArg<T>(T(0)), out_xz);
  }
  detail::Enqueue e(q);
  e.backend().dot2(dtype_v<T>, e.impl(), x.view(), y.view(), z.view(), out_xy.view(), out_xz.view());
}

template <class T>
void multiply_dot2(const Queue& q, const Vector<T>& d, const Vector<T>& r, Vector<T>& z, Scalar<T>& out_rz,
                   Scalar<T>& out_rr) {
  const Device& dev = check_operands<T>("multiply_dot2", q, {&d, &r, &z});
  check_sizes<T>("multiply_dot2", {&d, &r, &z});
  check_scalar("multiply_dot2", out_rz, dev);
  check_scalar("multiply_dot2", out_rr, dev);
  if (out_rz.view().data == out_rr.view().data && out_rz.view().offset == out_rr.view().offset)
    throw InvalidArgument("multiply_dot2: out_rz and out_rr are the same Scalar; the two dots need one each");
  check_disjoint("multiply_dot2", "z", z, "d", d);
  check_disjoint("multiply_dot2", "z", z, "r", r);
  if (r.size() == 0) {
    fill(q, ScalarArg<T>(T(0)), out_rz);
    return fill(q, ScalarArg<T>(T(0)), out_rr);
  }
  detail::Enqueue e(q);
  e.backend().multiply_dot2(dtype_v<T>, e.impl(), d.view(), r.view(), z.view(), out_rz.view(), out_rr.view());
}

template <class T>
void axpby_pair(const Queue& q, detail::same_t<ScalarArg<T>> a1, const Vector<T>& x1, detail::same_t<ScalarArg<T>> b1,
                Vector<T>& y1, detail::same_t<ScalarArg<T>> a2, const Vector<T>& x2, detail::same_t<ScalarArg<T>> b2,
                Vector<T>& y2) {
  const char* name = "axpby_pair";
  const Device& d = check_operands<T>(name, q, {&x1, &y1, &x2, &y2});
  check_sizes<T>(name, {&x1, &y1, &x2, &y2});
  check_disjoint(name, "y2", y2, "y1", y1);
  check_disjoint(name, "x2", x2, "y1", y1);
  check_same_or_disjoint(name, "y1", y1, "x1", x1);
  check_same_or_disjoint(name, "y2", y2, "x1", x1);
  check_same_or_disjoint(name, "y2", y2, "x2", x2);
  const Coef ca1 = coef(name, a1, d), cb1 = coef(name, b1, d), ca2 = coef(name, a2, d), cb2 = coef(name, b2, d);
  if (y1.size() == 0) return;
  detail::Enqueue e(q);
  e.backend().axpby_pair(dtype_v<T>, e.impl(), ca1, x1.view(), cb1, y1.view(), ca2, x2.view(), cb2, y2.view());
}

template <class T>
void axpy_multiply_dot2(const Queue& q, detail::same_t<ScalarArg<T>> alpha, const Vector<T>& x, const Vector<T>& d,
                        Vector<T>& r, Vector<T>& z, Scalar<T>& out_rz, Scalar<T>& out_rr) {
  const char* name = "axpy_multiply_dot2";
  const Device& dev = check_operands<T>(name, q, {&x, &d, &r, &z});
  check_sizes<T>(name, {&x, &d, &r, &z});
  check_scalar(name, out_rz, dev);
  check_scalar(name, out_rr, dev);
  if (out_rz.view().data == out_rr.view().data && out_rz.view().offset == out_rr.view().offset)
    throw InvalidArgument("axpy_multiply_dot2: out_rz and out_rr are the same Scalar; the two dots need one each");
  check_disjoint(name, "r", r, "x", x);
  check_disjoint(name, "r", r, "d", d);
  check_disjoint(name, "z", z, "r", r);
  check_disjoint(name, "z", z, "x", x);
  check_disjoint(name, "z", z, "d", d);
  const Coef a = coef(name, alpha, dev);
  if (r.size() == 0) {
    fill(q, ScalarArg<T>(T(0)), out_rz);
    return fill(q, ScalarArg<T>(T(0)), out_rr);
  }
  detail::Enqueue e(q);
  e.backend().axpy_multiply_dot2(dtype_v<T>, e.impl(), a, x.view(), d.view(), r.view(), z.view(), out_rz.view(),
                                 out_rr.view());
}

// ---- the forms without a queue: the default queue of the first operand's device ----
namespace {
template <class C>
Queue default_queue(const C& first) {
  const Device& d = first.device();
  return d ? d.queue() : Queue();
}
}  // namespace

template <class T>
void fill(detail::same_t<ScalarArg<T>> value, Vector<T>& y) {
  fill(default_queue(y), value, y);
}
template <class T>
void copy(const Vector<T>& x, Vector<T>& y) {
  copy(default_queue(x), x, y);
}
void copy(const Vector<double>& x, Vector<float>& y) { copy(default_queue(x), x, y); }
void copy(const Vector<float>& x, Vector<double>& y) { copy(default_queue(x), x, y); }
template <class T>
void scal(detail::same_t<ScalarArg<T>> alpha, Vector<T>& x) {
  scal(default_queue(x), alpha, x);
}
template <class T>
void axpy(detail::same_t<ScalarArg<T>> alpha, const Vector<T>& x, Vector<T>& y) {
  axpy(default_queue(x), alpha, x, y);
}
template <class T>
void axpby(detail::same_t<ScalarArg<T>> alpha, const Vector<T>& x, detail::same_t<ScalarArg<T>> beta, Vector<T>& y) {
  axpby(default_queue(x), alpha, x, beta, y);
}
template <class T>
void multiply(const Vector<T>& x, const Vector<T>& y, Vector<T>& z) {
  multiply(default_queue(x), x, y, z);
}
template <class T>
void divide(const Vector<T>& x, const Vector<T>& y, Vector<T>& z) {
  divide(default_queue(x), x, y, z);
}
template <class T>
void reciprocal(const Vector<T>& x, Vector<T>& z) {
  reciprocal(default_queue(x), x, z);
}
template <class T>
void axpby_dot(detail::same_t<ScalarArg<T>> alpha, const Vector<T>& x, detail::same_t<ScalarArg<T>> beta, Vector<T>& y,
               const Vector<T>& w, Scalar<T>& out) {
  axpby_dot(default_queue(x), alpha, x, beta, y, w, out);
}
template <class T>
void dot2(const Vector<T>& x, const Vector<T>& y, const Vector<T>& z, Scalar<T>& out_xy, Scalar<T>& out_xz) {
  dot2(default_queue(x), x, y, z, out_xy, out_xz);
}
template <class T>
void multiply_dot2(const Vector<T>& d, const Vector<T>& r, Vector<T>& z, Scalar<T>& out_rz, Scalar<T>& out_rr) {
  multiply_dot2(default_queue(d), d, r, z, out_rz, out_rr);
}
template <class T>
void axpby_pair(detail::same_t<ScalarArg<T>> a1, const Vector<T>& x1, detail::same_t<ScalarArg<T>> b1, Vector<T>& y1,
                detail::same_t<ScalarArg<T>> a2, const Vector<T>& x2, detail::same_t<ScalarArg<T>> b2, Vector<T>& y2) {
  axpby_pair(default_queue(x1), a1, x1, b1, y1, a2, x2, b2, y2);
}
template <class T>
void axpy_multiply_dot2(detail::same_t<ScalarArg<T>> alpha, const Vector<T>& x, const Vector<T>& d, Vector<T>& r,
                        Vector<T>& z, Scalar<T>& out_rz, Scalar<T>& out_rr) {
  axpy_multiply_dot2(default_queue(x), alpha, x, d, r, z, out_rz, out_rr);
}

#define TESSERA_INSTANTIATE_ALGEBRA(T)                                                                           \
  template class Scalar<T>;                                                                                      \
  template void fill<T>(const Queue&, ScalarArg<T>, Vector<T>&);                                                 \
  template void fill<T>(const Queue&, ScalarArg<T>, Scalar<T>&);                                                 \
  template void copy<T>(const Queue&, const Vector<T>&, Vector<T>&);                                             \
  template void scal<T>(const Queue&, ScalarArg<T>, Vector<T>&);                                                 \
  template void axpy<T>(const Queue&, ScalarArg<T>, const Vector<T>&, Vector<T>&);                               \
  template void axpby<T>(const Queue&, ScalarArg<T>, const Vector<T>&, ScalarArg<T>, Vector<T>&);                \
  template void multiply<T>(const Queue&, const Vector<T>&, const Vector<T>&, Vector<T>&);                       \
  template void divide<T>(const Queue&, const Vector<T>&, const Vector<T>&, Vector<T>&);                         \
  template void reciprocal<T>(const Queue&, const Vector<T>&, Vector<T>&);                                       \
  template void axpby_dot<T>(const Queue&, ScalarArg<T>, const Vector<T>&, ScalarArg<T>, Vector<T>&,             \
                             const Vector<T>&, Scalar<T>&);                                                      \
  template void dot2<T>(const Queue&, const Vector<T>&, const Vector<T>&, const Vector<T>&, Scalar<T>&,          \
                        Scalar<T>&);                                                                             \
  template void multiply_dot2<T>(const Queue&, const Vector<T>&, const Vector<T>&, Vector<T>&, Scalar<T>&,       \
                                 Scalar<T>&);                                                                    \
  template void multiply_dot2<T>(const Vector<T>&, const Vector<T>&, Vector<T>&, Scalar<T>&, Scalar<T>&);        \
  template void axpby_pair<T>(const Queue&, ScalarArg<T>, const Vector<T>&, ScalarArg<T>, Vector<T>&, ScalarArg<T>, \
                              const Vector<T>&, ScalarArg<T>, Vector<T>&);                                       \
  template void axpby_pair<T>(ScalarArg<T>, const Vector<T>&, ScalarArg<T>, Vector<T>&, ScalarArg<T>,             \
                              const Vector<T>&, ScalarArg<T>, Vector<T>&);                                       \
  template void axpy_multiply_dot2<T>(const Queue&, ScalarArg<T>, const Vector<T>&, const Vector<T>&, Vector<T>&,  \
                                      Vector<T>&, Scalar<T>&, Scalar<T>&);                                       \
  template void axpy_multiply_dot2<T>(ScalarArg<T>, const Vector<T>&, const Vector<T>&, Vector<T>&, Vector<T>&,    \
                                      Scalar<T>&, Scalar<T>&);                                                   \
  template void fill<T>(ScalarArg<T>, Vector<T>&);                                                               \
  template void copy<T>(const Vector<T>&, Vector<T>&);                                                           \
  template void scal<T>(ScalarArg<T>, Vector<T>&);                                                               \
  template void axpy<T>(ScalarArg<T>, const Vector<T>&, Vector<T>&);                                             \
  template void axpby<T>(ScalarArg<T>, const Vector<T>&, ScalarArg<T>, Vector<T>&);                              \
  template void multiply<T>(const Vector<T>&, const Vector<T>&, Vector<T>&);                                     \
  template void divide<T>(const Vector<T>&, const Vector<T>&, Vector<T>&);                                       \
  template void reciprocal<T>(const Vector<T>&, Vector<T>&);                                                     \
  template void axpby_dot<T>(ScalarArg<T>, const Vector<T>&, ScalarArg<T>, Vector<T>&, const Vector<T>&,         \
                             Scalar<T>&);                                                                        \
  template void dot2<T>(const Vector<T>&, const Vector<T>&, const Vector<T>&, Scalar<T>&, Scalar<T>&);

TESSERA_INSTANTIATE_ALGEBRA(float)
TESSERA_INSTANTIATE_ALGEBRA(double)

}  // namespace tessera
