// Sparse triangular solve on CSR. The analysis needs only each row's diagonal (the sum of its
// diagonal entries, duplicates included) and the check that none is missing or zero, so a solve
// never divides by zero: both come from the one level-schedule analysis (plan/level_schedule.hpp),
// whose levels the reference ignores. The solve is row-by-row substitution in double, entries
// outside the named triangle skipped.
#include <cstdint>
#include <memory>
#include <vector>

#include "plan/level_schedule.hpp"
#include "reference/reference_backend.hpp"
#include "tessera/errors.hpp"

namespace tessera {

namespace {

class ReferenceSptrsvPlan final : public SptrsvPlanData {
 public:
  Uplo uplo = Uplo::lower;
  Diag diag = Diag::non_unit;
  std::uint64_t generation = 0;   // of the matrix analysed
  std::vector<double> diagonal;   // per row; empty with Diag::unit, where it is never read
};

}  // namespace

template <class T>
std::shared_ptr<SptrsvPlanData> ReferenceBackend::sptrsv_analyze(QueueImpl&, Uplo uplo, Diag diag, const CsrView& A) {
  auto plan = std::make_shared<ReferenceSptrsvPlan>();
  plan->uplo = uplo;
  plan->diag = diag;
  plan->generation = A.generation;
  plan->diagonal = plan::level_schedule(A.rows, static_cast<const std::int32_t*>(A.row_ptr),
                                        static_cast<const std::int32_t*>(A.col_idx), A.values, dtype_v<T>, uplo,
                                        diag)
                       .diagonal;
  return plan;
}

template <class T>
void ReferenceBackend::sptrsv_solve(QueueImpl&, const SptrsvPlanData& plan_data, const CsrView& A, const VecView& bv,
                                    const VecView& xv) {
  const auto* planp = dynamic_cast<const ReferenceSptrsvPlan*>(&plan_data);
  if (planp == nullptr)
    throw InvalidArgument("sptrsv_solve: the plan was not made by the reference backend; analyse on this device");
  const ReferenceSptrsvPlan& plan = *planp;
  if (plan.generation != A.generation)
    throw InvalidArgument("sptrsv_solve: the plan was made for a different matrix; analyse this one first");
  const auto* row_ptr = static_cast<const std::int32_t*>(A.row_ptr);
  const auto* col_idx = static_cast<const std::int32_t*>(A.col_idx);
  const T* values = static_cast<const T*>(A.values);
  const T* b = host_ptr<T>(bv);
  // b is read completely before x is written, which is what makes x == b (aliasing) safe.
  std::vector<double> w(b, b + bv.n);
  const std::int64_t n = A.rows;
  const bool lower = plan.uplo == Uplo::lower;
  for (std::int64_t step = 0; step < n; ++step) {
    const std::int64_t i = lower ? step : n - 1 - step;
    double s = w[static_cast<std::size_t>(i)];
    for (std::int32_t k = row_ptr[i]; k < row_ptr[i + 1]; ++k) {
      const std::int64_t j = col_idx[k];
      const bool in_strict_triangle = lower ? j < i : j > i;
      if (in_strict_triangle) s -= static_cast<double>(values[k]) * w[static_cast<std::size_t>(j)];
    }
    if (plan.diag == Diag::non_unit) s /= plan.diagonal[static_cast<std::size_t>(i)];
    w[static_cast<std::size_t>(i)] = s;
  }
  T* x = host_ptr<T>(xv);
  for (std::int64_t i = 0; i < n; ++i) x[i] = static_cast<T>(w[static_cast<std::size_t>(i)]);
}

TESSERA_INSTANTIATE_TYPED_OP(ReferenceBackend, sptrsv_analyze)
TESSERA_INSTANTIATE_TYPED_OP(ReferenceBackend, sptrsv_solve)

}  // namespace tessera
