/// \file
/// Iterative solvers for A x = b with a sparse A: CG, BiCGSTAB and restarted GMRES(m), with
/// optional preconditioners (Jacobi, ILU(0), IC(0), or one of the application's own). Written
/// once on the public operations (spmv, the vector algebra, sptrsv), so they run on every
/// device, in float and double, on the queue given (or the matrix's default queue).
///
/// Nothing in an iteration waits for the device: dots go to device Scalars and the step lengths
/// are ratios of them read on the device. The host looks at the residual norm only every
/// `check_every` iterations (one Scalar::get), which is also where the stopping test, the
/// history and the detection of breakdown and NaN happen. See SolveOptions and SolveResult.
///
/// Breakdown and NaN. A zero denominator (p.Ap in CG; r0.r, r0.v, omega in BiCGSTAB) or an
/// overflow makes the iterates non-finite; the next check sees it. The solver then goes back
/// to the state saved at the previous check (the vectors are copied there, on the device) and
/// replays the iterations one at a time, reading each denominator, to name the quantity that
/// broke down; x is left at the last finite iterate, never filled with NaN. Input that holds
/// NaN or Inf (b, x0, A) stops before the first iteration with status not_finite and x
/// unchanged.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "tessera/algebra.hpp"
#include "tessera/csr_matrix.hpp"
#include "tessera/ops.hpp"
#include "tessera/queue.hpp"
#include "tessera/vector.hpp"

