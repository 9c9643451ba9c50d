// Device helpers shared by the kernels: warp reductions, acquire/release flags for the
// sync-free solvers, 16-byte vector types, and the launch-error convention.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "kernels/cuda/launch.hpp"

namespace tessera::cuda {

constexpr unsigned kFullMask = 0xffffffffu;

// Sum over the 32 lanes of a warp (butterfly: every lane gets the total).
template <class T>
__device__ __forceinline__ T warp_sum(T v) {
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(kFullMask, v, o);
  return v;
}

// Flags between blocks of one launch (the sync-free triangular solvers). A producer publishes
// its results with a release store, a consumer's acquire load then orders its later loads; data
// written by other blocks is read with __ldcg (L2) so a stale L1 line can never be seen.
__device__ __forceinline__ int load_acquire(const int* p) {
  int v;
  asm volatile("ld.acquire.gpu.global.s32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}
__device__ __forceinline__ void store_release(int* p, int v) {
  asm volatile("st.release.gpu.global.s32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}

// 16-byte vector of T (one LDG.128 per thread: the widest load, fewest instructions in flight
// per byte).
template <class T>
struct Vec16;
template <>
struct Vec16<float> {
  using type = float4;
  static constexpr int n = 4;
};
template <>
struct Vec16<double> {
  using type = double2;
  static constexpr int n = 2;
};

__host__ __device__ __forceinline__ std::int64_t imin64(std::int64_t a, std::int64_t b) { return a < b ? a : b; }

inline unsigned int blocks_for(std::int64_t items, int per_block) {
  return static_cast<unsigned int>((items + per_block - 1) / per_block);
}

}  // namespace tessera::cuda
