/// \file
/// The operations. Each checks its arguments (shapes, one device for all operands) and
/// throws a typed error before anything is written; then the operands' device runs it.
/// Implemented for T = float and T = double.
///
/// Every operation has a form taking a Queue first: it is enqueued there and returns without
/// waiting for the device (only the value-returning reductions wait, for their value). The
/// forms without a queue run on the device's default queue. Scalar arguments (alpha, beta)
/// take their type from the containers: `spmv(1.0, A_float, x, 0.0, y)` converts.
///
/// Enumerations (Trans, Uplo, Diag, ReduceOp, ConvMode, MathMode) outside their declared values throw
/// InvalidArgument in every operation.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "tessera/algebra.hpp"
#include "tessera/csr_matrix.hpp"
#include "tessera/dense_matrix.hpp"
#include "tessera/grid.hpp"
#include "tessera/queue.hpp"
#include "tessera/stencil.hpp"
#include "tessera/tensor.hpp"
#include "tessera/types.hpp"
#include "tessera/vector.hpp"

namespace tessera {

// ---- reduce ----
/// Reduces x with `op`. Accurate for long float inputs (tree order, not one running float sum).
/// sum, sum_squares and max_abs of an empty vector are 0; min and max of an empty vector throw
/// InvalidArgument. When x holds a NaN, min/max/max_abs are unspecified (the reference returns
/// NaN; SIMD backends may return NaN or ignore it).
template <class T>
T reduce(ReduceOp op, const Vector<T>& x);
/// The dot product of x and y (same size), accurate as reduce.
template <class T>
T dot(const Vector<T>& x, const Vector<T>& y);
/// reduce and dot after the work queued so far on q (a host wait). To keep the result on the
/// device, pass a Scalar (algebra.hpp).
///@{
template <class T>
T reduce(const Queue& q, ReduceOp op, const Vector<T>& x);
template <class T>
T dot(const Queue& q, const Vector<T>& x, const Vector<T>& y);
///@}

/// reduce(ReduceOp::sum, x), and likewise for min, max, sum_squares and max_abs.
///@{
template <class T>
T sum(const Vector<T>& x) { return reduce(ReduceOp::sum, x); }
template <class T>
T min(const Vector<T>& x) { return reduce(ReduceOp::min, x); }
template <class T>
T max(const Vector<T>& x) { return reduce(ReduceOp::max, x); }
template <class T>
T sum_squares(const Vector<T>& x) { return reduce(ReduceOp::sum_squares, x); }
template <class T>
T max_abs(const Vector<T>& x) { return reduce(ReduceOp::max_abs, x); }
///@}

// ---- sparse matrix-vector product ----
/// y = alpha * A * x + beta * y. With beta == 0, y is only written. alpha == 0 is not a special
/// case: A and x are still read (in BLAS terms, the formula is computed literally). Duplicate
/// entries of a row (CSR allows them) each add their product. x and y must be different vectors.
template <class T>
void spmv(detail::same_t<T> alpha, const CsrMatrix<T>& A, const Vector<T>& x, detail::same_t<T> beta, Vector<T>& y);
/// spmv on q.
template <class T>
void spmv(const Queue& q, detail::same_t<T> alpha, const CsrMatrix<T>& A, const Vector<T>& x, detail::same_t<T> beta,
          Vector<T>& y);

/// y = alpha * A * x + beta * y, then out = w . y over the updated y, on the device: CG's A p
/// and p . Ap. Where the backend fuses them (cpu: the dot of each thread's rows right after their
/// product, while they are in cache) y is read once less; elsewhere it is spmv, then dot. The
/// checks of both: shapes (DimensionMismatch), one device, y sharing storage with x or w
/// (InvalidArgument; w may be x). An empty A gives out = 0.
template <class T>
void spmv_dot(const Queue& q, detail::same_t<T> alpha, const CsrMatrix<T>& A, const Vector<T>& x,
              detail::same_t<T> beta, Vector<T>& y, const Vector<T>& w, Scalar<T>& out);

/// What spmv runs for A on A's device: the storage and kernel its plan chooses from the row
/// statistics and the device's tuning (spmv.format and friends, TESSERA_TUNE overrides them),
/// e.g. "csr/vector(8)", "csr/merge" or "sell(C=32, sigma=256, padding 2.0%)"; "csr" where the
/// backend has a single kernel (the reference). May build the matrix's SELL layout (once per
/// matrix, as the first spmv would). InvalidArgument for an empty (default-constructed) matrix.
template <class T>
std::string spmv_kernel(const CsrMatrix<T>& A);

/// Y = alpha * A * X + beta * Y: the sparse matrix times k dense columns at once (multiple
/// right-hand sides), X (A.cols() x k) and Y (A.rows() x k) row-major with any leading
/// dimension and offset (DenseMatrix::block). Each column of Y is what spmv computes with the
/// same column of X, each row's products summed in the order stored. With beta == 0, Y is
/// only written; alpha == 0 is not a special case. X and Y must not share storage
/// (InvalidArgument); shapes that do not match throw DimensionMismatch. The kernels are tuned
/// for k = 1..64; larger k works, in chunks.
template <class T>
void spmm(detail::same_t<T> alpha, const CsrMatrix<T>& A, const DenseMatrix<T>& X, detail::same_t<T> beta,
          DenseMatrix<T>& Y);
/// spmm on q.
template <class T>
void spmm(const Queue& q, detail::same_t<T> alpha, const CsrMatrix<T>& A, const DenseMatrix<T>& X,
          detail::same_t<T> beta, DenseMatrix<T>& Y);

/// y = alpha * A^T * x + beta * y, as spmv with the transpose: A.transposed() is built on the
/// host at the first call (a host wait) and kept with the matrix; later calls cost one spmv.
/// x has A.rows() and y A.cols() elements (DimensionMismatch otherwise, checked first).
template <class T>
void spmv_transposed(detail::same_t<T> alpha, const CsrMatrix<T>& A, const Vector<T>& x, detail::same_t<T> beta,
                     Vector<T>& y);
/// spmv_transposed on q.
template <class T>
void spmv_transposed(const Queue& q, detail::same_t<T> alpha, const CsrMatrix<T>& A, const Vector<T>& x,
                     detail::same_t<T> beta, Vector<T>& y);

// ---- dense triangular solves ----
/// Solve op(A) x = b in place: x holds b on entry and the solution on return. A is n x n; only
/// the triangle named by uplo is read. A zero on the diagonal (Diag::non_unit) is not checked,
/// as in BLAS: the result then holds inf/NaN.
template <class T>
void trsv(Uplo uplo, Trans trans, Diag diag, const DenseMatrix<T>& A, Vector<T>& x);
/// trsv on q.
template <class T>
void trsv(const Queue& q, Uplo uplo, Trans trans, Diag diag, const DenseMatrix<T>& A, Vector<T>& x);
/// Solve op(A) X = alpha * B for n x nrhs B, in place (B holds X on return). With alpha == 0,
/// X = 0 as in BLAS, on every device: A and B are not read (NaN/Inf in them do not propagate).
template <class T>
void trsm(Uplo uplo, Trans trans, Diag diag, detail::same_t<T> alpha, const DenseMatrix<T>& A, DenseMatrix<T>& B);
/// trsm on q.
template <class T>
void trsm(const Queue& q, Uplo uplo, Trans trans, Diag diag, detail::same_t<T> alpha, const DenseMatrix<T>& A,
          DenseMatrix<T>& B);

// ---- sparse triangular solve ----
/// What sptrsv_analyze returns: the matrix and the backend's analysis of it, for sptrsv_solve.
/// The analysis (level sets, diagonal positions, ...) is done once and reused by every solve.
/// It uses the triangle of A named by uplo and ignores the rest; with Diag::unit the diagonal is
/// taken as 1 and stored diagonal entries are ignored too. With Diag::non_unit a missing
/// or zero diagonal entry makes the matrix singular: sptrsv_analyze throws InvalidArgument
/// naming the row (rows counted from 0), so solves never divide by zero.
template <class T>
class SptrsvPlan {
 public:
  SptrsvPlan() = default;  ///< an empty plan; sptrsv_analyze gives a usable one
  Uplo uplo() const { return uplo_; }                ///< the triangle analysed
  Diag diag() const { return diag_; }                ///< unit or non-unit diagonal
  const CsrMatrix<T>& matrix() const { return A_; }  ///< the analysed matrix
  const SptrsvPlanData& data() const { return *data_; }  ///< the backend's analysis
  /// The matrix's CsrMatrix::values_version at the analysis (the plan holds those values).
  std::uint64_t values_version() const { return values_version_; }
  explicit operator bool() const { return data_ != nullptr; }  ///< false for an empty plan

