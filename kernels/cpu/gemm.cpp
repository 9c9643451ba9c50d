// GEMM on plain row-major matrices (blocking and micro-kernel: gemm_kernel.hpp; packers:
// gemm_pack.hpp; loops and threads: gemm_driver.hpp), plus the cache-size detection and the
// thread-local scratch that the cpu dense kernels share.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/cpu/gemm.cpp"
#include <hwy/foreach_target.h>  // re-includes this file once per target
#include <hwy/highway.h>

#include "kernels/cpu/gemm_driver.hpp"

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
std::string read_word(const std::string& path) {
  std::ifstream f(path);
  std::string s;
  f >> s;
  return s;
}
// "48K" / "1024K" / "32M" -> bytes; 0 when empty or unreadable.
std::size_t parse_size(const std::string& s) {
  std::size_t v = 0, i = 0;
  for (; i < s.size() && s[i] >= '0' && s[i] <= '9'; ++i) v = v * 10 + std::size_t(s[i] - '0');
  const char unit = i < s.size() ? s[i] : ' ';
  return unit == 'K' ? v << 10 : unit == 'M' ? v << 20 : unit == 'G' ? v << 30 : v;
}
std::size_t sysconf_bytes([[maybe_unused]] int name) {
#ifdef _SC_LEVEL1_DCACHE_SIZE
  const long v = sysconf(name);
  return v > 0 ? std::size_t(v) : 0;
#else
  return 0;
#endif
}
}  // namespace

// Linux sysfs describes cpu0's caches (level, type, size of one instance; an L3 instance is
// what one core shares with its neighbours); sysconf is the fallback, then the smallest common
// sizes (32 KiB, 256 KiB, 2 MiB), so a wrong guess only costs speed.
const CacheSizes& cache_sizes() {
  static const CacheSizes sizes = [] {
    CacheSizes c;
    constexpr int kMaxIndex = 8;
    for (int i = 0; i < kMaxIndex; ++i) {
      const std::string dir = "/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(i) + "/";
      const std::string level = read_word(dir + "level"), type = read_word(dir + "type");
      if (level.empty() || type == "Instruction") continue;
      const std::size_t bytes = parse_size(read_word(dir + "size"));
      if (level == "1") c.l1d = bytes;
      if (level == "2") c.l2 = bytes;
      if (level == "3") c.l3 = bytes;
    }
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
