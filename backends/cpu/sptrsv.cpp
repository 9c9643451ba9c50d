// Sparse triangular solve by level scheduling. The analysis (plan/level_schedule.hpp) assigns
// each row a level (one more than the deepest row it depends on) and orders rows by level; the
// plan copies the strict triangle in that order, so a solve streams one compact array and never
// tests which side of the diagonal an entry is on. Rows of one level are independent and run in
// parallel; runs of consecutive small levels run on one thread, so a chain-like matrix (e.g.
// bidiagonal, n levels of one row) costs no barrier per level.
#include <algorithm>
#include <cstdint>
#include <memory>
#include <type_traits>
#include <vector>

#include "cpu/cpu_backend.hpp"
#include "cpu/gathers.hpp"
#include "kernels/cpu/dispatch.hpp"
#include "kernels/cpu/sptrsv.hpp"
#include "plan/level_schedule.hpp"
#include "tessera/errors.hpp"

namespace tessera {
namespace {

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

}  // namespace

// The rows' levels and diagonals come from the one analysis (plan::level_schedule, which also
// rejects a singular matrix); the plan is its level order with the strict triangle copied
// compactly in that order, and the segments to run.
template <class T>
std::shared_ptr<SptrsvPlanData> CpuBackend::sptrsv_analyze(QueueImpl&, Uplo uplo, Diag diag, const CsrView& A) {
  const auto* row_ptr = static_cast<const std::int32_t*>(A.row_ptr);
  const auto* col_idx = static_cast<const std::int32_t*>(A.col_idx);
  const T* values = static_cast<const T*>(A.values);
  const std::int64_t n = A.rows;
  const bool lower = uplo == Uplo::lower;
  const plan::LevelSchedule sched = plan::level_schedule(n, row_ptr, col_idx, A.values, dtype_v<T>, uplo, diag);

  auto plan = std::make_shared<CpuSptrsvPlan<T>>();
  plan->generation = A.generation;
  plan->unit = diag == Diag::unit;
  plan->row = sched.order;
  plan->ptr.resize(static_cast<std::size_t>(n) + 1);
  plan->col.reserve(static_cast<std::size_t>(sched.strict_nnz));
  plan->val.reserve(static_cast<std::size_t>(sched.strict_nnz));
  if (!plan->unit) plan->diag.resize(static_cast<std::size_t>(n));
  for (std::int64_t p = 0; p < n; ++p) {
    const std::int64_t i = plan->row[static_cast<std::size_t>(p)];
    plan->ptr[static_cast<std::size_t>(p)] = static_cast<std::int32_t>(plan->col.size());
    for (std::int32_t k = row_ptr[i]; k < row_ptr[i + 1]; ++k)
      if (lower ? col_idx[k] < i : col_idx[k] > i) {
        plan->col.push_back(col_idx[k]);
        plan->val.push_back(values[k]);
      }
    if (!plan->unit)
      plan->diag[static_cast<std::size_t>(p)] = static_cast<T>(sched.diagonal[static_cast<std::size_t>(i)]);
  }
  plan->ptr[static_cast<std::size_t>(n)] = static_cast<std::int32_t>(plan->col.size());

  // Segments: each big level alone (parallel), consecutive small levels merged (sequential).
  const std::int64_t parallel_work = tune_["sptrsv.parallel_level_work"];
  for (std::size_t l = 0; l < static_cast<std::size_t>(sched.levels); ++l) {
    const std::int64_t b = sched.level_ptr[l], e = sched.level_ptr[l + 1];
    const std::int64_t work = (e - b) + plan->ptr[static_cast<std::size_t>(e)] - plan->ptr[static_cast<std::size_t>(b)];
    const bool parallel = work >= parallel_work && cpu::num_threads() > 1;
    if (!parallel && !plan->segments.empty() && !plan->segments.back().parallel)
      plan->segments.back().end = e;
    else
      plan->segments.push_back({b, e, parallel});
  }
  return plan;
}

namespace {

template <class T>
void solve(const CpuSptrsvPlan<T>& plan, const VecView& bv, const VecView& xv, const tuning::Tuning& tune) {
  const T* b = host_ptr<const T>(bv);
  T* x = host_ptr<T>(xv);
  const std::size_t lanes = std::is_same_v<T, float> ? cpu::lanes_f32() : cpu::lanes_f64();
  const std::int64_t gather_min = cpu::gather_min_len(lanes, tune);
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

template <class T>
void CpuBackend::sptrsv_solve(QueueImpl&, const SptrsvPlanData& plan, const CsrView& A, const VecView& b, const VecView& x) {
  solve(checked_plan<T>(plan, A), b, x, tune_);
}

TESSERA_INSTANTIATE_TYPED_OP(CpuBackend, sptrsv_analyze)
TESSERA_INSTANTIATE_TYPED_OP(CpuBackend, sptrsv_solve)

}  // namespace tessera
