// The element-wise passes of the vector algebra (axpby, multiply, divide, reciprocal). On data
// that stays in cache (the vectors of CG on matrices of a few thousand rows) they run at the
// core's load/store rate, so the SIMD width counts: the library itself is built for the
// baseline ISA (SSE2 on x86-64), where the compiler's loops moved two doubles per instruction.
// Measured on an AVX-512 Zen VM, one thread, n = 2541 f64: axpy 0.77 us as an SSE2 loop, 0.41
// us here. Beyond the caches the passes are bound by memory and any width is as fast.
//
// The fused passes (axpby_dot, dot2, multiply_dot2) keep their sums in registers, so the
// elements are read once, and sum as reduce.cpp's dot does: in double (f32 widened as loaded),
// each accumulator a sequential sum of at most kSumSteps terms per block, the blocks added
// pairwise. They replaced a pass per L1 block per operand (the dot re-reading what the update
// had just written): multiply_dot2 took 1.1 us at n = 2541, three passes' time.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "kernels/cpu/pairwise_sum.hpp"
#include "tessera/types.hpp"

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/cpu/vector.cpp"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

HWY_BEFORE_NAMESPACE();
namespace tessera::cpu::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// f(v, i) for each whole vector at i, then g(i) for each element of the tail. Two vectors per
// trip: the loads of the second issue while the first's arithmetic waits.
template <class D, class F, class G>
HWY_INLINE void ForEach(D d, std::size_t n, const F& f, const G& g) {
  const std::size_t N = hn::Lanes(d);
  std::size_t i = 0;
  for (; i + 2 * N <= n; i += 2 * N) {
    f(i);
    f(i + N);
  }
  for (; i + N <= n; i += N) f(i);
  for (; i < n; ++i) g(i);
}

// The tail uses the same operations on one element (an FMA where the vectors use one), so an
// element's result does not depend on where the chunk boundaries fall.
template <class T>
void AxpbyT(T a, const T* x, T b, int mode, T* y, std::size_t n) {
  const hn::ScalableTag<T> d;
  const hn::CappedTag<T, 1> d1;
  const auto va = hn::Set(d, a), vb = hn::Set(d, b);
  const auto va1 = hn::Set(d1, a), vb1 = hn::Set(d1, b);
  switch (mode) {
    case 0:  // overwrite: y is not read
      ForEach(d, n, [&](std::size_t i) { hn::StoreU(hn::Mul(va, hn::LoadU(d, x + i)), d, y + i); },
              [&](std::size_t i) { hn::StoreU(hn::Mul(va1, hn::LoadU(d1, x + i)), d1, y + i); });
      break;
    case 1:  // add
      ForEach(d, n,
              [&](std::size_t i) { hn::StoreU(hn::MulAdd(va, hn::LoadU(d, x + i), hn::LoadU(d, y + i)), d, y + i); },
              [&](std::size_t i) {
                hn::StoreU(hn::MulAdd(va1, hn::LoadU(d1, x + i), hn::LoadU(d1, y + i)), d1, y + i);
              });
      break;
    default:  // scale
      ForEach(d, n,
              [&](std::size_t i) {
                hn::StoreU(hn::MulAdd(va, hn::LoadU(d, x + i), hn::Mul(vb, hn::LoadU(d, y + i))), d, y + i);
              },
              [&](std::size_t i) {
                hn::StoreU(hn::MulAdd(va1, hn::LoadU(d1, x + i), hn::Mul(vb1, hn::LoadU(d1, y + i))), d1, y + i);
              });
      break;
  }
}

template <class T>
void ElementwiseT(ElementwiseOp op, const T* x, const T* y, T* z, std::size_t n) {
  const hn::ScalableTag<T> d;
  switch (op) {
    case ElementwiseOp::multiply:
      ForEach(d, n, [&](std::size_t i) { hn::StoreU(hn::Mul(hn::LoadU(d, x + i), hn::LoadU(d, y + i)), d, z + i); },
              [&](std::size_t i) { z[i] = x[i] * y[i]; });
      break;
    case ElementwiseOp::divide:
      ForEach(d, n, [&](std::size_t i) { hn::StoreU(hn::Div(hn::LoadU(d, x + i), hn::LoadU(d, y + i)), d, z + i); },
              [&](std::size_t i) { z[i] = x[i] / y[i]; });
      break;
    case ElementwiseOp::reciprocal: {
      const auto one = hn::Set(d, T(1));
      ForEach(d, n, [&](std::size_t i) { hn::StoreU(hn::Div(one, hn::LoadU(d, x + i)), d, z + i); },
              [&](std::size_t i) { z[i] = T(1) / x[i]; });
      break;
    }
  }
}

// Terms per accumulator per block of the fused sums (as kBlockIters in reduce.cpp).
constexpr std::size_t kSumSteps = 16;

// da's lanes of a T vector (dt = Rebind<T, DA>): widened to double when T is float.
template <class DA, class V>
HWY_INLINE hn::Vec<DA> Wide(DA da, V v) {
  if constexpr (std::is_same_v<hn::TFromV<V>, double>) {
    (void)da;
    return v;
  } else {
    return hn::PromoteTo(da, v);
  }
}

