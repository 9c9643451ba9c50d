// Narrow CSR column storage: each column as an int16 offset from its own row (col - row), for
// matrices whose nonzeros all lie within +-32767 of the diagonal (banded: stencils, FEM meshes
// in a bandwidth-reducing order). The SpMV then streams 2 bytes per nonzero for the index
// instead of 4: at 8-byte values and 7 nonzeros per row, 12.5% of a memory-bound product's
// bytes. The policy (plan/spmv_policy.hpp) says when to try it; this builds the offsets.
#pragma once

#include <cstdint>
#include <memory>

namespace tessera::plan {

// col - row for every nonzero of rows [0, rows), or null if some column is farther than the
// int16 range from its row (then nothing is kept). Host memory (large arrays on huge pages).
struct HostFree {
  void operator()(std::int16_t* p) const noexcept;
};
using NarrowColumns = std::unique_ptr<std::int16_t[], HostFree>;
NarrowColumns narrow_columns(const std::int32_t* row_ptr, const std::int32_t* col, std::int64_t rows);

}  // namespace tessera::plan
