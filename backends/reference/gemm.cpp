// C = alpha * op(A) * op(B) + beta * C: the triple loop, each C(i, j) summed in double and
// rounded to T once. MathMode::tf32 rounds each f32 input to TF32 first (tf32.hpp).
#include <cstdint>

#include "reference/reference_backend.hpp"
#include "reference/tf32.hpp"

namespace tessera {

namespace {

// Element (i, j) of op(M), M row-major with leading dimension ld.
template <class T>
double op_at(Trans t, const MatView& m, std::int64_t i, std::int64_t j, MathMode math) {
  const T* data = host_ptr<const T>(m);
  return product_input(t == Trans::N ? data[i * m.ld + j] : data[j * m.ld + i], math);
}

}  // namespace

template <class T>
void ReferenceBackend::gemm(QueueImpl&, Trans ta, Trans tb, double alpha, const MatView& A, const MatView& B, double beta,
                            const MatView& Cv, MathMode math) {
  const std::int64_t m = Cv.rows, n = Cv.cols;
  const std::int64_t k = ta == Trans::N ? A.cols : A.rows;
  T* C = host_ptr<T>(Cv);
  for (std::int64_t i = 0; i < m; ++i) {
    for (std::int64_t j = 0; j < n; ++j) {
      double acc = 0.0;
      for (std::int64_t p = 0; p < k; ++p) acc += op_at<T>(ta, A, i, p, math) * op_at<T>(tb, B, p, j, math);
      double result = alpha * acc;
      // beta == 0 must not read C: 0 * NaN would be NaN, and C may be uninitialised.
      if (beta != 0.0) result += beta * static_cast<double>(C[i * Cv.ld + j]);
      C[i * Cv.ld + j] = static_cast<T>(result);
    }
  }
}

TESSERA_INSTANTIATE_TYPED_OP(ReferenceBackend, gemm)

}  // namespace tessera
