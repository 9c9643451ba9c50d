// The solver cases to the tolerance (cg with IC(0), bicgstab with ILU(0)): Tessera's runner and
// the per-iteration FLOP and byte counts, shared by workloads/cg.cpp and bicgstab.cpp.
//
// Tessera's row is the library's solver with the library's preconditioner, as a user calls
// them: `tessera::Ic0` / `tessera::Ilu0` built once when the runner is made (factorised on the
// host, uploaded, the triangular solves analysed on the device; the row's setup_ms is the
// preconditioner's own setup_seconds, of a second build, so a first build's kernel compilation
// or disk-cache load is not in it), then `tessera::cg` / `tessera::bicgstab` from x = 0 with
// SolveOptions{rel_tol = converged_rel_tol(dtype), max_iterations, true_residual = false} and
// the automatic check interval. The timed call is the whole solve; the row's time is that over
// the iterations the solve ran (Runner::calls_per_run). The automatic check interval lets a
// solve run up to ~5% past the tolerance (SolveOptions::check_every), so the iterations the row
// reports (Runner::iterations) come from one more solve made when the runner is built with
// check_every = 1: the exact iteration at which the tolerance was met, as Eigen's count is.
// A solve that does not converge is an error row on a generated matrix and an n/a row (with
// the solver's reason) on a real one; a factorisation that fails (zero or negative pivot) is
// n/a. The cases with f32 factors (precond_dtype, f64 solves only) run Tessera alone: their
// baselines are the f64-factor row's, beside them.
//
// The f32-factor rows' iterations and setup_ms say what f32 factors cost in convergence and
// what their conversion and analysis cost once; their time per iteration says what they gain.
#pragma once

#include <memory>
#include <stdexcept>
#include <string>

#include "op_data.hpp"
#include "runner.hpp"
#include "tessera/csr_matrix.hpp"
#include "tessera/errors.hpp"
#include "tessera/solve.hpp"
#include "tessera/vector.hpp"
#include "workload.hpp"
#include "workloads/common.hpp"
#include "workloads/solve_common.hpp"

namespace bench {

// The incomplete factorisation named by a case ("ic0" or "ilu0"), its factors stored in
// `storage` ("f32", or empty: T), set up on q.
template <class T>
std::unique_ptr<tessera::Preconditioner<T>> incomplete_factorisation(const tessera::Queue& q,
                                                                      const tessera::CsrMatrix<T>& A,
                                                                      const std::string& name,
                                                                      const std::string& storage) {
  const tessera::DType s = storage == "f32" ? tessera::DType::f32 : tessera::dtype_v<T>;
  if (name == "ic0") return std::make_unique<tessera::Ic0<T>>(q, A, s);
  if (name == "ilu0") return std::make_unique<tessera::Ilu0<T>>(q, A, s);
  throw std::invalid_argument("no incomplete factorisation named '" + name + "'");
}

template <class T>
class TesseraConvergedSolve : public Runner {
 public:
  TesseraConvergedSolve(const tessera::Device& dev, const CgData<T>& d, tessera::SolverKind kind)
      : dev_(dev),
        q_(dev.queue()),
        d_(d),
        kind_(kind),
        A_(tessera::CsrMatrix<T>::from_host(dev, d.A)),
        b_(tessera::Vector<T>::from_host(dev, d.b)),
        x_(dev, d.A.rows) {
    try {
      M_ = incomplete_factorisation<T>(q_, A_, d.precond, d.precond_dtype);  // the first build: compiles, loads
      M_ = incomplete_factorisation<T>(q_, A_, d.precond, d.precond_dtype);
    } catch (const tessera::InvalidArgument& e) {  // a zero or non-positive pivot
      throw Skipped(d.precond + " not possible: " + e.what());
    }
    options_.rel_tol = d.rel_tol;
    options_.max_iterations = d.max_iterations;
    options_.true_residual = false;
    tessera::SolveOptions exact = options_;
    exact.check_every = 1;
    iterations_ = solve(exact).iterations;
  }
  void run() override { timed_iterations_ = solve(options_).iterations; }
  void sync() override { q_.synchronize(); }
  std::vector<double> result() override { return widen(x_.to_host()); }
  int calls_per_run() const override { return static_cast<int>(timed_iterations_ > 0 ? timed_iterations_ : iterations_); }
  long long iterations() const override { return iterations_; }
  double setup_ms() const override { return M_->setup_seconds() * 1e3; }
  std::string detail() const override {
    return std::string("tessera::") + tessera::to_string(kind_) + " + " + M_->name() + ", " +
           std::to_string(timed_iterations_) + " iterations timed (check every " + std::to_string(check_every_) + ")";
  }

