// The public operations: validate every argument (so backends can trust their views), then
// hand the call to the operands' device.
#include "tessera/ops.hpp"

#include <optional>
#include <type_traits>
#include <string>

#include "queue_state.hpp"
#include "tessera/errors.hpp"
#include "tessera/queue.hpp"

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

// The queue must belong to the operands' device.
void check_queue(const char* op, const Queue& q, const Device& d) {
  if (q.device() != d)
    throw DeviceMismatch(std::string(op) + ": the queue belongs to " + q.device().spec() + ", the operands to " +
                         d.spec());
}

// The queue of the forms without one: the first operand's default queue (an empty operand gets
// an empty queue; the queue form then reports the empty operand).
template <class A>
Queue default_queue(const A& first) {
  const Device& d = first.device();
  return d ? d.queue() : Queue();
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
// read-only inputs may be the same container. Views are compared by the element ranges they
// span in their allocation, so two disjoint blocks of one matrix may be used together.
struct Span {
  const void* data = nullptr;
  std::int64_t begin = 0, end = 0;  // elements [begin, end) of the allocation
};
Span span(const VecView& v) { return {v.data, v.offset, v.offset + v.n}; }
Span span(const MatView& m) {
  return {m.data, m.offset, m.rows == 0 || m.cols == 0 ? m.offset : m.offset + (m.rows - 1) * m.ld + m.cols};
}
Span span(const TensorView& t) { return {t.data, 0, t.n * t.c * t.h * t.w}; }
bool overlap(const Span& a, const Span& b) {
  return a.data != nullptr && a.data == b.data && a.begin < b.end && b.begin < a.end;
}
template <class V, class W>
void check_not_aliased(const char* op, const char* out_name, const V& out, const char* in_name, const W& in) {
  if (overlap(span(out), span(in)))
    throw InvalidArgument(std::string(op) + ": the output " + out_name + " shares storage with the input " + in_name +
                          "; the output needs storage of its own");
}

// alpha == 0 in gemm and trsm, as BLAS defines it and on every device alike: C = beta * C and
// X = 0, with A and B not read (so NaN or Inf in them does not reach the result). Both run as
// the backend's gemm with an inner dimension of 0, which every backend computes as C = beta * C
// without touching A or B (beta == 0: C only written).
void scale_by_gemm(detail::Enqueue& e, DType dt, double beta, const MatView& c) {
  if (beta == 1.0) return;  // C = C
  MatView a{c.data, c.rows, 0, c.ld, c.offset}, bm{c.data, 0, c.cols, c.ld, c.offset};
  e.backend().gemm(dt, e.impl(), Trans::N, Trans::N, 0.0, a, bm, beta, c, MathMode::exact);
}

// The math mode a product runs in (types.hpp): the call's when it names one, else its queue's
// (read under the queue's lock, in `e`). f64 always runs exact: a call that asks an f64 product
// for a TF32 mode is a mistake (InvalidArgument, checked before anything is enqueued), while a
// queue's mode is a policy for the f32 work on it, as cuBLAS's math mode, and leaves f64 alone.
template <class T>
void check_call_math(const char* op, std::optional<MathMode> call) {
  if (!call) return;
  detail::check_math_mode(op, *call);
  if (std::is_same_v<T, double> && *call != MathMode::exact)
    throw InvalidArgument(std::string(op) + ": math mode " + to_string(*call) +
                          " applies to f32 only; f64 products are always exact");
}
template <class T>
MathMode resolve_math(std::optional<MathMode> call, const detail::Enqueue& e) {
  if (std::is_same_v<T, double>) return MathMode::exact;
  return call ? *call : e.state().math;
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

namespace {

// The checks of reduce, shared by its host and device-scalar forms; false: x is empty and the
// result is 0 without running anything.
template <class T>
bool check_reduce(const Queue& q, ReduceOp op, const Vector<T>& x) {
  check_queue("reduce", q, same_device("reduce", x));
  check_enum("reduce", "op", op, ReduceOp::norm2);
  if (x.size() == 0 && (op == ReduceOp::min || op == ReduceOp::max))
    throw InvalidArgument(std::string("reduce ") + to_string(op) + ": the vector is empty, expected at least 1 element");
  return x.size() > 0;
}

template <class T>
bool check_dot(const Queue& q, const Vector<T>& x, const Vector<T>& y) {
  check_queue("dot", q, same_device("dot", x, y));
  if (x.size() != y.size())
    throw DimensionMismatch("dot: x has " + std::to_string(x.size()) + " elements, y has " + std::to_string(y.size()));
  return x.size() > 0;
}

// Runs `enqueue(e, slot)` writing one T into the queue's result slot, and downloads it: the
// value-returning forms (a host wait), with the queue held throughout so no other thread's
// result lands in the slot between the two.
template <class T, class F>
T via_slot(const Queue& q, F&& enqueue) {
  detail::Enqueue e(q);
  const VecView slot = e.slot();
  enqueue(e, slot);
  T h{};
  e.backend().download(e.impl(), &h, slot.data, 0, sizeof(T), true);
  return h;
}

}  // namespace

template <class T>
T reduce(const Queue& q, ReduceOp op, const Vector<T>& x) {
  if (!check_reduce(q, op, x)) return T(0);
  return via_slot<T>(q, [&](detail::Enqueue& e, const VecView& slot) {
    e.backend().reduce(dtype_v<T>, e.impl(), op, x.view(), slot);
  });
}
template <class T>
T reduce(ReduceOp op, const Vector<T>& x) {
  return reduce(default_queue(x), op, x);
}

template <class T>
T dot(const Queue& q, const Vector<T>& x, const Vector<T>& y) {
  if (!check_dot(q, x, y)) return T(0);
  return via_slot<T>(q, [&](detail::Enqueue& e, const VecView& slot) {
    e.backend().dot(dtype_v<T>, e.impl(), x.view(), y.view(), slot);
  });
}
template <class T>
T dot(const Vector<T>& x, const Vector<T>& y) {
  return dot(default_queue(x), x, y);
}

template <class T>
void reduce(const Queue& q, ReduceOp op, const Vector<T>& x, Scalar<T>& out) {
  check_queue("reduce", q, same_device("reduce", x, out));
  if (!check_reduce(q, op, x)) return fill(q, T(0), out);
  detail::Enqueue e(q);
  e.backend().reduce(dtype_v<T>, e.impl(), op, x.view(), out.view());
}

template <class T>
void dot(const Queue& q, const Vector<T>& x, const Vector<T>& y, Scalar<T>& out) {
  check_queue("dot", q, same_device("dot", x, y, out));
  if (!check_dot(q, x, y)) return fill(q, T(0), out);
  detail::Enqueue e(q);
  e.backend().dot(dtype_v<T>, e.impl(), x.view(), y.view(), out.view());
}
template <class T>
void dot(const Vector<T>& x, const Vector<T>& y, Scalar<T>& out) {
  dot(default_queue(x), x, y, out);
}

template <class T>
T norm2(const Vector<T>& x) {
  return reduce(ReduceOp::norm2, x);
}

template <class T>
void spmv(const Queue& q, detail::same_t<T> alpha, const CsrMatrix<T>& A, const Vector<T>& x, detail::same_t<T> beta,
          Vector<T>& y) {
  check_queue("spmv", q, same_device("spmv", A, x, y));
  if (x.size() != A.cols() || y.size() != A.rows())
    throw DimensionMismatch("spmv: A is " + shape(A.rows(), A.cols()) + ", x has " + std::to_string(x.size()) +
                            " and y has " + std::to_string(y.size()) + " elements; expected x = cols, y = rows");
  if (overlap(span(x.view()), span(y.view())))
    throw InvalidArgument("spmv: x and y share storage; the product needs a separate output vector");
  if (A.rows() == 0) return;
  detail::Enqueue e(q);
  e.backend().spmv(dtype_v<T>, e.impl(), alpha, A.view(), x.view(), beta, y.view());
}
template <class T>
void spmv(detail::same_t<T> alpha, const CsrMatrix<T>& A, const Vector<T>& x, detail::same_t<T> beta, Vector<T>& y) {
  spmv(default_queue(A), alpha, A, x, beta, y);
}

template <class T>
void spmv_dot(const Queue& q, detail::same_t<T> alpha, const CsrMatrix<T>& A, const Vector<T>& x,
              detail::same_t<T> beta, Vector<T>& y, const Vector<T>& w, Scalar<T>& out) {
  check_queue("spmv_dot", q, same_device("spmv_dot", A, x, y, w, out));
  if (x.size() != A.cols() || y.size() != A.rows() || w.size() != A.rows())
    throw DimensionMismatch("spmv_dot: A is " + shape(A.rows(), A.cols()) + ", x has " + std::to_string(x.size()) +
                            ", y " + std::to_string(y.size()) + " and w " + std::to_string(w.size()) +
                            " elements; expected x = cols, y = w = rows");
  if (overlap(span(x.view()), span(y.view())) || overlap(span(w.view()), span(y.view())))
    throw InvalidArgument("spmv_dot: y shares storage with x or w; the product needs a separate output vector");
  if (A.rows() == 0) return fill(q, T(0), out);
  detail::Enqueue e(q);
  e.backend().spmv_dot(dtype_v<T>, e.impl(), alpha, A.view(), x.view(), beta, y.view(), w.view(), out.view());
}

template <class T>
std::string spmv_kernel(const CsrMatrix<T>& A) {
  if (!A.device()) throw InvalidArgument("spmv_kernel: the matrix is empty (default-constructed)");
  std::string k = A.device().backend().spmv_kernel(dtype_v<T>, A.view());
  return k.empty() ? "csr" : k;
}

template <class T>
void spmm(const Queue& q, detail::same_t<T> alpha, const CsrMatrix<T>& A, const DenseMatrix<T>& X,
          detail::same_t<T> beta, DenseMatrix<T>& Y) {
  check_queue("spmm", q, same_device("spmm", A, X, Y));
  if (X.rows() != A.cols() || Y.rows() != A.rows() || X.cols() != Y.cols())
    throw DimensionMismatch("spmm: A is " + shape(A.rows(), A.cols()) + ", X is " + shape(X.rows(), X.cols()) +
                            " and Y is " + shape(Y.rows(), Y.cols()) +
                            "; expected X = A.cols x k and Y = A.rows x k");
  check_not_aliased("spmm", "Y", Y.view(), "X", X.view());
  if (A.rows() == 0 || Y.cols() == 0) return;
  detail::Enqueue e(q);
  e.backend().spmm(dtype_v<T>, e.impl(), alpha, A.view(), X.view(), beta, Y.view());
}
template <class T>
void spmm(detail::same_t<T> alpha, const CsrMatrix<T>& A, const DenseMatrix<T>& X, detail::same_t<T> beta,
          DenseMatrix<T>& Y) {
  spmm(default_queue(A), alpha, A, X, beta, Y);
}

// Checked here, before the transpose is built, so a bad call neither waits nor allocates.
template <class T>
void spmv_transposed(const Queue& q, detail::same_t<T> alpha, const CsrMatrix<T>& A, const Vector<T>& x,
                     detail::same_t<T> beta, Vector<T>& y) {
  check_queue("spmv_transposed", q, same_device("spmv_transposed", A, x, y));
  if (x.size() != A.rows() || y.size() != A.cols())
    throw DimensionMismatch("spmv_transposed: A is " + shape(A.rows(), A.cols()) + ", x has " +
                            std::to_string(x.size()) + " and y has " + std::to_string(y.size()) +
                            " elements; expected x = rows, y = cols");
  if (overlap(span(x.view()), span(y.view())))
    throw InvalidArgument("spmv_transposed: x and y share storage; the product needs a separate output vector");
  spmv(q, alpha, A.transposed(), x, beta, y);
}
template <class T>
void spmv_transposed(detail::same_t<T> alpha, const CsrMatrix<T>& A, const Vector<T>& x, detail::same_t<T> beta,
                     Vector<T>& y) {
  spmv_transposed(default_queue(A), alpha, A, x, beta, y);
}

template <class T>
void trsv(const Queue& q, Uplo uplo, Trans trans, Diag diag, const DenseMatrix<T>& A, Vector<T>& x) {
  check_queue("trsv", q, same_device("trsv", A, x));
  check_triangle("trsv", uplo, diag);
  check_trans("trsv", "trans", trans);
  check_square("trsv", A);
  if (x.size() != A.rows())
    throw DimensionMismatch("trsv: A is " + shape(A.rows(), A.cols()) + ", x has " + std::to_string(x.size()) +
                            " elements, expected " + std::to_string(A.rows()));
  check_not_aliased("trsv", "x", x.view(), "A", A.view());
  if (A.rows() == 0) return;
  detail::Enqueue e(q);
  e.backend().trsv(dtype_v<T>, e.impl(), uplo, trans, diag, A.view(), x.view());
}
template <class T>
void trsv(Uplo uplo, Trans trans, Diag diag, const DenseMatrix<T>& A, Vector<T>& x) {
  trsv(default_queue(A), uplo, trans, diag, A, x);
}

template <class T>
void trsm(const Queue& q, Uplo uplo, Trans trans, Diag diag, detail::same_t<T> alpha, const DenseMatrix<T>& A,
          DenseMatrix<T>& B) {
  check_queue("trsm", q, same_device("trsm", A, B));
  check_triangle("trsm", uplo, diag);
  check_trans("trsm", "trans", trans);
  check_square("trsm", A);
  if (B.rows() != A.rows())
    throw DimensionMismatch("trsm: A is " + shape(A.rows(), A.cols()) + ", B is " + shape(B.rows(), B.cols()) +
                            ", expected B with " + std::to_string(A.rows()) + " rows");
  check_not_aliased("trsm", "B", B.view(), "A", A.view());
  if (B.rows() == 0 || B.cols() == 0) return;
  detail::Enqueue e(q);
  if (alpha == T(0)) return scale_by_gemm(e, dtype_v<T>, 0.0, B.view());
  e.backend().trsm(dtype_v<T>, e.impl(), uplo, trans, diag, alpha, A.view(), B.view());
}
template <class T>
void trsm(Uplo uplo, Trans trans, Diag diag, detail::same_t<T> alpha, const DenseMatrix<T>& A, DenseMatrix<T>& B) {
  trsm(default_queue(A), uplo, trans, diag, alpha, A, B);
}

template <class T>
SptrsvPlan<T> sptrsv_analyze(const Queue& q, Uplo uplo, Diag diag, const CsrMatrix<T>& A) {
  const Device& d = same_device("sptrsv_analyze", A);
  check_queue("sptrsv_analyze", q, d);
  check_triangle("sptrsv_analyze", uplo, diag);
  if (A.rows() != A.cols())
    throw DimensionMismatch("sptrsv_analyze: A is " + shape(A.rows(), A.cols()) + ", expected a square matrix");
  SptrsvPlan<T> plan;
  plan.A_ = A;
  plan.values_version_ = A.values_version();
  plan.uplo_ = uplo;
  plan.diag_ = diag;
  {
    detail::Enqueue e(q);
    plan.data_ = e.backend().sptrsv_analyze(dtype_v<T>, e.impl(), uplo, diag, A.view());
  }
  if (!plan.data_) throw Error("sptrsv_analyze: backend " + d.spec() + " returned no plan");
  return plan;
}
template <class T>
SptrsvPlan<T> sptrsv_analyze(Uplo uplo, Diag diag, const CsrMatrix<T>& A) {
  return sptrsv_analyze(default_queue(A), uplo, diag, A);
}

template <class T>
void sptrsv_solve(const Queue& q, const SptrsvPlan<T>& plan, const Vector<T>& b, Vector<T>& x) {
  if (!plan) throw InvalidArgument("sptrsv_solve: the plan is empty; call sptrsv_analyze first");
  const CsrMatrix<T>& A = plan.matrix();
  if (plan.values_version() != A.values_version())
    throw InvalidArgument("sptrsv_solve: the matrix's values were updated after sptrsv_analyze; analyse it again");
  check_queue("sptrsv_solve", q, same_device("sptrsv_solve", A, b, x));
  if (b.size() != A.rows() || x.size() != A.rows())
    throw DimensionMismatch("sptrsv_solve: A is " + shape(A.rows(), A.cols()) + ", b has " + std::to_string(b.size()) +
                            " and x has " + std::to_string(x.size()) + " elements, expected " +
                            std::to_string(A.rows()));
  // x may be b itself, but not a view overlapping it elsewhere.
  const VecView bv = b.view(), xv = x.view();
  if (overlap(span(bv), span(xv)) && bv.offset != xv.offset)
    throw InvalidArgument("sptrsv_solve: x partly overlaps b; pass the same vector or separate storage");
  if (A.rows() == 0) return;
  detail::Enqueue e(q);
  e.backend().sptrsv_solve(dtype_v<T>, e.impl(), plan.data(), A.view(), bv, xv);
}
template <class T>
void sptrsv_solve(const SptrsvPlan<T>& plan, const Vector<T>& b, Vector<T>& x) {
  sptrsv_solve(plan ? default_queue(plan.matrix()) : Queue(), plan, b, x);
}

namespace {
template <class T>
void run_gemm(const Queue& q, Trans ta, Trans tb, T alpha, const DenseMatrix<T>& A, const DenseMatrix<T>& B, T beta,
              DenseMatrix<T>& C, std::optional<MathMode> math) {
  check_queue("gemm", q, same_device("gemm", A, B, C));
  check_call_math<T>("gemm", math);
  check_trans("gemm", "ta", ta);
  check_trans("gemm", "tb", tb);
  const MatView a = A.view(), b = B.view(), c = C.view();
  const std::int64_t m = op_rows(ta, a), k = op_cols(ta, a), kb = op_rows(tb, b), n = op_cols(tb, b);
  if (k != kb || C.rows() != m || C.cols() != n)
    throw DimensionMismatch(std::string("gemm: op(A) is ") + shape(m, k) + ", op(B) is " + shape(kb, n) + ", C is " +
                            shape(C.rows(), C.cols()) + "; expected op(A) m x k, op(B) k x n, C m x n");
  check_not_aliased("gemm", "C", c, "A", a);
  check_not_aliased("gemm", "C", c, "B", b);
  if (m == 0 || n == 0) return;
  detail::Enqueue e(q);
  if (alpha == T(0)) return scale_by_gemm(e, dtype_v<T>, static_cast<double>(beta), c);
  e.backend().gemm(dtype_v<T>, e.impl(), ta, tb, alpha, a, b, beta, c, resolve_math<T>(math, e));
}
}  // namespace

template <class T>
void gemm(const Queue& q, Trans ta, Trans tb, detail::same_t<T> alpha, const DenseMatrix<T>& A,
          const DenseMatrix<T>& B, detail::same_t<T> beta, DenseMatrix<T>& C) {
  run_gemm<T>(q, ta, tb, alpha, A, B, beta, C, std::nullopt);
}
template <class T>
void gemm(Trans ta, Trans tb, detail::same_t<T> alpha, const DenseMatrix<T>& A, const DenseMatrix<T>& B,
          detail::same_t<T> beta, DenseMatrix<T>& C) {
  run_gemm<T>(default_queue(A), ta, tb, alpha, A, B, beta, C, std::nullopt);
}
template <class T>
void gemm(const Queue& q, Trans ta, Trans tb, detail::same_t<T> alpha, const DenseMatrix<T>& A,
          const DenseMatrix<T>& B, detail::same_t<T> beta, DenseMatrix<T>& C, MathMode math) {
  run_gemm<T>(q, ta, tb, alpha, A, B, beta, C, math);
}
template <class T>
void gemm(Trans ta, Trans tb, detail::same_t<T> alpha, const DenseMatrix<T>& A, const DenseMatrix<T>& B,
          detail::same_t<T> beta, DenseMatrix<T>& C, MathMode math) {
  run_gemm<T>(default_queue(A), ta, tb, alpha, A, B, beta, C, math);
}

namespace {
// Runs a checked spec; the one place both stencil forms reach the backend.
template <class T>
void run_stencil(const Queue& q, const StencilSpec& spec, Grid<T>& u, int steps) {
  if (steps < 0) throw InvalidArgument("stencil: steps = " + std::to_string(steps) + ", expected >= 0");
  if (steps == 0 || u.size() == 0) return;
  detail::Enqueue e(q);
  e.backend().stencil(dtype_v<T>, e.impl(), spec, u.view(), steps);
}
}  // namespace

template <class T>
void stencil(const Queue& q, const std::vector<T>& coeffs, Grid<T>& u, int steps) {
  check_queue("stencil", q, same_device("stencil", u));
  const int radius = static_cast<int>(coeffs.size()) - 1;
  if (radius < 1 || radius > StencilSpec::max_radius)
    throw InvalidArgument("stencil: " + std::to_string(coeffs.size()) +
                          " coefficients given, expected radius + 1 with radius 1..4 (2 to 5 coefficients)");
  StencilSpec spec;
  spec.radius = radius;
  spec.centre = static_cast<double>(coeffs[0]);
  for (auto& axis : spec.axis)
    for (int d = 1; d <= radius; ++d)
      axis[static_cast<std::size_t>(d)] = static_cast<double>(coeffs[static_cast<std::size_t>(d)]);
  run_stencil(q, spec, u, steps);
}
template <class T>
void stencil(const std::vector<T>& coeffs, Grid<T>& u, int steps) {
  stencil(default_queue(u), coeffs, u, steps);
}

template <class T>
void stencil(const Queue& q, const StarStencil<T>& s, Grid<T>& u, int steps) {
  check_queue("stencil", q, same_device("stencil", u));
  const int ndim = u.ndim();
  const std::size_t r = s.x.size();
  if (r < 1 || r > static_cast<std::size_t>(StencilSpec::max_radius))
    throw InvalidArgument("stencil: " + std::to_string(r) + " x coefficients, expected the radius, 1..4");
  if (s.y.size() != r || s.z.size() != (ndim == 3 ? r : 0))
    throw InvalidArgument("stencil: " + std::to_string(s.x.size()) + "/" + std::to_string(s.y.size()) + "/" +
                          std::to_string(s.z.size()) + " x/y/z coefficients on a " + std::to_string(ndim) +
                          "D grid, expected " + std::to_string(r) + "/" + std::to_string(r) + "/" +
                          std::to_string(ndim == 3 ? r : 0));
  static const char* const face_names[6] = {"x low", "x high", "y low", "y high", "z low", "z high"};
  const std::int64_t extent[3] = {u.nx(), u.ny(), u.nz()};
  StencilSpec spec;
  spec.radius = static_cast<int>(r);
  spec.centre = static_cast<double>(s.centre);
  spec.source = static_cast<double>(s.source);
  for (int a = 0; a < ndim; ++a) {
    const std::vector<T>& c = a == 0 ? s.x : a == 1 ? s.y : s.z;
    for (std::size_t d = 1; d <= r; ++d) spec.axis[static_cast<std::size_t>(a)][d] = static_cast<double>(c[d - 1]);
    const StencilBoundary lo = s.faces[static_cast<std::size_t>(2 * a)], hi = s.faces[static_cast<std::size_t>(2 * a + 1)];
    check_enum("stencil", face_names[2 * a], lo, StencilBoundary::periodic);
    check_enum("stencil", face_names[2 * a + 1], hi, StencilBoundary::periodic);
    if ((lo == StencilBoundary::periodic) != (hi == StencilBoundary::periodic))
      throw InvalidArgument(std::string("stencil: the ") + face_names[2 * a] + " face is " + to_string(lo) +
                            " and the " + face_names[2 * a + 1] + " face " + to_string(hi) +
                            "; a periodic axis needs both faces periodic");
    const bool ghosts = lo != StencilBoundary::dirichlet || hi != StencilBoundary::dirichlet;
    if (ghosts && extent[a] < static_cast<std::int64_t>(r) && u.size() > 0)
      throw InvalidArgument(std::string("stencil: radius ") + std::to_string(r) + " exceeds the " +
                            std::to_string(extent[a]) + " cells of axis " + "xyz"[a] + ", which has a " +
                            to_string(lo == StencilBoundary::dirichlet ? hi : lo) + " face");
    spec.faces[static_cast<std::size_t>(2 * a)] = lo;
    spec.faces[static_cast<std::size_t>(2 * a + 1)] = hi;
  }
  run_stencil(q, spec, u, steps);
}
template <class T>
void stencil(const StarStencil<T>& s, Grid<T>& u, int steps) {
  stencil(default_queue(u), s, u, steps);
}

template <class T>
void conv2d(const Queue& q, ConvMode mode, const DenseMatrix<T>& image, const DenseMatrix<T>& filter,
            DenseMatrix<T>& out) {
  check_queue("conv2d", q, same_device("conv2d", image, filter, out));
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
  check_not_aliased("conv2d", "out", out.view(), "image", image.view());
  check_not_aliased("conv2d", "out", out.view(), "filter", filter.view());
  detail::Enqueue e(q);
  e.backend().conv2d(dtype_v<T>, e.impl(), mode, image.view(), filter.view(), out.view());
}
template <class T>
void conv2d(ConvMode mode, const DenseMatrix<T>& image, const DenseMatrix<T>& filter, DenseMatrix<T>& out) {
  conv2d(default_queue(image), mode, image, filter, out);
}

namespace {
template <class T>
void run_conv_layer(const Queue& q, const ConvParams& p, const Tensor4<T>& in, const Tensor4<T>& filter,
                    Tensor4<T>& out, std::optional<MathMode> math) {
  check_queue("conv_layer", q, same_device("conv_layer", in, filter, out));
  check_call_math<T>("conv_layer", math);
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
  check_not_aliased("conv_layer", "out", out.view(), "in", in.view());
  check_not_aliased("conv_layer", "out", out.view(), "filter", filter.view());
  if (out.size() == 0) return;
  detail::Enqueue e(q);
  e.backend().conv_layer(dtype_v<T>, e.impl(), p, in.view(), filter.view(), out.view(), resolve_math<T>(math, e));
}
}  // namespace

template <class T>
void conv_layer(const Queue& q, const ConvParams& p, const Tensor4<T>& in, const Tensor4<T>& filter, Tensor4<T>& out) {
  run_conv_layer<T>(q, p, in, filter, out, std::nullopt);
}
template <class T>
void conv_layer(const ConvParams& p, const Tensor4<T>& in, const Tensor4<T>& filter, Tensor4<T>& out) {
  run_conv_layer<T>(default_queue(in), p, in, filter, out, std::nullopt);
}
template <class T>
void conv_layer(const Queue& q, const ConvParams& p, const Tensor4<T>& in, const Tensor4<T>& filter, Tensor4<T>& out,
                MathMode math) {
  run_conv_layer<T>(q, p, in, filter, out, math);
}
template <class T>
void conv_layer(const ConvParams& p, const Tensor4<T>& in, const Tensor4<T>& filter, Tensor4<T>& out, MathMode math) {
  run_conv_layer<T>(default_queue(in), p, in, filter, out, math);
}

#define TESSERA_INSTANTIATE(T)                                                                                 \
  template T reduce<T>(ReduceOp, const Vector<T>&);                                                            \
  template T reduce<T>(const Queue&, ReduceOp, const Vector<T>&);                                              \
  template void reduce<T>(const Queue&, ReduceOp, const Vector<T>&, Scalar<T>&);                               \
  template T dot<T>(const Vector<T>&, const Vector<T>&);                                                       \
  template T dot<T>(const Queue&, const Vector<T>&, const Vector<T>&);                                         \
  template void dot<T>(const Queue&, const Vector<T>&, const Vector<T>&, Scalar<T>&);                          \
  template void dot<T>(const Vector<T>&, const Vector<T>&, Scalar<T>&);                                        \
  template T norm2<T>(const Vector<T>&);                                                                       \
  template void spmv<T>(T, const CsrMatrix<T>&, const Vector<T>&, T, Vector<T>&);                              \
  template std::string spmv_kernel<T>(const CsrMatrix<T>&);                                                    \
  template void spmv_dot<T>(const Queue&, T, const CsrMatrix<T>&, const Vector<T>&, T, Vector<T>&, const Vector<T>&, \
                            Scalar<T>&);                                                                       \
  template void spmm<T>(T, const CsrMatrix<T>&, const DenseMatrix<T>&, T, DenseMatrix<T>&);                     \
  template void spmm<T>(const Queue&, T, const CsrMatrix<T>&, const DenseMatrix<T>&, T, DenseMatrix<T>&);       \
  template void spmv<T>(const Queue&, T, const CsrMatrix<T>&, const Vector<T>&, T, Vector<T>&);                \
  template void spmv_transposed<T>(T, const CsrMatrix<T>&, const Vector<T>&, T, Vector<T>&);                   \
  template void spmv_transposed<T>(const Queue&, T, const CsrMatrix<T>&, const Vector<T>&, T, Vector<T>&);     \
  template void trsv<T>(Uplo, Trans, Diag, const DenseMatrix<T>&, Vector<T>&);                                 \
  template void trsv<T>(const Queue&, Uplo, Trans, Diag, const DenseMatrix<T>&, Vector<T>&);                   \
  template void trsm<T>(Uplo, Trans, Diag, T, const DenseMatrix<T>&, DenseMatrix<T>&);                         \
  template void trsm<T>(const Queue&, Uplo, Trans, Diag, T, const DenseMatrix<T>&, DenseMatrix<T>&);           \
  template SptrsvPlan<T> sptrsv_analyze<T>(Uplo, Diag, const CsrMatrix<T>&);                                   \
  template SptrsvPlan<T> sptrsv_analyze<T>(const Queue&, Uplo, Diag, const CsrMatrix<T>&);                     \
  template void sptrsv_solve<T>(const SptrsvPlan<T>&, const Vector<T>&, Vector<T>&);                           \
  template void sptrsv_solve<T>(const Queue&, const SptrsvPlan<T>&, const Vector<T>&, Vector<T>&);             \
  template void gemm<T>(Trans, Trans, T, const DenseMatrix<T>&, const DenseMatrix<T>&, T, DenseMatrix<T>&);    \
  template void gemm<T>(const Queue&, Trans, Trans, T, const DenseMatrix<T>&, const DenseMatrix<T>&, T,        \
                        DenseMatrix<T>&);                                                                      \
  template void gemm<T>(Trans, Trans, T, const DenseMatrix<T>&, const DenseMatrix<T>&, T, DenseMatrix<T>&,     \
                        MathMode);                                                                             \
  template void gemm<T>(const Queue&, Trans, Trans, T, const DenseMatrix<T>&, const DenseMatrix<T>&, T,        \
                        DenseMatrix<T>&, MathMode);                                                            \
  template void stencil<T>(const std::vector<T>&, Grid<T>&, int);                                              \
  template void stencil<T>(const Queue&, const std::vector<T>&, Grid<T>&, int);                                \
  template void stencil<T>(const StarStencil<T>&, Grid<T>&, int);                                              \
  template void stencil<T>(const Queue&, const StarStencil<T>&, Grid<T>&, int);                                \
  template void conv2d<T>(ConvMode, const DenseMatrix<T>&, const DenseMatrix<T>&, DenseMatrix<T>&);            \
  template void conv2d<T>(const Queue&, ConvMode, const DenseMatrix<T>&, const DenseMatrix<T>&, DenseMatrix<T>&); \
  template void conv_layer<T>(const ConvParams&, const Tensor4<T>&, const Tensor4<T>&, Tensor4<T>&);           \
  template void conv_layer<T>(const Queue&, const ConvParams&, const Tensor4<T>&, const Tensor4<T>&, Tensor4<T>&); \
  template void conv_layer<T>(const ConvParams&, const Tensor4<T>&, const Tensor4<T>&, Tensor4<T>&, MathMode);  \
  template void conv_layer<T>(const Queue&, const ConvParams&, const Tensor4<T>&, const Tensor4<T>&, Tensor4<T>&, \
                              MathMode);

TESSERA_INSTANTIATE(float)
TESSERA_INSTANTIATE(double)

}  // namespace tessera
