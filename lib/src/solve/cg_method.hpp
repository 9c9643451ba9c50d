// The method as a template over the solver space (driver.hpp): instantiated by libtessera for
// one device's CsrMatrix / Vector and by the tessera::mpi component for its distributed types.
// Preconditioned conjugate gradients (Hestenes-Stiefel; the form of Saad, "Iterative Methods
// for Sparse Linear Systems", alg. 9.1). Per iteration: one spmv, the dot p.Ap, the residual
// update fused with what follows it (without a preconditioner axpby_dot, r -= alpha Ap and r.r;
// with one its axpy_apply_dot2: Jacobi's r -= alpha Ap, z = D^-1 r, r.z and r.r in one pass),
// then x += alpha p and p = z + beta p in one pass (axpby_pair, which reads p once): four
// launches with Jacobi, where launches bound small systems (NVIDIA's OpenCL). The step lengths
// alpha = rz / pq and beta = rz_new / rz are read on the device. A backend with a fused kernel
// for small systems runs the iterations between two checks in one call (Backend::cg_steps).
#pragma once

#include <utility>

#include "solve/driver.hpp"
#include "solve/fused_cg.hpp"

namespace tessera::solve_detail {

template <class Mat, class Vec, class Pre>
class CgMethod final : public Method<typename Vec::value_type> {
 public:
  using T = typename Vec::value_type;
  CgMethod(const Mat& A, const Vec& b, Vec& x, const Pre* M)
      : A_(A), b_(b), x_(x), M_(M), r_(like(b)), p_(like(b)), ap_(like(b)), z_(M ? like(b) : r_),
        rz_(dev()), rz_new_(dev()), pq_(dev()), rr_(dev()), rz_saved_(dev()), saved_x_(like(b)),
        saved_r_(like(b)), saved_p_(like(b)) {}

  void start(const Queue& q) override {
    copy(q, b_, r_);
    spmv(q, T(-1), A_, x_, T(1), r_);
    if (M_) M_->apply(q, r_, z_);
    dot2(q, r_, r_, z_, rr_, rz_);
    copy(q, z_, p_);
  }

  bool step(const Queue& q, Probe* probe) override {
    spmv_dot(q, T(1), A_, p_, T(0), ap_, p_, pq_);
    if (probe && !probe->ok(q, pq_, "p.Ap")) return false;  // A indefinite (or p = 0)
    if (M_) {
      M_->axpy_apply_dot2(q, -(rz_ / pq_), ap_, r_, z_, rz_new_, rr_);
    } else {
      axpby_dot(q, -(rz_ / pq_), ap_, T(1), r_, r_, rr_);
      fill(q, rr_, rz_new_);
    }
    if (probe && !probe->ok(q, rr_, "r.r", false)) return false;
    // Zero only with r = 0, which the driver's residual test sees first.
    if (probe && !probe->ok(q, rz_new_, "r.z", false)) return false;
    // x's update reads the old p, before p = z + beta p replaces it (element by element).
    axpby_pair(q, rz_ / pq_, p_, T(1), x_, T(1), z_, rz_new_ / rz_, p_);
    std::swap(rz_, rz_new_);
    return true;
  }

  // The backend's fused kernel, where it has one for A (small systems): the same updates, and
  // rz_ holds r.z after them as after a whole period of steps.
  bool fused_steps(const Queue& q, std::int64_t n) override {
    return fused_cg_steps(q, n, A_, M_, x_, r_, p_, ap_, z_, rz_, rr_);
  }

  const Scalar<T>& residual_squared() const override { return rr_; }
  int period() const override { return 2; }  // rz and rz_new swap every step

  void save(const Queue& q) override {
    copy(q, x_, saved_x_);
    copy(q, r_, saved_r_);
    copy(q, p_, saved_p_);
    fill(q, rz_, rz_saved_);
  }
  void restore(const Queue& q) override {
    copy(q, saved_x_, x_);
    copy(q, saved_r_, r_);
    copy(q, saved_p_, p_);
    fill(q, rz_saved_, rz_);
    // rr follows r: the driver reads it after a restore only through a later step.
  }

 private:
  const Device& dev() const { return A_.device(); }
  Mat A_;
  Vec b_, x_;
  const Pre* M_;
  Vec r_, p_, ap_, z_;  // without M, z is r
  Scalar<T> rz_, rz_new_, pq_, rr_, rz_saved_;
  Vec saved_x_, saved_r_, saved_p_;
};

// Checks the arguments, then runs the method.
template <class Mat, class Vec, class Pre>
SolveResult run_cg(const char* op, const Queue& q, const Mat& A, const Vec& b, Vec& x, const Pre* M,
                      const SolveOptions& options) {
  check_arguments(op, q, A, b, x, M, options);
  CgMethod<Mat, Vec, Pre> method(A, b, x, M);
  return run_method(q, method, A, b, x, M, options);
}

}  // namespace tessera::solve_detail
