// Sparse triangular solve on CSR. The analysis only finds each row's diagonal (the sum of its
// diagonal entries, duplicates included) and rejects a singular matrix, so a solve never
// divides by zero; the solve is row-by-row substitution in double, entries outside the named
// triangle skipped.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

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

template <class T>
std::shared_ptr<SptrsvPlanData> analyze_typed(Uplo uplo, Diag diag, const CsrView& A) {
  auto plan = std::make_shared<ReferenceSptrsvPlan>();
  plan->uplo = uplo;
  plan->diag = diag;
  plan->generation = A.generation;
  if (diag == Diag::unit) return plan;

  const auto* row_ptr = static_cast<const std::int32_t*>(A.row_ptr);
  const auto* col_idx = static_cast<const std::int32_t*>(A.col_idx);
  const T* values = static_cast<const T*>(A.values);
  plan->diagonal.resize(static_cast<std::size_t>(A.rows));
  for (std::int64_t i = 0; i < A.rows; ++i) {
    bool found = false;
    double d = 0.0;
    for (std::int32_t k = row_ptr[i]; k < row_ptr[i + 1]; ++k) {
      if (col_idx[k] != i) continue;
      found = true;
      d += static_cast<double>(values[k]);
    }
    if (!found)
      throw InvalidArgument("sptrsv_analyze: row " + std::to_string(i) +
                            " has no diagonal entry: the triangular matrix is singular");
    if (d == 0.0)
      throw InvalidArgument("sptrsv_analyze: row " + std::to_string(i) +
                            " has a zero diagonal: the triangular matrix is singular");
    plan->diagonal[static_cast<std::size_t>(i)] = d;
  }
  return plan;
}

template <class T>
void solve_typed(const ReferenceSptrsvPlan& plan, const CsrView& A, const VecView& bv, const VecView& xv) {
  const auto* row_ptr = static_cast<const std::int32_t*>(A.row_ptr);
  const auto* col_idx = static_cast<const std::int32_t*>(A.col_idx);
  const T* values = static_cast<const T*>(A.values);
  const T* b = static_cast<const T*>(bv.data);
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
  T* x = static_cast<T*>(xv.data);
  for (std::int64_t i = 0; i < n; ++i) x[i] = static_cast<T>(w[static_cast<std::size_t>(i)]);
}

}  // namespace

std::shared_ptr<SptrsvPlanData> ReferenceBackend::sptrsv_analyze(DType dtype, Uplo uplo, Diag diag,
                                                                 const CsrView& A) {
  return dtype == DType::f32 ? analyze_typed<float>(uplo, diag, A) : analyze_typed<double>(uplo, diag, A);
}

void ReferenceBackend::sptrsv_solve(DType dtype, const SptrsvPlanData& plan_data, const CsrView& A,
                                    const VecView& b, const VecView& x) {
  const auto* plan = dynamic_cast<const ReferenceSptrsvPlan*>(&plan_data);
  if (plan == nullptr)
    throw InvalidArgument("sptrsv_solve: the plan was not made by the reference backend; analyse on this device");
  if (plan->generation != A.generation)
    throw InvalidArgument("sptrsv_solve: the plan was made for a different matrix; analyse this one first");
  if (dtype == DType::f32)
    solve_typed<float>(*plan, A, b, x);
  else
    solve_typed<double>(*plan, A, b, x);
}

}  // namespace tessera
