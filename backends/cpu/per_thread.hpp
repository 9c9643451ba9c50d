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

}  // namespace tessera
