// Highway per-target loops for peaks.cpp. The read sum keeps eight vector accumulators so the
// add latency (4 cycles, 2 adds per cycle) never limits it below memory speed; the FMA loop keeps 12 independent chains:
// enough to fill two FMA pipes of 4-cycle latency (8 in flight) and few enough to stay in
// registers on 16-register targets (AVX2: 12 accumulators + 2 constants).
#include <cstddef>
#include <cstdint>

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "bench/peaks_kernels.cpp"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

HWY_BEFORE_NAMESPACE();
namespace bench::peak_kernels::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

double ReadSum(const double* HWY_RESTRICT a, std::size_t n) {
  const hn::ScalableTag<double> d;
  const std::size_t N = hn::Lanes(d);
  auto s0 = hn::Zero(d), s1 = hn::Zero(d), s2 = hn::Zero(d), s3 = hn::Zero(d);
  auto s4 = hn::Zero(d), s5 = hn::Zero(d), s6 = hn::Zero(d), s7 = hn::Zero(d);
  std::size_t i = 0;
  for (; i + 8 * N <= n; i += 8 * N) {
    s0 = hn::Add(s0, hn::LoadU(d, a + i));
    s1 = hn::Add(s1, hn::LoadU(d, a + i + N));
    s2 = hn::Add(s2, hn::LoadU(d, a + i + 2 * N));
    s3 = hn::Add(s3, hn::LoadU(d, a + i + 3 * N));
    s4 = hn::Add(s4, hn::LoadU(d, a + i + 4 * N));
    s5 = hn::Add(s5, hn::LoadU(d, a + i + 5 * N));
    s6 = hn::Add(s6, hn::LoadU(d, a + i + 6 * N));
    s7 = hn::Add(s7, hn::LoadU(d, a + i + 7 * N));
  }
  const auto s = hn::Add(hn::Add(hn::Add(s0, s1), hn::Add(s2, s3)), hn::Add(hn::Add(s4, s5), hn::Add(s6, s7)));
  double total = hn::GetLane(hn::SumOfLanes(d, s));
  for (; i < n; ++i) total += a[i];
  return total;
}

void Copy(double* HWY_RESTRICT c, const double* HWY_RESTRICT a, std::size_t n) {
  const hn::ScalableTag<double> d;
  const std::size_t N = hn::Lanes(d);
  std::size_t i = 0;
  for (; i + N <= n; i += N) hn::StoreU(hn::LoadU(d, a + i), d, c + i);
  for (; i < n; ++i) c[i] = a[i];
}

void Triad(double* HWY_RESTRICT a, const double* HWY_RESTRICT b, const double* HWY_RESTRICT c, double s, std::size_t n) {
  const hn::ScalableTag<double> d;
  const std::size_t N = hn::Lanes(d);
  const auto vs = hn::Set(d, s);
  std::size_t i = 0;
  for (; i + N <= n; i += N) hn::StoreU(hn::MulAdd(vs, hn::LoadU(d, c + i), hn::LoadU(d, b + i)), d, a + i);
  for (; i < n; ++i) a[i] = b[i] + s * c[i];
}

// a <- a * m + c converges to c / (1 - m): values stay normal however long it runs.
template <class T>
double FmaLoop(std::int64_t iters) {
  const hn::ScalableTag<T> d;
  const auto m = hn::Set(d, T(0.999));
  const auto c = hn::Set(d, T(0.001));
  auto a0 = hn::Set(d, T(0.1)), a1 = hn::Set(d, T(0.2)), a2 = hn::Set(d, T(0.3)), a3 = hn::Set(d, T(0.4));
  auto a4 = hn::Set(d, T(0.5)), a5 = hn::Set(d, T(0.6)), a6 = hn::Set(d, T(0.7)), a7 = hn::Set(d, T(0.8));
  auto a8 = hn::Set(d, T(0.9)), a9 = hn::Set(d, T(1.0)), a10 = hn::Set(d, T(1.1)), a11 = hn::Set(d, T(1.2));
  for (std::int64_t i = 0; i < iters; ++i) {
    a0 = hn::MulAdd(a0, m, c);
    a1 = hn::MulAdd(a1, m, c);
    a2 = hn::MulAdd(a2, m, c);
    a3 = hn::MulAdd(a3, m, c);
    a4 = hn::MulAdd(a4, m, c);
    a5 = hn::MulAdd(a5, m, c);
    a6 = hn::MulAdd(a6, m, c);
    a7 = hn::MulAdd(a7, m, c);
    a8 = hn::MulAdd(a8, m, c);
    a9 = hn::MulAdd(a9, m, c);
    a10 = hn::MulAdd(a10, m, c);
    a11 = hn::MulAdd(a11, m, c);
  }
  const auto s = hn::Add(hn::Add(hn::Add(hn::Add(a0, a1), hn::Add(a2, a3)), hn::Add(hn::Add(a4, a5), hn::Add(a6, a7))),
                         hn::Add(hn::Add(a8, a9), hn::Add(a10, a11)));
  return static_cast<double>(hn::GetLane(hn::SumOfLanes(d, s)));
}
double FmaLoopF32(std::int64_t iters) { return FmaLoop<float>(iters); }
double FmaLoopF64(std::int64_t iters) { return FmaLoop<double>(iters); }
std::size_t LanesF32() { return hn::Lanes(hn::ScalableTag<float>()); }
std::size_t LanesF64() { return hn::Lanes(hn::ScalableTag<double>()); }
std::int64_t Target() { return HWY_TARGET; }

}  // namespace bench::peak_kernels::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
#include "peaks_kernels.hpp"

namespace bench::peak_kernels {
HWY_EXPORT(ReadSum);
HWY_EXPORT(Copy);
HWY_EXPORT(Triad);
HWY_EXPORT(FmaLoopF32);
HWY_EXPORT(FmaLoopF64);
HWY_EXPORT(LanesF32);
HWY_EXPORT(LanesF64);
HWY_EXPORT(Target);

double read_sum(const double* a, std::size_t n) { return HWY_DYNAMIC_DISPATCH(ReadSum)(a, n); }
void copy(double* c, const double* a, std::size_t n) { HWY_DYNAMIC_DISPATCH(Copy)(c, a, n); }
void triad(double* a, const double* b, const double* c, double s, std::size_t n) {
  HWY_DYNAMIC_DISPATCH(Triad)(a, b, c, s, n);
}
double fma_loop_f32(std::int64_t iters) { return HWY_DYNAMIC_DISPATCH(FmaLoopF32)(iters); }
double fma_loop_f64(std::int64_t iters) { return HWY_DYNAMIC_DISPATCH(FmaLoopF64)(iters); }
std::size_t lanes_f32() { return HWY_DYNAMIC_DISPATCH(LanesF32)(); }
std::size_t lanes_f64() { return HWY_DYNAMIC_DISPATCH(LanesF64)(); }
std::string target_name() { return hwy::TargetName(HWY_DYNAMIC_DISPATCH(Target)()); }

}  // namespace bench::peak_kernels
#endif
