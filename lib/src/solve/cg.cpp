// Cg on one device: the method (cg_method.hpp) instantiated for CsrMatrix and Vector.
#include "solve/cg_method.hpp"

namespace tessera {

template <class T>
SolveResult cg(const Queue& q, const CsrMatrix<T>& A, const Vector<T>& b, Vector<T>& x, const detail::same_t<Preconditioner<T>>* M,
               const SolveOptions& options) {
  return solve_detail::run_cg("cg", q, A, b, x, M, options);
}

template SolveResult cg<float>(const Queue&, const CsrMatrix<float>&, const Vector<float>&, Vector<float>&,
                               const Preconditioner<float>*, const SolveOptions&);
template SolveResult cg<double>(const Queue&, const CsrMatrix<double>&, const Vector<double>&, Vector<double>&,
                                const Preconditioner<double>*, const SolveOptions&);

}  // namespace tessera
