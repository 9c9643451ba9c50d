// How the cpu device cuts a streaming vector operation over its threads: one contiguous chunk
// per thread with cache-line aligned boundaries (no two threads write one line), and partial
// sums combined in double in thread order, so a result does not depend on scheduling. Used by
// the reductions (reduce.cpp) and the vector algebra (vector.cpp).
#pragma once

#include <cstdint>
#include <type_traits>
#include <vector>

#include "cpu/parallel_parts.hpp"
#include "kernels/cpu/dispatch.hpp"
#include "kernels/cpu/reduce.hpp"
#include "kernels/cpu/vector.hpp"

namespace tessera {

namespace cpu_chunks {
constexpr std::int64_t kLineElems = 16;  // 64-byte lines of f32; for f64 two lines, still whole
}

// f(begin, count) reduces one chunk to a double; one entry per thread that ran.
template <class F>
std::vector<double> per_thread_sums(std::int64_t n, std::int64_t min_per_thread, F&& f) {
  const int threads = cpu::threads_for(n, min_per_thread);
  std::vector<double> parts(static_cast<std::size_t>(threads));
  cpu::parallel_parts(threads, [&](int t) {
    const cpu::Range r = cpu::split(n, threads, t, cpu_chunks::kLineElems);
    parts[static_cast<std::size_t>(t)] = f(r.begin, r.end - r.begin);
  });
  return parts;
}

// f(begin, count) processes one chunk.
template <class F>
void per_thread_chunks(std::int64_t n, std::int64_t min_per_thread, F&& f) {
  const int threads = cpu::threads_for(n, min_per_thread);
  cpu::parallel_parts(threads, [&](int t) {
    const cpu::Range r = cpu::split(n, threads, t, cpu_chunks::kLineElems);
    f(r.begin, r.end - r.begin);
  });
}

// The sum of per-thread partial sums (NaN if any is NaN), in thread order (reduce.cpp).
double sum_parts(const std::vector<double>& parts);

// x . y of one chunk by the SIMD kernel, in double.
template <class T>
double dot_chunk(const T* x, const T* y, std::int64_t n) {
  if constexpr (std::is_same_v<T, float>)
    return cpu::dot_f32(x, y, n);
  else
    return cpu::dot_f64(x, y, n);
}

// y = a x + b y over one chunk by the SIMD kernel; mode says how b applies (kernels/cpu/vector.hpp).
template <class T>
void axpby_kernel(T a, const T* x, T b, cpu::AxpbyMode mode, T* y, std::int64_t n) {
  if constexpr (std::is_same_v<T, float>)
    cpu::axpby_f32(a, x, b, mode, y, n);
  else
    cpu::axpby_f64(a, x, b, mode, y, n);
}

// z = d * r over one chunk, and its r . z and r . r (in double) into *rz and *rr, by the SIMD kernel.
template <class T>
void multiply_dot2_chunk(const T* d, const T* r, T* z, std::int64_t n, double* rz, double* rr) {
  if constexpr (std::is_same_v<T, float>)
    cpu::multiply_dot2_f32(d, r, z, n, rz, rr);
  else
    cpu::multiply_dot2_f64(d, r, z, n, rz, rr);
}

}  // namespace tessera
