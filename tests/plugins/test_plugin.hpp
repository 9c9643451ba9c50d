// What the loader's test plugins share. Each plugin_*.cpp here is one plugin, built into its
// own folder (see CMakeLists.txt) and made to show one path of lib/src/plugin_loader.cpp.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <utility>

#include "tessera/backend.hpp"
#include "tessera/errors.hpp"
#include "tessera/plugin_abi.hpp"

namespace tessera_test {

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
  void upload(void* dst, const void* host_src, std::size_t bytes) override { std::memcpy(dst, host_src, bytes); }
  void download(void* host_dst, const void* src, std::size_t bytes) override { std::memcpy(host_dst, src, bytes); }
  void copy(void* dst, const void* src, std::size_t bytes) override { std::memcpy(dst, src, bytes); }
  void synchronize() override {}

  double reduce(tessera::DType, tessera::ReduceOp, const tessera::VecView&) override { fail(tessera::Op::reduce); }
  double dot(tessera::DType, const tessera::VecView&, const tessera::VecView&) override { fail(tessera::Op::dot); }
  void spmv(tessera::DType, double, const tessera::CsrView&, const tessera::VecView&, double,
            const tessera::VecView&) override {
    fail(tessera::Op::spmv);
  }
  void trsv(tessera::DType, tessera::Uplo, tessera::Trans, tessera::Diag, const tessera::MatView&,
            const tessera::VecView&) override {
    fail(tessera::Op::trsv);
  }
  void trsm(tessera::DType, tessera::Uplo, tessera::Trans, tessera::Diag, double, const tessera::MatView&,
            const tessera::MatView&) override {
    fail(tessera::Op::trsm);
  }
  std::shared_ptr<tessera::SptrsvPlanData> sptrsv_analyze(tessera::DType, tessera::Uplo, tessera::Diag,
                                                          const tessera::CsrView&) override {
    fail(tessera::Op::sptrsv);
  }
  void sptrsv_solve(tessera::DType, const tessera::SptrsvPlanData&, const tessera::CsrView&,
                    const tessera::VecView&, const tessera::VecView&) override {
    fail(tessera::Op::sptrsv);
  }
  void gemm(tessera::DType, tessera::Trans, tessera::Trans, double, const tessera::MatView&,
            const tessera::MatView&, double, const tessera::MatView&) override {
    fail(tessera::Op::gemm);
  }
  void stencil(tessera::DType, const tessera::StencilSpec&, const tessera::GridView&, int) override {
    fail(tessera::Op::stencil);
  }
  void conv2d(tessera::DType, tessera::ConvMode, const tessera::MatView&, const tessera::MatView&,
              const tessera::MatView&) override {
    fail(tessera::Op::conv2d);
  }
  void conv_layer(tessera::DType, const tessera::ConvParams&, const tessera::TensorView&,
                  const tessera::TensorView&, const tessera::TensorView&) override {
    fail(tessera::Op::conv_layer);
  }

 private:
  [[noreturn]] void fail(tessera::Op op) const {
    throw tessera::NotImplemented(name_ + ": " + tessera::to_string(op) + " is not implemented (test backend)");
  }

  std::string name_;
  int index_;
};

}  // namespace tessera_test
