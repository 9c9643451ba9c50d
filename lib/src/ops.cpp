// The public operations: validate every argument (so backends can trust their views), then
// hand the call to the operands' device.
#include "tessera/ops.hpp"

#include <string>

#include "tessera/errors.hpp"

namespace tessera {

namespace {

std::string shape(std::int64_t r, std::int64_t c) { return std::to_string(r) + " x " + std::to_string(c); }

template <class A, class... Rest>
const Device& same_device(const char* op, const A& first, const Rest&... rest) {
  const Device& d = first.device();
  if (!d) throw InvalidArgument(std::string(op) + ": an operand is empty (default-constructed)");
  [[maybe_unused]] auto check = [&](const auto& other) {
    if (!other.device()) throw InvalidArgument(std::string(op) + ": an operand is empty (default-constructed)");
    if (other.device() != d)
      throw DeviceMismatch(std::string(op) + ": operands live on different devices (" + d.spec() + " and " +
                           other.device().spec() + "); move them to one device first");
  };
  (check(rest), ...);
  return d;
}

std::int64_t op_rows(Trans t, const MatView& m) { return t == Trans::N ? m.rows : m.cols; }
std::int64_t op_cols(Trans t, const MatView& m) { return t == Trans::N ? m.cols : m.rows; }

// The one domain check of every public enum (an out-of-range value cast from an integer would
// otherwise reach a backend that reads it as one of the valid values).
template <class E>
void check_enum(const char* op, const char* what, E value, E last) {
  if (static_cast<unsigned>(value) > static_cast<unsigned>(last))
    throw InvalidArgument(std::string(op) + ": " + what + " = " + std::to_string(static_cast<unsigned>(value)) +
                          " is not a valid value (expected 0.." + std::to_string(static_cast<unsigned>(last)) + ")");
}
void check_trans(const char* op, const char* what, Trans t) { check_enum(op, what, t, Trans::T); }
void check_triangle(const char* op, Uplo uplo, Diag diag) {
  check_enum(op, "uplo", uplo, Uplo::upper);
  check_enum(op, "diag", diag, Diag::unit);
}

// Outputs never share storage with an input they are computed from (BLAS's rule): the kernels
// read inputs while they write the output, so an aliased call would compute garbage. Two
// read-only inputs may be the same container. Handles compare allocations (views start at the
// beginning of theirs).
void check_not_aliased(const char* op, const char* out_name, const void* out, const char* in_name, const void* in) {
  if (out != nullptr && out == in)
    throw InvalidArgument(std::string(op) + ": the output " + out_name + " is the same container as the input " +
                          in_name + "; the output needs storage of its own");
}

// alpha == 0 in gemm and trsm, as BLAS defines it and on every device alike: C = beta * C and
// X = 0, with A and B not read (so NaN or Inf in them does not reach the result). Both run as
// the backend's gemm with an inner dimension of 0, which every backend computes as C = beta * C
// without touching A or B (beta == 0: C only written).
void scale_by_gemm(Backend& b, DType dt, double beta, const MatView& c) {
  if (beta == 1.0) return;  // C = C
  MatView a{c.data, c.rows, 0, c.ld}, bm{c.data, 0, c.cols, c.ld};
  b.gemm(dt, Trans::N, Trans::N, 0.0, a, bm, beta, c);
}

template <class T>
void check_square(const char* op, const DenseMatrix<T>& A) {
  if (A.rows() != A.cols())
    throw DimensionMismatch(std::string(op) + ": A is " + shape(A.rows(), A.cols()) + ", expected a square matrix");
}

}  // namespace

std::int64_t conv_output_size(std::int64_t in, std::int64_t filter, std::int64_t pad, std::int64_t stride) {
  if (in < 0 || filter < 1 || pad < 0 || stride < 1)
    throw InvalidArgument("conv: input " + std::to_string(in) + ", filter " + std::to_string(filter) + ", pad " +
                          std::to_string(pad) + ", stride " + std::to_string(stride) +
                          ": expected input >= 0, filter >= 1, pad >= 0, stride >= 1");
  if (in == 0) throw InvalidArgument("conv: the input extent is 0: the output would be empty");
  // in + 2 * pad must not overflow: no tensor extent comes near 2^62.
  constexpr std::int64_t kMaxExtent = std::int64_t{1} << 60;
  if (in > kMaxExtent || pad > kMaxExtent || filter > kMaxExtent)
    throw InvalidArgument("conv: input " + std::to_string(in) + ", filter " + std::to_string(filter) + ", pad " +
                          std::to_string(pad) + ": expected each below 2^60");
  const std::int64_t span = in + 2 * pad - filter;
  if (span < 0)
    throw InvalidArgument("conv: filter extent " + std::to_string(filter) + " exceeds the padded input extent " +
                          std::to_string(in + 2 * pad) + ": the output would be empty");
  return span / stride + 1;
}

template <class T>
T reduce(ReduceOp op, const Vector<T>& x) {
  const Device& d = same_device("reduce", x);
  check_enum("reduce", "op", op, ReduceOp::max_abs);
  if (x.size() == 0) {
    if (op == ReduceOp::min || op == ReduceOp::max)
      throw InvalidArgument(std::string("reduce ") + to_string(op) + ": the vector is empty, expected at least 1 element");
    return T(0);
  }
  return static_cast<T>(d.backend().reduce(dtype_v<T>, op, x.view()));
}

template <class T>
T dot(const Vector<T>& x, const Vector<T>& y) {
  const Device& d = same_device("dot", x, y);
  if (x.size() != y.size())
    throw DimensionMismatch("dot: x has " + std::to_string(x.size()) + " elements, y has " + std::to_string(y.size()));
  if (x.size() == 0) return T(0);
  return static_cast<T>(d.backend().dot(dtype_v<T>, x.view(), y.view()));
}

template <class T>
void spmv(T alpha, const CsrMatrix<T>& A, const Vector<T>& x, T beta, Vector<T>& y) {
  const Device& d = same_device("spmv", A, x, y);
  if (x.size() != A.cols() || y.size() != A.rows())
    throw DimensionMismatch("spmv: A is " + shape(A.rows(), A.cols()) + ", x has " + std::to_string(x.size()) +
                            " and y has " + std::to_string(y.size()) + " elements; expected x = cols, y = rows");
  if (x.view().data != nullptr && x.view().data == y.view().data)
    throw InvalidArgument("spmv: x and y are the same vector; the product needs a separate output vector");
  if (A.rows() == 0) return;
  d.backend().spmv(dtype_v<T>, alpha, A.view(), x.view(), beta, y.view());
}

template <class T>
void trsv(Uplo uplo, Trans trans, Diag diag, const DenseMatrix<T>& A, Vector<T>& x) {
  const Device& d = same_device("trsv", A, x);
  check_triangle("trsv", uplo, diag);
  check_trans("trsv", "trans", trans);
  check_square("trsv", A);
  if (x.size() != A.rows())
    throw DimensionMismatch("trsv: A is " + shape(A.rows(), A.cols()) + ", x has " + std::to_string(x.size()) +
                            " elements, expected " + std::to_string(A.rows()));
  if (A.rows() == 0) return;
  d.backend().trsv(dtype_v<T>, uplo, trans, diag, A.view(), x.view());
}

template <class T>
void trsm(Uplo uplo, Trans trans, Diag diag, T alpha, const DenseMatrix<T>& A, DenseMatrix<T>& B) {
  const Device& d = same_device("trsm", A, B);
  check_triangle("trsm", uplo, diag);
  check_trans("trsm", "trans", trans);
  check_square("trsm", A);
  if (B.rows() != A.rows())
    throw DimensionMismatch("trsm: A is " + shape(A.rows(), A.cols()) + ", B is " + shape(B.rows(), B.cols()) +
                            ", expected B with " + std::to_string(A.rows()) + " rows");
  check_not_aliased("trsm", "B", B.view().data, "A", A.view().data);
  if (B.rows() == 0 || B.cols() == 0) return;
  if (alpha == T(0)) return scale_by_gemm(d.backend(), dtype_v<T>, 0.0, B.view());
  d.backend().trsm(dtype_v<T>, uplo, trans, diag, alpha, A.view(), B.view());
}

template <class T>
SptrsvPlan<T> sptrsv_analyze(Uplo uplo, Diag diag, const CsrMatrix<T>& A) {
  const Device& d = same_device("sptrsv_analyze", A);
  check_triangle("sptrsv_analyze", uplo, diag);
  if (A.rows() != A.cols())
    throw DimensionMismatch("sptrsv_analyze: A is " + shape(A.rows(), A.cols()) + ", expected a square matrix");
  SptrsvPlan<T> plan;
  plan.A_ = A;
  plan.uplo_ = uplo;
  plan.diag_ = diag;
  plan.data_ = d.backend().sptrsv_analyze(dtype_v<T>, uplo, diag, A.view());
  if (!plan.data_) throw Error("sptrsv_analyze: backend " + d.spec() + " returned no plan");
  return plan;
}

template <class T>
void sptrsv_solve(const SptrsvPlan<T>& plan, const Vector<T>& b, Vector<T>& x) {
  if (!plan) throw InvalidArgument("sptrsv_solve: the plan is empty; call sptrsv_analyze first");
  const CsrMatrix<T>& A = plan.matrix();
  const Device& d = same_device("sptrsv_solve", A, b, x);
  if (b.size() != A.rows() || x.size() != A.rows())
    throw DimensionMismatch("sptrsv_solve: A is " + shape(A.rows(), A.cols()) + ", b has " + std::to_string(b.size()) +
                            " and x has " + std::to_string(x.size()) + " elements, expected " +
                            std::to_string(A.rows()));
  if (A.rows() == 0) return;
  d.backend().sptrsv_solve(dtype_v<T>, plan.data(), A.view(), b.view(), x.view());
}

template <class T>
void gemm(Trans ta, Trans tb, T alpha, const DenseMatrix<T>& A, const DenseMatrix<T>& B, T beta, DenseMatrix<T>& C) {
  const Device& d = same_device("gemm", A, B, C);
  check_trans("gemm", "ta", ta);
  check_trans("gemm", "tb", tb);
  const MatView a = A.view(), b = B.view(), c = C.view();
  const std::int64_t m = op_rows(ta, a), k = op_cols(ta, a), kb = op_rows(tb, b), n = op_cols(tb, b);
  if (k != kb || C.rows() != m || C.cols() != n)
    throw DimensionMismatch(std::string("gemm: op(A) is ") + shape(m, k) + ", op(B) is " + shape(kb, n) + ", C is " +
                            shape(C.rows(), C.cols()) + "; expected op(A) m x k, op(B) k x n, C m x n");
  check_not_aliased("gemm", "C", c.data, "A", a.data);
  check_not_aliased("gemm", "C", c.data, "B", b.data);
  if (m == 0 || n == 0) return;
  if (alpha == T(0)) return scale_by_gemm(d.backend(), dtype_v<T>, static_cast<double>(beta), c);
  d.backend().gemm(dtype_v<T>, ta, tb, alpha, a, b, beta, c);
}

template <class T>
void stencil(const std::vector<T>& coeffs, Grid<T>& u, int steps) {
  const Device& d = same_device("stencil", u);
  const int radius = static_cast<int>(coeffs.size()) - 1;
  if (radius < 1 || radius > StencilSpec::max_radius)
    throw InvalidArgument("stencil: " + std::to_string(coeffs.size()) +
                          " coefficients given, expected radius + 1 with radius 1..4 (2 to 5 coefficients)");
  if (steps < 0) throw InvalidArgument("stencil: steps = " + std::to_string(steps) + ", expected >= 0");
  if (steps == 0 || u.size() == 0) return;
  StencilSpec spec;
  spec.radius = radius;
  for (int i = 0; i <= radius; ++i) spec.coeffs[static_cast<std::size_t>(i)] = static_cast<double>(coeffs[static_cast<std::size_t>(i)]);
  d.backend().stencil(dtype_v<T>, spec, u.view(), steps);
}

template <class T>
void conv2d(ConvMode mode, const DenseMatrix<T>& image, const DenseMatrix<T>& filter, DenseMatrix<T>& out) {
  const Device& d = same_device("conv2d", image, filter, out);
  check_enum("conv2d", "mode", mode, ConvMode::same);
  if (filter.rows() != filter.cols() || filter.rows() < 1)
    throw DimensionMismatch("conv2d: filter is " + shape(filter.rows(), filter.cols()) +
                            ", expected a square K x K filter with K >= 1");
  const std::int64_t K = filter.rows();
  const std::int64_t pad_lo = mode == ConvMode::same ? (K - 1) / 2 : 0;
  const std::int64_t pad_hi = mode == ConvMode::same ? K / 2 : 0;
  const std::int64_t P = image.rows() + pad_lo + pad_hi - K + 1;
  const std::int64_t Q = image.cols() + pad_lo + pad_hi - K + 1;
  if (P <= 0 || Q <= 0 || image.rows() == 0 || image.cols() == 0)
    throw InvalidArgument("conv2d: image " + shape(image.rows(), image.cols()) + " with a " + shape(K, K) +
                          " filter gives an empty output");
  if (out.rows() != P || out.cols() != Q)
    throw DimensionMismatch("conv2d: out is " + shape(out.rows(), out.cols()) + ", expected " + shape(P, Q));
  check_not_aliased("conv2d", "out", out.view().data, "image", image.view().data);
  check_not_aliased("conv2d", "out", out.view().data, "filter", filter.view().data);
  d.backend().conv2d(dtype_v<T>, mode, image.view(), filter.view(), out.view());
}

template <class T>
void conv_layer(const ConvParams& p, const Tensor4<T>& in, const Tensor4<T>& filter, Tensor4<T>& out) {
  const Device& d = same_device("conv_layer", in, filter, out);
  if (filter.c() != in.c())
    throw DimensionMismatch("conv_layer: input has C = " + std::to_string(in.c()) + " channels, filter has C = " +
                            std::to_string(filter.c()) + "; expected equal");
  const std::int64_t P = conv_output_size(in.h(), filter.h(), p.pad_h, p.stride_h);
  const std::int64_t Q = conv_output_size(in.w(), filter.w(), p.pad_w, p.stride_w);
  if (out.n() != in.n() || out.c() != filter.n() || out.h() != P || out.w() != Q)
    throw DimensionMismatch("conv_layer: out is " + std::to_string(out.n()) + "x" + std::to_string(out.c()) + "x" +
                            std::to_string(out.h()) + "x" + std::to_string(out.w()) + ", expected N x K x P x Q = " +
                            std::to_string(in.n()) + "x" + std::to_string(filter.n()) + "x" + std::to_string(P) + "x" +
                            std::to_string(Q));
  check_not_aliased("conv_layer", "out", out.view().data, "in", in.view().data);
  check_not_aliased("conv_layer", "out", out.view().data, "filter", filter.view().data);
  if (out.size() == 0) return;
  d.backend().conv_layer(dtype_v<T>, p, in.view(), filter.view(), out.view());
}

#define TESSERA_INSTANTIATE(T)                                                                                 \
  template T reduce<T>(ReduceOp, const Vector<T>&);                                                            \
  template T dot<T>(const Vector<T>&, const Vector<T>&);                                                       \
  template void spmv<T>(T, const CsrMatrix<T>&, const Vector<T>&, T, Vector<T>&);                              \
  template void trsv<T>(Uplo, Trans, Diag, const DenseMatrix<T>&, Vector<T>&);                                 \
  template void trsm<T>(Uplo, Trans, Diag, T, const DenseMatrix<T>&, DenseMatrix<T>&);                         \
  template SptrsvPlan<T> sptrsv_analyze<T>(Uplo, Diag, const CsrMatrix<T>&);                                   \
  template void sptrsv_solve<T>(const SptrsvPlan<T>&, const Vector<T>&, Vector<T>&);                           \
  template void gemm<T>(Trans, Trans, T, const DenseMatrix<T>&, const DenseMatrix<T>&, T, DenseMatrix<T>&);    \
  template void stencil<T>(const std::vector<T>&, Grid<T>&, int);                                              \
  template void conv2d<T>(ConvMode, const DenseMatrix<T>&, const DenseMatrix<T>&, DenseMatrix<T>&);            \
  template void conv_layer<T>(const ConvParams&, const Tensor4<T>&, const Tensor4<T>&, Tensor4<T>&);

TESSERA_INSTANTIATE(float)
TESSERA_INSTANTIATE(double)

}  // namespace tessera
