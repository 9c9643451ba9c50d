// SpMV: rows are split among threads by cost (cpu/row_split.hpp). The splits cost O(threads
// log rows) per call, so nothing is cached per matrix. Fewer threads run where each would get less
// than spmv.min_work_per_thread (tuning/spmv.cpp).
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "cpu/cpu_backend.hpp"
#include "cpu/row_split.hpp"
#include "host_machine.hpp"
#include "kernels/cpu/dispatch.hpp"
#include "kernels/cpu/spmv.hpp"

namespace tessera {
namespace {

// Gathers pay once a row fills a vector; below that (e.g. 7-point stencils on AVX-512) the
// scalar loop, whose loads the core overlaps across rows, is faster.
std::int64_t gather_threshold(std::size_t lanes) {
  if (!cpu::spmv_has_gather() || lanes < 2) return std::numeric_limits<std::int64_t>::max();
  return static_cast<std::int64_t>(lanes);
}

// Whether the short rows vary in length from row to row, so that the scalar loop's exit branch
// would be mispredicted about once per row: a quarter or more of the pairs of consecutive rows
// with a short one differ in length (CsrStats, counted once when the matrix was built). Measured
// on a Zen 5 VM, one thread: the branch-free short-row gather ran 1.7-2.5x faster on ct2010,
// delaunay_n16 and vsp_model (5-8 nonzeros per row, irregular), but 20-40% slower on the
// 7-point Laplacian, whose rows are 7 long nearly everywhere.
bool irregular_short_rows(const CsrStats& s) {
  return s.short_pairs > 0 && s.short_pair_changes * 4 >= s.short_pairs;
}

}  // namespace

template <class T>
void CpuBackend::spmv(QueueImpl&, double alpha, const CsrView& A, const VecView& xv, double beta, const VecView& yv) {
  const auto* row_ptr = static_cast<const std::int32_t*>(A.row_ptr);
  const auto* col = static_cast<const std::int32_t*>(A.col_idx);
  const T* val = static_cast<const T*>(A.values);
  const T* x = host_ptr<const T>(xv);
  T* y = host_ptr<T>(yv);
  const T a = static_cast<T>(alpha), b = static_cast<T>(beta);
  const std::int64_t rows = A.rows, work = A.nnz + A.rows;
  const std::int64_t gather_min = gather_threshold(std::is_same_v<T, float> ? cpu::lanes_f32() : cpu::lanes_f64());
  const bool prefetch_x = cpu::prefetch_gathers(static_cast<std::size_t>(A.cols) * sizeof(T), host::machine().caches.l3);
  // The short-row gather reads x[0] for its idle lanes: only with cols >= 1.
  const bool short_gather = A.cols > 0 && cpu::spmv_target_has_gather() && irregular_short_rows(A.stats);
  auto run = [&](std::int64_t r0, std::int64_t r1) {
    if constexpr (std::is_same_v<T, float>)
      cpu::spmv_f32(row_ptr, col, val, x, a, b, y, r0, r1, gather_min, prefetch_x, short_gather);
    else
      cpu::spmv_f64(row_ptr, col, val, x, a, b, y, r0, r1, gather_min, prefetch_x, short_gather);
  };
  const int threads = cpu::threads_for(work, tune_["spmv.min_work_per_thread"]);
  if (threads == 1) {
    run(0, rows);
    return;
  }
#pragma omp parallel for num_threads(threads) schedule(static, 1)
  for (int t = 0; t < threads; ++t) {
    const cpu::RowRange r = cpu::thread_rows(row_ptr, rows, A.nnz, t, threads);
    run(r.begin, r.end);
  }
}

TESSERA_INSTANTIATE_TYPED_OP(CpuBackend, spmv)

}  // namespace tessera
