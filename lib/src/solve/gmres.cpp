// Restarted GMRES(m) with right preconditioning (Saad & Schultz 1986; Saad alg. 9.5): solve
// A M^-1 u = b, x = x0 + M^-1 V y.
//
// Where each part runs:
// - Arnoldi on the device: w = A M^-1 v_j, orthogonalised against v_0..v_j by modified
//   Gram-Schmidt. Each coefficient h_ij = w . v_i lands in a device Scalar and is used at once
//   as the axpy's coefficient; the fused axpby_dot subtracts h_ij v_i and computes the next
//   dot w . v_(i+1) in one pass, so step j costs j + 3 passes over w (reorthogonalize: twice
//   that). The coefficients are copied into one device vector holding the Hessenberg matrix H
//   (and ||r0|| in its element 0), so the host reads all of it in one transfer.
// - The small least-squares problem min ||beta e1 - H y|| on the host: at each check the host
//   downloads H (one wait), applies Givens rotations to the columns so far, and reads the
//   residual norm |g_(j+1)| off the rotated right-hand side. When that meets the tolerance, at
//   the end of a cycle (j = m) or at the iteration limit, y is solved on the host and x updated
//   on the device (axpys with host coefficients, one preconditioner apply). So the host solves
//   the least-squares problem once per check, and every restart makes one more wait: the new
//   residual ||b - A x||, computed explicitly, decides convergence (the recurrence's estimate
//   only triggers the update) and is the result's true residual.
// - Breakdown: h_(j+1,j) = 0 is the "happy" one (the Krylov space is invariant, the
//   least-squares solution is exact): the columns after it are not used. A column holding NaN
//   or Inf (overflow, or NaN the device produced) ends the solve as not_finite after updating x
//   with the finite columns before it.
#include <cmath>
#include <vector>

#include "solve/driver.hpp"

namespace tessera {
namespace {

using solve_detail::describe;

// The host's view of one cycle's least-squares problem.
struct LeastSquares {
  int columns = 0;        // columns usable (finite, before a happy breakdown)
  bool not_finite = false;  // a later column held NaN/Inf
  bool invariant = false;   // h_(j+1,j) = 0 at the last usable column
  double residual = 0.0;  // |g_columns|: the residual norm of x0 + M^-1 V y
  std::vector<double> y;  // the solution, filled by solve()

  // H: element 0 is beta, column c at 1 + c (m + 1), rows 0..c+1.
  LeastSquares(const std::vector<double>& H, int m, int done) : m_(m) {
    const double beta = H[0];
    g_.assign(static_cast<std::size_t>(m) + 1, 0.0);
    g_[0] = beta;
    residual = std::fabs(beta);
    R_.assign(static_cast<std::size_t>(m) * static_cast<std::size_t>(m), 0.0);
    cs_.assign(static_cast<std::size_t>(m), 0.0);
    sn_.assign(static_cast<std::size_t>(m), 0.0);
    for (int c = 0; c < done; ++c) {
      std::vector<double> h(static_cast<std::size_t>(c) + 2);
      bool finite = true;
      for (int i = 0; i <= c + 1; ++i) {
        h[static_cast<std::size_t>(i)] = H[1 + static_cast<std::size_t>(c) * (m + 1) + i];
        finite = finite && std::isfinite(h[static_cast<std::size_t>(i)]);
      }
      if (!finite) {
        not_finite = true;
        break;
      }
      for (int i = 0; i < c; ++i) {  // the earlier rotations
        const double a = h[i], b = h[i + 1];
        h[i] = cs_[i] * a + sn_[i] * b;
        h[i + 1] = -sn_[i] * a + cs_[i] * b;
      }
      const double sub = h[c + 1];
      const double rho = std::hypot(h[c], sub);
      cs_[c] = rho == 0.0 ? 1.0 : h[c] / rho;
      sn_[c] = rho == 0.0 ? 0.0 : sub / rho;
      h[c] = rho;
      for (int i = 0; i <= c; ++i) R_[static_cast<std::size_t>(i) * m + c] = h[i];
      g_[c + 1] = -sn_[c] * g_[c];
      g_[c] = cs_[c] * g_[c];
      residual = std::fabs(g_[c + 1]);
      columns = c + 1;
      if (sub == 0.0) {
        invariant = true;
        break;
      }
    }
  }
  // y = R^-1 g over the usable columns; false when R is singular (A M^-1 singular).
  bool solve() {
    y.assign(static_cast<std::size_t>(columns), 0.0);
    for (int i = columns - 1; i >= 0; --i) {
      double s = g_[i];
      for (int c = i + 1; c < columns; ++c) s -= R_[static_cast<std::size_t>(i) * m_ + c] * y[c];
      const double d = R_[static_cast<std::size_t>(i) * m_ + i];
      if (d == 0.0) return false;
      y[i] = s / d;
    }
    return true;
  }

