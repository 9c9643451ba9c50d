// The method as a template over the solver space (driver.hpp): instantiated by libtessera for
// one device's CsrMatrix / Vector and by the tessera::mpi component for its distributed types.
// BiCGSTAB (van der Vorst 1992; Saad alg. 7.7 with right preconditioning, the form Eigen and
// Ginkgo use). Per iteration: two spmvs, two preconditioner applies, and the vector passes;
// every coefficient (beta, alpha, omega) is a ratio of device Scalars.
#pragma once

#include <utility>

#include "solve/driver.hpp"

namespace tessera::solve_detail {

template <class Mat, class Vec, class Pre>
class BiCgStabMethod final : public Method<typename Vec::value_type> {
 public:
  using T = typename Vec::value_type;
  BiCgStabMethod(const Mat& A, const Vec& b, Vec& x, const Pre* M)
      : A_(A), b_(b), x_(x), M_(M), r_(like(b)), r0_(like(b)), p_(like(b)), v_(like(b)),
        s_(like(b)), t_(like(b)), y_(M ? like(b) : p_), z_(M ? like(b) : s_),
        rho_(dev()), rho_new_(dev()), alpha_(dev()), omega_(dev()), r0v_(dev()), ts_(dev()), tt_(dev()), rr_(dev()),
        saved_{like(b), like(b), like(b), like(b)},
        saved_rho_(dev()), saved_alpha_(dev()), saved_omega_(dev()) {}

  void start(const Queue& q) override {
    copy(q, b_, r_);
    spmv(q, T(-1), A_, x_, T(1), r_);
    copy(q, r_, r0_);  // the shadow residual r0^ = r0
    dot(q, r_, r_, rr_);
    fill(q, T(1), rho_);
    fill(q, T(1), alpha_);
    fill(q, T(1), omega_);
    fill(q, T(0), p_);
    fill(q, T(0), v_);
  }

  bool step(const Queue& q, Probe* probe) override {
    dot(q, r0_, r_, rho_new_);
    if (probe && !probe->ok(q, rho_new_, "rho = r0.r")) return false;
    // p = r + beta (p - omega v), beta = (rho_new / rho) (alpha / omega)
    axpy(q, -omega_, v_, p_);
    axpby(q, T(1), r_, (rho_new_ * alpha_) / (rho_ * omega_), p_);
    if (M_) M_->apply(q, p_, y_);
    spmv(q, T(1), A_, y_, T(0), v_);
    dot(q, r0_, v_, r0v_);
    if (probe && !probe->ok(q, r0v_, "r0.v")) return false;
    fill(q, rho_new_ / r0v_, alpha_);
    // s = r - alpha v
    copy(q, r_, s_);
    axpy(q, -ScalarArg<T>(alpha_), v_, s_);
    if (M_) M_->apply(q, s_, z_);
    spmv(q, T(1), A_, z_, T(0), t_);
    dot2(q, t_, s_, t_, ts_, tt_);
    if (probe && tt_.get(q) == T(0)) {
      // t = A M^-1 s = 0: either s = 0, and the half step x + alpha y solves the system (the
      // unprobed iteration made omega = 0/0), or A M^-1 is singular.
      dot(q, s_, s_, rr_);
      if (rr_.get(q) != T(0)) return probe->ok(q, tt_, "t.t");
      axpy(q, ScalarArg<T>(alpha_), y_, x_);
      copy(q, s_, r_);
      return true;
    }
    fill(q, ts_ / tt_, omega_);
    if (probe && !probe->ok(q, omega_, "omega = t.s / t.t")) return false;
    axpy(q, ScalarArg<T>(alpha_), y_, x_);
    axpy(q, ScalarArg<T>(omega_), z_, x_);
    // r = s - omega t, and r.r in the same pass
    copy(q, s_, r_);
    axpby_dot(q, -ScalarArg<T>(omega_), t_, T(1), r_, r_, rr_);
    if (probe && !probe->ok(q, rr_, "r.r", false)) return false;
    std::swap(rho_, rho_new_);
    return true;
  }

  const Scalar<T>& residual_squared() const override { return rr_; }
  int period() const override { return 2; }  // rho and rho_new swap every step

  void save(const Queue& q) override {
    copy(q, x_, saved_[0]);
    copy(q, r_, saved_[1]);
    copy(q, p_, saved_[2]);
    copy(q, v_, saved_[3]);
    fill(q, rho_, saved_rho_);
    fill(q, alpha_, saved_alpha_);
    fill(q, omega_, saved_omega_);
  }
  void restore(const Queue& q) override {
    copy(q, saved_[0], x_);
    copy(q, saved_[1], r_);
    copy(q, saved_[2], p_);
    copy(q, saved_[3], v_);
    fill(q, saved_rho_, rho_);
    fill(q, saved_alpha_, alpha_);
    fill(q, saved_omega_, omega_);
  }

 private:
  const Device& dev() const { return A_.device(); }
  Mat A_;
  Vec b_, x_;
  const Pre* M_;
  Vec r_, r0_, p_, v_, s_, t_, y_, z_;  // without M, y is p and z is s
  Scalar<T> rho_, rho_new_, alpha_, omega_, r0v_, ts_, tt_, rr_;
  Vec saved_[4];
  Scalar<T> saved_rho_, saved_alpha_, saved_omega_;
};

// Checks the arguments, then runs the method.
template <class Mat, class Vec, class Pre>
SolveResult run_bicgstab(const char* op, const Queue& q, const Mat& A, const Vec& b, Vec& x, const Pre* M,
                      const SolveOptions& options) {
  check_arguments(op, q, A, b, x, M, options);
  BiCgStabMethod<Mat, Vec, Pre> method(A, b, x, M);
  return run_method(q, method, A, b, x, M, options);
}

}  // namespace tessera::solve_detail
