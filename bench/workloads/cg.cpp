// cg: Jacobi-preconditioned conjugate gradients on the 3D 7-point Laplacian (diagonal 6.5,
// generate.hpp), or on a Matrix Market file given to --matrix (kind "mtx": run only where the
// folder's MANIFEST.md says SPD, an n/a row saying why otherwise; workloads/solve_common.hpp),
// b random, x0 = 0, a fixed number of iterations (no convergence test: every
// implementation does the same work), timed as a whole and reported per iteration (the set-up
// r = b - A x0, z = M^-1 r, p = z, rz = r.z is in the timing, 1/iters of it per iteration).
// Tessera's is written with the public API only, on one queue, its scalars on the device, as
// the library's CG iterates (lib/src/solve/cg_method.hpp):
//   q = A p with pq = p.q (spmv_dot);
//   r -= (rz/pq) q, z = inv_diag .* r, (rz_new, rr) = (r.z, r.r) in one pass (axpy_multiply_dot2;
//   rr is the residual norm a solver would test);
//   x += (rz/pq) p and p = z + (rz_new/rz) p in one pass (axpby_pair);  swap rz, rz_new
// On queues that record graphs (cuda) the first, untimed run is followed by the recording of
// an iteration pair, and the timed runs replay it: one launch per two iterations instead of
// four or five per iteration, which on small systems is what bounds the iteration (Queue::begin_capture).
// The timed iterations must not wait for the device: Device::host_waits() is compared
// before and after them (an error row otherwise); x is read after the timing.
// On queues that cannot record graphs (cpu, opencl) the row is the library's solver itself,
// tessera::cg with tessera::Jacobi (built once with the runner), for the same fixed iterations
// (rel_tol = abs_tol = 0, check_every = iters, no true residual): its iteration fuses the
// updates (spmv_dot, axpy_multiply_dot2, axpby_pair), and on small systems it runs them in the
// backend's fused kernel (Backend::cg_steps). Its checks wait for the device a fixed number of
// times per solve (||b||, the initial residual, the check's cost, the one check), in the timing.
// The IC(0) cases ("ic0 ... to tol"): tessera::cg with tessera::Ic0 to the tolerance, beside
// Eigen's ConjugateGradient with IncompleteCholesky (workloads/converged_solve.hpp,
// baselines/eigen_solve.cpp).
// Bytes per iteration, the work every implementation is measured against: each operand once per
// operation of the unfused iteration (spmv, dot, two axpy, multiply_dot2, axpby):
//   spmv (beta = 0)  nnz (sizeof(T) + 4) + (rows + 1) 4 + 2 rows sizeof(T)
//   vectors          14 rows sizeof(T): pq 2, x 3, r 3, z + dots 3, p 3
// Tessera's fused iteration moves fewer (12 rows sizeof(T) besides the product's), so its % of
// bandwidth can pass 100.
// (128^3 f64: 451 MB, 0.14 ms at 3.3 TB/s); % of the read bandwidth, as spmv. Every
// implementation is measured against these bytes, so a baseline that makes more passes (the
// CUDA samples' shape: 16 rows sizeof(T)) shows as a lower % of peak.
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>

#include "baselines/baselines.hpp"
#include "tessera/algebra.hpp"
#include "tessera/csr_matrix.hpp"
#include "tessera/generate.hpp"
#include "tessera/ops.hpp"
#include "tessera/queue.hpp"
#include "tessera/solve.hpp"
#include "tessera/vector.hpp"
#include "workloads/common.hpp"
#include "workloads/converged_solve.hpp"
#include "workloads/solve_common.hpp"

