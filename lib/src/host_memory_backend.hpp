// Memory and queues for backends whose device memory is host memory (reference, cpu): 64-byte
// aligned allocations (one cache line, one AVX-512 vector) and plain copies. A queue is the
// calling thread: every operation has finished when its call returns, so queues and events
// have nothing to wait for, and "asynchronous" transfers are copies made at once. The functions
// are written once, out of line, in namespace host_memory (a backend's own scratch memory uses
// them too); HostMemoryBackend<Derived> puts them under a backend that takes its operations from
// TypedBackend<Derived>:
//
//   class CpuBackend final : public HostMemoryBackend<CpuBackend> { ... };
#pragma once

#include <cstddef>
#include <memory>

#include "tessera/typed_backend.hpp"

namespace tessera {

namespace host_memory {
void* allocate(std::size_t bytes);  // throws OutOfMemory
void deallocate(void* handle) noexcept;
void copy(void* dst, const void* src, std::size_t bytes);
void* wrap(void* native);  // throws InvalidArgument for null

// The calling thread as a queue: work is done when enqueued. Waits are still counted (on the
// backend that made the queue), so host_waits means the same thing on every device.
std::shared_ptr<QueueImpl> make_queue(Backend& owner);
}  // namespace host_memory

template <class Derived>
class HostMemoryBackend : public TypedBackend<Derived> {
 public:
  std::shared_ptr<QueueImpl> create_queue() override { return host_memory::make_queue(*this); }
  std::shared_ptr<QueueImpl> wrap_queue(void* native) override;
  void synchronize() override { this->note_host_wait(); }

  void* allocate(std::size_t bytes) override { return host_memory::allocate(bytes); }
  void deallocate(void* handle) noexcept override { host_memory::deallocate(handle); }
  void* wrap_memory(void* native, std::size_t) override { return host_memory::wrap(native); }
  void release_wrapped(void*) noexcept override {}
  void* allocate_host(std::size_t bytes) override { return host_memory::allocate(bytes); }
  void deallocate_host(void* p) noexcept override { host_memory::deallocate(p); }
  void upload(QueueImpl&, void* dst, std::size_t dst_offset, const void* host_src, std::size_t bytes,
              bool blocking) override {
    host_memory::copy(static_cast<char*>(dst) + dst_offset, host_src, bytes);
    if (blocking) this->note_host_wait();
  }
  void download(QueueImpl&, void* host_dst, const void* src, std::size_t src_offset, std::size_t bytes,
                bool blocking) override {
    host_memory::copy(host_dst, static_cast<const char*>(src) + src_offset, bytes);
    if (blocking) this->note_host_wait();
  }
  void copy(QueueImpl&, void* dst, std::size_t dst_offset, const void* src, std::size_t src_offset,
            std::size_t bytes) override {
    host_memory::copy(static_cast<char*>(dst) + dst_offset, static_cast<const char*>(src) + src_offset, bytes);
  }
};

template <class Derived>
std::shared_ptr<QueueImpl> HostMemoryBackend<Derived>::wrap_queue(void*) {
  throw InvalidArgument(std::string(this->info().name) +
                        ": host devices have no native queues to wrap (their queue is the calling thread)");
}

// Element i of a view on a host backend.
template <class T>
T* host_ptr(const VecView& v) {
  return static_cast<T*>(v.data) + v.offset;
}
template <class T>
T* host_ptr(const MatView& m) {
  return static_cast<T*>(m.data) + m.offset;
}
template <class T>
T* host_ptr(const ScalarRef& s) {
  return static_cast<T*>(s.data) + s.offset;
}

// A Coef's value on a host backend (the factors are host memory), computed in double.
template <class T>
double host_coef(const Coef& c) {
  double v = c.value;
  for (const ScalarRef& s : c.num)
    if (s.data != nullptr) v *= static_cast<double>(*host_ptr<T>(s));
  for (const ScalarRef& s : c.den)
    if (s.data != nullptr) v /= static_cast<double>(*host_ptr<T>(s));
  return v;
}

}  // namespace tessera
