// Jacobi's one decision, shared by the one-device preconditioner (jacobi.cpp) and the
// distributed one (tessera::mpi): a missing or zero diagonal entry is refused on the host, named
// by its global row, before anything is allocated; the rest is one upload and one reciprocal.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tessera/algebra.hpp"
#include "tessera/errors.hpp"

namespace tessera::solve_detail {

// Throws InvalidArgument naming the first zero entry of d (row first_row + i).
template <class T>
void check_jacobi_diagonal(const char* op, const std::vector<T>& d, std::int64_t first_row) {
  for (std::size_t i = 0; i < d.size(); ++i)
    if (d[i] == T(0))
      throw InvalidArgument(std::string(op) + ": the diagonal entry of row " +
                            std::to_string(first_row + static_cast<std::int64_t>(i)) +
                            " is missing or zero (rows counted from 0); Jacobi needs a nonzero diagonal");
}

// 1 / d on q's device (d already checked).
template <class T>
Vector<T> inverse_diagonal(const Queue& q, const std::vector<T>& d) {
  Vector<T> v(q.device(), static_cast<std::int64_t>(d.size()));
  v.upload(q, d.data(), v.size(), true);
  reciprocal(q, v, v);
  return v;
}

}  // namespace tessera::solve_detail