namespace bench {

namespace {

template <class T>
class TesseraCg : public Runner {
 public:
  TesseraCg(const tessera::Device& dev, const CgData<T>& d)
      : dev_(dev),
        q_(dev.queue()),
        d_(d),
        A_(tessera::CsrMatrix<T>::from_host(dev, d.A)),
        b_(tessera::Vector<T>::from_host(dev, d.b)),
        inv_diag_(tessera::Vector<T>::from_host(dev, d.inv_diag)),
        x_(dev, d.A.rows),
        r_(dev, d.A.rows),
        z_(dev, d.A.rows),
        p_(dev, d.A.rows),
        Ap_(dev, d.A.rows),
        rz_(dev),
        rz_new_(dev),
        pq_(dev),
        rr_(dev) {
    if (!q_.can_capture()) jacobi_ = std::make_unique<tessera::Jacobi<T>>(q_, A_);
  }
  void run() override {
    if (jacobi_) return library_solve();
    const auto waits = dev_.host_waits();
    tessera::fill(q_, T(0), x_);
    tessera::copy(q_, b_, r_);
    tessera::spmv(q_, T(-1), A_, x_, T(1), r_);  // r = b - A x0, as a solver with a guess does
    tessera::multiply(q_, inv_diag_, r_, z_);
    tessera::copy(q_, z_, p_);
    tessera::dot(q_, r_, z_, rz_);
    for (int it = 0; it < d_.iters;) {
      // Two iterations from the graph where one is recorded and the scalars are where its
      // recording found them (an even number of iterations since).
      if (graph_ && phase_ == 0 && d_.iters - it >= 2 && graph_.launch(q_)) {
        it += 2;
        ++launches_;
        continue;
      }
      iteration();
      phase_ ^= 1;
      ++it;
    }
    waits_ = dev_.host_waits() - waits;
    if (waits_ != 0)
      throw std::runtime_error("the CG iterations waited for the device " + std::to_string(waits_) +
                               " times (expected 0)");
    // After the first (untimed) run has built the plans and scratch: record an iteration pair
    // (the host runs it, the device does not) where the queue can (cuda: a CUDA graph).
    if (!graph_ && unrecordable_.empty() && q_.can_capture() && phase_ == 0) {
      q_.begin_capture();
      try {
        iteration();
        iteration();
      } catch (...) {
        try {
          (void)q_.end_capture();
        } catch (const tessera::Error&) {
        }
        throw;
      }
      try {
        graph_ = q_.end_capture();
      } catch (const tessera::Error& e) {
        unrecordable_ = e.what();  // the iterations run unrecorded; detail() says why
      }
    }
  }
  void library_solve() {
    tessera::fill(q_, T(0), x_);
    tessera::SolveOptions o;
    o.rel_tol = 0.0;
    o.abs_tol = 0.0;
    o.max_iterations = d_.iters;
    o.check_every = d_.iters;
    o.true_residual = false;
    const tessera::SolveResult s = tessera::cg(q_, A_, b_, x_, jacobi_.get(), o);
    if (s.iterations != d_.iters)
      throw std::runtime_error("tessera::cg stopped after " + std::to_string(s.iterations) + " of " +
                               std::to_string(d_.iters) + " iterations: " + s.reason);
    fused_ = s.fused;
  }
  // The library's CG iteration (lib/src/solve/cg_method.hpp) in its public fused operations.
  void iteration() {
    tessera::spmv_dot(q_, T(1), A_, p_, T(0), Ap_, p_, pq_);
    tessera::axpy_multiply_dot2(q_, -(rz_ / pq_), Ap_, inv_diag_, r_, z_, rz_new_, rr_);
    tessera::axpby_pair(q_, rz_ / pq_, p_, T(1), x_, T(1), z_, rz_new_ / rz_, p_);
    std::swap(rz_, rz_new_);
  }
  void sync() override { q_.synchronize(); }
  std::vector<double> result() override { return widen(x_.to_host()); }
  int calls_per_run() const override { return d_.iters; }
  std::string detail() const override {
    if (jacobi_)
      return std::string("tessera::cg with Jacobi, ") + std::to_string(d_.iters) + " iterations" +
             (fused_ ? " in the backend's fused kernel" : " as separate operations");
    return "0 host waits in " + std::to_string(d_.iters) + " iterations" +
           (launches_ > 0 ? ", pairs replayed from a recorded graph" : "") +
           (unrecordable_.empty() ? "" : ", not recorded: " + unrecordable_);
  }

