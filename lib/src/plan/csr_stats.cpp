// Row statistics of a CSR matrix: one pass over row_ptr when the matrix is built.
#include <algorithm>
#include <cmath>

#include "tessera/backend.hpp"

namespace tessera {

CsrStats csr_stats(const std::int32_t* row_ptr, std::int64_t rows) {
  CsrStats s;
  if (rows <= 0) return s;
  s.min_row = row_ptr[1] - row_ptr[0];
  double sum_sq = 0.0;
  std::int64_t prev = -1;
  for (std::int64_t i = 0; i < rows; ++i) {
    const std::int64_t len = row_ptr[i + 1] - row_ptr[i];
    s.min_row = std::min(s.min_row, len);
    s.max_row = std::max(s.max_row, len);
    s.empty_rows += len == 0;
    sum_sq += static_cast<double>(len) * static_cast<double>(len);
    if (prev >= 0 && (prev <= CsrStats::short_row || len <= CsrStats::short_row)) {
      ++s.short_pairs;
      s.short_pair_changes += prev != len;
    }
    prev = len;
  }
  s.mean_row = static_cast<double>(row_ptr[rows]) / static_cast<double>(rows);
  s.stddev_row = std::sqrt(std::max(0.0, sum_sq / static_cast<double>(rows) - s.mean_row * s.mean_row));
  return s;
}

}  // namespace tessera
