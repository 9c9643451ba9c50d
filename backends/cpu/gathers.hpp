// Whether the cpu kernels that read x by column index (CSR SpMV, the sparse triangular solve)
// gather it with SIMD gathers: the running target has hardware gathers and the device's tuning
// class says they pay (spmv.gathers, lib/src/tuning/spmv.cpp: off on AMD's x86 cores).
#pragma once

#include <cstddef>
#include <cstdint>

#include "kernels/cpu/spmv.hpp"
#include "tuning/tuning.hpp"

namespace tessera::cpu {

// The kernels' gather_min_len for vectors of `lanes` elements: rows of a vector or more are
// gathered (a gather pays once it fills a vector; below that, e.g. 7-point stencils on AVX-512,
// the scalar loop, whose loads the core overlaps across rows, is faster); kNoGathers where
// gathers are not used.
inline std::int64_t gather_min_len(std::size_t lanes, const tuning::Tuning& tune) {
  if (tune["spmv.gathers"] == 0 || !spmv_target_has_gather() || lanes < 2) return kNoGathers;
  return static_cast<std::int64_t>(lanes);
}

}  // namespace tessera::cpu