// Two sums over [0, n) in double: step(i, s, c) adds elements [i, i + Lanes(da)) to the vector
// accumulators s and c, tail(i, s, c) element i to the scalars. Two accumulator pairs (the
// steps at i and i + N are independent chains), reduced per block.
template <class Step, class Tail>
HWY_INLINE void TwoSums(std::size_t n, const Step& step, const Tail& tail, double* out_s, double* out_c) {
  const hn::ScalableTag<double> da;
  const std::size_t N = hn::Lanes(da);
  PairwiseSum sums, sumc;
  std::size_t i = 0;
  const std::size_t pairs_end = n / (2 * N) * (2 * N);
  while (i < pairs_end) {
    auto s0 = hn::Zero(da), s1 = s0, c0 = s0, c1 = s0;
    for (const std::size_t end = std::min(pairs_end, i + 2 * N * kSumSteps); i < end; i += 2 * N) {
      step(i, s0, c0);
      step(i + N, s1, c1);
    }
    sums.push(hn::GetLane(hn::SumOfLanes(da, hn::Add(s0, s1))));
    sumc.push(hn::GetLane(hn::SumOfLanes(da, hn::Add(c0, c1))));
  }
  auto s0 = hn::Zero(da), c0 = s0;
  for (; i + N <= n; i += N) step(i, s0, c0);
  double ts = hn::GetLane(hn::SumOfLanes(da, s0)), tc = hn::GetLane(hn::SumOfLanes(da, c0));
  for (; i < n; ++i) tail(i, ts, tc);
  sums.push(ts);
  sumc.push(tc);
  *out_s = sums.total();
  *out_c = sumc.total();
}

// y = a x + b y, then y . w (w read after y is written: w may be y).
template <class T>
double AxpbyDotT(T a, const T* x, T b, int mode, T* y, const T* w, std::size_t n) {
  const hn::ScalableTag<double> da;
  const hn::Rebind<T, decltype(da)> dt;
  const hn::CappedTag<T, 1> d1;
  const auto va = hn::Set(dt, a), vb = hn::Set(dt, b);
  const auto va1 = hn::Set(d1, a), vb1 = hn::Set(d1, b);
  double s = 0, unused = 0;
  const auto update = [&](auto d, auto av, auto bv, std::size_t i) {
    const auto xv = hn::LoadU(d, x + i);
    const auto yv = mode == 0 ? hn::Mul(av, xv)
                    : mode == 1 ? hn::MulAdd(av, xv, hn::LoadU(d, y + i))
                                : hn::MulAdd(av, xv, hn::Mul(bv, hn::LoadU(d, y + i)));
    hn::StoreU(yv, d, y + i);
    return yv;
  };
  TwoSums(
      n,
      [&](std::size_t i, auto& acc, auto&) {
        const auto yv = update(dt, va, vb, i);
        acc = hn::MulAdd(Wide(da, yv), Wide(da, hn::LoadU(dt, w + i)), acc);
      },
      [&](std::size_t i, double& acc, double&) {
        const T yi = hn::GetLane(update(d1, va1, vb1, i));
        acc += static_cast<double>(yi) * static_cast<double>(w[i]);
      },
      &s, &unused);
  return s;
}

// x . y and x . z in one pass.
template <class T>
void Dot2T(const T* x, const T* y, const T* z, std::size_t n, double* xy, double* xz) {
  const hn::ScalableTag<double> da;
  const hn::Rebind<T, decltype(da)> dt;
  TwoSums(
      n,
      [&](std::size_t i, auto& s, auto& c) {
        const auto xv = Wide(da, hn::LoadU(dt, x + i));
        s = hn::MulAdd(xv, Wide(da, hn::LoadU(dt, y + i)), s);
        c = hn::MulAdd(xv, Wide(da, hn::LoadU(dt, z + i)), c);
      },
      [&](std::size_t i, double& s, double& c) {
        s += static_cast<double>(x[i]) * static_cast<double>(y[i]);
        c += static_cast<double>(x[i]) * static_cast<double>(z[i]);
      },
      xy, xz);
}

// z = d .* r, then r . z and r . r in the same pass.
template <class T>
void MultiplyDot2T(const T* d, const T* r, T* z, std::size_t n, double* rz, double* rr) {
  const hn::ScalableTag<double> da;
  const hn::Rebind<T, decltype(da)> dt;
  TwoSums(
      n,
      [&](std::size_t i, auto& s, auto& c) {
        const auto rv = hn::LoadU(dt, r + i);
        const auto zv = hn::Mul(hn::LoadU(dt, d + i), rv);
        hn::StoreU(zv, dt, z + i);
        const auto rw = Wide(da, rv);
        s = hn::MulAdd(rw, Wide(da, zv), s);
        c = hn::MulAdd(rw, rw, c);
      },
      [&](std::size_t i, double& s, double& c) {
        const T zi = d[i] * r[i];
        z[i] = zi;
        s += static_cast<double>(r[i]) * static_cast<double>(zi);
        c += static_cast<double>(r[i]) * static_cast<double>(r[i]);
      },
      rz, rr);
}