 private:
  tessera::Device dev_;
  tessera::Queue q_;
  const CgData<T>& d_;
  tessera::CsrMatrix<T> A_;
  tessera::Vector<T> b_, inv_diag_, x_, r_, z_, p_, Ap_;
  tessera::Scalar<T> rz_, rz_new_, pq_, rr_;
  std::uint64_t waits_ = 0;
  tessera::Graph graph_;  // two iterations, recorded after the first run
  int phase_ = 0;         // iterations run unrecorded since the last even count
  std::string unrecordable_;  // why recording failed, if it did
  std::int64_t launches_ = 0;
  std::unique_ptr<tessera::Jacobi<T>> jacobi_;  // where the queue cannot record: tessera::cg's
  bool fused_ = false;
};

template <class T>
class CgWorkload : public Workload {
 public:
  using Workload::Workload;

  void generate() override {
    if (spec().kind == "mtx") {
      d_.A = spd_matrix<T>(spec().path);  // Skipped (n/a) where the matrix is not SPD
    } else {
      const auto n = spec().get("n");
      d_.A = tessera::laplacian_3d<T>(n, n, n);
    }
    set_solver_inputs(d_, spec(), dtype(), 0x5eed0401);
  }
  void release() override { d_ = {}; }

  std::vector<std::pair<std::string, std::int64_t>> sizes() const override {
    auto v = spec().sizes;
    set_size(v, "rows", d_.A.rows);
    set_size(v, "nnz", d_.A.nnz());
    return v;
  }
  // Per iteration (see the top of the file): spmv 2 nnz, vectors 2 + 2 + 2 + 1 + 4 + 3 per row.
  // IC(0): the spmv, the factors (converged_solve.hpp) and the vectors less Jacobi's pass
  // (13 rows: pq 2, x 3, r 3, r.z & r.r 2, p 3; 12 flops per row).
  double flops() const override {
    if (!d_.precond.empty()) return converged_flops(d_.A, 1, 12);
    return 2.0 * static_cast<double>(d_.A.nnz()) + 14.0 * static_cast<double>(d_.A.rows);
  }
  double bytes() const override {
    if (!d_.precond.empty()) return converged_bytes(d_.A, 1, 13, !d_.precond_dtype.empty());
    const double s = sizeof(T), rows = static_cast<double>(d_.A.rows);
    return csr_bytes(d_.A) + 2 * rows * s + 14 * rows * s;
  }
  Bound bound() const override { return Bound::read_bandwidth; }
  // The reference reaches the same iterate through other rounding: the differences of each
  // product and sum are carried through the iterations (amplified by up to the condition
  // number, ~25 here). In f64 that stays far below 1e-10; in f32 the iteration stagnates at
  // the rounding level (~1e-7 relative residual) where the iterates of two summation orders
  // differ by ~1e-6 of max |x|: 1e-3 catches a wrong step (O(1)) with margin.
  double tolerance() const override {
    if (!d_.precond.empty()) return converged_solve_tolerance(dtype());
    if (spec().kind == "mtx") return real_matrix_tolerance();
    return dtype() == tessera::DType::f32 ? 1e-3 : 0.0;
  }

  std::unique_ptr<Runner> tessera_runner(const tessera::Device& dev) override {
    if (!d_.precond.empty()) return std::make_unique<TesseraConvergedSolve<T>>(dev, d_, tessera::SolverKind::cg);
    return std::make_unique<TesseraCg<T>>(dev, d_);
  }
  std::vector<NamedRunner> baseline_runners() override {
    if (!d_.precond_dtype.empty()) return {};  // f32 factors: the f64-factor row has the baselines
    return cg_baselines<T>(d_);
  }

 private:
  // Real matrices: ill-conditioned ones carry the rounding differences of two implementations
  // much further than the Laplacian does. Measured on the SPD files of shared/data/matrices
  // (cpu, PoCL, Eigen, ViennaCL against the reference, 50 iterations): f64 up to 5e-10
  // (bcsstk13, ViennaCL; 1e-15 on nos6, 494_bus, Chem97ZtZ, Dubcova1), f32 up to 5.5e-6
  // (bcsstk13). 1e-8 in f64 keeps a 20x margin; f32 keeps 1e-3 (a wrong step is O(1)).
  double real_matrix_tolerance() const { return dtype() == tessera::DType::f32 ? 1e-3 : 1e-8; }
  CgData<T> d_;
};

}  // namespace

std::unique_ptr<Workload> make_cg_workload(const CaseSpec& spec, tessera::DType dtype) {
  return make_typed<CgWorkload>(spec, dtype);
}

}  // namespace bench
