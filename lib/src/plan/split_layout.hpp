// The split SpMV layout (plan/spmv_policy.hpp, SpmvKernel::split): a skewed matrix's few long
// rows cut into chunks of a fixed number of entries, each summed by a warp (kSpmvChunk on CUDA),
// while the vector kernel's groups take the other rows in the same launch. Merge path balances
// such a matrix too, but pays for it on every row (a partition search, the tile's products
// staged in shared memory, carries and a fix-up pass); here the short rows run as an unskewed
// matrix would and only the long rows pay for their chunks' partial sums.
//
// Computed once per matrix on the host from the host row offsets (CsrView::host_row_ptr):
// the list of chunks, in row order, a row's chunks consecutive, so the group that finishes a
// row's last chunk finds the row's partial sums at [t - chunk index, t - chunk index + chunks).
#pragma once

#include <cstdint>
#include <vector>

#include "tuning/tuning.hpp"

namespace tessera::plan {

struct SplitLayout {
  // Four int32 per chunk: the row, the chunk's index within the row, the row's chunks, and the
  // row's index among the long rows (its ticket: the chunks finished so far).
  std::vector<std::int32_t> chunks;
  std::int64_t long_rows = 0;
  std::int64_t long_row = 0;  // rows of more entries than this are listed
  int lanes = 1;  // the vector kernel's, from the mean length of the rows it takes
  std::int64_t count() const { return static_cast<std::int64_t>(chunks.size() / 4); }
};

// Rows of more than long_row entries in chunks of `chunk` entries (rows + 1 offsets in host
// memory); the other rows' lanes from plan::vector_lanes.
SplitLayout split_layout(const std::int32_t* row_ptr, std::int64_t rows, std::int64_t long_row, int chunk,
                         const tuning::Tuning& tune);

}  // namespace tessera::plan
