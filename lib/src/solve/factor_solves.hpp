// Builds the triangular solves of an incomplete factorisation (detail::FactorSolves, solve.hpp)
// from its host factors, in the storage precision asked for: what Ilu0 and Ic0 share.
#pragma once

#include "tessera/solve.hpp"

namespace tessera::solve_detail {

// Throws InvalidArgument for a storage that is no DType or f64 storage in a float solve (nothing
// to gain); called before the factorisation, so a bad argument costs nothing.
template <class T>
void check_storage(const char* op, DType storage);

// Uploads L (lower, diagonal `lower_diag`) and U (upper, non-unit; null: L^T, built on the device
// by CsrMatrix::transposed) in `storage`, analyses both on q. `op` names the caller in errors
// (check_storage's).
template <class T>
detail::FactorSolves<T> factor_solves(const char* op, const Queue& q, const Device& device, const HostCsr<double>& L,
                                      Diag lower_diag, const HostCsr<double>* U, DType storage);

// "ilu0" -> "ilu0(f32)" where the factors are stored in a lower precision than the solve's.
template <class T>
std::string storage_name(const char* base, const detail::FactorSolves<T>& s);

}  // namespace tessera::solve_detail
