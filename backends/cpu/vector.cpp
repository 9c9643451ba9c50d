// The vector algebra on the cpu device: streaming loops the compiler vectorises (one pass, no
// arithmetic worth hand-written SIMD: they run at memory speed), cut over threads as the
// reductions are (per_thread.hpp). A coefficient's device factors are host memory here, read
// once per call before any element is written. The fused operations work through each thread's
// chunk in blocks that stay in L1, so the dot re-reads y from cache, not from memory.
#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

#include "cpu/cpu_backend.hpp"
#include "cpu/per_thread.hpp"

namespace tessera {

namespace {

constexpr std::int64_t kL1Block = 2048;  // elements: 16 KiB of f64, with x and y 32 KiB of L1 traffic

template <class T>
void axpby_chunk(T a, const T* x, T b, bool b_zero, T* y, std::int64_t n) {
  if (b_zero) {
#pragma omp simd
    for (std::int64_t i = 0; i < n; ++i) y[i] = a * x[i];
  } else if (b == T(1)) {
#pragma omp simd
    for (std::int64_t i = 0; i < n; ++i) y[i] = a * x[i] + y[i];
  } else {
#pragma omp simd
    for (std::int64_t i = 0; i < n; ++i) y[i] = a * x[i] + b * y[i];
  }
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
    switch (op) {
      case ElementwiseOp::multiply:
#pragma omp simd
        for (std::int64_t i = s; i < s + n; ++i) z[i] = x[i] * y[i];
        break;
      case ElementwiseOp::divide:
#pragma omp simd
        for (std::int64_t i = s; i < s + n; ++i) z[i] = x[i] / y[i];
        break;
      case ElementwiseOp::reciprocal:
#pragma omp simd
        for (std::int64_t i = s; i < s + n; ++i) z[i] = T(1) / x[i];
        break;
    }
  });
}

template <class T>
void CpuBackend::axpby_dot(QueueImpl&, const Coef& alpha, const VecView& xv, const Coef& beta, const VecView& yv,
                           const VecView& wv, const VecView& out) {
  const T a = static_cast<T>(host_coef<T>(alpha)), b = static_cast<T>(host_coef<T>(beta));
  const T* x = host_ptr<const T>(xv);
  T* y = host_ptr<T>(yv);
  const T* w = host_ptr<const T>(wv);
  const bool b_zero = beta.is_zero();
  const double r = sum_parts(per_thread_sums(yv.n, tune_["reduce.min_per_thread"], [&](std::int64_t s, std::int64_t n) {
    double acc = 0.0;
    for (std::int64_t k = s; k < s + n; k += kL1Block) {
      const std::int64_t len = std::min(kL1Block, s + n - k);
      axpby_chunk(a, x + k, b, b_zero, y + k, len);
      acc += dot_chunk(y + k, w + k, len);
    }
    return acc;
  }));
  *host_ptr<T>(out) = static_cast<T>(r);
}

namespace {

// Two sums over [0, n) cut over threads as the reductions are: block(k, len, a, c) adds the
// elements [k, k + len) (at most an L1 block) to the running sums a and c. Each thread returns
// its two partial sums through one slot of two arrays.
template <class Block>
std::pair<double, double> per_thread_two_sums(std::int64_t n, std::int64_t min_per_thread, const Block& block) {
  const int threads = cpu::threads_for(n, min_per_thread);
  std::vector<double> first(static_cast<std::size_t>(threads)), second(static_cast<std::size_t>(threads));
  auto chunk = [&](int t) {
    const cpu::Range r = cpu::split(n, threads, t, cpu_chunks::kLineElems);
    double a = 0.0, c = 0.0;
    for (std::int64_t k = r.begin; k < r.end; k += kL1Block) block(k, std::min(kL1Block, r.end - k), a, c);
    first[static_cast<std::size_t>(t)] = a;
    second[static_cast<std::size_t>(t)] = c;
  };
  if (threads == 1) {
    chunk(0);
  } else {
#pragma omp parallel for num_threads(threads) schedule(static, 1)
    for (int t = 0; t < threads; ++t) chunk(t);
  }
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
                                              a += dot_chunk(x + k, y + k, len);
                                              c += dot_chunk(x + k, z + k, len);
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
  // z's block is written, then re-read from L1 by its dot.
  const auto [rz, rr] = per_thread_two_sums(rv.n, tune_["reduce.min_per_thread"],
                                            [&](std::int64_t k, std::int64_t len, double& a, double& c) {
#pragma omp simd
                                              for (std::int64_t i = k; i < k + len; ++i) z[i] = d[i] * r[i];
                                              a += dot_chunk(r + k, z + k, len);
                                              c += dot_chunk(r + k, r + k, len);
                                            });
  *host_ptr<T>(out_rz) = static_cast<T>(rz);
  *host_ptr<T>(out_rr) = static_cast<T>(rr);
}

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
  // r's and z's blocks are written, then re-read from L1 by the dots.
  const auto [rz, rr] = per_thread_two_sums(rv.n, tune_["reduce.min_per_thread"],
                                            [&](std::int64_t k, std::int64_t len, double& c1, double& c2) {
                                              axpby_chunk(a, x + k, T(1), false, r + k, len);
#pragma omp simd
                                              for (std::int64_t i = k; i < k + len; ++i) z[i] = d[i] * r[i];
                                              c1 += dot_chunk(r + k, z + k, len);
                                              c2 += dot_chunk(r + k, r + k, len);
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