namespace tessera {

/// Why a solve stopped.
enum class SolveStatus {
  converged,       ///< ||r|| <= max(rel_tol * ||b||, abs_tol)
  max_iterations,  ///< the iteration limit was reached first
  breakdown,       ///< a denominator of the method was exactly zero (SolveResult::reason names it)
  not_finite,      ///< NaN or Inf in the input or in an iterate (overflow)
};
/// "converged", "max_iterations", "breakdown" or "not_finite".
const char* to_string(SolveStatus s);

/// The Krylov methods.
enum class SolverKind {
  cg,        ///< conjugate gradients: A symmetric positive definite (and the preconditioner SPD)
  bicgstab,  ///< BiCGSTAB (van der Vorst): any nonsingular A
  gmres,     ///< restarted GMRES(m), right-preconditioned: any nonsingular A
};
/// "cg", "bicgstab" or "gmres".
const char* to_string(SolverKind k);

/// How to solve. The defaults suit a double-precision solve of a well-scaled system.
struct SolveOptions {
  /// Stop when ||b - A x|| (the method's recurrence for it) <= max(rel_tol * ||b||, abs_tol).
  /// rel_tol relative to ||b||, as Eigen and cupyx do (not to the initial residual).
  double rel_tol = 1e-8;
  double abs_tol = 0.0;              ///< absolute tolerance on ||r||
  std::int64_t max_iterations = 1000;  ///< iterations (GMRES: Arnoldi steps, over all restarts)
  /// The host reads the residual norm every check_every iterations (each read is a host wait).
  /// 0 chooses it: after the first iteration the solver measures the cost of a check (the
  /// wait plus the state copy it makes) and of an iteration, and takes the smallest interval
  /// at which checks cost under 5% of the iterations, capped at 1/20 of the iterations done so
  /// far (so the iterations run past convergence stay near 5% too); it is re-estimated at every
  /// check. A converged solve may run up to check_every - 1 iterations past the tolerance.
  int check_every = 0;
  bool record_history = false;  ///< keep ||r|| of every check in SolveResult::history
  bool true_residual = true;    ///< compute ||b - A x|| at the end (one spmv, one wait)
  int restart = 30;             ///< GMRES's m: Krylov vectors kept per cycle
  /// GMRES: orthogonalise each new Arnoldi vector twice (modified Gram-Schmidt, then again:
  /// "twice is enough"), for nearly dependent Krylov bases; doubles the orthogonalisation cost.
  bool reorthogonalize = false;
  /// CG and BiCGSTAB on queues that can record graphs (cuda, Queue::can_capture): after the
  /// first check, record the iteration once and replay it with one launch per iteration pair
  /// instead of one per operation (on small systems the host's enqueue cost bounds the
  /// iteration otherwise). The results are bit-identical to the unrecorded iterations.
  bool graphs = true;
  /// CG without a preconditioner or with Jacobi, on backends with a fused kernel for the system
  /// (Backend::cg_steps: NVIDIA's OpenCL and the cpu device for small systems, see README):
  /// the iterations between two checks run in one call, which loops over them on the device
  /// (one work-group) or in one thread team, instead of several launches or parallel regions
  /// per iteration. The same arithmetic in the same order per element; the dots' sums are
  /// grouped differently, so the iterates differ from the separate operations' by rounding.
  bool fused = true;
};

/// What a solve did. Residual norms are of the unpreconditioned residual b - A x.
struct SolveResult {
  SolveStatus status = SolveStatus::max_iterations;  ///< why it stopped
  bool converged = false;                            ///< status == converged
  std::string reason;                   ///< in words: the tolerance met, or the quantity that broke down and when
  std::int64_t iterations = 0;          ///< iterations done (at the check that stopped the solve)
  double residual = 0.0;                ///< ||r|| of the method's recurrence at the last check
  double true_residual = -1.0;          ///< ||b - A x|| computed at the end; -1 when not asked for
  double rhs_norm = 0.0;                ///< ||b||
  double tolerance = 0.0;               ///< the absolute threshold used: max(rel_tol * ||b||, abs_tol)
  int check_every = 0;                  ///< the interval used (the last one, when chosen automatically)
  bool graph = false;                   ///< iterations were replayed from a recorded graph (SolveOptions::graphs)
  bool fused = false;                   ///< iterations ran in the backend's fused kernel (SolveOptions::fused)
  std::vector<std::int64_t> history_iterations;  ///< iteration of each check (record_history)
  std::vector<double> history;                   ///< ||r|| at each check (record_history)
  double setup_seconds = 0.0;           ///< solver setup: workspace, ||b||, initial residual
  double preconditioner_seconds = 0.0;  ///< the preconditioner's setup (Preconditioner::setup_seconds)
  double solve_seconds = 0.0;           ///< the iterations, checks included, true residual excluded
  /// Seconds per iteration (solve_seconds / iterations; 0 without iterations).
  double seconds_per_iteration() const { return iterations > 0 ? solve_seconds / static_cast<double>(iterations) : 0.0; }
};

/// z = M^-1 r for a preconditioner M of A. apply is enqueued on q and must not wait for the
/// device (it runs in every iteration); z and r are distinct vectors of A's size on q's device.
/// A preconditioner may be used by several solves one after another, and by concurrent solves
/// only where its apply says so (those below allocate nothing in apply and may be shared,
/// except Ilu0 and Ic0 with f32 storage in a double solve, whose apply writes a vector they hold).
template <class T>
class Preconditioner {
 public:
  virtual ~Preconditioner() = default;
  /// z = M^-1 r, enqueued on q.
  virtual void apply(const Queue& q, const Vector<T>& r, Vector<T>& z) const = 0;
  /// z = M^-1 r, then rz = r . z and rr = r . r, enqueued on q: what CG needs after each
  /// residual update. The default is apply and dot2; a preconditioner overrides it where it
  /// can fuse them (Jacobi: multiply_dot2, one pass instead of three).
  virtual void apply_dot2(const Queue& q, const Vector<T>& r, Vector<T>& z, Scalar<T>& rz, Scalar<T>& rr) const {
    apply(q, r, z);
    dot2(q, r, z, r, rz, rr);
  }
  /// r = r + alpha * x, then apply_dot2(r, z, rz, rr), enqueued on q: CG's residual update with
  /// what follows it. The default is axpy and apply_dot2; Jacobi fuses all of it
  /// (axpy_multiply_dot2).
  virtual void axpy_apply_dot2(const Queue& q, const ScalarArg<T>& alpha, const Vector<T>& x, Vector<T>& r,
                               Vector<T>& z, Scalar<T>& rz, Scalar<T>& rr) const {
    axpy(q, alpha, x, r);
    apply_dot2(q, r, z, rz, rr);
  }
  /// The size of the system it preconditions.
  virtual std::int64_t size() const = 0;
  /// The device it runs on.
  virtual const Device& device() const = 0;
  /// Seconds its setup took (factorisation, uploads, analysis), for SolveResult.
  virtual double setup_seconds() const { return 0.0; }
  /// A short name for reports ("jacobi", "ilu0", ...).
  virtual std::string name() const = 0;
};

/// Jacobi: M = diag(A). The diagonal is A.diagonal(), inverted on the device. Throws
/// InvalidArgument naming the first row whose diagonal entry is missing or zero, and
/// DimensionMismatch for a non-square A.
template <class T>
class Jacobi final : public Preconditioner<T> {
 public:
  /// Set up on q (one upload, one device pass).
  Jacobi(const Queue& q, const CsrMatrix<T>& A);
  /// The same on A's default queue.
  explicit Jacobi(const CsrMatrix<T>& A) : Jacobi(A.device().queue(), A) {}
  void apply(const Queue& q, const Vector<T>& r, Vector<T>& z) const override;
  /// z = D^-1 r with r . z and r . r in one pass (multiply_dot2).
  void apply_dot2(const Queue& q, const Vector<T>& r, Vector<T>& z, Scalar<T>& rz, Scalar<T>& rr) const override;
  /// r += alpha x, z = D^-1 r, r . z and r . r in one pass (axpy_multiply_dot2).
  void axpy_apply_dot2(const Queue& q, const ScalarArg<T>& alpha, const Vector<T>& x, Vector<T>& r, Vector<T>& z,
                       Scalar<T>& rz, Scalar<T>& rr) const override;
  std::int64_t size() const override { return inverse_diagonal_.size(); }
  const Device& device() const override { return inverse_diagonal_.device(); }
  double setup_seconds() const override { return seconds_; }
  std::string name() const override { return "jacobi"; }
  const Vector<T>& inverse_diagonal() const { return inverse_diagonal_; }  ///< 1 / diag(A)