 private:
  int m_;
  std::vector<double> g_, R_, cs_, sn_;
};

template <class T>
class Gmres {
 public:
  Gmres(const CsrMatrix<T>& A, const Vector<T>& b, Vector<T>& x, const detail::same_t<Preconditioner<T>>* M, const SolveOptions& o)
      : A_(A), b_(b), x_(x), M_(M), o_(o), m_(o.restart), n_(A.rows()),
        basis_(dev(), static_cast<std::int64_t>(m_ + 1) * n_), w_(dev(), n_), z_(dev(), n_),
        H_(dev(), 1 + static_cast<std::int64_t>(m_ + 1) * m_), host_H_(static_cast<std::size_t>(H_.size())),
        norm_(dev()) {
    for (int i = 0; i <= m_; ++i) h_.emplace_back(dev()), c_.emplace_back(dev());
  }

  // r = b - A x, beta = ||r||, v_0 = r / beta; beta into H[0]. Returns beta (a wait).
  double restart(const Queue& q) {
    copy(q, b_, w_);
    spmv(q, T(-1), A_, x_, T(1), w_);
    norm2(q, w_, norm_);
    Vector<T> v0 = v(0);
    axpby(q, ScalarArg<T>(T(1)) / norm_, w_, T(0), v0);
    Vector<T> h0 = H_.sub(0, 1);
    copy(q, norm_.as_vector(), h0);
    return static_cast<double>(norm_.get(q));
  }

  void arnoldi(const Queue& q, int j) {
    Vector<T> vj = v(j);
    if (M_) M_->apply(q, vj, z_);
    spmv(q, T(1), A_, M_ ? z_ : vj, T(0), w_);
    orthogonalise(q, j, h_);
    if (o_.reorthogonalize) {
      orthogonalise(q, j, c_);
      for (int i = 0; i <= j; ++i) {
        Vector<T> hi = h_[i].as_vector();
        axpy(q, T(1), c_[i].as_vector(), hi);
      }
    }
    norm2(q, w_, norm_);
    Vector<T> next = v(j + 1);
    axpby(q, ScalarArg<T>(T(1)) / norm_, w_, T(0), next);
    const std::int64_t col = 1 + static_cast<std::int64_t>(j) * (m_ + 1);
    for (int i = 0; i <= j; ++i) {
      Vector<T> dst = H_.sub(col + i, 1);
      copy(q, h_[i].as_vector(), dst);
    }
    Vector<T> dst = H_.sub(col + j + 1, 1);
    copy(q, norm_.as_vector(), dst);
  }

  // Downloads H (one wait) and solves the least-squares problem of the `done` columns.
  LeastSquares least_squares(const Queue& q, int done) {
    std::vector<T> h(host_H_.size());
    H_.download(q, h.data(), H_.size(), true);
    for (std::size_t i = 0; i < h.size(); ++i) host_H_[i] = static_cast<double>(h[i]);
    return LeastSquares(host_H_, m_, done);
  }

  // x += M^-1 V y (no wait).
  void update(const Queue& q, const std::vector<double>& y) {
    if (y.empty()) return;
    Vector<T>& u = M_ ? w_ : z_;
    fill(q, T(0), u);
    for (std::size_t i = 0; i < y.size(); ++i) axpy(q, static_cast<T>(y[i]), v(static_cast<int>(i)), u);
    if (M_) M_->apply(q, w_, z_);
    axpy(q, T(1), z_, x_);
  }

  int m() const { return m_; }

 private:
  const Device& dev() const { return A_.device(); }
  Vector<T> v(int i) const { return basis_.sub(static_cast<std::int64_t>(i) * n_, n_); }
  // Modified Gram-Schmidt of w against v_0..v_j, coefficients into s[0..j].
  void orthogonalise(const Queue& q, int j, std::vector<Scalar<T>>& s) {
    dot(q, w_, v(0), s[0]);
    for (int i = 0; i < j; ++i) axpby_dot(q, -ScalarArg<T>(s[i]), v(i), T(1), w_, v(i + 1), s[i + 1]);
    axpy(q, -ScalarArg<T>(s[j]), v(j), w_);
  }

