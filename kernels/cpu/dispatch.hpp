// Shared helpers for the cpu device: its kernels (kernels/cpu/*.cpp) and its host side
// (backends/cpu/*.cpp). Plain C++, no Highway types, so any file may include it.
//
// Stable API (used by every cpu op; extend, do not change):
//   ensure_env_target()           applies TESSERA_CPU_TARGET once; CpuBackend's constructor calls it,
//                                 so kernels reached through the backend never need to
//   num_threads()                 OpenMP threads the cpu device may use
//   threads_for(work, min_work)   threads worth starting when each must get >= min_work units
//   split(n, parts, i, align)     chunk i of [0, n) cut into `parts` contiguous, nearly equal
//                                 pieces whose inner boundaries are multiples of `align`
//   lanes_f32(), lanes_f64()      SIMD lanes of the target that runs now (1 on SCALAR)
//
// Highway conventions every kernels/cpu/<op>.cpp follows:
//   - the foreach_target.h re-inclusion with HWY_TARGET_INCLUDE "kernels/cpu/<op>.cpp";
//   - no file defines a target-policy macro (HWY_WANT_AVX3_DL, HWY_COMPILE_*, HWY_DISABLED_TARGETS):
//     all files must compile the same HWY_TARGETS, because cpu_targets() (targets.cpp) lists
//     that set and set_cpu_target() may force any member of it;
//   - with g++ < 12.3 Highway's portable fallback is HWY_SCALAR (1 lane, a reduced op set),
//     not EMU128, so kernels must build and be right with one lane;
//   - entry points take plain pointers and sizes, live in namespace tessera::cpu, and are
//     declared in kernels/cpu/<op>.hpp.
#pragma once

#include <omp.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>

namespace tessera::cpu {

void ensure_env_target();

std::size_t lanes_f32();
std::size_t lanes_f64();

// The cpu device's threads: OpenMP's count (OMP_NUM_THREADS, else the cores), capped by
// TESSERA_CPU_THREADS when set to a positive number, so an application can keep the device
// off some cores without changing OpenMP for the rest of its program. Read once.
inline int num_threads() {
  static const int cap = [] {
    const char* env = std::getenv("TESSERA_CPU_THREADS");
    return env != nullptr ? std::atoi(env) : 0;
  }();
  const int omp = std::max(1, omp_get_max_threads());
  return cap > 0 ? std::min(omp, cap) : omp;
}

// Starting a thread team costs a few microseconds; below min_work units per thread the
// sequential loop wins.
inline int threads_for(std::int64_t work, std::int64_t min_work) {
  if (min_work < 1) min_work = 1;
  const std::int64_t want = work / min_work;
  return static_cast<int>(std::clamp<std::int64_t>(want, 1, num_threads()));
}

struct Range {
  std::int64_t begin = 0, end = 0;
};

// Aligned inner boundaries keep each thread's SIMD loop on whole vectors / cache lines, so no
// two threads write one line.
inline Range split(std::int64_t n, int parts, int i, std::int64_t align = 1) {
  if (parts < 1) parts = 1;
  if (align < 1) align = 1;
  const std::int64_t blocks = (n + align - 1) / align;
  const auto at = [&](int k) { return std::min(n, blocks * k / parts * align); };
  return {at(i), i + 1 == parts ? n : at(i + 1)};
}

}  // namespace tessera::cpu
