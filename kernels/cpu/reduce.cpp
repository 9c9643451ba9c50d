// Reductions of one chunk. Sums: blocks of kAccumulators x kBlockIters vectors of doubles (float
// input widened on load), each accumulator a short sequential sum (kBlockIters terms), the
// accumulators and lanes added as a tree, and the block results added pairwise (PairwiseSum), so
// the rounding error grows with log(n), not n. Eight independent accumulators hide the add/FMA latency (4 cycles,
// 2 per cycle), so the loop runs at load speed.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "tessera/types.hpp"

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/cpu/reduce.cpp"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

#include "kernels/cpu/pairwise_sum.hpp"

HWY_BEFORE_NAMESPACE();
namespace tessera::cpu::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

constexpr std::size_t kAccumulators = 8;  // written out as a0..a7 below (no arrays of sizeless SVE vectors)
constexpr std::size_t kBlockIters = 16;   // sequential terms per accumulator per block

struct SumStep {
  template <class V>
  static V Vec(V acc, V x, V) {
    return hn::Add(acc, x);
  }
  template <class T>
  static double Scalar(T x, T) {
    return static_cast<double>(x);
  }
};
struct SquareStep {
  template <class V>
  static V Vec(V acc, V x, V) {
    return hn::MulAdd(x, x, acc);
  }
  template <class T>
  static double Scalar(T x, T) {
    return static_cast<double>(x) * static_cast<double>(x);
  }
};
struct DotStep {
  template <class V>
  static V Vec(V acc, V x, V y) {
    return hn::MulAdd(x, y, acc);
  }
  template <class T>
  static double Scalar(T x, T y) {
    return static_cast<double>(x) * static_cast<double>(y);
  }
};

// Sums accumulate in double also for float input (a float is widened as it is loaded): f32 sums
// whose partial sums pass FLT_MAX but whose result does not (e.g. [FLT_MAX, FLT_MAX, -FLT_MAX,
// -FLT_MAX, 1] = 1) stay exact, squares and products of floats cannot overflow, and the loop is
// still bound by the loads beyond the caches (two conversions and two adds per float vector are
// far below the core's throughput at its share of memory bandwidth).

// A vector of da's lanes from x: loaded as T and widened to da's type when T is narrower.
template <class DA, class T>
HWY_INLINE hn::Vec<DA> LoadWide(DA da, const T* HWY_RESTRICT x) {
  if constexpr (std::is_same_v<T, hn::TFromD<DA>>) {
    return hn::LoadU(da, x);
  } else {
    const hn::Rebind<T, DA> dt;
    return hn::PromoteTo(da, hn::LoadU(dt, x));
  }
}

// `groups` iterations of kAccumulators vectors from x (and y), reduced to one number.
template <class Step, class DA, class T>
double GroupSum(DA da, const T* HWY_RESTRICT x, const T* HWY_RESTRICT y, std::size_t groups) {
  const std::size_t N = hn::Lanes(da);
  auto a0 = hn::Zero(da), a1 = a0, a2 = a0, a3 = a0, a4 = a0, a5 = a0, a6 = a0, a7 = a0;
  for (std::size_t g = 0; g < groups; ++g, x += kAccumulators * N, y += kAccumulators * N) {
    a0 = Step::Vec(a0, LoadWide(da, x + 0 * N), LoadWide(da, y + 0 * N));
    a1 = Step::Vec(a1, LoadWide(da, x + 1 * N), LoadWide(da, y + 1 * N));
    a2 = Step::Vec(a2, LoadWide(da, x + 2 * N), LoadWide(da, y + 2 * N));
    a3 = Step::Vec(a3, LoadWide(da, x + 3 * N), LoadWide(da, y + 3 * N));
    a4 = Step::Vec(a4, LoadWide(da, x + 4 * N), LoadWide(da, y + 4 * N));
    a5 = Step::Vec(a5, LoadWide(da, x + 5 * N), LoadWide(da, y + 5 * N));
    a6 = Step::Vec(a6, LoadWide(da, x + 6 * N), LoadWide(da, y + 6 * N));
    a7 = Step::Vec(a7, LoadWide(da, x + 7 * N), LoadWide(da, y + 7 * N));
  }
  const auto s = hn::Add(hn::Add(hn::Add(a0, a1), hn::Add(a2, a3)), hn::Add(hn::Add(a4, a5), hn::Add(a6, a7)));
  return hn::GetLane(hn::SumOfLanes(da, s));
}

// For unary ops y == x: the compiler sees the same address and loads it once.
template <class Step, class T>
double SumLike(const T* HWY_RESTRICT x, const T* HWY_RESTRICT y, std::size_t n) {
  const hn::ScalableTag<double> da;
  const std::size_t N = hn::Lanes(da), group = kAccumulators * N;
  PairwiseSum total;
  std::size_t i = 0;
  for (; i + kBlockIters * group <= n; i += kBlockIters * group)
    total.push(GroupSum<Step>(da, x + i, y + i, kBlockIters));
  if (const std::size_t groups = (n - i) / group; groups > 0) {
    total.push(GroupSum<Step>(da, x + i, y + i, groups));
    i += groups * group;
  }
  auto acc = hn::Zero(da);
  for (; i + N <= n; i += N) acc = Step::Vec(acc, LoadWide(da, x + i), LoadWide(da, y + i));
  double tail = hn::GetLane(hn::SumOfLanes(da, acc));
  for (; i < n; ++i) tail += Step::Scalar(x[i], y[i]);
  total.push(tail);
  return total.total();
}

