/// \file
/// The vector algebra of tessera/algebra.hpp on distributed vectors. Element-wise operations
/// (fill, copy, scal, axpy, axpby, multiply, divide, reciprocal) run on each rank's block and do
/// not communicate; operands must share one partition (DimensionMismatch otherwise, on every
/// rank: the partitions are known everywhere). Reductions (dot, norm2, reduce, axpby_dot, dot2)
/// are collective: a local reduction on the device, then the partial values of all ranks are
/// gathered and summed in rank order on every rank (so every rank holds the same bits, whatever
/// the MPI library's reduction order), and written to the Scalar on this rank's device. An
/// error on any rank is thrown on every rank; where it comes from a rank's own operands
/// (devices), the other ranks may already have done their local part (axpby_dot's update).
#pragma once

#include "tessera/algebra.hpp"
#include "tessera/mpi/dist_vector.hpp"

namespace tessera::mpi {

using tessera::detail::same_t;

/// Element-wise, as in tessera/algebra.hpp, on every rank's block.
///@{
template <class T>
void fill(const Queue& q, same_t<ScalarArg<T>> value, DistVector<T>& y);
template <class T>
void copy(const Queue& q, const DistVector<T>& x, DistVector<T>& y);
template <class T>
void scal(const Queue& q, same_t<ScalarArg<T>> alpha, DistVector<T>& x);
template <class T>
void axpy(const Queue& q, same_t<ScalarArg<T>> alpha, const DistVector<T>& x, DistVector<T>& y);
template <class T>
void axpby(const Queue& q, same_t<ScalarArg<T>> alpha, const DistVector<T>& x, same_t<ScalarArg<T>> beta,
           DistVector<T>& y);
template <class T>
void multiply(const Queue& q, const DistVector<T>& x, const DistVector<T>& y, DistVector<T>& z);
template <class T>
void divide(const Queue& q, const DistVector<T>& x, const DistVector<T>& y, DistVector<T>& z);
template <class T>
void reciprocal(const Queue& q, const DistVector<T>& x, DistVector<T>& z);
template <class T>
void axpby_pair(const Queue& q, same_t<ScalarArg<T>> a1, const DistVector<T>& x1, same_t<ScalarArg<T>> b1,
                DistVector<T>& y1, same_t<ScalarArg<T>> a2, const DistVector<T>& x2, same_t<ScalarArg<T>> b2,
                DistVector<T>& y2);
///@}

/// Collective reductions into a Scalar on this rank's device (the same value on every rank).
/// reduce: min and max ignore empty ranks and throw InvalidArgument (on every rank) for an
/// empty global vector; the rest give 0 for it.
///@{
template <class T>
void reduce(const Queue& q, ReduceOp op, const DistVector<T>& x, Scalar<T>& out);
template <class T>
void dot(const Queue& q, const DistVector<T>& x, const DistVector<T>& y, Scalar<T>& out);
template <class T>
void norm2(const Queue& q, const DistVector<T>& x, Scalar<T>& out) {
  reduce(q, ReduceOp::norm2, x, out);
}
template <class T>
void axpby_dot(const Queue& q, same_t<ScalarArg<T>> alpha, const DistVector<T>& x, same_t<ScalarArg<T>> beta,
               DistVector<T>& y, const DistVector<T>& w, Scalar<T>& out);
template <class T>
void dot2(const Queue& q, const DistVector<T>& x, const DistVector<T>& y, const DistVector<T>& z, Scalar<T>& out_xy,
          Scalar<T>& out_xz);
template <class T>
void multiply_dot2(const Queue& q, const DistVector<T>& d, const DistVector<T>& r, DistVector<T>& z,
                   Scalar<T>& out_rz, Scalar<T>& out_rr);
template <class T>
void axpy_multiply_dot2(const Queue& q, same_t<ScalarArg<T>> alpha, const DistVector<T>& x, const DistVector<T>& d,
                        DistVector<T>& r, DistVector<T>& z, Scalar<T>& out_rz, Scalar<T>& out_rr);
///@}

/// The largest of `seconds` over the ranks (collective): the solvers' check interval is chosen
/// from it, so every rank checks at the same iterations (a solver-space hook).
template <class T>
double agreed_seconds(const DistVector<T>& v, double seconds);

}  // namespace tessera::mpi
