/// \file
/// The operations of the Backend interface, each signature written once as a macro, so the typed
/// adapter (typed_backend.hpp), every backend's declarations and every explicit instantiation
/// derive from the same text. An entry reads: Op, return type, name, (parameters after the
/// DType), (argument names). Backend (backend.hpp) declares the same methods by hand, with their
/// documentation; a mismatch fails to compile (TypedBackend's overrides are marked final).
#pragma once

/// One entry per Backend operation: Op, R, name, (params), (args), as described above. The first
/// parameter of every operation is the queue it is ordered on, `QueueImpl& q`.
///@{
#define TESSERA_OP_reduce \
  Op::reduce, void, reduce, (QueueImpl & q, ReduceOp op, const VecView& x, const VecView& out), (q, op, x, out)
#define TESSERA_OP_dot \
  Op::dot, void, dot, (QueueImpl & q, const VecView& x, const VecView& y, const VecView& out), (q, x, y, out)
#define TESSERA_OP_spmv                                                                                         \
  Op::spmv, void, spmv,                                                                                         \
      (QueueImpl & q, double alpha, const CsrView& A, const VecView& x, double beta, const VecView& y), \
      (q, alpha, A, x, beta, y)
#define TESSERA_OP_spmm                                                                                         \
  Op::spmm, void, spmm,                                                                                         \
      (QueueImpl & q, double alpha, const CsrView& A, const MatView& X, double beta, const MatView& Y),    \
      (q, alpha, A, X, beta, Y)
#define TESSERA_OP_trsv                                                                                          \
  Op::trsv, void, trsv, (QueueImpl & q, Uplo uplo, Trans trans, Diag diag, const MatView& A, const VecView& x), \
      (q, uplo, trans, diag, A, x)
#define TESSERA_OP_trsm                                                                                  \
  Op::trsm, void, trsm,                                                                                  \
      (QueueImpl & q, Uplo uplo, Trans trans, Diag diag, double alpha, const MatView& A, const MatView& B), \
      (q, uplo, trans, diag, alpha, A, B)
#define TESSERA_OP_sptrsv_analyze                                                                           \
  Op::sptrsv, std::shared_ptr<SptrsvPlanData>, sptrsv_analyze, (QueueImpl & q, Uplo uplo, Diag diag, const CsrView& A), \
      (q, uplo, diag, A)
#define TESSERA_OP_sptrsv_solve                                                                                 \
  Op::sptrsv, void, sptrsv_solve,                                                                               \
      (QueueImpl & q, const SptrsvPlanData& plan, const CsrView& A, const VecView& b, const VecView& x),     \
      (q, plan, A, b, x)
#define TESSERA_OP_gemm                                                                                          \
  Op::gemm, void, gemm,                                                                                          \
      (QueueImpl & q, Trans ta, Trans tb, double alpha, const MatView& A, const MatView& B, double beta,        \
       const MatView& C, MathMode math),                                                                         \
      (q, ta, tb, alpha, A, B, beta, C, math)
#define TESSERA_OP_stencil                                                                                     \
  Op::stencil, void, stencil, (QueueImpl & q, const StencilSpec& spec, const GridView& u, int steps), \
      (q, spec, u, steps)
#define TESSERA_OP_conv2d                                                                                       \
  Op::conv2d, void, conv2d,                                                                                     \
      (QueueImpl & q, ConvMode mode, const MatView& image, const MatView& filter, const MatView& out),        \
      (q, mode, image, filter, out)
#define TESSERA_OP_conv_layer                                                                                   \
  Op::conv_layer, void, conv_layer,                                                                             \
      (QueueImpl & q, const ConvParams& p, const TensorView& in, const TensorView& filter, const TensorView& out, \
       MathMode math),                                                                                          \
      (q, p, in, filter, out, math)
#define TESSERA_OP_fill Op::vector, void, fill, (QueueImpl & q, const Coef& value, const VecView& y), (q, value, y)
#define TESSERA_OP_axpby                                                                                    \
  Op::vector, void, axpby, (QueueImpl & q, const Coef& alpha, const VecView& x, const Coef& beta, const VecView& y), \
      (q, alpha, x, beta, y)
#define TESSERA_OP_elementwise                                                                              \
  Op::vector, void, elementwise,                                                                            \
      (QueueImpl & q, ElementwiseOp op, const VecView& x, const VecView& y, const VecView& z), (q, op, x, y, z)
#define TESSERA_OP_axpby_dot                                                                                \
  Op::vector, void, axpby_dot,                                                                              \
      (QueueImpl & q, const Coef& alpha, const VecView& x, const Coef& beta, const VecView& y, const VecView& w, \
       const VecView& out),                                                                                 \
      (q, alpha, x, beta, y, w, out)
#define TESSERA_OP_dot2                                                                                     \
  Op::vector, void, dot2,                                                                                   \
      (QueueImpl & q, const VecView& x, const VecView& y, const VecView& z, const VecView& out_xy,           \
       const VecView& out_xz),                                                                              \
      (q, x, y, z, out_xy, out_xz)
