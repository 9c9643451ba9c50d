// GEMM on plain row-major matrices (blocking and micro-kernel: gemm_kernel.hpp; packers:
// gemm_pack.hpp; loops and threads: gemm_driver.hpp), plus the thread-local scratch that the cpu
// dense kernels share.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/cpu/gemm.cpp"
#include <hwy/foreach_target.h>  // re-includes this file once per target
#include <hwy/highway.h>

#include "kernels/cpu/gemm_driver.hpp"

HWY_BEFORE_NAMESPACE();
namespace tessera::cpu::HWY_NAMESPACE {

template <class T>
void GemmEntry(bool ta, bool tb, std::int64_t m, std::int64_t n, std::int64_t k, T alpha, const T* a,
               std::int64_t lda, const T* b, std::int64_t ldb, T beta, T* c, std::int64_t ldc, std::int64_t min_flops) {
  using S = std::size_t;
  GemmMatrices<T>(ta, tb, S(m), S(n), S(k), alpha, a, S(lda), b, S(ldb), beta, c, S(ldc), min_flops);
}
void GemmF32(bool ta, bool tb, std::int64_t m, std::int64_t n, std::int64_t k, float alpha, const float* a,
             std::int64_t lda, const float* b, std::int64_t ldb, float beta, float* c, std::int64_t ldc,
             std::int64_t min_flops) {
  GemmEntry(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, min_flops);
}
void GemmF64(bool ta, bool tb, std::int64_t m, std::int64_t n, std::int64_t k, double alpha, const double* a,
             std::int64_t lda, const double* b, std::int64_t ldb, double beta, double* c, std::int64_t ldc,
             std::int64_t min_flops) {
  GemmEntry(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, min_flops);
}

}  // namespace tessera::cpu::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
#include <sys/mman.h>
#include <unistd.h>

#include <array>
#include <cstdlib>
#include <memory>
#include <string>

#include "tessera/errors.hpp"

namespace tessera::cpu {

HWY_EXPORT(GemmF32);
HWY_EXPORT(GemmF64);

void gemm(bool ta, bool tb, std::int64_t m, std::int64_t n, std::int64_t k, float alpha, const float* A,
          std::int64_t lda, const float* B, std::int64_t ldb, float beta, float* C, std::int64_t ldc,
          std::int64_t min_flops_per_thread) {
  HWY_DYNAMIC_DISPATCH(GemmF32)(ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, min_flops_per_thread);
}
void gemm(bool ta, bool tb, std::int64_t m, std::int64_t n, std::int64_t k, double alpha, const double* A,
          std::int64_t lda, const double* B, std::int64_t ldb, double beta, double* C, std::int64_t ldc,
          std::int64_t min_flops_per_thread) {
  HWY_DYNAMIC_DISPATCH(GemmF64)(ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, min_flops_per_thread);
}

// Packed GEMM panels are walked in large strides (a KC x NC panel is megabytes): on 4 KiB
// pages every micro-panel costs TLB misses, so big buffers sit on 2 MiB boundaries and ask
// Linux for transparent huge pages.
void* scratch(ScratchSlot slot, std::size_t bytes) {
  constexpr std::size_t kLine = 64, kHugePage = std::size_t(2) << 20;
  struct Free {
    void operator()(void* p) const { std::free(p); }
  };
  struct Buffer {
    std::unique_ptr<void, Free> data;
    std::size_t size = 0;
  };
  constexpr std::size_t kSlots = static_cast<std::size_t>(ScratchSlot::count);
  thread_local std::array<Buffer, kSlots> buffers;
  Buffer& buf = buffers[static_cast<std::size_t>(slot)];
  if (buf.size < bytes) {
    buf.data.reset();
    buf.size = 0;
    const bool huge = bytes >= kHugePage;
    const std::size_t align = huge ? kHugePage : kLine, size = (bytes + align - 1) / align * align;
    void* p = nullptr;
    if (posix_memalign(&p, align, size) != 0 || !p)
      throw OutOfMemory("cpu: cannot allocate " + std::to_string(bytes) + " bytes of kernel scratch");
#ifdef MADV_HUGEPAGE
    if (huge) madvise(p, size, MADV_HUGEPAGE);  // a hint: failure just means small pages
#endif
    buf.data.reset(p);
    buf.size = size;
  }
  return buf.data.get();
}

}  // namespace tessera::cpu
#endif  // HWY_ONCE
