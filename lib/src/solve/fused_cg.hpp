// CG's iterations in one backend call (Backend::cg_steps) where the backend has a fused kernel
// for the system: for one device's CsrMatrix and Vector with no preconditioner or Jacobi. Any
// other space (the distributed one) or preconditioner gets the generic overload, which declines,
// and the method runs its iterations as separate operations.
#pragma once

#include <cstdint>

#include "tessera/algebra.hpp"
#include "tessera/csr_matrix.hpp"
#include "tessera/solve.hpp"

namespace tessera::solve_detail {

// `steps` iterations of CG's state (cg_method.hpp) in one call; false, enqueuing nothing, where
// the backend has no fused kernel for A or M is neither absent nor Jacobi.
template <class T>
bool fused_cg_steps(const Queue& q, std::int64_t steps, const CsrMatrix<T>& A, const Preconditioner<T>* M,
                    Vector<T>& x, Vector<T>& r, Vector<T>& p, Vector<T>& ap, Vector<T>& z, Scalar<T>& rz,
                    Scalar<T>& rr);

template <class Mat, class Vec, class Pre, class S>
bool fused_cg_steps(const Queue&, std::int64_t, const Mat&, const Pre*, Vec&, Vec&, Vec&, Vec&, Vec&, S&, S&) {
  return false;
}

}  // namespace tessera::solve_detail
