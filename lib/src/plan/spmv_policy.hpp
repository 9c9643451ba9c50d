// The SpMV kernel policy: one decision, from a matrix's row statistics (CsrStats, computed once
// when it was built) and the device's tuning values, for every backend that has more than one
// kernel (CUDA and OpenCL). Backends launch what it picks; they never measure or decide again.
//
//  - rows:   a work-item per `rows_per_item` consecutive rows (OpenCL CPU kernels);
//  - merge:  the longest row exceeds spmv.long_row and spmv.merge_skew x the mean (a skewed,
//            e.g. power-law, matrix): merge-path over rows + nonzeros in equal tiles, so one long
//            row cannot keep a single warp busy while the others idle;
//  - stream: not skewed and mean row <= spmv.stream_mean: a group's rows read as one coalesced
//            run of nonzeros (short rows would leave most lanes of a vector kernel idle);
//  - vector: `lanes` work-items per row, lanes = (power of two >= mean) >> spmv.lanes_shift,
//            within spmv.min_lanes..spmv.max_lanes.
#pragma once

#include <cstdint>
#include <string>

#include "tessera/backend.hpp"
#include "tuning/tuning.hpp"

namespace tessera::plan {

enum class SpmvKernel { rows, vector, stream, merge };
const char* to_string(SpmvKernel k);

struct SpmvChoice {
  SpmvKernel kernel = SpmvKernel::vector;
  int lanes = 1;  // vector: work-items per row
};

// `cpu_kernels`: the device runs the row-per-work-item kernels (OpenCL CPU classes).
// `merge_tile`: rows + nonzeros per merge tile; merge needs rows + nnz + tile to fit in int32.
SpmvChoice choose_spmv(const CsrView& A, const tuning::Tuning& tune, bool cpu_kernels, std::int64_t merge_tile);

}  // namespace tessera::plan
