// Reductions: the vector is cut into one contiguous chunk per thread (cache-line aligned
// boundaries), each chunk reduced by the SIMD kernel, the chunk results combined in double in
// thread order, so the result does not depend on scheduling. Fewer threads run where each would
// get less than reduce.min_per_thread elements (tuning/reduce.cpp).
#include <cmath>
#include <limits>
#include <type_traits>
#include <vector>

#include "cpu/cpu_backend.hpp"
#include "kernels/cpu/dispatch.hpp"
#include "kernels/cpu/reduce.hpp"

namespace tessera {
namespace {

constexpr std::int64_t kLineElems = 16;  // 64-byte lines of f32; for f64 two lines, still whole

double combine(ReduceOp op, const std::vector<double>& parts) {
  double r = parts[0];
  for (std::size_t t = 1; t < parts.size(); ++t) {
    const double p = parts[t];
    if (std::isnan(r) || std::isnan(p)) return std::numeric_limits<double>::quiet_NaN();
    switch (op) {
      case ReduceOp::sum:
      case ReduceOp::sum_squares: r += p; break;
      case ReduceOp::min: r = p < r ? p : r; break;
      case ReduceOp::max:
      case ReduceOp::max_abs: r = p > r ? p : r; break;
    }
  }
  return r;
}

// f(begin, count) reduces one chunk.
template <class F>
std::vector<double> per_thread(std::int64_t n, std::int64_t min_per_thread, F&& f) {
  const int threads = cpu::threads_for(n, min_per_thread);
  std::vector<double> parts(static_cast<std::size_t>(threads));
  if (threads == 1) {
    parts[0] = f(0, n);
    return parts;
  }
#pragma omp parallel for num_threads(threads) schedule(static, 1)
  for (int t = 0; t < threads; ++t) {
    const cpu::Range r = cpu::split(n, threads, t, kLineElems);
    parts[static_cast<std::size_t>(t)] = f(r.begin, r.end - r.begin);
  }
  return parts;
}

}  // namespace

template <class T>
double CpuBackend::reduce(ReduceOp op, const VecView& xv) {
  const T* x = static_cast<const T*>(xv.data);
  return combine(op, per_thread(xv.n, tune_["reduce.min_per_thread"], [&](std::int64_t b, std::int64_t n) {
                   if constexpr (std::is_same_v<T, float>)
                     return cpu::reduce_f32(op, x + b, n);
                   else
                     return cpu::reduce_f64(op, x + b, n);
                 }));
}

template <class T>
double CpuBackend::dot(const VecView& xv, const VecView& yv) {
  const T* x = static_cast<const T*>(xv.data);
  const T* y = static_cast<const T*>(yv.data);
  return combine(ReduceOp::sum, per_thread(xv.n, tune_["reduce.min_per_thread"], [&](std::int64_t b, std::int64_t n) {
                   if constexpr (std::is_same_v<T, float>)
                     return cpu::dot_f32(x + b, y + b, n);
                   else
                     return cpu::dot_f64(x + b, y + b, n);
                 }));
}

TESSERA_INSTANTIATE_TYPED_OP(CpuBackend, reduce)
TESSERA_INSTANTIATE_TYPED_OP(CpuBackend, dot)

}  // namespace tessera
