// bicgstab: Jacobi-preconditioned BiCGSTAB on an unsymmetric matrix, the 3D 7-point Laplacian
// (diagonal 6.5) plus a centred convection term along x (workloads/solve_common.hpp), b random,
// x0 = 0, a fixed number of iterations, timed as a whole and reported per iteration.
//
// Tessera's row is the library's solver, `tessera::bicgstab` with a `tessera::Jacobi`
// preconditioner (set up once, outside the timing) and SolveOptions{rel_tol = 0, abs_tol = 0,
// max_iterations = iters, check_every = iters, true_residual = false}: what a user calls, so the
// row measures the library, not a loop written for the bench (cg.cpp has that form). The timed
// call is the whole solve: its set-up (workspace allocation, ||b||, r0, the state copy that
// prices a check: a few host waits) and its one check at the end are amortised over the
// iterations, as the set-up of cg's loop and of Eigen's solver are.
// No host wait inside the iterations: Device::host_waits() counted around the timed solve must
// equal the count of a 1-iteration solve (check_every = 1) made when the runner is built, i.e.
// waits do not grow with the iterations (an error row otherwise); the solve must also report
// `iters` iterations and status max_iterations (a breakdown or NaN is an error row).
//
// Per iteration, what the library's unfused iteration moves (each operand once per operation):
//   2 spmv   2 (nnz (sizeof(T) + 4) + (rows + 1) 4 + 2 rows sizeof(T))
//   vectors  34 rows sizeof(T): r0.r 2, p -= w v 3, p = r + b p 3, y = M p 3, r0.v 2, s = r 2,
//            s -= a v 3, z = M s 3, (t.s, t.t) 2, x += a y 3, x += w z 3, r = s 2, r = r - w t & r.r 3
// flops: 4 nnz + 26 rows. % of the read bandwidth, as spmv and cg.
// Baseline: Eigen BiCGSTAB<SparseMatrix<T, RowMajor>, DiagonalPreconditioner> with tolerance 0
// and `iters` iterations (baselines/eigen_solve.cpp).
// The ILU(0) cases ("ilu0 ... to tol", on the convection-diffusion matrix and on every square
// matrix given to --matrix): tessera::bicgstab with tessera::Ilu0 to the tolerance, beside
// Eigen's BiCGSTAB with IncompleteLUT (workloads/converged_solve.hpp, baselines/eigen_solve.cpp).
#include <string>

#include "baselines/baselines.hpp"
#include "tessera/csr_matrix.hpp"
#include "tessera/ops.hpp"
#include "tessera/solve.hpp"
#include "tessera/vector.hpp"
#include "workloads/common.hpp"
#include "workloads/converged_solve.hpp"
#include "workloads/solve_common.hpp"

namespace bench {

namespace {

template <class T>
class TesseraBicgstab : public Runner {
 public:
  TesseraBicgstab(const tessera::Device& dev, const CgData<T>& d)
      : dev_(dev),
        q_(dev.queue()),
        d_(d),
        A_(tessera::CsrMatrix<T>::from_host(dev, d.A)),
        b_(tessera::Vector<T>::from_host(dev, d.b)),
        x_(dev, d.A.rows),
        M_(q_, A_) {
    options_.rel_tol = 0;
    options_.abs_tol = 0;
    options_.max_iterations = d.iters;
    options_.check_every = d.iters;
    options_.true_residual = false;
    // The host waits of a 1-iteration solve: set-up and one check, no iterations to wait in.
    tessera::SolveOptions one = options_;
    one.max_iterations = 1;
    one.check_every = 1;
    tessera::fill(q_, T(0), x_);
    const auto w = dev_.host_waits();
    (void)tessera::bicgstab(q_, A_, b_, x_, &M_, one);
    waits_one_ = dev_.host_waits() - w;
  }
  void run() override {
    tessera::fill(q_, T(0), x_);
    const auto w = dev_.host_waits();
    result_ = tessera::bicgstab(q_, A_, b_, x_, &M_, options_);
    waits_ = dev_.host_waits() - w;
    if (waits_ != waits_one_)
      throw std::runtime_error("the BiCGSTAB solve of " + std::to_string(d_.iters) + " iterations waited for the device " +
                               std::to_string(waits_) + " times, a 1-iteration solve " + std::to_string(waits_one_) +
                               " times (expected the same: no wait inside the iterations)");
    if (result_.status != tessera::SolveStatus::max_iterations || result_.iterations != d_.iters)
      throw std::runtime_error(std::string("BiCGSTAB stopped early: ") + tessera::to_string(result_.status) + ", " +
                               result_.reason);
  }
  void sync() override { q_.synchronize(); }
  std::vector<double> result() override { return widen(x_.to_host()); }
  int calls_per_run() const override { return d_.iters; }
  std::string detail() const override {
    return "tessera::bicgstab, " + std::to_string(waits_) + " host waits per solve (as with 1 iteration: set-up + 1 check)";
  }

