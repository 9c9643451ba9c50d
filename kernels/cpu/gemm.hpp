// Entry points of the cpu device's dense kernels (gemm, and the scratch/cache helpers that the
// triangular solves and convolutions share with it). Plain pointers and sizes, row-major with
// leading dimensions; arguments are trusted (lib/ validated them). Each call dispatches to the
// best Highway target of this CPU (HWY_DYNAMIC_DISPATCH) and runs on OpenMP threads.
#pragma once

#include <cstddef>
#include <cstdint>

namespace tessera::cpu {

// Data-cache capacities in bytes, as this CPU reports them (Linux sysfs, then sysconf), with
// conservative fallbacks where it reports nothing. l1d and l2 are per core; l3 is the share of
// one cache domain. The gemm blocking (kernels/cpu/gemm_kernel.hpp) is derived from them.
struct CacheSizes {
  std::size_t l1d = 0, l2 = 0, l3 = 0;
};
const CacheSizes& cache_sizes();

// Thread-local scratch, 64-byte aligned, grown on demand and kept for the thread's lifetime:
// packing buffers are reused across calls instead of being allocated (and page-faulted) in
// every call. Each slot is an independent buffer, so a kernel may hold several at once.
enum class ScratchSlot { gemm_a, gemm_b, trsm, conv_rows, conv_col, count };
void* scratch(ScratchSlot slot, std::size_t bytes);

// C = alpha * op(A) * op(B) + beta * C with op(A) m x k, op(B) k x n, C m x n.
// trans_a: op(A) = A^T, so A is stored k x m. beta == 0: C is only written.
void gemm(bool trans_a, bool trans_b, std::int64_t m, std::int64_t n, std::int64_t k, float alpha, const float* A,
          std::int64_t lda, const float* B, std::int64_t ldb, float beta, float* C, std::int64_t ldc);
void gemm(bool trans_a, bool trans_b, std::int64_t m, std::int64_t n, std::int64_t k, double alpha, const double* A,
          std::int64_t lda, const double* B, std::int64_t ldb, double beta, double* C, std::int64_t ldc);

}  // namespace tessera::cpu