 private:
  template <class U>
  friend SptrsvPlan<U> sptrsv_analyze(const Queue&, Uplo, Diag, const CsrMatrix<U>&);
  CsrMatrix<T> A_;  // shares the matrix's storage: the plan keeps it alive
  std::uint64_t values_version_ = 0;  // A_'s at analysis: the plan copies the values
  Uplo uplo_ = Uplo::lower;
  Diag diag_ = Diag::non_unit;
  std::shared_ptr<SptrsvPlanData> data_;
};

/// Analyses the triangle `uplo` of A once for any number of solves (see SptrsvPlan); throws
/// InvalidArgument naming the first singular row with Diag::non_unit.
template <class T>
SptrsvPlan<T> sptrsv_analyze(Uplo uplo, Diag diag, const CsrMatrix<T>& A);
/// sptrsv_analyze on q (the analysis may wait for the device: it returns a verdict).
template <class T>
SptrsvPlan<T> sptrsv_analyze(const Queue& q, Uplo uplo, Diag diag, const CsrMatrix<T>& A);
/// Solve A x = b with the plan's matrix. x may be the same vector as b. Throws InvalidArgument
/// when the matrix's values were replaced (CsrMatrix::update_values) after the analysis.
template <class T>
void sptrsv_solve(const SptrsvPlan<T>& plan, const Vector<T>& b, Vector<T>& x);
/// sptrsv_solve on q (any queue of the plan's device).
template <class T>
void sptrsv_solve(const Queue& q, const SptrsvPlan<T>& plan, const Vector<T>& b, Vector<T>& x);

// ---- gemm ----
/// C = alpha * op(A) * op(B) + beta * C. With beta == 0, C is only written. With alpha == 0 (or
/// k == 0), as in BLAS and on every device, C = beta * C and A and B are not read (NaN/Inf in
/// them do not reach C).
template <class T>
void gemm(Trans ta, Trans tb, detail::same_t<T> alpha, const DenseMatrix<T>& A, const DenseMatrix<T>& B,
          detail::same_t<T> beta, DenseMatrix<T>& C);
/// gemm on q. f32 products run in q's math mode (Queue::set_math_mode; exact unless set).
template <class T>
void gemm(const Queue& q, Trans ta, Trans tb, detail::same_t<T> alpha, const DenseMatrix<T>& A,
          const DenseMatrix<T>& B, detail::same_t<T> beta, DenseMatrix<T>& C);
/// gemm with the math mode `math` (types.hpp: exact, tf32, tf32x3) for this call, whatever the
/// queue's. For f64 only MathMode::exact is accepted (InvalidArgument otherwise, nothing written).
///@{
template <class T>
void gemm(Trans ta, Trans tb, detail::same_t<T> alpha, const DenseMatrix<T>& A, const DenseMatrix<T>& B,
          detail::same_t<T> beta, DenseMatrix<T>& C, MathMode math);
template <class T>
void gemm(const Queue& q, Trans ta, Trans tb, detail::same_t<T> alpha, const DenseMatrix<T>& A,
          const DenseMatrix<T>& B, detail::same_t<T> beta, DenseMatrix<T>& C, MathMode math);
///@}

// ---- stencil ----
/// `steps` time steps of the star stencil with coefficients c[0] (centre), c[1..r] (distance d
/// along each axis), r = coeffs.size() - 1 in 1..4, applied to u in place. Cells within r of a
/// face are fixed boundary values.
template <class T>
void stencil(const std::vector<T>& coeffs, Grid<T>& u, int steps);
/// stencil on q.
template <class T>
void stencil(const Queue& q, const std::vector<T>& coeffs, Grid<T>& u, int steps);
/// `steps` time steps of the general star stencil `s` (per-axis coefficients, a boundary kind
/// per face, a source; semantics in StarStencil, stencil.hpp), applied to u in place. Throws
/// InvalidArgument (nothing written) for coefficient counts that do not match the grid, a
/// radius outside 1..4, a face outside StencilBoundary, one periodic face of an axis without
/// the other, a neumann or periodic face on an axis shorter than the radius, or steps < 0.
/// `stencil(coeffs, u, steps)` is the isotropic all-Dirichlet case without a source.
template <class T>
void stencil(const StarStencil<T>& s, Grid<T>& u, int steps);
/// stencil with a StarStencil, on q.
template <class T>
void stencil(const Queue& q, const StarStencil<T>& s, Grid<T>& u, int steps);

// ---- convolution ----
/// 2D single-channel cross-correlation of image (H x W) with a K x K filter; see ConvMode for
/// the output size. out must have exactly that size.
template <class T>
void conv2d(ConvMode mode, const DenseMatrix<T>& image, const DenseMatrix<T>& filter, DenseMatrix<T>& out);
/// conv2d on q.
template <class T>
void conv2d(const Queue& q, ConvMode mode, const DenseMatrix<T>& image, const DenseMatrix<T>& filter,
            DenseMatrix<T>& out);
/// CNN layer forward pass: in N x C x H x W, filter K x C x R x S, out N x K x P x Q with
/// P = (H + 2 pad_h - R) / stride_h + 1 and Q likewise (see conv_output_size); a cross-correlation
/// (no filter flip). Accuracy: the direct sum's bound for C R S terms (types.hpp, per math mode),
/// except that a backend may run a 3 x 3 layer with stride 1 as Winograd's F(2 x 2, 3 x 3) or
/// F(4 x 4, 3 x 3), whose bound is the larger one of tessera/winograd.hpp (CUDA does by default
/// where C and K are 16 or more; TESSERA_TUNE=cuda:conv_layer.winograd=0 keeps the direct sum).
template <class T>
void conv_layer(const ConvParams& params, const Tensor4<T>& in, const Tensor4<T>& filter, Tensor4<T>& out);
/// conv_layer on q. f32 layers run in q's math mode (Queue::set_math_mode; exact unless set).
template <class T>
void conv_layer(const Queue& q, const ConvParams& params, const Tensor4<T>& in, const Tensor4<T>& filter,
                Tensor4<T>& out);
/// conv_layer with the math mode `math` for this call, as gemm's overloads with a MathMode.
///@{
template <class T>
void conv_layer(const ConvParams& params, const Tensor4<T>& in, const Tensor4<T>& filter, Tensor4<T>& out,
                MathMode math);
template <class T>
void conv_layer(const Queue& q, const ConvParams& params, const Tensor4<T>& in, const Tensor4<T>& filter,
                Tensor4<T>& out, MathMode math);
///@}

/// Output extent of one axis of a strided, padded convolution; throws InvalidArgument when the
/// output would be empty or a parameter is out of range.
std::int64_t conv_output_size(std::int64_t in, std::int64_t filter, std::int64_t pad, std::int64_t stride);

}  // namespace tessera
