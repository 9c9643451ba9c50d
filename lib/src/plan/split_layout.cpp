#include "plan/split_layout.hpp"

#include "plan/spmv_policy.hpp"

namespace tessera::plan {

SplitLayout split_layout(const std::int32_t* row_ptr, std::int64_t rows, std::int64_t long_row, int chunk,
                         const tuning::Tuning& tune) {
  SplitLayout l;
  l.long_row = long_row;
  std::int64_t short_rows = 0, short_nnz = 0;
  for (std::int64_t r = 0; r < rows; ++r) {
    const std::int64_t len = row_ptr[r + 1] - row_ptr[r];
    if (len <= long_row) {
      ++short_rows;
      short_nnz += len;
      continue;
    }
    const auto n = static_cast<std::int32_t>((len + chunk - 1) / chunk);
    for (std::int32_t c = 0; c < n; ++c)
      l.chunks.insert(l.chunks.end(), {static_cast<std::int32_t>(r), c, n, static_cast<std::int32_t>(l.long_rows)});
    ++l.long_rows;
  }
  l.lanes = vector_lanes(short_rows > 0 ? static_cast<double>(short_nnz) / static_cast<double>(short_rows) : 1.0,
                         tune);
  return l;
}

}  // namespace tessera::plan
