// The CUDA backend: one object per device. Work is ordered on queues (CudaQueue, queue.hpp:
// non-blocking CUDA streams, made here or wrapped from the application); only transfers with
// `blocking`, synchronize() and sptrsv_analyze wait. Device memory is plain cudaMalloc. Each
// operation's temporary storage used per call (reduction partials, stencil ping-pong grid,
// trsv/trsm workspaces, SpMV merge carries, sptrsv flags) is declared in its operation's own file
// (a *State below) and kept in the queue it runs on, created on first use and reused, never
// allocated in the hot path once grown: lib/ serialises the calls on one queue, so it needs no
// lock. What is shared between queues (the per-matrix SpMV partitions, the conv filter's constant
// memory) is kept here, under a mutex.
#pragma once

#include <cuda_runtime_api.h>

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <utility>

#include "plan/gemm_grid.hpp"
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
// Orders `stream` after `event`, recorded on another stream (where a shared plan or constant
// was made). An event already reached is skipped: that saves a call, and a stream being
// recorded into a graph may not depend on another stream's unrecorded work.
void wait_for_event(cudaStream_t stream, cudaEvent_t event);

// Whether `stream` is recording a graph: per-matrix plans and listings are never made then (a
// graph must not hold a one-off build; its kernels would be recorded, not run).
bool capturing(cudaStream_t stream);

// How many DeviceBuffer allocations have been freed in this process (see DeviceBuffer).
std::uint64_t scratch_generation() noexcept;

#define TESSERA_CUDA_CHECK(call) ::tessera::cuda::check((call), #call, __FILE__, __LINE__)

// One device allocation with an owner; grows on demand (contents are not kept when it grows).
// Every free of one (growth or destruction) advances scratch_generation(): a recorded graph
// holds the addresses of the scratch its kernels used, and replays only while no scratch of the
// process has been freed since (graph.cpp) — a conservative test, but one without a registry.
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

class CudaQueue;
struct GemmProblem;     // kernels/cuda/launch.hpp
struct ConvLayerShape;  // kernels/cuda/launch.hpp

// Element 0 of a view as a device pointer: the one place a view's offset is added.
template <class T>
T* dev_ptr(const VecView& v) {
  return static_cast<T*>(v.data) + v.offset;
}
template <class T>
T* dev_ptr(const MatView& m) {
  return static_cast<T*>(m.data) + m.offset;
}
// A device scalar; null when absent.
template <class T>
T* dev_ptr(const ScalarRef& s) {
  return s.data == nullptr ? nullptr : static_cast<T*>(s.data) + s.offset;
}

class CudaBackend final : public TypedBackend<CudaBackend> {
 public:
  explicit CudaBackend(int device);
  ~CudaBackend() override;
  CudaBackend(const CudaBackend&) = delete;
  CudaBackend& operator=(const CudaBackend&) = delete;

  DeviceInfo info() const override;

  // Queues (queue.cpp), memory (memory.cpp), the device timer (device_timer.cpp: events on q).
  TESSERA_DEVICE_BACKEND_OVERRIDES

  // The operations, one file each (reduce.cpp, spmv.cpp, vector.cpp, ...), T = float or double.
  TESSERA_TYPED_BACKEND_OPERATIONS
  /// The format and kernel spmv runs for A (spmv.cpp).
  std::string spmv_kernel(DType dtype, const CsrView& A) override;
  /// The CSR stream or vector product and the dot in one launch (Backend::spmv_dot; spmv.cpp).
  void spmv_dot(DType dtype, QueueImpl& q, double alpha, const CsrView& A, const VecView& x, double beta,
                const VecView& y, const VecView& w, const VecView& out) override;

  // Every operation runs on this object's device (the calling thread may have another current).
  template <class F>
  decltype(auto) run(Op, F&& f) {
    make_current();
    return std::forward<F>(f)();
  }

  void make_current() const;  // cudaSetDevice
  int device() const { return device_; }

  // Per-queue state of the operations, each defined in its operation's file and kept in the
  // queue (CudaQueue::state): shared_ptr, so it is destroyed where the type is complete.
  struct ReduceState;   // reduce_state.hpp: reduce, dot and the fused dots of vector.cpp
  struct SpmvState;     // spmv.cpp: merge-path carries
  struct SpmmState;     // spmm.cpp: the list of long rows
  struct TrsvState;     // trsv.cpp: trsv and trsm
  struct SptrsvState;   // sptrsv.cpp: per-row solved flags and the ticket
  struct StencilState;  // stencil.cpp
  struct ConvState;     // conv.cpp
  struct GemmState;     // gemm_tiles.hpp: split-k's parts