void AxpbyF32(float a, const float* x, float b, int mode, float* y, std::size_t n) { AxpbyT(a, x, b, mode, y, n); }
void AxpbyF64(double a, const double* x, double b, int mode, double* y, std::size_t n) {
  AxpbyT(a, x, b, mode, y, n);
}
void ElementwiseF32(ElementwiseOp op, const float* x, const float* y, float* z, std::size_t n) {
  ElementwiseT(op, x, y, z, n);
}
void ElementwiseF64(ElementwiseOp op, const double* x, const double* y, double* z, std::size_t n) {
  ElementwiseT(op, x, y, z, n);
}

double AxpbyDotF32(float a, const float* x, float b, int mode, float* y, const float* w, std::size_t n) {
  return AxpbyDotT(a, x, b, mode, y, w, n);
}
double AxpbyDotF64(double a, const double* x, double b, int mode, double* y, const double* w, std::size_t n) {
  return AxpbyDotT(a, x, b, mode, y, w, n);
}
void Dot2F32(const float* x, const float* y, const float* z, std::size_t n, double* xy, double* xz) {
  Dot2T(x, y, z, n, xy, xz);
}
void Dot2F64(const double* x, const double* y, const double* z, std::size_t n, double* xy, double* xz) {
  Dot2T(x, y, z, n, xy, xz);
}
void MultiplyDot2F32(const float* d, const float* r, float* z, std::size_t n, double* rz, double* rr) {
  MultiplyDot2T(d, r, z, n, rz, rr);
}
void MultiplyDot2F64(const double* d, const double* r, double* z, std::size_t n, double* rz, double* rr) {
  MultiplyDot2T(d, r, z, n, rz, rr);
}

}  // namespace tessera::cpu::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
#include "kernels/cpu/vector.hpp"

namespace tessera::cpu {
HWY_EXPORT(AxpbyF32);
HWY_EXPORT(AxpbyF64);
HWY_EXPORT(ElementwiseF32);
HWY_EXPORT(ElementwiseF64);
HWY_EXPORT(AxpbyDotF32);
HWY_EXPORT(AxpbyDotF64);
HWY_EXPORT(Dot2F32);
HWY_EXPORT(Dot2F64);
HWY_EXPORT(MultiplyDot2F32);
HWY_EXPORT(MultiplyDot2F64);

void axpby_f32(float a, const float* x, float b, AxpbyMode mode, float* y, std::int64_t n) {
  HWY_DYNAMIC_DISPATCH(AxpbyF32)(a, x, b, static_cast<int>(mode), y, static_cast<std::size_t>(n));
}
void axpby_f64(double a, const double* x, double b, AxpbyMode mode, double* y, std::int64_t n) {
  HWY_DYNAMIC_DISPATCH(AxpbyF64)(a, x, b, static_cast<int>(mode), y, static_cast<std::size_t>(n));
}
void elementwise_f32(ElementwiseOp op, const float* x, const float* y, float* z, std::int64_t n) {
  HWY_DYNAMIC_DISPATCH(ElementwiseF32)(op, x, y, z, static_cast<std::size_t>(n));
}
void elementwise_f64(ElementwiseOp op, const double* x, const double* y, double* z, std::int64_t n) {
  HWY_DYNAMIC_DISPATCH(ElementwiseF64)(op, x, y, z, static_cast<std::size_t>(n));
}
double axpby_dot_f32(float a, const float* x, float b, AxpbyMode mode, float* y, const float* w, std::int64_t n) {
  return HWY_DYNAMIC_DISPATCH(AxpbyDotF32)(a, x, b, static_cast<int>(mode), y, w, static_cast<std::size_t>(n));
}
double axpby_dot_f64(double a, const double* x, double b, AxpbyMode mode, double* y, const double* w,
                     std::int64_t n) {
  return HWY_DYNAMIC_DISPATCH(AxpbyDotF64)(a, x, b, static_cast<int>(mode), y, w, static_cast<std::size_t>(n));
}
void dot2_f32(const float* x, const float* y, const float* z, std::int64_t n, double* xy, double* xz) {
  HWY_DYNAMIC_DISPATCH(Dot2F32)(x, y, z, static_cast<std::size_t>(n), xy, xz);
}
void dot2_f64(const double* x, const double* y, const double* z, std::int64_t n, double* xy, double* xz) {
  HWY_DYNAMIC_DISPATCH(Dot2F64)(x, y, z, static_cast<std::size_t>(n), xy, xz);
}
void multiply_dot2_f32(const float* d, const float* r, float* z, std::int64_t n, double* rz, double* rr) {
  HWY_DYNAMIC_DISPATCH(MultiplyDot2F32)(d, r, z, static_cast<std::size_t>(n), rz, rr);
}
void multiply_dot2_f64(const double* d, const double* r, double* z, std::int64_t n, double* rz, double* rr) {
  HWY_DYNAMIC_DISPATCH(MultiplyDot2F64)(d, r, z, static_cast<std::size_t>(n), rz, rr);
}
}  // namespace tessera::cpu
#endif  // HWY_ONCE
