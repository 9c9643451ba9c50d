// SpMV: rows are split among threads so each gets an equal share of nonzeros + rows (a row costs
// its row_ptr entry and y element besides its nonzeros), found by binary search on row_ptr; an
// equal row count would leave threads idle on power-law matrices. The splits cost O(threads
// log rows) per call, so nothing is cached per matrix.
#include <algorithm>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "cpu/cpu_backend.hpp"
#include "kernels/cpu/dispatch.hpp"
#include "kernels/cpu/spmv.hpp"

namespace tessera {
namespace {

constexpr std::int64_t kMinWorkPerThread = 1 << 15;  // nonzeros + rows

// First row whose start cost (row_ptr[i] + i) reaches `target`.
std::int64_t row_at_cost(const std::int32_t* row_ptr, std::int64_t rows, std::int64_t target) {
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

// Gathers pay once a row fills a vector; below that (e.g. 7-point stencils on AVX-512) the
// scalar loop, whose loads the core overlaps across rows, is faster.
std::int64_t gather_threshold(std::size_t lanes) {
  if (!cpu::spmv_has_gather() || lanes < 2) return std::numeric_limits<std::int64_t>::max();
  return static_cast<std::int64_t>(lanes);
}

template <class T>
void spmv_typed(double alpha, const CsrView& A, const VecView& xv, double beta, const VecView& yv) {
  const auto* row_ptr = static_cast<const std::int32_t*>(A.row_ptr);
  const auto* col = static_cast<const std::int32_t*>(A.col_idx);
  const T* val = static_cast<const T*>(A.values);
  const T* x = static_cast<const T*>(xv.data);
  T* y = static_cast<T*>(yv.data);
  const T a = static_cast<T>(alpha), b = static_cast<T>(beta);
  const std::int64_t rows = A.rows, work = A.nnz + A.rows;
  const std::int64_t gather_min = gather_threshold(std::is_same_v<T, float> ? cpu::lanes_f32() : cpu::lanes_f64());
  auto run = [&](std::int64_t r0, std::int64_t r1) {
    if constexpr (std::is_same_v<T, float>)
      cpu::spmv_f32(row_ptr, col, val, x, a, b, y, r0, r1, gather_min);
    else
      cpu::spmv_f64(row_ptr, col, val, x, a, b, y, r0, r1, gather_min);
  };
  const int threads = cpu::threads_for(work, kMinWorkPerThread);
  if (threads == 1) {
    run(0, rows);
    return;
  }
#pragma omp parallel for num_threads(threads) schedule(static, 1)
  for (int t = 0; t < threads; ++t)
    run(row_at_cost(row_ptr, rows, work * t / threads),
        t + 1 == threads ? rows : row_at_cost(row_ptr, rows, work * (t + 1) / threads));
}

}  // namespace

void CpuBackend::spmv(DType dtype, double alpha, const CsrView& A, const VecView& x, double beta, const VecView& y) {
  if (dtype == DType::f32)
    spmv_typed<float>(alpha, A, x, beta, y);
  else
    spmv_typed<double>(alpha, A, x, beta, y);
}

}  // namespace tessera