 private:
  int sm_count() const { return props_.multiProcessorCount; }
  // stencil.cpp: every stencil but StencilSpec::plain.
  template <class T>
  void stencil_general(QueueImpl& q, const StencilSpec& spec, const GridView& u, int steps);
  // stencil.cpp: the z chunk of a pass of the runs kernel (plan/stencil_chunks.hpp), its
  // residency asked of the runtime once per (cell size, levels, rows) and kept in runs_resident_.
  std::int64_t tblock_runs_chunk(std::size_t elem, int levels, int rows, std::int64_t nx, std::int64_t ny,
                                 std::int64_t nz);
  // The grid of a gemm on Tile<T, narrow> (gemm_tiles.hpp): the tiles, split-k and (f32,
  // may_transpose) C^T's product; narrow_tiles: the tiles alone, for an m x n result.
  template <class T, template <class, bool> class Tile>
  plan::GemmGridChoice gemm_grid(std::int64_t m, std::int64_t n, std::int64_t k, std::int64_t batch, MathMode math,
                                 bool may_transpose) const;
  template <class T, template <class, bool> class Tile>
  bool narrow_tiles(std::int64_t m, std::int64_t n, std::int64_t batch = 1) const;
  // The f32 exact wide tiles' deep kernel (GemmTile<float, false, true>) for a product of inner
  // dimension k: from gemm.deep_k on.
  bool deep_tiles(std::int64_t k) const;
  // Hopper's kernels (wgmma gemm, the bulk-copy stencil sweep): built (for sm_90a:
  // TESSERA_CUDA_SM90A) and this device is 9.0, the only one their machine code runs on.
  bool has_sm90a() const {
#ifdef TESSERA_CUDA_SM90A
    return props_.major == 9 && props_.minor == 0;
#else
    return false;
#endif
  }
  // Whether an f32 gemm runs on the wgmma kernel (gemm_tiles.hpp).
  bool use_wgmma(const GemmProblem& s, const float* A, const float* B) const;
  // Enqueues s on q on the kernel those choices pick (gemm_tiles.hpp); sets s.narrow.
  template <class T>
  void enqueue_gemm(QueueImpl& q, GemmProblem& s, T alpha, const T* A, const T* B, T beta, T* C) const;
  // conv.cpp: the conv layer's algorithm, the Winograd tile m (2 or 4) or 0 for the implicit
  // GEMM; and the Winograd path itself.
  int winograd_tile(const ConvLayerShape& s, MathMode math) const;
  // Whether an f32 layer under tf32 / tf32x3 runs the direct tensor-core kernel.
  bool conv_direct_tc(const ConvLayerShape& s, MathMode math) const;
  template <class T>
  void conv_winograd(QueueImpl& q, const ConvLayerShape& s, int m, MathMode math, const T* in, const T* filter,
                     T* out);

  int device_ = 0;
  cudaDeviceProp props_{};
  int clock_khz_ = 0, mem_clock_khz_ = 0;
  // This device's tuning values (lib/src/tuning/, class cuda/sm90 or cuda/sm80, TESSERA_TUNE).
  tuning::Tuning tune_;
  // Grid caps read from tune_ once (small operations' enqueue cost counts): the one-pass
  // reductions (reduce.blocks_per_sm x SMs) and the vector algebra's maps (vector.blocks_per_sm).
  int reduce_blocks_ = 1, vector_blocks_ = 1;
  // Blocks an SM of the runs kernel, [f64][levels - 1][rows 1/2/4], 0 until asked (stencil.cpp).
  std::array<std::atomic<int>, 2 * 4 * 3> runs_resident_{};

  // State shared by all queues, defined in its operation's file, each behind its own mutex.
  struct SpmvPlans;      // spmv.cpp: merge-path partitions per matrix (CsrView::generation)
 public:
  struct SellPlans;      // spmv.cpp: SELL-C-sigma and split plans per matrix (CsrView::generation)
 private:
  struct ConvConstants;  // conv.cpp: who last used the filter's constant memory
  std::mutex spmv_mutex_, conv_mutex_;
  std::shared_ptr<SpmvPlans> spmv_plans_;        // under spmv_mutex_
  static std::shared_ptr<SellPlans> make_sell_plans();
  std::shared_ptr<SellPlans> sell_plans_ = make_sell_plans();  // locks itself
  std::shared_ptr<ConvConstants> conv_constants_;  // under conv_mutex_
};

std::string cuda_error_text(cudaError_t err);
std::string bytes_text(std::size_t bytes);  // "1.5 GiB", "12 MiB", "4 KiB"

}  // namespace tessera::cuda
