// Entry points of the cpu device's dense kernels (gemm, and the scratch helper that the
// triangular solves and convolutions share with it). Plain pointers and sizes, row-major with
// leading dimensions; arguments are trusted (lib/ validated them). Each call dispatches to the
// best Highway target of this CPU (HWY_DYNAMIC_DISPATCH) and runs on OpenMP threads. The gemm
// blocking is derived from the host's cache sizes (host_machine.hpp).
#pragma once

#include <cstddef>
#include <cstdint>

namespace tessera::cpu {

// Thread-local scratch, 64-byte aligned, grown on demand and kept for the thread's lifetime:
// packing buffers are reused across calls instead of being allocated (and page-faulted) in
// every call. Each slot is an independent buffer, so a kernel may hold several at once.
enum class ScratchSlot { gemm_a, gemm_b, trsm, conv_rows, conv_col, count };
void* scratch(ScratchSlot slot, std::size_t bytes);

// C = alpha * op(A) * op(B) + beta * C with op(A) m x k, op(B) k x n, C m x n.
// trans_a: op(A) = A^T, so A is stored k x m. beta == 0: C is only written. Fewer threads run
// where each would get less than min_flops_per_thread (tuning key gemm.min_flops_per_thread).
void gemm(bool trans_a, bool trans_b, std::int64_t m, std::int64_t n, std::int64_t k, float alpha, const float* A,
          std::int64_t lda, const float* B, std::int64_t ldb, float beta, float* C, std::int64_t ldc,
          std::int64_t min_flops_per_thread);
void gemm(bool trans_a, bool trans_b, std::int64_t m, std::int64_t n, std::int64_t k, double alpha, const double* A,
          std::int64_t lda, const double* B, std::int64_t ldb, double beta, double* C, std::int64_t ldc,
          std::int64_t min_flops_per_thread);

}  // namespace tessera::cpu
