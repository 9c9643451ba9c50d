// The one-device overload of fused_cg_steps: forwards to the backend under the queue's lock.
#include "solve/fused_cg.hpp"

#include "queue_state.hpp"

namespace tessera::solve_detail {

template <class T>
bool fused_cg_steps(const Queue& q, std::int64_t steps, const CsrMatrix<T>& A, const Preconditioner<T>* M,
                    Vector<T>& x, Vector<T>& r, Vector<T>& p, Vector<T>& ap, Vector<T>& z, Scalar<T>& rz,
                    Scalar<T>& rr) {
  const Jacobi<T>* jacobi = dynamic_cast<const Jacobi<T>*>(M);
  if (M != nullptr && jacobi == nullptr) return false;
  if (steps <= 0) return true;
  const VecView d = jacobi ? jacobi->inverse_diagonal().view() : VecView{};
  detail::Enqueue e(q);
  return e.backend().cg_steps(dtype_v<T>, e.impl(), steps, A.view(), d, x.view(), r.view(), p.view(), ap.view(),
                              z.view(), rz.view(), rr.view());
}

template bool fused_cg_steps<float>(const Queue&, std::int64_t, const CsrMatrix<float>&, const Preconditioner<float>*,
                                    Vector<float>&, Vector<float>&, Vector<float>&, Vector<float>&, Vector<float>&,
                                    Scalar<float>&, Scalar<float>&);
template bool fused_cg_steps<double>(const Queue&, std::int64_t, const CsrMatrix<double>&,
                                     const Preconditioner<double>*, Vector<double>&, Vector<double>&, Vector<double>&,
                                     Vector<double>&, Vector<double>&, Scalar<double>&, Scalar<double>&);

}  // namespace tessera::solve_detail
