// The triangular solves of Ilu0 and Ic0 in the factors' storage precision. f32 storage in a
// double solve: r is converted into the f32 scratch vector, both solves run in place there
// (sptrsv_solve allows x == b), and the result is converted into z: two conversions, one scratch
// vector, and the solves move half the bytes.
#include "solve/factor_solves.hpp"

#include <string>
#include <type_traits>

#include "solve/host_rows.hpp"
#include "tessera/errors.hpp"

namespace tessera {

namespace solve_detail {

namespace {

template <class S>
void analyse(const Queue& q, const Device& device, const HostCsr<double>& L, Diag lower_diag, const HostCsr<double>* U,
             SptrsvPlan<S>& lower, SptrsvPlan<S>& upper) {
  const auto l = CsrMatrix<S>::from_host(device, to_dtype<S>(L));
  lower = sptrsv_analyze(q, Uplo::lower, lower_diag, l);
  upper = sptrsv_analyze(q, Uplo::upper, Diag::non_unit, U ? CsrMatrix<S>::from_host(device, to_dtype<S>(*U)) : l.transposed());
}

}  // namespace

template <class T>
void check_storage(const char* op, DType storage) {
  if (storage != DType::f32 && storage != DType::f64)
    throw InvalidArgument(std::string(op) + ": storage " + std::to_string(static_cast<int>(storage)) +
                          " is not a DType (expected f32 or f64)");
  if (sizeof(T) < dtype_size(storage))
    throw InvalidArgument(std::string(op) + ": factors stored in " + to_string(storage) + " for a " +
                          to_string(dtype_v<T>) + " solve; a storage precision above the solve's is not offered");
}

template <class T>
detail::FactorSolves<T> factor_solves(const char* op, const Queue& q, const Device& device, const HostCsr<double>& L,
                                      Diag lower_diag, const HostCsr<double>* U, DType storage) {
  check_storage<T>(op, storage);
  detail::FactorSolves<T> s;
  s.storage = storage;
  s.size = L.rows;
  s.device = device;
  if constexpr (std::is_same_v<T, double>) {
    if (storage == DType::f32) {
      analyse(q, device, L, lower_diag, U, s.lower_f32, s.upper_f32);
      s.scratch = Vector<float>(device, L.rows);
      return s;
    }
  }
  analyse(q, device, L, lower_diag, U, s.lower, s.upper);
  return s;
}

template <class T>
std::string storage_name(const char* base, const detail::FactorSolves<T>& s) {
  return s.storage == dtype_v<T> ? std::string(base) : std::string(base) + "(" + to_string(s.storage) + ")";
}

template detail::FactorSolves<float> factor_solves<float>(const char*, const Queue&, const Device&,
                                                          const HostCsr<double>&, Diag, const HostCsr<double>*, DType);
template detail::FactorSolves<double> factor_solves<double>(const char*, const Queue&, const Device&,
                                                            const HostCsr<double>&, Diag, const HostCsr<double>*, DType);
template void check_storage<float>(const char*, DType);
template void check_storage<double>(const char*, DType);
template std::string storage_name<float>(const char*, const detail::FactorSolves<float>&);
template std::string storage_name<double>(const char*, const detail::FactorSolves<double>&);

}  // namespace solve_detail

template <class T>
void detail::FactorSolves<T>::apply(const Queue& q, const Vector<T>& r, Vector<T>& z) const {
  if constexpr (std::is_same_v<T, double>) {
    if (storage == DType::f32) {
      Vector<float> s = scratch;  // a handle: the same storage
      copy(q, r, s);
      sptrsv_solve(q, lower_f32, s, s);
      sptrsv_solve(q, upper_f32, s, s);
      return copy(q, s, z);
    }
  }
  sptrsv_solve(q, lower, r, z);
  sptrsv_solve(q, upper, z, z);
}

template struct detail::FactorSolves<float>;
template struct detail::FactorSolves<double>;

}  // namespace tessera
