// GEMM on plain row-major matrices (the blocking and micro-kernel live in gemm_kernel.hpp),
// plus the cache-size detection and thread-local scratch the cpu dense kernels share.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/cpu/gemm.cpp"
#include <hwy/foreach_target.h>  // re-includes this file once per target
#include <hwy/highway.h>

#include "kernels/cpu/gemm_kernel.hpp"

HWY_BEFORE_NAMESPACE();
namespace tessera::cpu::HWY_NAMESPACE {

template <class T>
void GemmEntry(bool ta, bool tb, std::int64_t m, std::int64_t n, std::int64_t k, T alpha, const T* a,
               std::int64_t lda, const T* b, std::int64_t ldb, T beta, T* c, std::int64_t ldc) {
  using S = std::size_t;
  GemmMatrices<T>(ta, tb, S(m), S(n), S(k), alpha, a, S(lda), b, S(ldb), beta, c, S(ldc));
}
void GemmF32(bool ta, bool tb, std::int64_t m, std::int64_t n, std::int64_t k, float alpha, const float* a,
             std::int64_t lda, const float* b, std::int64_t ldb, float beta, float* c, std::int64_t ldc) {
  GemmEntry(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}
void GemmF64(bool ta, bool tb, std::int64_t m, std::int64_t n, std::int64_t k, double alpha, const double* a,
             std::int64_t lda, const double* b, std::int64_t ldb, double beta, double* c, std::int64_t ldc) {
  GemmEntry(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

}  // namespace tessera::cpu::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
#include <sys/mman.h>
#include <unistd.h>

#include <array>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <string>

#include "tessera/errors.hpp"

namespace tessera::cpu {

HWY_EXPORT(GemmF32);
HWY_EXPORT(GemmF64);

void gemm(bool ta, bool tb, std::int64_t m, std::int64_t n, std::int64_t k, float alpha, const float* A,
          std::int64_t lda, const float* B, std::int64_t ldb, float beta, float* C, std::int64_t ldc) {
  HWY_DYNAMIC_DISPATCH(GemmF32)(ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
}
void gemm(bool ta, bool tb, std::int64_t m, std::int64_t n, std::int64_t k, double alpha, const double* A,
          std::int64_t lda, const double* B, std::int64_t ldb, double beta, double* C, std::int64_t ldc) {
  HWY_DYNAMIC_DISPATCH(GemmF64)(ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
}

namespace {
// sysfs "48K" / "1024K" / "32M" -> bytes; 0 when absent or unreadable.
std::size_t sysfs_cache_bytes(int index) {
  std::ifstream f("/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(index) + "/size");
  std::string s;
  if (!(f >> s) || s.empty()) return 0;
  std::size_t v = 0, i = 0;
  for (; i < s.size() && s[i] >= '0' && s[i] <= '9'; ++i) v = v * 10 + std::size_t(s[i] - '0');
  const char unit = i < s.size() ? s[i] : ' ';
  return unit == 'K' ? v << 10 : unit == 'M' ? v << 20 : unit == 'G' ? v << 30 : v;
}
std::size_t sysconf_bytes(int name) {
#ifdef _SC_LEVEL1_DCACHE_SIZE
  const long v = sysconf(name);
  return v > 0 ? std::size_t(v) : 0;
#else
  (void)name;
  return 0;
#endif
}
}  // namespace

// sysfs indexes 0..3 are L1d, L1i, L2, L3 on x86 and most arm64 Linux systems. Fallbacks are
// the smallest common sizes (32 KiB, 256 KiB, 2 MiB), so a wrong guess only costs speed.
const CacheSizes& cache_sizes() {
  static const CacheSizes sizes = [] {
    CacheSizes c;
    c.l1d = sysfs_cache_bytes(0);
    c.l2 = sysfs_cache_bytes(2);
    c.l3 = sysfs_cache_bytes(3);
#ifdef _SC_LEVEL1_DCACHE_SIZE
    if (!c.l1d) c.l1d = sysconf_bytes(_SC_LEVEL1_DCACHE_SIZE);
    if (!c.l2) c.l2 = sysconf_bytes(_SC_LEVEL2_CACHE_SIZE);
    if (!c.l3) c.l3 = sysconf_bytes(_SC_LEVEL3_CACHE_SIZE);
#endif
    constexpr std::size_t kL1Fallback = 32 << 10, kL2Fallback = 256 << 10, kL3Fallback = 2 << 20;
    if (!c.l1d) c.l1d = kL1Fallback;
    if (!c.l2) c.l2 = kL2Fallback;
    if (!c.l3) c.l3 = std::max(kL3Fallback, c.l2);
    return c;
  }();
  return sizes;
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
  constexpr std::size_t kSlots = 5;
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
#ifdef TESSERA_GEMM_TUNING
    if (!getenv("TESSERA_GEMM_NOTHP"))
#endif
    if (huge) madvise(p, size, MADV_HUGEPAGE);  // a hint: failure just means small pages
#endif
    buf.data.reset(p);
    buf.size = size;
  }
  return buf.data.get();
}

}  // namespace tessera::cpu
#endif  // HWY_ONCE
