// The machinery of the one-pass reductions, shared by reduce.cu (reduce, dot) and vector.cu (the
// fused axpby_dot and dot2): per-thread double accumulators, warp shuffles, a block combine, and
// the last-block finish: each block leaves its partial(s) in the queue's scratch and takes a
// ticket; the block that takes the last ticket folds the partials, so one launch does it all and
// the result never leaves the device.
#pragma once

#include <math_constants.h>

#include "kernels/cuda/common.cuh"

namespace tessera::cuda {

enum class RK { sum, min, max, sum_squares, max_abs, dot };

template <RK op>
__device__ __forceinline__ double identity() {
  if constexpr (op == RK::min) return CUDART_INF;
  else if constexpr (op == RK::max) return -CUDART_INF;
  else return 0.0;
}

template <RK op>
__device__ __forceinline__ double combine(double a, double b) {
  if constexpr (op == RK::min) return fmin(a, b);
  else if constexpr (op == RK::max || op == RK::max_abs) return fmax(a, b);
  else return a + b;
}

template <RK op>
__device__ __forceinline__ double warp_combine(double v) {
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) v = combine<op>(v, __shfl_down_sync(kFullMask, v, o));
  return v;
}

// Reduces one value per thread to thread 0 of the block (only there is the result valid). The
// caller must __syncthreads() before calling it again: its shared slots are reused.
template <RK op, int THREADS>
__device__ __forceinline__ double block_combine(double v) {
  __shared__ double warp_part[THREADS / 32];
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  v = warp_combine<op>(v);
  if (lane == 0) warp_part[warp] = v;
  __syncthreads();
  v = threadIdx.x < THREADS / 32 ? warp_part[threadIdx.x] : identity<op>();
  if (warp == 0) v = warp_combine<op>(v);
  return v;
}

// The end of a one-pass reduction of K values per thread. Every thread of every block calls it
// (it synchronises the block). Block b's totals go to partials[k * gridDim.x + b]; the last block
// to take a ticket folds them. Returns true in thread 0 of that block only, with v = the grand
// totals; the counter is back at zero for the next launch on the queue.
template <RK op, int THREADS, int K>
__device__ __forceinline__ bool last_block_totals(double (&v)[K], double* __restrict__ partials,
                                                  unsigned int* __restrict__ counter) {
  __shared__ bool is_last;
#pragma unroll
  for (int k = 0; k < K; ++k) {
    v[k] = block_combine<op, THREADS>(v[k]);
    __syncthreads();
  }
  if (threadIdx.x == 0) {
#pragma unroll
    for (int k = 0; k < K; ++k) partials[k * gridDim.x + blockIdx.x] = v[k];
    __threadfence();  // the partials are visible device-wide before the ticket is taken
    is_last = atomicAdd(counter, 1u) == gridDim.x - 1;
  }
  __syncthreads();
  if (!is_last) return false;
  // Last block: fold the partials (read through L2: other SMs wrote them).
#pragma unroll
  for (int k = 0; k < K; ++k) {
    double t = identity<op>();
    for (unsigned int b = threadIdx.x; b < gridDim.x; b += THREADS)
      t = combine<op>(t, __ldcg(partials + k * gridDim.x + b));
    v[k] = block_combine<op, THREADS>(t);
    __syncthreads();
  }
  if (threadIdx.x == 0) *counter = 0;  // ready for the next launch
  return threadIdx.x == 0;
}

}  // namespace tessera::cuda
