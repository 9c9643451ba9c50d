// What spmv and spmm share about CSR rows on the cpu device. Splitting rows among threads by cost: a row costs its nonzeros plus one (its row_ptr entry
// and output), so each thread gets an equal share of nonzeros + rows, found by binary search on
// row_ptr; an equal row count would leave threads idle on power-law matrices. Used by spmv and
// spmm (whose per-row cost is that times k for every row alike).
#pragma once

#include <cstddef>
#include <cstdint>

#include "cpu/parallel_parts.hpp"

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

// run(begin, end) over all rows: on `threads` OpenMP threads, each its cost share
// (thread_rows), or inline when one thread suffices (no parallel region for small products).
template <class Run>
void for_each_row_share(const std::int32_t* row_ptr, std::int64_t rows, std::int64_t nnz, int threads, const Run& run) {
  if (threads <= 1) {
    run(std::int64_t{0}, rows);
    return;
  }
  parallel_parts(threads, [&](int t) {
    const RowRange r = thread_rows(row_ptr, rows, nnz, t, threads);
    run(r.begin, r.end);
  });
}

// Whether prefetching the gathered operand (spmv's x, spmm's rows of X) pays: where its loads
// miss the last-level cache and TLB; elsewhere it only adds work. Zen 5 VM (32 MiB L3), spmv, one
// thread: 2.4x faster with x = 16-32 MiB (random 4M rows), 10-40% slower with x = 0.2-2.6 MiB
// (cage11, dblp-2010); the cut is between.
inline bool prefetch_gathers(std::size_t gathered_bytes, std::size_t llc_bytes) {
  return gathered_bytes > llc_bytes / 4;
}

// Whether prefetching the streamed arrays (values, column indices) pays: where they come from
// memory, not from the last-level cache that kept them since the previous product (an
// iterative solver's matrix of a few MiB). In cache the prefetches only add work: measured on
// an AVX-512 Zen VM (32 MiB L3), one thread, thread CPU time, f64 CSR spmv without / with them:
// nos6 -14%, Chem97ZtZ -14%, bcsstk13 -5%, Dubcova1 (3 MiB) -5%; 7-point Laplacian 40^3 (5 MiB)
// and 48^3 (9 MiB) within the noise (-8..+9%); 128^3 (108 MiB, prefetching as before) unchanged
// in CG. Half the cache: the vectors and the other work of the iteration share it.
inline bool prefetch_streams(std::size_t streamed_bytes, std::size_t llc_bytes) {
  return streamed_bytes > llc_bytes / 2;
}

}  // namespace tessera::cpu