 private:
  tessera::Device dev_;
  tessera::Queue q_;
  const CgData<T>& d_;
  tessera::CsrMatrix<T> A_;
  tessera::Vector<T> b_, x_;
  tessera::Jacobi<T> M_;
  tessera::SolveOptions options_;
  tessera::SolveResult result_;
  std::uint64_t waits_one_ = 0, waits_ = 0;
};

template <class T>
class BicgstabWorkload : public Workload {
 public:
  using Workload::Workload;

  void generate() override {
    if (spec().kind == "mtx") d_.A = square_matrix<T>(spec().path, "bicgstab");
    else d_.A = convection_diffusion_3d<T>(spec().get("n"));
    set_solver_inputs(d_, spec(), dtype(), 0x5eed0402);
  }
  void release() override { d_ = {}; }

  std::vector<std::pair<std::string, std::int64_t>> sizes() const override {
    auto v = spec().sizes;
    set_size(v, "rows", d_.A.rows);
    set_size(v, "nnz", d_.A.nnz());
    return v;
  }
  // ILU(0): 2 spmvs, 2 applications of the factors (converged_solve.hpp) and the vectors less
  // Jacobi's two passes (28 rows, 24 flops per row).
  double flops() const override {
    if (!d_.precond.empty()) return converged_flops(d_.A, 2, 24);
    return 4.0 * static_cast<double>(d_.A.nnz()) + 26.0 * static_cast<double>(d_.A.rows);
  }
  double bytes() const override {
    if (!d_.precond.empty()) return converged_bytes(d_.A, 2, 28, !d_.precond_dtype.empty());
    const double s = sizeof(T), rows = static_cast<double>(d_.A.rows);
    const double spmv = csr_bytes(d_.A) + 2 * rows * s;
    return 2 * spmv + 34 * rows * s;
  }
  Bound bound() const override { return Bound::read_bandwidth; }
  // As cg: the rounding differences of two implementations are carried through the
  // iterations; in f32 the iteration reaches its rounding level (~1e-7) within the 50
  // iterations and wanders there, iterates differing by ~1e-6 of max |x|: 1e-3 catches a wrong
  // step (O(1)). In f64 the default 1e-10.
  double tolerance() const override {
    if (!d_.precond.empty()) return converged_solve_tolerance(dtype());
    return dtype() == tessera::DType::f32 ? 1e-3 : 0.0;
  }

  std::unique_ptr<Runner> tessera_runner(const tessera::Device& dev) override {
    if (!d_.precond.empty()) return std::make_unique<TesseraConvergedSolve<T>>(dev, d_, tessera::SolverKind::bicgstab);
    return std::make_unique<TesseraBicgstab<T>>(dev, d_);
  }
  std::vector<NamedRunner> baseline_runners() override {
    if (!d_.precond_dtype.empty()) return {};  // f32 factors: the f64-factor row has the baselines
    return bicgstab_baselines<T>(d_);
  }

 private:
  CgData<T> d_;
};

}  // namespace

std::unique_ptr<Workload> make_bicgstab_workload(const CaseSpec& spec, tessera::DType dtype) {
  return make_typed<BicgstabWorkload>(spec, dtype);
}

}  // namespace bench