 private:
  tessera::SolveResult solve(const tessera::SolveOptions& o) {
    tessera::fill(q_, T(0), x_);
    const tessera::SolveResult r = tessera::solve(kind_, q_, A_, b_, x_, M_.get(), o);
    if (!r.converged) {
      const std::string what = std::string(tessera::to_string(kind_)) + " + " + M_->name() + " did not converge: " + r.reason;
      if (d_.generated) throw std::runtime_error(what);
      throw Skipped(what);
    }
    check_every_ = r.check_every;
    return r;
  }

  tessera::Device dev_;
  tessera::Queue q_;
  const CgData<T>& d_;
  tessera::SolverKind kind_;
  tessera::CsrMatrix<T> A_;
  tessera::Vector<T> b_, x_;
  std::unique_ptr<tessera::Preconditioner<T>> M_;
  tessera::SolveOptions options_;
  std::int64_t iterations_ = 0, timed_iterations_ = 0;
  int check_every_ = 0;
};

// The check of a solve to the tolerance against the reference's: each x is within about
// cond(A) times the tolerance of the solution, in its own direction, so two implementations
// differ by up to that. 1000x the tolerance: measured (cpu, PoCL, Eigen against the reference)
// up to 1e-7 of max |x| in f64 and 5e-5 in f32 on the generated matrices, below 1e-5 in f64 on
// the real ones that converge (494_bus, Dubcova1, bcsstk16, and the unsymmetric ones of
// bicgstab); a wrong solve is O(1) off.
inline double converged_solve_tolerance(tessera::DType dtype) { return 1e3 * converged_rel_tol(dtype); }

// Per iteration of a preconditioned solve, what the unfused iteration moves at least: the
// method's spmvs and vector passes (those of cg.cpp / bicgstab.cpp's headers less Jacobi's
// vector) and, per preconditioner application, both triangular factors (together nnz(A) + rows
// entries for ILU(0) and IC(0)'s L and L^T: the diagonal is in both of IC(0)'s, in U of ILU(0)'s,
// whose L diagonal is implicit) with their row pointers, and r read and z written twice (one
// intermediate vector). cg: 1 spmv + 1 application; bicgstab: 2 + 2. With the factors in f32
// (`f32_factors`, T double) they and the solves' vectors are 4-byte, and the two conversions
// (r to f32, z back) add a read and a write of each precision.
template <class T>
double converged_bytes(const tessera::HostCsr<T>& A, int spmvs, double vector_passes, bool f32_factors = false) {
  const double s = sizeof(T), rows = static_cast<double>(A.rows), nnz = static_cast<double>(A.nnz());
  const double f = f32_factors ? 4 : s;
  const double spmv = csr_bytes(A) + 2 * rows * s;
  const double convert = f32_factors ? 2 * rows * (s + f) : 0;
  const double apply = (nnz + rows) * (f + 4) + 2 * (rows + 1) * 4 + 4 * rows * f + convert;
  return spmvs * (spmv + apply) + vector_passes * rows * s;
}
// 2 flops per factor entry per application, beside the method's.
template <class T>
double converged_flops(const tessera::HostCsr<T>& A, int spmvs, double vector_flops) {
  const double rows = static_cast<double>(A.rows), nnz = static_cast<double>(A.nnz());
  return spmvs * (2 * nnz + 2 * (nnz + rows)) + vector_flops * rows;
}

}  // namespace bench
