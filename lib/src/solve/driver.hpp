// What every solver shares: argument checks, the stopping test, the check interval, the
// history, the final true residual, and (for the short-recurrence methods CG and BiCGSTAB) the
// loop itself with its save / replay handling of breakdown. GMRES has its own loop (its
// residual comes from the host's least-squares problem) but uses the rest.
//
// The short-recurrence methods and this driver are templates over a "space": a matrix type, a
// vector type and a preconditioner type whose operations (spmv, dot, axpy, ..., and the two
// hooks below, like and shares_elements) are found by overload resolution and argument-
// dependent lookup. libtessera instantiates them for CsrMatrix / Vector / Preconditioner, the
// tessera::mpi component for its distributed types: one code path for both.
#pragma once

#include <algorithm>
#include <chrono>
#include <cmath>
#include <string>

#include "solve/step_graph.hpp"
#include "tessera/algebra.hpp"
#include "tessera/solve.hpp"

namespace tessera::solve_detail {

using Clock = std::chrono::steady_clock;
inline double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

std::string describe(double value);  // "1.5e-07", "0", "nan", "inf"

// The space hooks for one device's vectors: a new vector shaped as v (contents unspecified),
// and whether two vectors share elements.
template <class T>
Vector<T> like(const Vector<T>& v) {
  return Vector<T>(v.device(), v.size());
}
template <class T>
bool shares_elements(const Vector<T>& a, const Vector<T>& b) {
  return a.storage() == b.storage() && a.offset() < b.offset() + b.size() && b.offset() < a.offset() + a.size();
}

// The seconds the check interval is chosen from: on one device, those measured; a distributed
// space returns the same value on every process (its hook), so all check at the same iterations.
template <class T>
double agreed_seconds(const Vector<T>&, double seconds) {
  return seconds;
}

// Throws InvalidArgument for SolveOptions out of range (solve.hpp).
void check_options(const std::string& name, const SolveOptions& o);

// Throws the documented errors before anything is written (solve.hpp). Sizes are the global
// ones of the space (rows(), cols(), size()); devices those of this process.
template <class Mat, class Vec, class Pre>
void check_arguments(const char* op, const Queue& q, const Mat& A, const Vec& b, const Vec& x, const Pre* M,
                     const SolveOptions& o) {
  const std::string name(op);
  if (!A.device() || !b.device() || !x.device() || !q)
    throw InvalidArgument(name + ": an operand or the queue is empty (default-constructed)");
  const Device& d = A.device();
  auto same = [&](const Device& other, const char* what) {
    if (other != d)
      throw DeviceMismatch(name + ": " + what + " lives on " + other.spec() + ", A on " + d.spec() +
                           "; move them to one device first");
  };
  same(b.device(), "b");
  same(x.device(), "x");
  same(q.device(), "the queue");
  if (M != nullptr) same(M->device(), "the preconditioner");
  if (A.rows() != A.cols())
    throw DimensionMismatch(name + ": A is " + std::to_string(A.rows()) + " x " + std::to_string(A.cols()) +
                            ", expected a square matrix");
  if (b.size() != A.rows() || x.size() != A.rows())
    throw DimensionMismatch(name + ": A is " + std::to_string(A.rows()) + " x " + std::to_string(A.cols()) +
                            ", b has " + std::to_string(b.size()) + " and x " + std::to_string(x.size()) +
                            " elements, expected " + std::to_string(A.rows()));
  if (M != nullptr && M->size() != A.rows())
    throw DimensionMismatch(name + ": the preconditioner is for " + std::to_string(M->size()) +
                            " unknowns, A has " + std::to_string(A.rows()));
  if (shares_elements(b, x))
    throw InvalidArgument(name + ": x shares storage with b; x is overwritten, pass a separate vector");
  check_options(name, o);
}

// Reads a device value in the replay after a non-finite check; remembers the first quantity
// that broke down (exactly zero where it divides) or is not finite.
struct Probe {
  SolveStatus status = SolveStatus::converged;  // converged = nothing found yet
  std::string quantity;
  double value = 0.0;
  // False (and the step stops before using the value) when `s` breaks the method.
  template <class T>
  bool ok(const Queue& q, const Scalar<T>& s, const char* name, bool zero_breaks = true) {
    const double v = static_cast<double>(s.get(q));
    if (std::isfinite(v) && !(zero_breaks && v == 0.0)) return true;
    status = std::isfinite(v) ? SolveStatus::breakdown : SolveStatus::not_finite;
    quantity = name;
    value = v;
    return false;
  }
};

// A short-recurrence Krylov method as run_method drives it. Every call enqueues on q and
// returns without waiting, except where a Probe is given.
template <class T>
class Method {
 public:
  virtual ~Method() = default;
  // Computes the initial state from x (r = b - A x, ...) without writing x.
  virtual void start(const Queue& q) = 0;
  // One iteration. With a probe, reads each denominator before it is used and returns false
  // at the first one that breaks down (x is then not yet updated by this iteration).
  virtual bool step(const Queue& q, Probe* probe) = 0;
  // ||r||^2 after start or the last step, on the device.
  virtual const Scalar<T>& residual_squared() const = 0;
  // Copies the state needed to continue (x included) aside, and back.
  virtual void save(const Queue& q) = 0;
  virtual void restore(const Queue& q) = 0;
  // n unprobed iterations in one backend call (a fused kernel), or false, enqueuing nothing.
  // The host-side state is left as it was (no scalar swaps): any phase of period() holds.
  virtual bool fused_steps(const Queue& q, std::int64_t n) {
    (void)q, (void)n;
    return false;
  }
  // After this many steps the host-side state (which scalar object holds which quantity) is
  // as before them: the unit a recorded graph replays (step_graph.hpp).
  virtual int period() const { return 1; }
};

// The check interval: given, or chosen so that a check (its host wait and the state copy)
// costs under 5% of the iterations between two checks, but no longer than 1/20 of the
// iterations done so far: a converged solve then runs at most ~5% past its tolerance too
// (the interval grows as the solve proves long).
class Interval {
 public:
  Interval(int given, double check_cost) : given_(given), check_cost_(check_cost) {}
  int next() const { return given_ > 0 ? given_ : chosen_; }
  // After a check: `iterations` done in `loop_seconds` with `checks` checks so far.
  void update(std::int64_t iterations, double loop_seconds, std::int64_t checks) {
    if (given_ > 0 || iterations <= 0) return;
    const double per_iteration =
        std::max((loop_seconds - static_cast<double>(checks) * check_cost_) / static_cast<double>(iterations), 1e-9);
    const double k = std::ceil(check_cost_ / (0.05 * per_iteration));
    const double overshoot_cap = std::max(1.0, static_cast<double>(iterations) / 20.0);
    chosen_ = static_cast<int>(std::clamp(k, 1.0, std::min(overshoot_cap, static_cast<double>(max_interval))));
  }
  // Beyond this, the iterations run past convergence cost more than the checks they save.
  static constexpr int max_interval = 200;