 private:
  Vector<T> inverse_diagonal_;
  double seconds_ = 0.0;
};

namespace detail {
/// The two triangular solves of Ilu0 and Ic0 (lib/src/solve/factor_solves.cpp), with the factors
/// stored in T or, for a double solve, in f32 (then r and z pass through `scratch` converted).
template <class T>
struct FactorSolves {
  SptrsvPlan<T> lower, upper;              // storage == T
  SptrsvPlan<float> lower_f32, upper_f32;  // storage f32 (T = double)
  Vector<float> scratch;                   // r, then z, in f32: the solves run in place
  DType storage = dtype_v<T>;
  std::int64_t size = 0;
  Device device;
  void apply(const Queue& q, const Vector<T>& r, Vector<T>& z) const;
};
}  // namespace detail

/// ILU(0): A ~ L U with L unit lower and U upper triangular on the sparsity pattern of A (no
/// fill). Factorised once on the host (A is downloaded: a host wait; the factorisation is
/// sequential, O(sum over rows of row length^2)), uploaded as two CSR matrices and applied with
/// two sparse triangular solves (sptrsv_analyze once, sptrsv_solve per apply) on the device.
/// Throws DimensionMismatch for a non-square A and InvalidArgument naming the row of a missing
/// diagonal entry or of a zero pivot.
///
/// Storage precision: `storage` DType::f32 in a double solve keeps the factors in f32 (a mixed-
/// precision preconditioner, Ginkgo's "storage precision"): each apply converts r to f32, runs
/// both triangular solves in f32 and converts z back (copy between dtypes). The factorisation is
/// still computed in double; only its result is rounded. It halves the bytes the solves move (the
/// triangular solves dominate an iteration), and an f32 approximation of M^-1 is as good a
/// preconditioner where the factorisation is itself only approximate (no fill): the iteration
/// counts match f64 storage on the Laplacians, a convection-diffusion M-matrix and the real
/// matrices of tests/test_solve_mixed.cpp. Not everywhere: on an indefinite matrix (a 2D
/// Laplacian with only its east coefficient made -1.6) BiCGSTAB + ILU(0) took twice the
/// iterations with f32 factors (~480 against ~240), so compare both where a matrix is hard
/// (tessera-solve --precond-dtype). The apply then
/// writes a scratch vector held here: concurrent solves must not share one such preconditioner.
/// Throws InvalidArgument for f64 storage in a float solve, NotImplemented where the device has
/// no f64 (the conversion).
template <class T>
class Ilu0 final : public Preconditioner<T> {
 public:
  /// Factorises A (see the class comment) and analyses the factors, stored in `storage`, on q.
  Ilu0(const Queue& q, const CsrMatrix<T>& A, DType storage = dtype_v<T>);
  /// The same on A's default queue.
  explicit Ilu0(const CsrMatrix<T>& A, DType storage = dtype_v<T>) : Ilu0(A.device().queue(), A, storage) {}
  void apply(const Queue& q, const Vector<T>& r, Vector<T>& z) const override;
  std::int64_t size() const override { return solves_.size; }
  const Device& device() const override { return solves_.device; }
  double setup_seconds() const override { return seconds_; }
  /// "ilu0", or "ilu0(f32)" with f32 storage in a double solve.
  std::string name() const override;
  double factor_seconds() const { return factor_seconds_; }  ///< of which the host factorisation
  DType storage() const { return solves_.storage; }  ///< the factors' precision

