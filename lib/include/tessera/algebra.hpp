/// \file
/// Vector algebra: fill, copy, scal, axpy, axpby, element-wise products, norms and dots into
/// device scalars, and the fused steps of Krylov methods. Every function has a form taking a
/// Queue first (enqueued there, returning without waiting for the device) and one without (the
/// device's default queue). Coefficients are ScalarArg<T>: a host value, a Scalar<T> read on the
/// device, or products and quotients of them (`rz / pq`). They deduce their type from the
/// vectors, so `axpy(2.0, x_float, y_float)` converts.
///
/// Shapes must match (DimensionMismatch), every operand and Scalar must live on the queue's
/// device (DeviceMismatch); an output may be the same vector as an input only where a function
/// says so, and never a partly overlapping view of it (InvalidArgument). Implemented for float
/// and double.
#pragma once

#include <cstdint>

#include "tessera/queue.hpp"
#include "tessera/scalar.hpp"
#include "tessera/types.hpp"
#include "tessera/vector.hpp"

namespace tessera {

namespace detail {
template <class T>
struct identity {
  using type = T;
};
/// T in a non-deduced context: scalar arguments take their type from the containers.
template <class T>
using same_t = typename identity<T>::type;
}  // namespace detail

/// y[i] = value for every element.
template <class T>
void fill(const Queue& q, detail::same_t<ScalarArg<T>> value, Vector<T>& y);
/// s = value: sets a Scalar from a coefficient on the device (e.g. beta = rz_new / rz).
template <class T>
void fill(const Queue& q, detail::same_t<ScalarArg<T>> value, Scalar<T>& s);
/// y = x (device to device; x and y must not overlap). To copy across queues, order them with
/// an event.
template <class T>
void copy(const Queue& q, const Vector<T>& x, Vector<T>& y);
/// y = x converted between f64 and f32 on the device (one pass; the mixed-precision
/// preconditioners' step between the solve's and the factors' precision). Each element is
/// rounded to nearest, ties to even, on every device: what `static_cast<float>(double)` gives on
/// IEEE hardware, so a finite value beyond f32's range becomes +-inf and NaN stays NaN; f32 to
/// f64 is exact. Errors, with nothing written: DimensionMismatch (sizes differ), DeviceMismatch
/// (x, y and q not on one device), InvalidArgument (an empty operand, or x and y overlapping
/// bytes of one storage), NotImplemented on a device without f64 (OpenCL without cl_khr_fp64).
///@{
void copy(const Queue& q, const Vector<double>& x, Vector<float>& y);
void copy(const Queue& q, const Vector<float>& x, Vector<double>& y);
///@}
/// x = alpha * x.
template <class T>
void scal(const Queue& q, detail::same_t<ScalarArg<T>> alpha, Vector<T>& x);
/// y = alpha * x + y.
template <class T>
void axpy(const Queue& q, detail::same_t<ScalarArg<T>> alpha, const Vector<T>& x, Vector<T>& y);
/// y = alpha * x + beta * y; with beta a host 0, y is only written (NaN in it does not
/// propagate), as BLAS's beta == 0.
template <class T>
void axpby(const Queue& q, detail::same_t<ScalarArg<T>> alpha, const Vector<T>& x, detail::same_t<ScalarArg<T>> beta,
           Vector<T>& y);
/// z = x * y element-wise (z may be x or y).
template <class T>
void multiply(const Queue& q, const Vector<T>& x, const Vector<T>& y, Vector<T>& z);
/// z = x / y element-wise (z may be x or y).
template <class T>
void divide(const Queue& q, const Vector<T>& x, const Vector<T>& y, Vector<T>& z);
/// z = 1 / x element-wise (z may be x).
template <class T>
void reciprocal(const Queue& q, const Vector<T>& x, Vector<T>& z);

/// out = the reduction of x (see reduce in ops.hpp), on the device. min and max of an empty
/// vector throw InvalidArgument; the rest give 0.
template <class T>
void reduce(const Queue& q, ReduceOp op, const Vector<T>& x, Scalar<T>& out);
/// out = x . y, on the device.
template <class T>
void dot(const Queue& q, const Vector<T>& x, const Vector<T>& y, Scalar<T>& out);
/// out = ||x||_2, on the device.
template <class T>
void norm2(const Queue& q, const Vector<T>& x, Scalar<T>& out) {
  reduce(q, ReduceOp::norm2, x, out);
}
/// ||x||_2, brought to the host (a host wait).
template <class T>
T norm2(const Vector<T>& x);

/// y = alpha * x + beta * y, then out = y . w, in one pass (w may be y: out = ||y||^2; x may
/// be y). A Krylov method's residual update and its norm.
template <class T>
void axpby_dot(const Queue& q, detail::same_t<ScalarArg<T>> alpha, const Vector<T>& x,
               detail::same_t<ScalarArg<T>> beta, Vector<T>& y, const Vector<T>& w, Scalar<T>& out);
/// out_xy = x . y and out_xz = x . z in one pass over x (y or z may be x).
template <class T>
void dot2(const Queue& q, const Vector<T>& x, const Vector<T>& y, const Vector<T>& z, Scalar<T>& out_xy,
          Scalar<T>& out_xz);
/// z = d .* r (element-wise), then out_rz = r . z and out_rr = r . r, in one pass: a diagonal
/// (Jacobi) preconditioner's z = M^-1 r with both dots CG needs after it, reading d and r once
/// instead of three times. z must not overlap d or r (InvalidArgument).
template <class T>
void multiply_dot2(const Queue& q, const Vector<T>& d, const Vector<T>& r, Vector<T>& z, Scalar<T>& out_rz,
                   Scalar<T>& out_rr);
/// y1 = a1 * x1 + b1 * y1 and y2 = a2 * x2 + b2 * y2 in one pass: two axpbys for one launch,
/// element by element in that order, so y2 may be x1 (the first update reads x1's values from
/// before the call): CG's x += alpha p; p = z + beta p reads p once. x1 may be y1 and x2 may be
/// y2 (scal); y1 and y2 must not overlap, nor x2 and y1 (InvalidArgument), and every other pair
/// is the same vector or disjoint.
template <class T>
void axpby_pair(const Queue& q, detail::same_t<ScalarArg<T>> a1, const Vector<T>& x1, detail::same_t<ScalarArg<T>> b1,
                Vector<T>& y1, detail::same_t<ScalarArg<T>> a2, const Vector<T>& x2, detail::same_t<ScalarArg<T>> b2,
                Vector<T>& y2);
/// r = r + alpha * x, then multiply_dot2(d, r, z, out_rz, out_rr), in one pass: CG's residual
/// update with a Jacobi apply and both dots (r, z, x and d read once). r and z must not overlap
/// each other, x or d (InvalidArgument).
template <class T>
void axpy_multiply_dot2(const Queue& q, detail::same_t<ScalarArg<T>> alpha, const Vector<T>& x, const Vector<T>& d,
                        Vector<T>& r, Vector<T>& z, Scalar<T>& out_rz, Scalar<T>& out_rr);

/// The same on the default queue of the operands' device.
///@{
template <class T>
void fill(detail::same_t<ScalarArg<T>> value, Vector<T>& y);
template <class T>
void copy(const Vector<T>& x, Vector<T>& y);
void copy(const Vector<double>& x, Vector<float>& y);
void copy(const Vector<float>& x, Vector<double>& y);
template <class T>
void scal(detail::same_t<ScalarArg<T>> alpha, Vector<T>& x);
template <class T>
void axpy(detail::same_t<ScalarArg<T>> alpha, const Vector<T>& x, Vector<T>& y);
template <class T>
void axpby(detail::same_t<ScalarArg<T>> alpha, const Vector<T>& x, detail::same_t<ScalarArg<T>> beta, Vector<T>& y);
template <class T>
void multiply(const Vector<T>& x, const Vector<T>& y, Vector<T>& z);
template <class T>
void divide(const Vector<T>& x, const Vector<T>& y, Vector<T>& z);
template <class T>
void reciprocal(const Vector<T>& x, Vector<T>& z);
template <class T>
void dot(const Vector<T>& x, const Vector<T>& y, Scalar<T>& out);
template <class T>
void axpby_dot(detail::same_t<ScalarArg<T>> alpha, const Vector<T>& x, detail::same_t<ScalarArg<T>> beta, Vector<T>& y,
               const Vector<T>& w, Scalar<T>& out);
template <class T>
void dot2(const Vector<T>& x, const Vector<T>& y, const Vector<T>& z, Scalar<T>& out_xy, Scalar<T>& out_xz);
template <class T>
void multiply_dot2(const Vector<T>& d, const Vector<T>& r, Vector<T>& z, Scalar<T>& out_rz, Scalar<T>& out_rr);
template <class T>
void axpby_pair(detail::same_t<ScalarArg<T>> a1, const Vector<T>& x1, detail::same_t<ScalarArg<T>> b1, Vector<T>& y1,
                detail::same_t<ScalarArg<T>> a2, const Vector<T>& x2, detail::same_t<ScalarArg<T>> b2, Vector<T>& y2);
template <class T>
void axpy_multiply_dot2(detail::same_t<ScalarArg<T>> alpha, const Vector<T>& x, const Vector<T>& d, Vector<T>& r,
                        Vector<T>& z, Scalar<T>& out_rz, Scalar<T>& out_rr);
///@}

}  // namespace tessera
