// The OpenCL backend: one device, its own context, the tuning values that specialise every
// kernel, the program cache, and its queues (queue.hpp: in-order command queues, each with the
// scratch memory of the calls run on it). Memory handles in views are cl_mem objects cast to
// void*. Every operation is enqueued on the queue it is given and returns without waiting; only
// blocking transfers, the queues' and events' synchronize, synchronize() and sptrsv_analyze wait.
//
// TypedBackend checks dtype and support() once and calls the typed op templates; run() wraps
// every op (OpenCL errors translated). Threads call concurrently on different queues: the
// backend's mutex guards only what queues share (kernel objects between setArg and enqueue, the
// program cache, per-matrix caches, per-device state), never a wait for the device. One file per
// operation (reduce.cpp, spmv.cpp, ...) defines its templates with its own helpers and state: it
// picks the kernel variant (device.cpu_kernels), derives the launch shape from the tuning values
// and the problem size, and enqueues. Kernels are in kernels/opencl/*.cl; views' offsets go to
// them as element-offset arguments. This header holds only what several operations share.
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
#include "queue.hpp"
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

  // Queues (queue.cpp), memory, the device timer (device_timer.cpp: profiling events).
  TESSERA_DEVICE_BACKEND_OVERRIDES

  TESSERA_TYPED_BACKEND_OPERATIONS
  // y = alpha A x + beta y with out = w . y in one launch where the product's kernel has a dot
  // variant (spmv.cpp); else spmv, then dot.
  void spmv_dot(DType dtype, QueueImpl& q, double alpha, const CsrView& A, const VecView& x, double beta,
                const VecView& y, const VecView& w, const VecView& out) override;
  // CG's iterations in one work-group for small systems (cg.cpp).
  bool cg_steps(DType dtype, QueueImpl& q, std::int64_t steps, const CsrView& A, const VecView& d, const VecView& x,
                const VecView& r, const VecView& p, const VecView& ap, const VecView& z, const VecView& rz,
                const VecView& rr) override;
  // The format and kernel spmv runs for A (spmv.cpp).
  std::string spmv_kernel(DType dtype, const CsrView& A) override;

  // Every operation: its OpenCL errors translated with "opencl:N <op>" as context. No lock here:
  // calls on one queue are serialised by lib/, and what queues share is locked where it is used.
  template <class F>
  decltype(auto) run(Op op, F&& f) {
    return translate_errors(where(to_string(op)), std::forward<F>(f));
  }

  // Queues the device timer's mark kernel on q; `event` gets its profiling timestamps.
  void enqueue_mark(OpenClQueue& q, cl::Event& event);
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

  // Kernel `name` of kernels/opencl/<file> for dtype dt, with extra -D options. The object is
  // shared by every queue: set its arguments only through launch(), which holds the lock.
  cl::Kernel& kernel(const char* file, DType dt, const std::string& defines, const char* name);

  // Enqueues k on q with its arguments, in order: cl_mem handles (void*; null allowed),
  // cl::Buffer, int, long (std::int64_t), Real (converted to T), cl::LocalSpaceArg or Coef. setArg and
  // enqueue are one step under the mutex (the kernel object is shared). A null local range lets
  // the driver choose; an empty global range enqueues nothing. `wait` (may be null): events the
  // kernel waits for; `done` (may be null): receives the kernel's event.
  template <class T, class... Args>
  void launch(OpenClQueue& q, cl::Kernel& k, const cl::NDRange& global, const cl::NDRange& local,
              const Args&... args) {
    launch_ordered<T>(q, k, global, local, nullptr, nullptr, args...);
  }
  template <class T, class... Args>
  void launch_ordered(OpenClQueue& q, cl::Kernel& k, const cl::NDRange& global, const cl::NDRange& local,
                      const std::vector<cl::Event>* wait, cl::Event* done, const Args&... args) {
    for (cl::size_type d = 0; d < global.dimensions(); ++d)
      if (global.get()[d] == 0) return;  // nothing to do; OpenCL 1.2 rejects empty ranges
    std::lock_guard<std::mutex> lock(mutex_);
    [[maybe_unused]] cl_uint index = 0;  // unused by kernels without arguments
    (set_arg(k, index, dtype_v<T>, args), ...);
    q.queue().enqueueNDRangeKernel(k, cl::NullRange, global, local, wait, done);
  }

  // The buffer of s, grown to at least `bytes` (per-queue scratch: queue.hpp).
  cl::Buffer& grow(ScratchBuffer& s, std::size_t bytes);

  // An operation's state shared by all queues of this device (a struct of its file,
  // default-constructed on first use, kept until the device closes). The map access is locked;
  // the struct's contents are the caller's to guard (with mutex()).
  template <class S>
  S& state() {
    std::lock_guard<std::mutex> lock(mutex_);
    auto& slot = states_[std::type_index(typeid(S))];
    if (!slot) slot = std::shared_ptr<void>(new S(), [](void* p) { delete static_cast<S*>(p); });
    return *static_cast<S*>(slot.get());
  }
  // Guards state shared by queues; never held while waiting for the device, nor across launch().
  std::mutex& mutex() { return mutex_; }

 private:
  // Each sets the argument(s) at index i on and advances i past them.
  void set_arg(cl::Kernel& k, cl_uint& i, DType, void* handle);
  void set_arg(cl::Kernel& k, cl_uint& i, DType, const cl::Buffer& b);
  void set_arg(cl::Kernel& k, cl_uint& i, DType, int v);
  void set_arg(cl::Kernel& k, cl_uint& i, DType, std::int64_t v);
  void set_arg(cl::Kernel& k, cl_uint& i, DType dt, Real v);
  void set_arg(cl::Kernel& k, cl_uint& i, DType, const cl::LocalSpaceArg& v);
  // Nine arguments: the value (as Real), then (buffer, element offset) of num[0], num[1],
  // den[0], den[1]; an absent factor is a null buffer (kernels/opencl/vector.cl, COEF_PARAMS).
  void set_arg(cl::Kernel& k, cl_uint& i, DType dt, const Coef& c);
  // A new queue object around `queue`, remembered for synchronize().
  std::shared_ptr<QueueImpl> adopt(cl::CommandQueue queue);

  int index_;
  cl::Platform platform_;
  cl::Device device_;
  cl::Context context_;
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
  std::unordered_map<std::type_index, std::shared_ptr<void>> states_;
  std::mutex mutex_;  // what queues share: kernel objects (setArg + enqueue), programs, states_
  std::mutex queues_mutex_;
  std::vector<std::weak_ptr<OpenClQueue>> queues_;  // every live queue, for synchronize()
};

}  // namespace tessera::opencl
