// What one pass over a CSR matrix's column indices tells a backend, once per matrix:
//  - its bandwidth, max |col - row|: the rows' reads of x then lie in a window of 2 bw + 1
//    elements that slides down x with the row (streams the caches and the hardware prefetchers
//    follow, where a software prefetch per nonzero only costs: cpu/row_split.hpp);
//  - narrow columns: each column as an int16 offset from its own row (col - row), for matrices
//    whose nonzeros all lie within +-32767 of the diagonal (banded: stencils, FEM meshes in a
//    bandwidth-reducing order). The SpMV then streams 2 bytes per nonzero for the index instead
//    of 4. The policy (plan/spmv_policy.hpp) says when to build them.
#pragma once

#include <cstdint>
#include <memory>

namespace tessera::plan {

// max |col - row| over the nonzeros of rows [0, rows); 0 without nonzeros.
std::int64_t csr_bandwidth(const std::int32_t* row_ptr, const std::int32_t* col, std::int64_t rows);

// col - row for every nonzero of rows [0, rows), or null if some column is farther than the
// int16 range from its row (then nothing is kept). Host memory (large arrays on huge pages),
// kNarrowPadding zeros past the end: the short-row kernel loads a whole vector of up to 8
// offsets from a row's start.
constexpr std::int64_t kNarrowPadding = 32;
struct HostFree {
  void operator()(std::int16_t* p) const noexcept;
};
using NarrowColumns = std::unique_ptr<std::int16_t[], HostFree>;
NarrowColumns narrow_columns(const std::int32_t* row_ptr, const std::int32_t* col, std::int64_t rows);

}  // namespace tessera::plan
