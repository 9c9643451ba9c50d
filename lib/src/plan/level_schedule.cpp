#include "plan/level_schedule.hpp"

#include <algorithm>

#include "tessera/errors.hpp"

namespace tessera::plan {

std::string singular_row_error(std::int64_t row, const char* what) {
  return "sptrsv_analyze: row " + std::to_string(row) + " has " + what +
         ": the triangular matrix is singular";
}

namespace {

template <class T>
double diagonal_of_row(std::int64_t i, const std::int32_t* row_ptr, const std::int32_t* col_idx, const T* values) {
  bool found = false;
  double d = 0.0;
  for (std::int32_t k = row_ptr[i]; k < row_ptr[i + 1]; ++k) {
    if (col_idx[k] != i) continue;
    found = true;
    d += static_cast<double>(values[k]);
  }
  if (!found) throw InvalidArgument(singular_row_error(i, "no diagonal entry"));
  // Zero in the solve's own precision: an f32 diagonal that rounds to 0 divides by zero too.
  if (static_cast<T>(d) == T(0)) throw InvalidArgument(singular_row_error(i, "a zero diagonal"));
  return d;
}

}  // namespace

LevelSchedule level_schedule(std::int64_t rows, const std::int32_t* row_ptr, const std::int32_t* col_idx,
                             const void* values, DType dtype, Uplo uplo, Diag diag) {
  LevelSchedule s;
  const auto n = static_cast<std::size_t>(rows);
  const bool lower = uplo == Uplo::lower;
  if (diag == Diag::non_unit) {
    s.diagonal.resize(n);
    for (std::int64_t i = 0; i < rows; ++i)
      s.diagonal[static_cast<std::size_t>(i)] =
          dtype == DType::f32 ? diagonal_of_row(i, row_ptr, col_idx, static_cast<const float*>(values))
                              : diagonal_of_row(i, row_ptr, col_idx, static_cast<const double*>(values));
  }

  // Levels in dependency order: a row's dependencies are all visited before it.
  std::vector<std::int32_t> level(n, 0);
  std::int32_t levels = 0;
  for (std::size_t step = 0; step < n; ++step) {
    const std::size_t i = lower ? step : n - 1 - step;
    std::int32_t l = 0;
    for (std::int32_t k = row_ptr[i]; k < row_ptr[i + 1]; ++k) {
      const auto j = static_cast<std::size_t>(col_idx[k]);
      if (lower ? j < i : j > i) {
        l = std::max(l, level[j] + 1);
        ++s.strict_nnz;
      }
    }
    level[i] = l;
    levels = std::max(levels, l + 1);
  }
  s.levels = levels;

  // Counting sort of rows by level; within a level rows keep their natural order.
  s.level_ptr.assign(static_cast<std::size_t>(levels) + 1, 0);
  for (const std::int32_t l : level) ++s.level_ptr[static_cast<std::size_t>(l) + 1];
  for (std::size_t l = 0; l < static_cast<std::size_t>(levels); ++l) s.level_ptr[l + 1] += s.level_ptr[l];
  s.order.resize(n);
  std::vector<std::int32_t> next(s.level_ptr.begin(), s.level_ptr.end() - 1);
  for (std::size_t i = 0; i < n; ++i)
    s.order[static_cast<std::size_t>(next[static_cast<std::size_t>(level[i])]++)] = static_cast<std::int32_t>(i);
  return s;
}

}  // namespace tessera::plan
