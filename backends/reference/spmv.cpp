// y = alpha * A * x + beta * y for CSR, one row at a time. Each row's products are summed in
// double and alpha, beta applied before the single rounding to T. Unsorted columns and
// duplicate entries need no care: every stored entry contributes its product.
#include <cstdint>

#include "reference/reference_backend.hpp"

namespace tessera {

template <class T>
void ReferenceBackend::spmv(QueueImpl&, double alpha, const CsrView& A, const VecView& xv, double beta, const VecView& yv) {
  const auto* row_ptr = static_cast<const std::int32_t*>(A.row_ptr);
  const auto* col_idx = static_cast<const std::int32_t*>(A.col_idx);
  const T* values = static_cast<const T*>(A.values);
  const T* x = host_ptr<T>(xv);
  T* y = host_ptr<T>(yv);
  for (std::int64_t i = 0; i < A.rows; ++i) {
    double row_sum = 0.0;
    for (std::int32_t k = row_ptr[i]; k < row_ptr[i + 1]; ++k)
      row_sum += static_cast<double>(values[k]) * static_cast<double>(x[col_idx[k]]);
    double result = alpha * row_sum;
    // beta == 0 must not read y: 0 * NaN would be NaN, and y may be uninitialised.
    if (beta != 0.0) result += beta * static_cast<double>(y[i]);
    y[i] = static_cast<T>(result);
  }
}

TESSERA_INSTANTIATE_TYPED_OP(ReferenceBackend, spmv)

}  // namespace tessera