struct MinStep {
  static constexpr double kInit = std::numeric_limits<double>::infinity();
  template <class V>
  static V Vec(V acc, V x) {
    return hn::Min(acc, x);
  }
  static double Scalar(double acc, double x) { return x < acc ? x : acc; }
};
struct MaxStep {
  static constexpr double kInit = -std::numeric_limits<double>::infinity();
  template <class V>
  static V Vec(V acc, V x) {
    return hn::Max(acc, x);
  }
  static double Scalar(double acc, double x) { return x > acc ? x : acc; }
};
struct MaxAbsStep {
  static constexpr double kInit = 0.0;
  template <class V>
  static V Vec(V acc, V x) {
    return hn::Max(acc, hn::Abs(x));
  }
  static double Scalar(double acc, double x) { return std::abs(x) > acc ? std::abs(x) : acc; }
};

// SIMD min/max drop NaNs (x86 minps returns its second operand), but the contract wants NaN to
// win. `probe` accumulates x - x, which is 0 unless x is NaN or inf; only then is the chunk
// rescanned for a NaN. The subtraction is free next to the load.
template <class Step, class T>
double Extremum(const T* HWY_RESTRICT x, std::size_t n) {
  const hn::ScalableTag<T> d;
  const std::size_t N = hn::Lanes(d);
  const auto init = hn::Set(d, static_cast<T>(Step::kInit));
  auto a0 = init, a1 = init, a2 = init, a3 = init;
  auto probe = hn::Zero(d);
  std::size_t i = 0;
  for (; i + 4 * N <= n; i += 4 * N) {
    const auto x0 = hn::LoadU(d, x + i), x1 = hn::LoadU(d, x + i + N);
    const auto x2 = hn::LoadU(d, x + i + 2 * N), x3 = hn::LoadU(d, x + i + 3 * N);
    a0 = Step::Vec(a0, x0);
    a1 = Step::Vec(a1, x1);
    a2 = Step::Vec(a2, x2);
    a3 = Step::Vec(a3, x3);
    probe = hn::Add(probe, hn::Add(hn::Sub(x0, x0), hn::Sub(x1, x1)));
    probe = hn::Add(probe, hn::Add(hn::Sub(x2, x2), hn::Sub(x3, x3)));
  }
  for (; i + N <= n; i += N) {
    const auto v = hn::LoadU(d, x + i);
    a0 = Step::Vec(a0, v);
    probe = hn::Add(probe, hn::Sub(v, v));
  }
  alignas(64) T lanes[hn::MaxLanes(d)];
  hn::StoreU(Step::Vec(Step::Vec(a0, a1), Step::Vec(a2, a3)), d, lanes);
  double r = Step::kInit;
  for (std::size_t k = 0; k < N; ++k) r = Step::Scalar(r, static_cast<double>(lanes[k]));
  for (; i < n; ++i) r = Step::Scalar(r, static_cast<double>(x[i]));
  // Scalar() skips NaNs, so the scalar tail is checked directly.
  bool suspicious = hn::GetLane(hn::SumOfLanes(d, probe)) != 0;
  for (std::size_t k = (n / N) * N; k < n && !suspicious; ++k) suspicious = std::isnan(x[k]);
  if (suspicious)
    for (std::size_t k = 0; k < n; ++k)
      if (std::isnan(x[k])) return std::numeric_limits<double>::quiet_NaN();
  return r;
}

template <class T>
double ReduceT(ReduceOp op, const T* x, std::size_t n) {
  switch (op) {
    case ReduceOp::sum: return SumLike<SumStep>(x, x, n);
    case ReduceOp::sum_squares: return SumLike<SquareStep>(x, x, n);
    case ReduceOp::norm2: return std::sqrt(SumLike<SquareStep>(x, x, n));  // one chunk's norm
    case ReduceOp::min: return Extremum<MinStep>(x, n);
    case ReduceOp::max: return Extremum<MaxStep>(x, n);
    case ReduceOp::max_abs: return Extremum<MaxAbsStep>(x, n);
  }
  return std::numeric_limits<double>::quiet_NaN();
}

double ReduceF32(ReduceOp op, const float* x, std::size_t n) { return ReduceT(op, x, n); }
double ReduceF64(ReduceOp op, const double* x, std::size_t n) { return ReduceT(op, x, n); }
double DotF32(const float* x, const float* y, std::size_t n) { return SumLike<DotStep>(x, y, n); }
double DotF64(const double* x, const double* y, std::size_t n) { return SumLike<DotStep>(x, y, n); }

}  // namespace tessera::cpu::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
#include "kernels/cpu/reduce.hpp"

namespace tessera::cpu {
HWY_EXPORT(ReduceF32);
HWY_EXPORT(ReduceF64);
HWY_EXPORT(DotF32);
HWY_EXPORT(DotF64);

double reduce_f32(ReduceOp op, const float* x, std::int64_t n) {
  return HWY_DYNAMIC_DISPATCH(ReduceF32)(op, x, static_cast<std::size_t>(n));
}
double reduce_f64(ReduceOp op, const double* x, std::int64_t n) {
  return HWY_DYNAMIC_DISPATCH(ReduceF64)(op, x, static_cast<std::size_t>(n));
}
double dot_f32(const float* x, const float* y, std::int64_t n) {
  return HWY_DYNAMIC_DISPATCH(DotF32)(x, y, static_cast<std::size_t>(n));
}
double dot_f64(const double* x, const double* y, std::int64_t n) {
  return HWY_DYNAMIC_DISPATCH(DotF64)(x, y, static_cast<std::size_t>(n));
}
}  // namespace tessera::cpu
#endif  // HWY_ONCE
