// The CUDA backend: one object per device, with its own non-blocking stream; every operation is
// queued on it in call order, and only calls that hand a value to the host wait. Device memory
// is plain cudaMalloc. Each operation's temporary storage (reduction partials, stencil ping-pong
// grid, trsv/trsm workspaces, SpMV merge partitions) is declared and kept in the operation's own
// file (an *State below), created on first use and reused across calls, never allocated in the
// hot path once it has grown to the sizes in use.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>

#include "tessera/backend.hpp"
#include "tessera/errors.hpp"
#include "tessera/typed_backend.hpp"
#include "tuning/tuning.hpp"

namespace tessera::cuda {

// Throws the tessera::Error for a failed CUDA call (OutOfMemory for cudaErrorMemoryAllocation),
// naming the call, where it was made and CUDA's reason; clears CUDA's last-error slot first.
[[noreturn]] void throw_cuda_error(cudaError_t err, const char* call, const char* file, int line);
inline void check(cudaError_t err, const char* call, const char* file, int line) {
  if (err != cudaSuccess) throw_cuda_error(err, call, file, line);
}
#define TESSERA_CUDA_CHECK(call) ::tessera::cuda::check((call), #call, __FILE__, __LINE__)

// One device allocation with an owner; grows on demand (contents are not kept when it grows).
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(std::size_t bytes) { ensure(bytes); }
  ~DeviceBuffer() { release(); }
  DeviceBuffer(DeviceBuffer&& o) noexcept : p_(o.p_), bytes_(o.bytes_) {
    o.p_ = nullptr;
    o.bytes_ = 0;
  }
  DeviceBuffer& operator=(DeviceBuffer&& o) noexcept {
    if (this != &o) {
      release();
      p_ = o.p_;
      bytes_ = o.bytes_;
      o.p_ = nullptr;
      o.bytes_ = 0;
    }
    return *this;
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  void* ensure(std::size_t bytes);
  template <class U>
  U* as() const {
    return static_cast<U*>(p_);
  }
  void* get() const { return p_; }
  std::size_t bytes() const { return bytes_; }

 private:
  void release() noexcept;
  void* p_ = nullptr;
  std::size_t bytes_ = 0;
};

class CudaBackend final : public TypedBackend<CudaBackend> {
 public:
  explicit CudaBackend(int device);
  ~CudaBackend() override;
  CudaBackend(const CudaBackend&) = delete;
  CudaBackend& operator=(const CudaBackend&) = delete;

  DeviceInfo info() const override;

  void* allocate(std::size_t bytes) override;
  void deallocate(void* handle) noexcept override;
  void upload(void* dst, const void* host_src, std::size_t bytes) override;
  void download(void* host_dst, const void* src, std::size_t bytes) override;
  void copy(void* dst, const void* src, std::size_t bytes) override;
  void synchronize() override;
  std::unique_ptr<DeviceTimer> device_timer() override;  // device_timer.cpp: events on stream_

  // The operations, one file each (reduce.cpp, spmv.cpp, ...), T = float or double.
  TESSERA_TYPED_BACKEND_OPERATIONS

  // Every operation runs on this object's device (the calling thread may have another current).
  template <class F>
  decltype(auto) run(Op, F&& f) {
    make_current();
    return std::forward<F>(f)();
  }

 private:
  void make_current() const;  // cudaSetDevice
  int sm_count() const { return props_.multiProcessorCount; }
  // Narrow or wide GEMM tiles (gemm_tiles.hpp) for an m x n result of Tile<T, narrow>.
  template <class T, template <class, bool> class Tile>
  bool narrow_tiles(std::int64_t m, std::int64_t n) const;

  int device_ = 0;
  cudaStream_t stream_ = nullptr;
  cudaDeviceProp props_{};
  int clock_khz_ = 0, mem_clock_khz_ = 0;
  // This device's tuning values (lib/src/tuning/, class cuda/sm90 or cuda/sm80, TESSERA_TUNE).
  tuning::Tuning tune_;

  // Per-operation state, each defined in its operation's file and created there on first use
  // (shared_ptr: destroyed where the type is complete, whichever file that is).
  struct ReduceState;   // reduce.cpp: reduce and dot
  struct SpmvState;     // spmv.cpp
  struct TrsvState;     // trsv.cpp: trsv and trsm
  struct StencilState;  // stencil.cpp
  struct ConvState;     // conv.cpp
  std::shared_ptr<ReduceState> reduce_;
  std::shared_ptr<SpmvState> spmv_;
  std::shared_ptr<TrsvState> trsv_;
  std::shared_ptr<StencilState> stencil_;
  std::shared_ptr<ConvState> conv_;
};

std::string cuda_error_text(cudaError_t err);

}  // namespace tessera::cuda
