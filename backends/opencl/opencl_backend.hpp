// The OpenCL backend: one device, its own context and in-order command queue, the tuning values
// that specialise every kernel, and the program cache. Memory handles in views are cl_mem
// objects cast to void*. Every operation is enqueued on the queue; download() and the
// reductions wait for their result, everything else returns once enqueued.
//
// TypedBackend checks dtype and support() once and calls the typed op templates; run() wraps
// every op (one at a time, OpenCL errors translated). One file per operation (reduce.cpp,
// spmv.cpp, ...) defines its templates with its own helpers and state: it picks the kernel
// variant (device.cpu_kernels), derives the launch shape from the tuning values and the problem
// size, and enqueues. Kernels are in kernels/opencl/*.cl. This header holds only what several
// operations share.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <typeindex>
#include <unordered_map>
#include <vector>

#include "cl_common.hpp"
#include "program_cache.hpp"
#include "tessera/typed_backend.hpp"
#include "tuning/tuning.hpp"

namespace tessera::opencl {

// A scalar kernel argument in the operation's dtype (float or double on the device side).
struct Real {
  double value;
};

class OpenCLBackend final : public TypedBackend<OpenCLBackend> {
 public:
  OpenCLBackend(int index, const cl::Platform& platform, const cl::Device& device);
  ~OpenCLBackend() override;

  DeviceInfo info() const override { return info_; }
  Support support(Op, DType) const override;

  void* allocate(std::size_t bytes) override;
  void deallocate(void* handle) noexcept override;
  void upload(void* dst, const void* host_src, std::size_t bytes) override;
  void download(void* host_dst, const void* src, std::size_t bytes) override;
  void copy(void* dst, const void* src, std::size_t bytes) override;
  void synchronize() override;
  std::unique_ptr<DeviceTimer> device_timer() override;  // device_timer.cpp: profiling events

  TESSERA_TYPED_BACKEND_OPERATIONS

  // Every operation: one at a time (kernel objects, scratch and per-op state are shared), its
  // OpenCL errors translated with "opencl:N <op>" as context.
  template <class F>
  decltype(auto) run(Op op, F&& f) {
    std::lock_guard<std::mutex> lock(mutex_);
    return translate_errors(where(to_string(op)), std::forward<F>(f));
  }

  // Queues the device timer's mark kernel; `event` gets its profiling timestamps.
  void enqueue_mark(cl::Event& event);
  // "opencl:N gemm": the context of every error message of an operation.
  std::string where(const char* op) const;

  // ---- for the operation files ----
  static cl_mem mem(const void* handle) { return static_cast<cl_mem>(const_cast<void*>(handle)); }
  const tuning::Tuning& tuning() const { return tuning_; }
  // The kernels' CPU variants (device.cpu_kernels): registers, no local memory.
  bool cpu_kernels() const { return cpu_kernels_; }
  bool nvidia_ptx() const { return nvidia_ptx_; }  // NVIDIA's platform: kernels may use inline PTX
  int compute_units() const { return compute_units_; }
  std::size_t max_alloc() const { return max_alloc_; }
  std::size_t base_align_bits() const { return base_align_bits_; }  // every buffer's alignment
  // Local memory one work-group may use: the device's, bounded by device.local_mem_kb.
  std::size_t local_mem_limit() const;
  cl::Context& context() { return context_; }
  cl::CommandQueue& queue() { return queue_; }

  // Kernel `name` of kernels/opencl/<file> for dtype dt, with extra -D options.
  cl::Kernel& kernel(const char* file, DType dt, const std::string& defines, const char* name);

  // Sets the kernel's arguments in order: cl_mem handles (void*), cl::Buffer, int, long
  // (std::int64_t) or Real (converted to T).
  template <class T, class... Args>
  void set_args(cl::Kernel& k, const Args&... args) {
    cl_uint index = 0;
    (set_arg(k, index++, dtype_v<T>, args), ...);
  }

  // Enqueues k on the queue; a null local range lets the driver choose.
  void launch(cl::Kernel& k, const cl::NDRange& global, const cl::NDRange& local);

  // Device scratch memory, one growing buffer per slot, reused across calls (operations are
  // serialised by run() and the queue is in order, so a slot is never in use twice).
  enum class Scratch {
    reduce_partial, reduce_result, stencil, gemm_a, gemm_b, conv_image, conv_cols,
    trsv_inverse, trsv_sync, sptrsv_ticket, spmv_merge_coords, spmv_carry_rows, spmv_carry_vals,
    conv_ktab, count
  };
  cl::Buffer& scratch(Scratch slot, std::size_t bytes);

  // An operation's own state on this device (a struct of its file, default-constructed on
  // first use, kept until the device closes); callers hold run()'s lock.
  template <class S>
  S& state() {
    auto& slot = states_[std::type_index(typeid(S))];
    if (!slot) slot = std::shared_ptr<void>(new S(), [](void* p) { delete static_cast<S*>(p); });
    return *static_cast<S*>(slot.get());
  }

 private:
  void set_arg(cl::Kernel& k, cl_uint i, DType, void* handle);
  void set_arg(cl::Kernel& k, cl_uint i, DType, const cl::Buffer& b);
  void set_arg(cl::Kernel& k, cl_uint i, DType, int v);
  void set_arg(cl::Kernel& k, cl_uint i, DType, std::int64_t v);
  void set_arg(cl::Kernel& k, cl_uint i, DType dt, Real v);

  int index_;
  cl::Platform platform_;
  cl::Device device_;
  cl::Context context_;
  cl::CommandQueue queue_;
  tuning::Tuning tuning_;
  bool cpu_kernels_ = false;
  DeviceInfo info_;
  bool fp64_ = false;
  bool nvidia_ptx_ = false;  // NVIDIA's platform: kernels may use inline PTX (opencl_backend.cpp)
  int compute_units_ = 1;
  std::size_t max_alloc_ = 0;
  std::size_t max_wg_ = 1;
  std::size_t local_mem_ = 0;
  std::size_t base_align_bits_ = 0;  // CL_DEVICE_MEM_BASE_ADDR_ALIGN: every buffer's alignment
  std::unique_ptr<ProgramCache> programs_;
  std::vector<cl::Buffer> scratch_;
  std::vector<std::size_t> scratch_bytes_;
  std::unordered_map<std::type_index, std::shared_ptr<void>> states_;
  std::mutex mutex_;  // one operation at a time: kernel objects and scratch are shared state
};

}  // namespace tessera::opencl
