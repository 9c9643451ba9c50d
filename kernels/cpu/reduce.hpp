// Reductions of one contiguous chunk on the calling thread; backends/cpu/reduce.cpp splits a
// vector among threads and combines the chunks' results in double.
#pragma once

#include <cstdint>

#include "tessera/types.hpp"

namespace tessera::cpu {

// Sums come back in double. For n = 0: sum-like ops give 0, min +inf, max -inf, max_abs 0.
// min, max and max_abs give NaN when the chunk holds a NaN.
double reduce_f32(ReduceOp op, const float* x, std::int64_t n);
double reduce_f64(ReduceOp op, const double* x, std::int64_t n);
double dot_f32(const float* x, const float* y, std::int64_t n);
double dot_f64(const double* x, const double* y, std::int64_t n);

}  // namespace tessera::cpu
