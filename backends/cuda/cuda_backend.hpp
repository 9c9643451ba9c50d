// The CUDA backend: one object per device, with its own non-blocking stream; every operation is
// queued on it in call order, and only calls that hand a value to the host wait. Device memory
// is plain cudaMalloc. Temporary storage (reduction partials, stencil ping-pong grid, trsv/trsm
// workspaces, SpMV plans) belongs to the object and is reused across calls, never allocated in
// the hot path once it has grown to the sizes in use.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "kernels/cuda/launch.hpp"
#include "tessera/backend.hpp"
#include "tessera/errors.hpp"

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

// Launch parameters that depend on the device (read from it at open) plus the kernels' fixed
// tile sizes, shown by tessera-info.
struct CudaProfile {
  int sm_count = 0;
  int reduce_blocks_per_sm = 8;  // 8 x 256 threads = a full SM: enough bytes in flight for HBM
  int stencil_z_chunk = 64;      // planes per block along z (the register queue's run)
  int sptrsv_sleep_ns = 256;         // longest back-off of a waiting thread in the sync-free solves
  // Resident blocks per SM of the sparse solve: 2 x 128 rows per SM in flight (H200, lower
  // triangle of the 128^3 Laplacian, persistent-grid variant: 2 -> 0.75 ms, 4 -> 0.88 ms,
  // 8 -> 1.37 ms; more waiting rows, more polls competing with the stores they wait for).
  int sptrsv_blocks_per_sm = 2;
  double spmv_skew_ratio = 8.0;  // max row / mean row above this (and max > 64): merge kernel
  double spmv_stream_mean = 12.0;  // unskewed, mean row length up to this: stream kernel (0: never)
  int gemm_tiles = -1;           // -1: wide or narrow by wave efficiency; 0: wide; 1: narrow
  std::vector<std::pair<std::string, std::string>> describe() const;

  // Narrow GEMM tiles (Shape<T, true>) when the wide tiles would leave the SMs noticeably
  // idle (a partly filled last wave, or n much narrower than a wide tile). Narrow tiles reuse
  // each A fragment half as often, so they must win clearly.
  template <class T, template <class, bool> class Shape = GemmTileShape>
  bool narrow_gemm_tiles(std::int64_t m, std::int64_t n) const {
    if (gemm_tiles >= 0) return gemm_tiles == 1;
    // Useful share of the block-slots the grid occupies: partial edge tiles and a partly
    // filled last wave both count as idle.
    auto efficiency = [&](std::int64_t bm, std::int64_t bn, int per_sm) {
      const std::int64_t tiles = ((m + bm - 1) / bm) * ((n + bn - 1) / bn);
      const std::int64_t slots = static_cast<std::int64_t>(per_sm) * (sm_count > 0 ? sm_count : 1);
      const std::int64_t waves = (tiles + slots - 1) / slots;
      return static_cast<double>(m) * static_cast<double>(n) / static_cast<double>(waves * slots * bm * bn);
    };
    using W = Shape<T, false>;
    using N = Shape<T, true>;
    return efficiency(N::BM, N::BN, N::BLOCKS_PER_SM) > N::NARROW_MARGIN * efficiency(W::BM, W::BN, W::BLOCKS_PER_SM);
  }
};

// What spmv chose for one matrix: the kernel, its lanes per row or its merge-path partition.
struct SpmvPlan {
  bool merge = false;
  bool stream = false;  // launch_spmv_stream (else the vector kernel with `lanes`)
  int lanes = 2;
  int tiles = 0;
  DeviceBuffer coords, carry_rows, carry_vals;
};

class CudaBackend final : public Backend {
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

#include "tessera/backend_operation_overrides.inc"
  std::unique_ptr<DeviceTimer> device_timer() override;  // device_timer.cpp: events on stream_

 private:
  void make_current() const;  // cudaSetDevice: every entry point runs on this object's device
  template <class T>
  double reduce_t(ReduceOp op, const VecView& x, const VecView* y);
  template <class T>
  void spmv_t(double alpha, const CsrView& A, const VecView& x, double beta, const VecView& y);
  const SpmvPlan& spmv_plan(const CsrView& A, std::size_t value_size);
  template <class T>
  void trsv_t(Uplo, Trans, Diag, const MatView& A, const VecView& x);
  template <class T>
  void trsm_t(Uplo, Trans, Diag, double alpha, const MatView& A, const MatView& B);
  template <class T>
  std::shared_ptr<SptrsvPlanData> sptrsv_analyze_t(Uplo, Diag, const CsrView& A);
  template <class T>
  void sptrsv_solve_t(const SptrsvPlanData& plan, const CsrView& A, const VecView& b, const VecView& x);
  template <class T>
  void stencil_t(const StencilSpec&, const GridView& u, int steps);

  int device_ = 0;
  cudaStream_t stream_ = nullptr;
  cudaDeviceProp props_{};
  int clock_khz_ = 0, mem_clock_khz_ = 0;
  CudaProfile profile_;

  // reduce: partials, the last-block counter and the result; the result lands in pinned memory.
  DeviceBuffer reduce_scratch_;
  double* reduce_host_ = nullptr;
  int reduce_max_blocks_ = 0;
  // Per-matrix SpMV plans keyed by CsrView::generation (bounded, oldest dropped first).
  std::unordered_map<std::uint64_t, std::unique_ptr<SpmvPlan>> spmv_plans_;
  std::vector<std::uint64_t> spmv_plan_order_;
  DeviceBuffer spmv_stats_;
  DeviceBuffer trsv_inverse_, trsv_sync_, trsm_panel_;
  DeviceBuffer stencil_scratch_;
  DeviceBuffer conv_table_;
  DeviceBuffer small_;  // a few ints for kernels that report back (bad rows, counters)
};

std::string cuda_error_text(cudaError_t err);

}  // namespace tessera::cuda
