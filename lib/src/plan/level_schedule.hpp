// The level-schedule analysis of a sparse triangular solve, written once for every backend that
// solves by levels (reference for the diagonal, cpu, OpenCL; CUDA runs the same analysis on the
// GPU, kernels/cuda/sptrsv.cu, and words its errors with singular_row_error).
//
// A row's level is one more than the deepest level among the rows of the named triangle it
// depends on; rows of one level are independent. Rows are ordered by level (natural order within
// a level). With Diag::non_unit each row's diagonal (the sum of its diagonal entries, duplicates
// included, as the reference computes it) must exist and be non-zero: otherwise the matrix is
// singular and the analysis throws InvalidArgument naming the first such row.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tessera/types.hpp"

namespace tessera::plan {

struct LevelSchedule {
  std::int64_t levels = 0;
  std::int64_t strict_nnz = 0;          // entries in the strict triangle
  std::vector<std::int32_t> order;      // rows by level
  std::vector<std::int32_t> level_ptr;  // levels + 1 offsets into order
  std::vector<double> diagonal;         // per row (original numbering); empty with Diag::unit
};

// row_ptr, col_idx, values: the matrix in host memory (values of `dtype`; only read with
// Diag::non_unit, may be null otherwise). Entries outside the triangle named by uplo are ignored.
LevelSchedule level_schedule(std::int64_t rows, const std::int32_t* row_ptr, const std::int32_t* col_idx,
                             const void* values, DType dtype, Uplo uplo, Diag diag);

// Whether a GPU solves by one sync-free launch (rows wait on flags of the rows they depend on)
// rather than walking the levels with barriers: where the levels hold at least
// `min_rows_per_level` rows on average (sptrsv.syncfree; 0: never). A sync-free level costs a
// publish-and-poll round trip through the GPU's L2, a barrier far less: narrow levels go to one
// work-group or block.
inline bool solve_sync_free(std::int64_t rows, std::int64_t levels, std::int64_t min_rows_per_level) {
  return min_rows_per_level > 0 && rows >= levels * min_rows_per_level;
}

// The one wording of the singular-row error: "sptrsv_analyze: row 7 has a zero diagonal: ...".
// `what`: "no diagonal entry" or "a zero diagonal".
std::string singular_row_error(std::int64_t row, const char* what);

}  // namespace tessera::plan
