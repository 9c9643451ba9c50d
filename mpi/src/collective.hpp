// Errors that every rank sees. A collective call whose arguments are wrong on one rank must not
// leave the others waiting in an MPI call for it: each public collective starts by exchanging,
// in one MPI_Allgather, what it is (operation and dtype: mismatched calls meet here and are
// told so), whether its local checks passed, and up to kValues numbers (the partial sums of a
// dot). If any rank failed, the lowest failing rank's error (type and message) is broadcast and
// thrown on every rank.
#pragma once

#include <mpi.h>

#include <array>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "tessera/types.hpp"

namespace tessera::mpi::detail {

// Fixed so that any two collective calls, even mismatched ones, exchange the same bytes.
constexpr int kValues = 4;

// What one rank contributes.
struct Contribution {
  std::array<double, kValues> values{};
};

// Identifies a collective operation (op names the public call, dtype its element type).
struct Signature {
  const char* op;
  int dtype;  // 0: none, 4: float, 8: double
};
template <class T>
constexpr int dtype_code() {
  return static_cast<int>(sizeof(T));
}

// Runs `local` (checks, then fills the contribution); exchanges; throws on every rank if any
// rank's local threw a tessera::Error (or std::exception) or called another operation; returns
// every rank's contribution, rank order.
std::vector<Contribution> exchange(MPI_Comm comm, Signature sig, const std::function<void(Contribution&)>& local);

// exchange without values: only the agreement.
inline void agree(MPI_Comm comm, Signature sig, const std::function<void()>& check) {
  exchange(comm, sig, [&](Contribution&) { check(); });
}

}  // namespace tessera::mpi::detail