  CsrMatrix<T> A_;
  Vector<T> b_, x_;
  const Preconditioner<T>* M_;
  SolveOptions o_;
  int m_;
  std::int64_t n_;
  Vector<T> basis_, w_, z_, H_;
  std::vector<double> host_H_;
  Scalar<T> norm_;
  std::vector<Scalar<T>> h_, c_;
};

}  // namespace

template <class T>
SolveResult gmres(const Queue& q, const CsrMatrix<T>& A, const Vector<T>& b, Vector<T>& x, const detail::same_t<Preconditioner<T>>* M,
                  const SolveOptions& o) {
  using namespace solve_detail;
  check_arguments("gmres", q, A, b, x, M, o);
  const auto t_setup = Clock::now();
  SolveResult r;
  if (M != nullptr) r.preconditioner_seconds = M->setup_seconds();
  if (!measure_rhs(q, b, o, r)) return r;
  const int m = static_cast<int>(std::min<std::int64_t>(o.restart, std::max<std::int64_t>(A.rows(), 1)));
  SolveOptions opt = o;
  opt.restart = m;
  Gmres<T> g(A, b, x, M, opt);
  double beta = g.restart(q);
  record(r, o, 0, beta);
  if (!std::isfinite(beta)) {
    finish(r, SolveStatus::not_finite, "the initial residual b - A x is not finite (NaN or Inf in A or x)");
    return r;
  }
  // The cost of a check on an idle queue: downloading H and the host's rotations.
  auto t = Clock::now();
  (void)g.least_squares(q, 0);
  Interval interval(o.check_every, seconds_since(t));
  r.check_every = interval.next();
  r.setup_seconds = seconds_since(t_setup);

  const auto t_solve = Clock::now();
  std::int64_t it = 0, checks = 0;
  int j = 0;
  bool done = beta <= r.tolerance;
  if (done) finish(r, SolveStatus::converged, "the initial guess meets the tolerance");
  while (!done && it < o.max_iterations) {
    const std::int64_t steps = std::min<std::int64_t>({interval.next(), m - j, o.max_iterations - it});
    for (std::int64_t s = 0; s < steps; ++s) g.arnoldi(q, j++);
    it += steps;
    LeastSquares ls = g.least_squares(q, j);
    ++checks;
    r.check_every = interval.next();
    record(r, o, it, ls.residual);
    const bool end_cycle = ls.not_finite || ls.invariant || ls.residual <= r.tolerance || j == m ||
                           it == o.max_iterations;
    if (end_cycle) {
      if (!ls.solve()) {
        finish(r, SolveStatus::breakdown,
               "breakdown: the Hessenberg matrix is singular (A M^-1 is singular) in iteration " + std::to_string(it));
        break;
      }
      g.update(q, ls.y);
      beta = g.restart(q);
      record(r, o, it, beta);
      r.residual = beta;
      j = 0;
      if (ls.not_finite || !std::isfinite(beta)) {
        finish(r, SolveStatus::not_finite,
               "not finite: an Arnoldi vector became NaN or Inf by iteration " + std::to_string(it) +
                   "; x is updated with the finite ones");
        break;
      }
      if (beta <= r.tolerance) {
        finish(r, SolveStatus::converged, "||r|| = " + describe(beta) + " <= " + describe(r.tolerance));
        done = true;
        break;
      }
    }
    interval.update(it, seconds_since(t_solve), checks);
  }
  r.iterations = it;
  r.solve_seconds = seconds_since(t_solve);
  if (!done && r.reason.empty())
    finish(r, SolveStatus::max_iterations,
           "reached " + std::to_string(o.max_iterations) + " iterations with ||r|| = " + describe(r.residual) + " > " +
               describe(r.tolerance));
  if (o.true_residual) r.true_residual = true_residual(q, A, b, x);
  if (r.iterations == 0) r.residual = beta;
  return r;
}

template SolveResult gmres<float>(const Queue&, const CsrMatrix<float>&, const Vector<float>&, Vector<float>&,
                                  const Preconditioner<float>*, const SolveOptions&);
template SolveResult gmres<double>(const Queue&, const CsrMatrix<double>&, const Vector<double>&, Vector<double>&,
                                   const Preconditioner<double>*, const SolveOptions&);

}  // namespace tessera
