// Device helpers shared by the kernels: warp reductions, acquire/release flags for the
// sync-free solvers, 16-byte vector types, cp.async, and the launch-error convention.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <initializer_list>

#include "kernels/cuda/launch.hpp"

namespace tessera::cuda {

constexpr unsigned kFullMask = 0xffffffffu;

// Lets `kernel` be launched with `bytes` of dynamic shared memory (past 48 KB with its static
// shared memory, it must say so). The attribute belongs to the kernel, not to a launch: it is set
// to the most the device allows (less the kernel's static shared memory), the same value whoever
// calls, so threads launching one kernel with different sizes never lower it beneath one
// another's launch. Below 47 KB nothing is asked (no query on every solve): the kernels launched
// through here keep under 1 KB of static shared memory.
template <class K>
cudaError_t allow_dynamic_smem(K kernel, std::size_t bytes) {
  if (bytes <= 47 * 1024) return cudaSuccess;
  cudaFuncAttributes attr{};
  if (cudaError_t e = cudaFuncGetAttributes(&attr, kernel); e != cudaSuccess) return e;
  if (bytes <= static_cast<std::size_t>(attr.maxDynamicSharedSizeBytes)) return cudaSuccess;
  int device = 0, optin = 0;
  if (cudaError_t e = cudaGetDevice(&device); e != cudaSuccess) return e;
  if (cudaError_t e = cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device); e != cudaSuccess)
    return e;
  const std::size_t most = optin > static_cast<int>(attr.sharedSizeBytes) ? optin - attr.sharedSizeBytes : 0;
  if (bytes > most) return cudaErrorInvalidValue;
  return cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(most));
}

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
// For a word that is all its reader needs (nothing read after it depends on it): no ordering,
// only a load from L2 that cannot be served by a stale L1 line, and a store that goes there.
__device__ __forceinline__ int load_relaxed(const int* p) {
  int v;
  asm volatile("ld.relaxed.gpu.global.s32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}
__device__ __forceinline__ void store_relaxed(int* p, int v) {
  asm volatile("st.relaxed.gpu.global.s32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
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

// V consecutive cells of a stencil grid, read and written as one aligned vector (the 3D stencil
// kernels: stencil.cu, stencil_tma.cu).
template <class T, int V>
struct alignas(sizeof(T) * V) CellRun {
  T v[V];
};

// Asynchronous copies global -> shared memory (sm_80's cp.async: the gemm tiles, the temporally
// blocked stencil's planes).
__device__ __forceinline__ unsigned smem_u32(const void* p) {
  return static_cast<unsigned>(__cvta_generic_to_shared(p));
}
// Copies `bytes` (4, 8 or 16) to shared memory; only the first src_bytes are read, the rest is
// zero-filled.
template <int BYTES>
__device__ __forceinline__ void cp_async(unsigned dst, const void* src, int src_bytes) {
  if constexpr (BYTES == 16)
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(src), "r"(src_bytes) : "memory");
  else
    asm volatile("cp.async.ca.shared.global [%0], [%1], %2, %3;\n" ::"r"(dst), "l"(src), "n"(BYTES), "r"(src_bytes)
                 : "memory");
}
// Copies `bytes` (16 or 8) that all lie inside the source.
template <int BYTES>
__device__ __forceinline__ void cp_async_all(unsigned dst, const void* src) {
  if constexpr (BYTES == 16)
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(dst), "l"(src) : "memory");
  else
    asm volatile("cp.async.ca.shared.global [%0], [%1], %2;\n" ::"r"(dst), "l"(src), "n"(BYTES) : "memory");
}
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::: "memory"); }
template <int N>
__device__ __forceinline__ void cp_async_wait() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory");
}

__host__ __device__ __forceinline__ std::int64_t imin64(std::int64_t a, std::int64_t b) { return a < b ? a : b; }

inline unsigned int blocks_for(std::int64_t items, int per_block) {
  return static_cast<unsigned int>((items + per_block - 1) / per_block);
}

// E consecutive elements in registers: one 16-byte access (E * sizeof(T) == 16, the address
// 16-byte aligned) or one scalar access (E == 1). Component by component, so the array stays
// in registers.
template <class T, int E>
struct Pack {
  static_assert(E == 1 || E * sizeof(T) == 16, "a pack is one element or one 16-byte vector");
  T v[E];
};
template <int E, class T>
__device__ __forceinline__ Pack<T, E> load_pack(const T* p) {
  Pack<T, E> r;
  if constexpr (E == 1) {
    r.v[0] = *p;
  } else if constexpr (sizeof(T) == 4) {
    const float4 q = *reinterpret_cast<const float4*>(p);
    r.v[0] = q.x, r.v[1] = q.y, r.v[2] = q.z, r.v[3] = q.w;
  } else {
    const double2 q = *reinterpret_cast<const double2*>(p);
    r.v[0] = q.x, r.v[1] = q.y;
  }
  return r;
}
template <int E, class T>
__device__ __forceinline__ void store_pack(T* p, const Pack<T, E>& r) {
  if constexpr (E == 1) *p = r.v[0];
  else if constexpr (sizeof(T) == 4) *reinterpret_cast<float4*>(p) = make_float4(r.v[0], r.v[1], r.v[2], r.v[3]);
  else *reinterpret_cast<double2*>(p) = make_double2(r.v[0], r.v[1]);
}

// How a streaming kernel walks n elements of several arrays with 16-byte accesses: views carry
// offsets, so an array may start anywhere (at a multiple of sizeof(T)). The first `head`
// elements (fewer than a vector) are scalar, so that the rest starts on a 16-byte boundary;
// that works only if every array is equally far from its boundary (same address mod 16),
// otherwise every access is scalar (vec false).
struct VecSplit {
  bool vec = false;
  std::int64_t head = 0;
};
// Null pointers (operands a call does not use) are skipped.
template <class T>
inline VecSplit vec_split(std::int64_t n, std::initializer_list<const void*> arrays) {
  const void* first = nullptr;
  for (const void* p : arrays)
    if (p != nullptr && first == nullptr) first = p;
  const std::uintptr_t a = reinterpret_cast<std::uintptr_t>(first);
  if (a % sizeof(T) != 0) return {};
  for (const void* p : arrays)
    if (p != nullptr && (reinterpret_cast<std::uintptr_t>(p) - a) % 16 != 0) return {};
  const std::int64_t head = static_cast<std::int64_t>((16 - a % 16) % 16 / sizeof(T));
  return {true, head < n ? head : n};
}

}  // namespace tessera::cuda
