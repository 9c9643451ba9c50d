// Y = alpha * A * X + beta * Y for CSR A and row-major X, Y: spmv per column, each entry's
// products summed in double in stored order, alpha and beta applied before the single rounding.
#include <cstdint>

#include "reference/reference_backend.hpp"

namespace tessera {

template <class T>
void ReferenceBackend::spmm(QueueImpl&, double alpha, const CsrView& A, const MatView& Xv, double beta,
                            const MatView& Yv) {
  const auto* row_ptr = static_cast<const std::int32_t*>(A.row_ptr);
  const auto* col_idx = static_cast<const std::int32_t*>(A.col_idx);
  const T* values = static_cast<const T*>(A.values);
  const T* X = host_ptr<T>(Xv);
  T* Y = host_ptr<T>(Yv);
  for (std::int64_t i = 0; i < A.rows; ++i) {
    for (std::int64_t j = 0; j < Yv.cols; ++j) {
      double sum = 0.0;
      for (std::int32_t k = row_ptr[i]; k < row_ptr[i + 1]; ++k)
        sum += static_cast<double>(values[k]) * static_cast<double>(X[col_idx[k] * Xv.ld + j]);
      double result = alpha * sum;
      // beta == 0 must not read Y: 0 * NaN would be NaN, and Y may be uninitialised.
      if (beta != 0.0) result += beta * static_cast<double>(Y[i * Yv.ld + j]);
      Y[i * Yv.ld + j] = static_cast<T>(result);
    }
  }
}

TESSERA_INSTANTIATE_TYPED_OP(ReferenceBackend, spmm)

}  // namespace tessera