#define TESSERA_OP_multiply_dot2                                                                            \
  Op::vector, void, multiply_dot2,                                                                          \
      (QueueImpl & q, const VecView& d, const VecView& r, const VecView& z, const VecView& out_rz,          \
       const VecView& out_rr),                                                                              \
      (q, d, r, z, out_rz, out_rr)
#define TESSERA_OP_axpby_pair                                                                               \
  Op::vector, void, axpby_pair,                                                                             \
      (QueueImpl & q, const Coef& a1, const VecView& x1, const Coef& b1, const VecView& y1, const Coef& a2,    \
       const VecView& x2, const Coef& b2, const VecView& y2),                                               \
      (q, a1, x1, b1, y1, a2, x2, b2, y2)
#define TESSERA_OP_axpy_multiply_dot2                                                                       \
  Op::vector, void, axpy_multiply_dot2,                                                                     \
      (QueueImpl & q, const Coef& alpha, const VecView& x, const VecView& d, const VecView& r, const VecView& z, \
       const VecView& out_rz, const VecView& out_rr),                                                       \
      (q, alpha, x, d, r, z, out_rz, out_rr)
#define TESSERA_OP_convert \
  Op::vector, void, convert, (QueueImpl & q, const VecView& x, const VecView& y), (q, x, y)
///@}

// Helpers: expand an entry into a macro's five arguments; strip a parameter list's parentheses.
#define TESSERA_APPLY_(M, ...) M(__VA_ARGS__)
#define TESSERA_UNPAREN_(...) __VA_ARGS__

/// X(Op, R, name, (params), (args)) for every operation.
#define TESSERA_FOR_EACH_BACKEND_OP(X)                                                                      \
  TESSERA_APPLY_(X, TESSERA_OP_reduce)                                                                     \
  TESSERA_APPLY_(X, TESSERA_OP_dot)                                                                        \
  TESSERA_APPLY_(X, TESSERA_OP_spmv)                                                                       \
  TESSERA_APPLY_(X, TESSERA_OP_spmm)                                                                       \
  TESSERA_APPLY_(X, TESSERA_OP_trsv)                                                                       \
  TESSERA_APPLY_(X, TESSERA_OP_trsm)                                                                       \
  TESSERA_APPLY_(X, TESSERA_OP_sptrsv_analyze)                                                             \
  TESSERA_APPLY_(X, TESSERA_OP_sptrsv_solve)                                                               \
  TESSERA_APPLY_(X, TESSERA_OP_gemm)                                                                       \
  TESSERA_APPLY_(X, TESSERA_OP_stencil)                                                                    \
  TESSERA_APPLY_(X, TESSERA_OP_conv2d)                                                                     \
  TESSERA_APPLY_(X, TESSERA_OP_conv_layer)                                                                 \
  TESSERA_APPLY_(X, TESSERA_OP_fill)                                                                       \
  TESSERA_APPLY_(X, TESSERA_OP_axpby)                                                                      \
  TESSERA_APPLY_(X, TESSERA_OP_elementwise)                                                                \
  TESSERA_APPLY_(X, TESSERA_OP_axpby_dot)                                                                  \
  TESSERA_APPLY_(X, TESSERA_OP_dot2)                                                                       \
  TESSERA_APPLY_(X, TESSERA_OP_multiply_dot2)                                                              \
  TESSERA_APPLY_(X, TESSERA_OP_axpby_pair)                                                                 \
  TESSERA_APPLY_(X, TESSERA_OP_axpy_multiply_dot2)                                                         \
  TESSERA_APPLY_(X, TESSERA_OP_convert)

/// \def TESSERA_TYPED_BACKEND_OPERATIONS
/// Inside a class derived from TypedBackend<Derived>: declares the typed operations
/// `template <class T> R name(params);` that the backend defines in its op files.
#define TESSERA_DECLARE_TYPED_OP_(OP, R, NAME, PARAMS, ARGS) \
  template <class T>                                         \
  R NAME PARAMS;
#define TESSERA_TYPED_BACKEND_OPERATIONS TESSERA_FOR_EACH_BACKEND_OP(TESSERA_DECLARE_TYPED_OP_)

/// \def TESSERA_INSTANTIATE_TYPED_OP
/// In the op file that defines B::name<T>: instantiates it for float and double, e.g.
/// `TESSERA_INSTANTIATE_TYPED_OP(CpuBackend, spmv)`.
#define TESSERA_INSTANTIATE_TYPED_OP_(B, OP, R, NAME, PARAMS, ARGS) \
  template R B::NAME<float> PARAMS;                                 \
  template R B::NAME<double> PARAMS;
#define TESSERA_INSTANTIATE_TYPED_OP_EXPAND_(B, ...) TESSERA_INSTANTIATE_TYPED_OP_(B, __VA_ARGS__)
#define TESSERA_INSTANTIATE_TYPED_OP(B, NAME) TESSERA_INSTANTIATE_TYPED_OP_EXPAND_(B, TESSERA_OP_##NAME)
