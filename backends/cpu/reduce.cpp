// Reductions: the vector is cut into one contiguous chunk per thread (cache-line aligned
// boundaries), each chunk reduced by the SIMD kernel, the chunk results combined in double in
// thread order, so the result does not depend on scheduling. Fewer threads run where each would
// get less than reduce.min_per_thread elements (tuning/reduce.cpp).
#include <cmath>
#include <limits>
#include <type_traits>
#include <vector>

#include "cpu/cpu_backend.hpp"
#include "cpu/per_thread.hpp"
#include "kernels/cpu/dispatch.hpp"
#include "kernels/cpu/reduce.hpp"

namespace tessera {
namespace {

double combine(ReduceOp op, const std::vector<double>& parts) {
  double r = parts[0];
  for (std::size_t t = 1; t < parts.size(); ++t) {
    const double p = parts[t];
    if (std::isnan(r) || std::isnan(p)) return std::numeric_limits<double>::quiet_NaN();
    switch (op) {
      case ReduceOp::sum:
      case ReduceOp::sum_squares: r += p; break;
      case ReduceOp::norm2: break;  // reduced as sum_squares (see reduce below)
      case ReduceOp::min: r = p < r ? p : r; break;
      case ReduceOp::max:
      case ReduceOp::max_abs: r = p > r ? p : r; break;
    }
  }
  return r;
}

}  // namespace

double sum_parts(const std::vector<double>& parts) { return combine(ReduceOp::sum, parts); }

template <class T>
void CpuBackend::reduce(QueueImpl&, ReduceOp op, const VecView& xv, const VecView& out) {
  const T* x = host_ptr<const T>(xv);
  const ReduceOp kernel_op = op == ReduceOp::norm2 ? ReduceOp::sum_squares : op;
  const double r = combine(kernel_op, per_thread_sums(xv.n, tune_["reduce.min_per_thread"], [&](std::int64_t b, std::int64_t n) {
                             if constexpr (std::is_same_v<T, float>)
                               return cpu::reduce_f32(kernel_op, x + b, n);
                             else
                               return cpu::reduce_f64(kernel_op, x + b, n);
                           }));
  *host_ptr<T>(out) = static_cast<T>(op == ReduceOp::norm2 ? std::sqrt(r) : r);
}

template <class T>
void CpuBackend::dot(QueueImpl&, const VecView& xv, const VecView& yv, const VecView& out) {
  const T* x = host_ptr<const T>(xv);
  const T* y = host_ptr<const T>(yv);
  *host_ptr<T>(out) = static_cast<T>(sum_parts(per_thread_sums(xv.n, tune_["reduce.min_per_thread"],
                                                               [&](std::int64_t b, std::int64_t n) { return dot_chunk(x + b, y + b, n); })));
}

TESSERA_INSTANTIATE_TYPED_OP(CpuBackend, reduce)
TESSERA_INSTANTIATE_TYPED_OP(CpuBackend, dot)

}  // namespace tessera
