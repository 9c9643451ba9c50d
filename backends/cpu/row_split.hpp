// Splitting CSR rows among threads by cost: a row costs its nonzeros plus one (its row_ptr entry
// and output), so each thread gets an equal share of nonzeros + rows, found by binary search on
// row_ptr; an equal row count would leave threads idle on power-law matrices. Used by spmv and
// spmm (whose per-row cost is that times k for every row alike).
#pragma once

#include <cstdint>

namespace tessera::cpu {

// First row whose start cost (row_ptr[i] + i) reaches `target`.
inline std::int64_t row_at_cost(const std::int32_t* row_ptr, std::int64_t rows, std::int64_t target) {
  std::int64_t lo = 0, hi = rows;
  while (lo < hi) {
    const std::int64_t mid = lo + (hi - lo) / 2;
    if (row_ptr[mid] + mid < target)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

// Rows [begin, end) of thread t of `threads` (t + 1 == threads ends at rows).
struct RowRange {
  std::int64_t begin, end;
};
inline RowRange thread_rows(const std::int32_t* row_ptr, std::int64_t rows, std::int64_t nnz, int t, int threads) {
  const std::int64_t work = nnz + rows;
  return {row_at_cost(row_ptr, rows, work * t / threads),
          t + 1 == threads ? rows : row_at_cost(row_ptr, rows, work * (t + 1) / threads)};
}

}  // namespace tessera::cpu
