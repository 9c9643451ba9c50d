// What the loader's test plugins share. Each plugin_*.cpp here is one plugin, built into its
// own folder (see CMakeLists.txt) and made to show one path of lib/src/plugin_loader.cpp.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <utility>

#include "tessera/backend.hpp"
#include "tessera/backend_operations.hpp"
#include "tessera/errors.hpp"
#include "tessera/plugin_abi.hpp"

namespace tessera_test {

// The operation signatures (backend_operations.hpp) name tessera's types unqualified.
using namespace tessera;  // NOLINT(google-build-using-namespace)

// Writes a reason the way the ABI asks: NUL-terminated and cut to the caller's buffer.
inline void write_reason(char* reason, std::size_t reason_size, const char* text) {
  if (reason != nullptr && reason_size > 0) std::snprintf(reason, reason_size, "%s", text);
}

// The backend of the plugins that get as far as creating one: it keeps memory on the host and
// runs no operation. It exists to prove that a backend created inside a plugin reaches the
// caller intact through the loader and the registry: its vtable, its DeviceInfo and its
// exceptions all cross the shared-object boundary.
class TestBackend final : public tessera::Backend {
 public:
  TestBackend(std::string backend_name, int index) : name_(std::move(backend_name)), index_(index) {}

  tessera::DeviceInfo info() const override {
    tessera::DeviceInfo d;
    d.name = "test device " + std::to_string(index_);
    d.vendor = "Tessera tests";
    d.type = "other";
    d.compute_units = 1;
    d.driver = "none";
    d.details = {{"plugin", "libtessera-" + name_ + ".so"}, {"purpose", "proves plugin loading, runs nothing"}};
    return d;
  }

  tessera::Support support(tessera::Op, tessera::DType) const override {
    return {false, "the " + name_ + " test backend runs no operation"};
  }

  void* allocate(std::size_t bytes) override {
    // malloc(0) may return null, which would read as a failed allocation.
    void* p = std::malloc(bytes == 0 ? 1 : bytes);
    if (p == nullptr)
      throw tessera::OutOfMemory(name_ + ": host allocation of " + std::to_string(bytes) + " bytes failed");
    return p;
  }
  void deallocate(void* handle) noexcept override { std::free(handle); }
  void* wrap_memory(void* native, std::size_t) override { return native; }
  void release_wrapped(void*) noexcept override {}
  void* allocate_host(std::size_t bytes) override { return allocate(bytes); }
  void deallocate_host(void* p) noexcept override { std::free(p); }
  void upload(tessera::QueueImpl&, void* dst, std::size_t off, const void* host_src, std::size_t bytes,
              bool) override {
    std::memcpy(static_cast<char*>(dst) + off, host_src, bytes);
  }
  void download(tessera::QueueImpl&, void* host_dst, const void* src, std::size_t off, std::size_t bytes,
                bool) override {
    std::memcpy(host_dst, static_cast<const char*>(src) + off, bytes);
  }
  void copy(tessera::QueueImpl&, void* dst, std::size_t doff, const void* src, std::size_t soff,
            std::size_t bytes) override {
    std::memcpy(static_cast<char*>(dst) + doff, static_cast<const char*>(src) + soff, bytes);
  }
  void synchronize() override {}
  std::shared_ptr<tessera::QueueImpl> create_queue() override { return std::make_shared<Queue>(); }
  std::shared_ptr<tessera::QueueImpl> wrap_queue(void*) override {
    throw tessera::InvalidArgument(name_ + ": the test backend has no native queues");
  }

  // Every operation: NotImplemented (support() says so too).
#define TESSERA_TEST_FAIL_OP_(OP, R, NAME, PARAMS, ARGS) \
  R NAME(tessera::DType, TESSERA_UNPAREN_ PARAMS) override {   \
    unused ARGS;                                                \
    fail(OP);                                                   \
  }
  TESSERA_FOR_EACH_BACKEND_OP(TESSERA_TEST_FAIL_OP_)
#undef TESSERA_TEST_FAIL_OP_

 private:
  // The calling thread as a queue (nothing runs here anyway).
  struct Event final : tessera::EventImpl {
    void synchronize() override {}
    bool ready() override { return true; }
  };
  struct Queue final : tessera::QueueImpl {
    void synchronize() override {}
    void* native() const override { return nullptr; }
    std::shared_ptr<tessera::EventImpl> record() override { return std::make_shared<Event>(); }
    void wait(tessera::EventImpl&) override {}
  };

  template <class... A>
  static void unused(const A&...) {}
  [[noreturn]] void fail(tessera::Op op) const {
    throw tessera::NotImplemented(name_ + ": " + tessera::to_string(op) + " is not implemented (test backend)");
  }

  std::string name_;
  int index_;
};

}  // namespace tessera_test
