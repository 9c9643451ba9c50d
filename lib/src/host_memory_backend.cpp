#include "host_memory_backend.hpp"

#if defined(__linux__)
#include <sys/mman.h>
#endif

#include <cstdlib>
#include <cstring>
#include <string>

#include "tessera/errors.hpp"

namespace tessera::host_memory {

namespace {

// Allocations of at least kHugeMin bytes are aligned to and sized in 2 MiB pages, and asked for
// transparent huge pages (Linux, where THP is "madvise" as on Debian): a sparse product's x and
// its streamed arrays then cost one TLB entry per 2 MiB instead of per 4 KiB. At most one page
// of padding per allocation, under 1/4 of it.
constexpr std::size_t kHugePage = std::size_t{2} << 20;
constexpr std::size_t kHugeMin = 4 * kHugePage;

}  // namespace

void* allocate(std::size_t bytes) {
  if (bytes >= kHugeMin) {
    const std::size_t rounded = (bytes + kHugePage - 1) / kHugePage * kHugePage;
    if (rounded < bytes) throw OutOfMemory("host allocation of " + std::to_string(bytes) + " bytes overflows");
    void* p = std::aligned_alloc(kHugePage, rounded);
    if (p == nullptr) throw OutOfMemory("host allocation of " + std::to_string(bytes) + " bytes failed");
#ifdef MADV_HUGEPAGE
    (void)::madvise(p, rounded, MADV_HUGEPAGE);  // advice only: without THP the pages stay 4 KiB
#endif
    return p;
  }
  constexpr std::size_t alignment = 64;
  const std::size_t rounded = (bytes + alignment - 1) / alignment * alignment;
  if (rounded < bytes) throw OutOfMemory("host allocation of " + std::to_string(bytes) + " bytes overflows");
  void* p = std::aligned_alloc(alignment, rounded == 0 ? alignment : rounded);
  if (p == nullptr) throw OutOfMemory("host allocation of " + std::to_string(bytes) + " bytes failed");
  return p;
}

void deallocate(void* handle) noexcept { std::free(handle); }

void copy(void* dst, const void* src, std::size_t bytes) {
  if (bytes > 0 && dst != src) std::memmove(dst, src, bytes);
}

void* wrap(void* native) {
  if (native == nullptr) throw InvalidArgument("wrap: the host pointer is null");
  return native;
}

namespace {

class HostEvent final : public EventImpl {
 public:
  explicit HostEvent(Backend& owner) : owner_(owner) {}
  void synchronize() override { owner_.note_host_wait(); }
  bool ready() override { return true; }

 private:
  Backend& owner_;
};

class HostQueue final : public QueueImpl {
 public:
  explicit HostQueue(Backend& owner) : owner_(owner) {}
  void synchronize() override { owner_.note_host_wait(); }
  void* native() const override { return nullptr; }
  std::shared_ptr<EventImpl> record() override { return std::make_shared<HostEvent>(owner_); }
  void wait(EventImpl&) override {}

 private:
  Backend& owner_;
};

}  // namespace

std::shared_ptr<QueueImpl> make_queue(Backend& owner) { return std::make_shared<HostQueue>(owner); }

}  // namespace tessera::host_memory