 private:
  int given_;
  double check_cost_;
  int chosen_ = 1;
};

// Fills the fields every solver sets the same way at its end.
inline void finish(SolveResult& r, SolveStatus status, std::string reason) {
  r.status = status;
  r.converged = status == SolveStatus::converged;
  r.reason = std::move(reason);
}
inline void record(SolveResult& r, const SolveOptions& o, std::int64_t iteration, double residual) {
  r.residual = residual;
  if (!o.record_history) return;
  r.history_iterations.push_back(iteration);
  r.history.push_back(residual);
}
// ||b - A x||, one spmv and one wait.
template <class Mat, class Vec>
double true_residual(const Queue& q, const Mat& A, const Vec& b, const Vec& x) {
  using T = typename Vec::value_type;
  Vec r = like(b);
  copy(q, b, r);
  spmv(q, T(-1), A, x, T(1), r);
  Scalar<T> n(A.device());
  norm2(q, r, n);
  return static_cast<double>(n.get(q));
}

// ||b||, with the result's tolerance; false (and the result filled) when b is not finite.
template <class Vec>
bool measure_rhs(const Queue& q, const Vec& b, const SolveOptions& o, SolveResult& r) {
  Scalar<typename Vec::value_type> n(b.device());
  norm2(q, b, n);
  r.rhs_norm = static_cast<double>(n.get(q));
  r.tolerance = std::max(o.rel_tol * r.rhs_norm, o.abs_tol);
  if (std::isfinite(r.rhs_norm)) return true;
  finish(r, SolveStatus::not_finite, "b holds NaN or Inf");
  return false;
}

// The loop of CG and BiCGSTAB (solve.hpp describes what it guarantees).
template <class T, class Mat, class Vec, class Pre>
SolveResult run_method(const Queue& q, Method<T>& m, const Mat& A, const Vec& b, const Vec& x, const Pre* M,
                       const SolveOptions& o) {
  const auto t_setup = Clock::now();
  SolveResult r;
  if (M != nullptr) r.preconditioner_seconds = M->setup_seconds();
  if (!measure_rhs(q, b, o, r)) return r;
  m.start(q);
  const double r0 = std::sqrt(static_cast<double>(m.residual_squared().get(q)));
  record(r, o, 0, r0);
  if (!std::isfinite(r0)) {
    finish(r, SolveStatus::not_finite, "the initial residual b - A x is not finite (NaN or Inf in A or x)");
    return r;
  }
  // The cost of one check on an idle queue: the state copy, then a wait for a value.
  auto t = Clock::now();
  m.save(q);
  q.synchronize();
  (void)m.residual_squared().get(q);
  Interval interval(o.check_every, agreed_seconds(b, seconds_since(t)));
  r.check_every = interval.next();
  r.setup_seconds = seconds_since(t_setup);

  const auto t_solve = Clock::now();
  StepGraph<Method<T>> steps_run(q, m, o.graphs, o.fused);
  std::int64_t it = 0, saved_it = 0, checks = 0;
  double rn = r0;
  bool done = rn <= r.tolerance;
  if (done) finish(r, SolveStatus::converged, "the initial guess meets the tolerance");
  while (!done && it < o.max_iterations) {
    const std::int64_t steps = std::min<std::int64_t>(interval.next(), o.max_iterations - it);
    steps_run.run(steps);
    it += steps;
    rn = std::sqrt(static_cast<double>(m.residual_squared().get(q)));
    ++checks;
    r.check_every = interval.next();
    if (!std::isfinite(rn)) {
      // Replay from the last good state one iteration at a time, reading every denominator.
      m.restore(q);
      Probe probe;
      std::int64_t j = saved_it;
      for (; j < it; ++j) {
        m.save(q);
        if (!m.step(q, &probe)) {
          m.restore(q);  // x as it was before the iteration that broke down
          break;
        }
        const double rj = std::sqrt(static_cast<double>(m.residual_squared().get(q)));
        if (rj <= r.tolerance) {  // an exact solution, then 0/0 in the next iteration
          it = j + 1;
          rn = rj;
          break;
        }
      }
      if (rn <= r.tolerance) {
        record(r, o, it, rn);
        finish(r, SolveStatus::converged, "||r|| = " + describe(rn) + " <= " + describe(r.tolerance));
        done = true;
        break;
      }
      if (probe.status == SolveStatus::converged) {  // not reproduced (a non-deterministic device)
        m.restore(q);
        finish(r, SolveStatus::not_finite,
               "the iterates became NaN or Inf between iterations " + std::to_string(saved_it) + " and " +
                   std::to_string(it) + " (not reproduced on replay); x is the iterate of iteration " +
                   std::to_string(saved_it));
        it = saved_it;
      } else {
        finish(r, probe.status,
               std::string(probe.status == SolveStatus::breakdown ? "breakdown: " : "not finite: ") + probe.quantity +
                   " = " + describe(probe.value) + " in iteration " + std::to_string(j + 1) +
                   "; x is the iterate of iteration " + std::to_string(j));
        it = j;
      }
      done = true;
      break;
    }
    record(r, o, it, rn);
    if (rn <= r.tolerance) {
      finish(r, SolveStatus::converged, "||r|| = " + describe(rn) + " <= " + describe(r.tolerance));
      done = true;
      break;
    }
    m.save(q);
    saved_it = it;
    interval.update(it, agreed_seconds(b, seconds_since(t_solve)), checks);
  }
  r.iterations = it;
  r.graph = steps_run.used();
  r.fused = steps_run.fused();
  if (std::isfinite(rn)) r.residual = rn;
  r.solve_seconds = seconds_since(t_solve);
  if (!done)
    finish(r, SolveStatus::max_iterations,
           "reached " + std::to_string(o.max_iterations) + " iterations with ||r|| = " + describe(rn) + " > " +
               describe(r.tolerance));
  if (o.true_residual) r.true_residual = true_residual(q, A, b, x);
  return r;
}

}  // namespace tessera::solve_detail
