// Sparse triangular solve by level scheduling. The analysis assigns each row a level (one more
// than the deepest row it depends on), orders rows by level, and copies the strict triangle in
// that order, so a solve streams one compact array and never tests which side of the diagonal
// an entry is on. Rows of one level are independent and run in parallel; runs of consecutive
// small levels run on one thread, so a chain-like matrix (e.g. bidiagonal, n levels of one row)
// costs no barrier per level.
#include <algorithm>
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "cpu/cpu_backend.hpp"
#include "kernels/cpu/dispatch.hpp"
#include "kernels/cpu/spmv.hpp"
#include "kernels/cpu/sptrsv.hpp"
#include "tessera/errors.hpp"

namespace tessera {
namespace {

// A level is solved in parallel when it has this much work (rows + nonzeros); below, the
// barrier that ends it (~1 us) would cost more than the split saves.
constexpr std::int64_t kParallelLevelWork = 8192;

struct Segment {
  std::int64_t begin = 0, end = 0;  // positions in level order
  bool parallel = false;
};

template <class T>
class CpuSptrsvPlan final : public SptrsvPlanData {
 public:
  std::uint64_t generation = 0;
  bool unit = false;
  std::vector<std::int32_t> row;  // position -> original row, grouped by level
  std::vector<std::int32_t> ptr;  // position -> range of the row's strict-triangle entries
  std::vector<std::int32_t> col;
  std::vector<T> val;
  std::vector<T> diag;  // per position; empty with Diag::unit
  std::vector<Segment> segments;
};

[[noreturn]] void singular(std::int64_t i, const char* what) {
  throw InvalidArgument("sptrsv_analyze: row " + std::to_string(i) + " has " + what +
                        ": the triangular matrix is singular");
}

template <class T>
std::shared_ptr<SptrsvPlanData> analyze_typed(Uplo uplo, Diag diag, const CsrView& A) {
  const auto* row_ptr = static_cast<const std::int32_t*>(A.row_ptr);
  const auto* col_idx = static_cast<const std::int32_t*>(A.col_idx);
  const T* values = static_cast<const T*>(A.values);
  const std::int64_t n = A.rows;
  const bool lower = uplo == Uplo::lower;
  const auto in_strict = [lower](std::int64_t i, std::int64_t j) { return lower ? j < i : j > i; };

  // Levels, in dependency order (a row's dependencies are all visited before it).
  std::vector<std::int32_t> level(static_cast<std::size_t>(n), 0);
  std::vector<T> diagonal(diag == Diag::unit ? 0 : static_cast<std::size_t>(n));
  std::int32_t levels = 0;
  std::int64_t tri_nnz = 0;
  for (std::int64_t step = 0; step < n; ++step) {
    const std::int64_t i = lower ? step : n - 1 - step;
    std::int32_t lv = 0;
    bool has_diag = false;
    double d = 0.0;  // duplicates are summed, as the reference does
    for (std::int32_t k = row_ptr[i]; k < row_ptr[i + 1]; ++k) {
      const std::int64_t j = col_idx[k];
      if (in_strict(i, j)) {
        lv = std::max(lv, level[static_cast<std::size_t>(j)] + 1);
        ++tri_nnz;
      } else if (j == i) {
        has_diag = true;
        d += static_cast<double>(values[k]);
      }
    }
    level[static_cast<std::size_t>(i)] = lv;
    levels = std::max(levels, lv + 1);
    if (diag == Diag::non_unit) {
      if (!has_diag) singular(i, "no diagonal entry");
      if (static_cast<T>(d) == T(0)) singular(i, "a zero diagonal");
      diagonal[static_cast<std::size_t>(i)] = static_cast<T>(d);
    }
  }

  auto plan = std::make_shared<CpuSptrsvPlan<T>>();
  plan->generation = A.generation;
  plan->unit = diag == Diag::unit;

  // Counting sort of rows by level; within a level rows keep their natural order.
  std::vector<std::int64_t> level_start(static_cast<std::size_t>(levels) + 1, 0);
  for (const std::int32_t lv : level) ++level_start[static_cast<std::size_t>(lv) + 1];
  for (std::size_t l = 0; l < static_cast<std::size_t>(levels); ++l) level_start[l + 1] += level_start[l];
  plan->row.resize(static_cast<std::size_t>(n));
  {
    std::vector<std::int64_t> next(level_start.begin(), level_start.end() - 1);
    for (std::int64_t i = 0; i < n; ++i)
      plan->row[static_cast<std::size_t>(next[static_cast<std::size_t>(level[static_cast<std::size_t>(i)])]++)] =
          static_cast<std::int32_t>(i);
  }

  plan->ptr.resize(static_cast<std::size_t>(n) + 1);
  plan->col.reserve(static_cast<std::size_t>(tri_nnz));
  plan->val.reserve(static_cast<std::size_t>(tri_nnz));
  if (!plan->unit) plan->diag.resize(static_cast<std::size_t>(n));
  for (std::int64_t p = 0; p < n; ++p) {
    const std::int64_t i = plan->row[static_cast<std::size_t>(p)];
    plan->ptr[static_cast<std::size_t>(p)] = static_cast<std::int32_t>(plan->col.size());
    for (std::int32_t k = row_ptr[i]; k < row_ptr[i + 1]; ++k)
      if (in_strict(i, col_idx[k])) {
        plan->col.push_back(col_idx[k]);
        plan->val.push_back(values[k]);
      }
    if (!plan->unit) plan->diag[static_cast<std::size_t>(p)] = diagonal[static_cast<std::size_t>(i)];
  }
  plan->ptr[static_cast<std::size_t>(n)] = static_cast<std::int32_t>(plan->col.size());

  // Segments: each big level alone (parallel), consecutive small levels merged (sequential).
  for (std::size_t l = 0; l < static_cast<std::size_t>(levels); ++l) {
    const std::int64_t b = level_start[l], e = level_start[l + 1];
    const std::int64_t work = (e - b) + plan->ptr[static_cast<std::size_t>(e)] - plan->ptr[static_cast<std::size_t>(b)];
    const bool parallel = work >= kParallelLevelWork && cpu::num_threads() > 1;
    if (!parallel && !plan->segments.empty() && !plan->segments.back().parallel)
      plan->segments.back().end = e;
    else
      plan->segments.push_back({b, e, parallel});
  }
  return plan;
}

template <class T>
void solve_typed(const CpuSptrsvPlan<T>& plan, const VecView& bv, const VecView& xv) {
  const T* b = static_cast<const T*>(bv.data);
  T* x = static_cast<T*>(xv.data);
  const std::size_t lanes = std::is_same_v<T, float> ? cpu::lanes_f32() : cpu::lanes_f64();
  const std::int64_t gather_min =
      cpu::spmv_has_gather() && lanes > 1 ? static_cast<std::int64_t>(lanes) : std::numeric_limits<std::int64_t>::max();
  const T* diag = plan.unit ? nullptr : plan.diag.data();
  auto rows = [&](std::int64_t p0, std::int64_t p1) {
    if constexpr (std::is_same_v<T, float>)
      cpu::sptrsv_rows_f32(plan.row.data(), plan.ptr.data(), plan.col.data(), plan.val.data(), diag, b, x, p0, p1,
                           gather_min);
    else
      cpu::sptrsv_rows_f64(plan.row.data(), plan.ptr.data(), plan.col.data(), plan.val.data(), diag, b, x, p0, p1,
                           gather_min);
  };
  const bool any_parallel =
      std::any_of(plan.segments.begin(), plan.segments.end(), [](const Segment& s) { return s.parallel; });
  if (!any_parallel) {
    for (const Segment& s : plan.segments) rows(s.begin, s.end);
    return;
  }
  // One thread team for the whole solve; a barrier after each segment publishes its x values.
#pragma omp parallel num_threads(cpu::num_threads())
  {
    const int threads = omp_get_num_threads(), t = omp_get_thread_num();
    for (const Segment& s : plan.segments) {
      if (s.parallel) {
        const cpu::Range r = cpu::split(s.end - s.begin, threads, t);
        rows(s.begin + r.begin, s.begin + r.end);
      } else if (t == 0) {
        rows(s.begin, s.end);
      }
#pragma omp barrier
    }
  }
}

template <class T>
const CpuSptrsvPlan<T>& checked_plan(const SptrsvPlanData& data, const CsrView& A) {
  const auto* plan = dynamic_cast<const CpuSptrsvPlan<T>*>(&data);
  if (plan == nullptr)
    throw InvalidArgument(
        "sptrsv_solve: the plan was not made by the cpu backend for this dtype; analyse on this device");
  if (plan->generation != A.generation)
    throw InvalidArgument("sptrsv_solve: the plan was made for a different matrix; analyse this one first");
  return *plan;
}

}  // namespace

std::shared_ptr<SptrsvPlanData> CpuBackend::sptrsv_analyze(DType dtype, Uplo uplo, Diag diag, const CsrView& A) {
  return dtype == DType::f32 ? analyze_typed<float>(uplo, diag, A) : analyze_typed<double>(uplo, diag, A);
}

void CpuBackend::sptrsv_solve(DType dtype, const SptrsvPlanData& plan, const CsrView& A, const VecView& b,
                              const VecView& x) {
  if (dtype == DType::f32)
    solve_typed(checked_plan<float>(plan, A), b, x);
  else
    solve_typed(checked_plan<double>(plan, A), b, x);
}

}  // namespace tessera
