// The vector algebra on the cpu device: streaming passes (kernels/cpu/vector.cpp, SIMD for the
// running CPU: on data in cache the width counts), cut over threads as the reductions are
// (per_thread.hpp). A coefficient's device factors are host memory here, read
// once per call before any element is written. The fused operations are one pass over each
// thread's chunk, their sums kept in registers.
#include <algorithm>
#include <cstdint>
#include <type_traits>
#include <utility>
#include <vector>

#include "cpu/cpu_backend.hpp"
#include "cpu/per_thread.hpp"
#include "kernels/cpu/vector.hpp"

namespace tessera {

namespace {

// beta's role: y is not read when beta is exactly zero (Coef::is_zero: a NaN y must not
// propagate), added when it is one.
template <class T>
cpu::AxpbyMode axpby_mode(T b, bool b_zero) {
  return b_zero ? cpu::AxpbyMode::overwrite : b == T(1) ? cpu::AxpbyMode::add : cpu::AxpbyMode::scale;
}

template <class T>
void axpby_chunk(T a, const T* x, T b, bool b_zero, T* y, std::int64_t n) {
  axpby_kernel(a, x, b, axpby_mode(b, b_zero), y, n);
}

template <class T>
void elementwise_chunk(ElementwiseOp op, const T* x, const T* y, T* z, std::int64_t n) {
  if constexpr (std::is_same_v<T, float>)
    cpu::elementwise_f32(op, x, y, z, n);
  else
    cpu::elementwise_f64(op, x, y, z, n);
}

}  // namespace

template <class T>
void CpuBackend::fill(QueueImpl&, const Coef& value, const VecView& yv) {
  const T v = static_cast<T>(host_coef<T>(value));
  T* y = host_ptr<T>(yv);
  per_thread_chunks(yv.n, tune_["vector.min_per_thread"], [&](std::int64_t b, std::int64_t n) { std::fill(y + b, y + b + n, v); });
}

template <class T>
void CpuBackend::axpby(QueueImpl&, const Coef& alpha, const VecView& xv, const Coef& beta, const VecView& yv) {
  const T a = static_cast<T>(host_coef<T>(alpha)), b = static_cast<T>(host_coef<T>(beta));
  const T* x = host_ptr<const T>(xv);
  T* y = host_ptr<T>(yv);
  const bool b_zero = beta.is_zero();
  per_thread_chunks(yv.n, tune_["vector.min_per_thread"],
                    [&](std::int64_t s, std::int64_t n) { axpby_chunk(a, x + s, b, b_zero, y + s, n); });
}

template <class T>
void CpuBackend::elementwise(QueueImpl&, ElementwiseOp op, const VecView& xv, const VecView& yv, const VecView& zv) {
  const T* x = host_ptr<const T>(xv);
  const T* y = op == ElementwiseOp::reciprocal ? nullptr : host_ptr<const T>(yv);
  T* z = host_ptr<T>(zv);
  per_thread_chunks(zv.n, tune_["vector.min_per_thread"], [&](std::int64_t s, std::int64_t n) {
    elementwise_chunk(op, x + s, y == nullptr ? nullptr : y + s, z + s, n);
  });
}

template <class T>
void CpuBackend::axpby_dot(QueueImpl&, const Coef& alpha, const VecView& xv, const Coef& beta, const VecView& yv,
                           const VecView& wv, const VecView& out) {
  const T a = static_cast<T>(host_coef<T>(alpha)), b = static_cast<T>(host_coef<T>(beta));
  const T* x = host_ptr<const T>(xv);
  T* y = host_ptr<T>(yv);
  const T* w = host_ptr<const T>(wv);
  const cpu::AxpbyMode mode = axpby_mode(b, beta.is_zero());
  const double r = sum_parts(per_thread_sums(yv.n, tune_["reduce.min_per_thread"], [&](std::int64_t s, std::int64_t n) {
    if constexpr (std::is_same_v<T, float>)
      return cpu::axpby_dot_f32(a, x + s, b, mode, y + s, w + s, n);
    else
      return cpu::axpby_dot_f64(a, x + s, b, mode, y + s, w + s, n);
  }));
  *host_ptr<T>(out) = static_cast<T>(r);
}

namespace {

// Two sums over [0, n) cut over threads as the reductions are: chunk(begin, count, a, c) sets
// one thread's two partial sums, returned through one slot of two arrays.
template <class Chunk>
std::pair<double, double> per_thread_two_sums(std::int64_t n, std::int64_t min_per_thread, const Chunk& chunk) {
  const int threads = cpu::threads_for(n, min_per_thread);
  if (threads == 1) {
    double a = 0.0, c = 0.0;
    chunk(0, n, a, c);
    return {a, c};
  }
  std::vector<double> first(static_cast<std::size_t>(threads)), second(static_cast<std::size_t>(threads));
  cpu::parallel_parts(threads, [&](int t) {
    const cpu::Range r = cpu::split(n, threads, t, cpu_chunks::kLineElems);
    chunk(r.begin, r.end - r.begin, first[static_cast<std::size_t>(t)], second[static_cast<std::size_t>(t)]);
  });
  return {sum_parts(first), sum_parts(second)};
}

}  // namespace

template <class T>
void CpuBackend::dot2(QueueImpl&, const VecView& xv, const VecView& yv, const VecView& zv, const VecView& out_xy,
                      const VecView& out_xz) {
  const T* x = host_ptr<const T>(xv);
  const T* y = host_ptr<const T>(yv);
  const T* z = host_ptr<const T>(zv);
  const auto [xy, xz] = per_thread_two_sums(xv.n, tune_["reduce.min_per_thread"],
                                            [&](std::int64_t k, std::int64_t len, double& a, double& c) {
                                              if constexpr (std::is_same_v<T, float>)
                                                cpu::dot2_f32(x + k, y + k, z + k, len, &a, &c);
                                              else
                                                cpu::dot2_f64(x + k, y + k, z + k, len, &a, &c);
                                            });
  *host_ptr<T>(out_xy) = static_cast<T>(xy);
  *host_ptr<T>(out_xz) = static_cast<T>(xz);
}

template <class T>
void CpuBackend::multiply_dot2(QueueImpl&, const VecView& dv, const VecView& rv, const VecView& zv,
                               const VecView& out_rz, const VecView& out_rr) {
  const T* d = host_ptr<const T>(dv);
  const T* r = host_ptr<const T>(rv);
  T* z = host_ptr<T>(zv);
  const auto [rz, rr] = per_thread_two_sums(rv.n, tune_["reduce.min_per_thread"],
                                            [&](std::int64_t k, std::int64_t len, double& a, double& c) {
                                              multiply_dot2_chunk(d + k, r + k, z + k, len, &a, &c);
                                            });
  *host_ptr<T>(out_rz) = static_cast<T>(rz);
  *host_ptr<T>(out_rr) = static_cast<T>(rr);
}

namespace {

// Elements per block of the two-step passes: a block's outputs of the first step are still in
// L1 when the second step reads them (2048 f64 = 16 KiB).
constexpr std::int64_t kL1Block = 2048;

}  // namespace

template <class T>
void CpuBackend::axpby_pair(QueueImpl&, const Coef& a1, const VecView& x1v, const Coef& b1, const VecView& y1v,
                            const Coef& a2, const VecView& x2v, const Coef& b2, const VecView& y2v) {
  const T ca1 = static_cast<T>(host_coef<T>(a1)), cb1 = static_cast<T>(host_coef<T>(b1));
  const T ca2 = static_cast<T>(host_coef<T>(a2)), cb2 = static_cast<T>(host_coef<T>(b2));
  const T* x1 = host_ptr<const T>(x1v);
  const T* x2 = host_ptr<const T>(x2v);
  T* y1 = host_ptr<T>(y1v);
  T* y2 = host_ptr<T>(y2v);
  const bool z1 = b1.is_zero(), z2 = b2.is_zero();
  // Block by block: y2 may be x1, so each block's first update reads x1 before the second writes it.
  per_thread_chunks(y1v.n, tune_["vector.min_per_thread"], [&](std::int64_t s, std::int64_t n) {
    for (std::int64_t k = s; k < s + n; k += kL1Block) {
      const std::int64_t len = std::min(kL1Block, s + n - k);
      axpby_chunk(ca1, x1 + k, cb1, z1, y1 + k, len);
      axpby_chunk(ca2, x2 + k, cb2, z2, y2 + k, len);
    }
  });
}

template <class T>
void CpuBackend::axpy_multiply_dot2(QueueImpl&, const Coef& alpha, const VecView& xv, const VecView& dv,
                                    const VecView& rv, const VecView& zv, const VecView& out_rz,
                                    const VecView& out_rr) {
  const T a = static_cast<T>(host_coef<T>(alpha));
  const T* x = host_ptr<const T>(xv);
  const T* d = host_ptr<const T>(dv);
  T* r = host_ptr<T>(rv);
  T* z = host_ptr<T>(zv);
  // Each block's new r is re-read from L1 by multiply_dot2's pass.
  const auto [rz, rr] = per_thread_two_sums(rv.n, tune_["reduce.min_per_thread"],
                                            [&](std::int64_t s, std::int64_t n, double& c1, double& c2) {
                                              for (std::int64_t k = s; k < s + n; k += kL1Block) {
                                                const std::int64_t len = std::min(kL1Block, s + n - k);
                                                axpby_chunk(a, x + k, T(1), false, r + k, len);
                                                double bz = 0.0, br = 0.0;
                                                multiply_dot2_chunk(d + k, r + k, z + k, len, &bz, &br);
                                                c1 += bz;
                                                c2 += br;
                                              }
                                            });
  *host_ptr<T>(out_rz) = static_cast<T>(rz);
  *host_ptr<T>(out_rr) = static_cast<T>(rr);
}

template <class T>
void CpuBackend::convert(QueueImpl&, const VecView& xv, const VecView& yv) {
  // The compiler's cast (cvtpd2ps / cvtps2pd): round to nearest as the reference's.
  const other_float_t<T>* x = host_ptr<const other_float_t<T>>(xv);
  T* y = host_ptr<T>(yv);
  per_thread_chunks(yv.n, tune_["vector.min_per_thread"], [&](std::int64_t s, std::int64_t n) {
#pragma omp simd
    for (std::int64_t i = s; i < s + n; ++i) y[i] = static_cast<T>(x[i]);
  });
}

TESSERA_INSTANTIATE_TYPED_OP(CpuBackend, fill)
TESSERA_INSTANTIATE_TYPED_OP(CpuBackend, axpby)
TESSERA_INSTANTIATE_TYPED_OP(CpuBackend, elementwise)
TESSERA_INSTANTIATE_TYPED_OP(CpuBackend, axpby_dot)
TESSERA_INSTANTIATE_TYPED_OP(CpuBackend, dot2)
TESSERA_INSTANTIATE_TYPED_OP(CpuBackend, multiply_dot2)
TESSERA_INSTANTIATE_TYPED_OP(CpuBackend, axpby_pair)
TESSERA_INSTANTIATE_TYPED_OP(CpuBackend, axpy_multiply_dot2)
TESSERA_INSTANTIATE_TYPED_OP(CpuBackend, convert)

}  // namespace tessera