 private:
  detail::FactorSolves<T> solves_;
  double seconds_ = 0.0, factor_seconds_ = 0.0;
};

/// IC(0): A ~ L L^T with L lower triangular on the pattern of A's lower triangle, for a
/// symmetric positive definite A (only the lower triangle is read). Factorised once on the host
/// as Ilu0, uploaded as L and as L^T (an upper CSR built on the host) and applied with two sparse
/// triangular solves. Throws DimensionMismatch for a non-square A and InvalidArgument naming
/// the row of a missing diagonal entry or a non-positive pivot (A not SPD, or IC(0) breaks
/// down on it). Storage precision: as Ilu0's.
template <class T>
class Ic0 final : public Preconditioner<T> {
 public:
  /// Factorises A and analyses the factors, stored in `storage`, on q.
  Ic0(const Queue& q, const CsrMatrix<T>& A, DType storage = dtype_v<T>);
  /// The same on A's default queue.
  explicit Ic0(const CsrMatrix<T>& A, DType storage = dtype_v<T>) : Ic0(A.device().queue(), A, storage) {}
  void apply(const Queue& q, const Vector<T>& r, Vector<T>& z) const override;
  std::int64_t size() const override { return solves_.size; }
  const Device& device() const override { return solves_.device; }
  double setup_seconds() const override { return seconds_; }
  /// "ic0", or "ic0(f32)" with f32 storage in a double solve.
  std::string name() const override;
  double factor_seconds() const { return factor_seconds_; }  ///< of which the host factorisation
  DType storage() const { return solves_.storage; }  ///< the factors' precision

 private:
  detail::FactorSolves<T> solves_;
  double seconds_ = 0.0, factor_seconds_ = 0.0;
};

/// Solves A x = b (M may be a null pointer literal: its type is not deduced). x holds the initial guess on entry and the last iterate on return (the last
/// finite one after a breakdown). M may be null (no preconditioner). Runs on q.
///
/// Errors, thrown before anything is written: DimensionMismatch (A not square, b, x or M of
/// another size), DeviceMismatch (A, b, x, M and q not all on one device), InvalidArgument (x
/// shares storage with b, options out of range: negative tolerances, max_iterations < 0,
/// check_every < 0, restart < 1). Everything the iteration meets is in the result instead.
///@{
template <class T>
SolveResult cg(const Queue& q, const CsrMatrix<T>& A, const Vector<T>& b, Vector<T>& x,
               const detail::same_t<Preconditioner<T>>* M = nullptr, const SolveOptions& options = {});
template <class T>
SolveResult bicgstab(const Queue& q, const CsrMatrix<T>& A, const Vector<T>& b, Vector<T>& x,
                     const detail::same_t<Preconditioner<T>>* M = nullptr, const SolveOptions& options = {});
template <class T>
SolveResult gmres(const Queue& q, const CsrMatrix<T>& A, const Vector<T>& b, Vector<T>& x,
                  const detail::same_t<Preconditioner<T>>* M = nullptr, const SolveOptions& options = {});
/// One of the three, chosen by `kind`.
template <class T>
SolveResult solve(SolverKind kind, const Queue& q, const CsrMatrix<T>& A, const Vector<T>& b, Vector<T>& x,
                  const detail::same_t<Preconditioner<T>>* M = nullptr, const SolveOptions& options = {});
///@}

/// The same on A's default queue.
///@{
template <class T>
SolveResult cg(const CsrMatrix<T>& A, const Vector<T>& b, Vector<T>& x, const detail::same_t<Preconditioner<T>>* M = nullptr,
               const SolveOptions& options = {}) {
  return cg(A.device().queue(), A, b, x, M, options);
}
template <class T>
SolveResult bicgstab(const CsrMatrix<T>& A, const Vector<T>& b, Vector<T>& x, const detail::same_t<Preconditioner<T>>* M = nullptr,
                     const SolveOptions& options = {}) {
  return bicgstab(A.device().queue(), A, b, x, M, options);
}
template <class T>
SolveResult gmres(const CsrMatrix<T>& A, const Vector<T>& b, Vector<T>& x, const detail::same_t<Preconditioner<T>>* M = nullptr,
                  const SolveOptions& options = {}) {
  return gmres(A.device().queue(), A, b, x, M, options);
}
///@}

}  // namespace tessera
