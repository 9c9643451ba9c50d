// The OpenCL backend: one device, its own context and in-order command queue, the device
// profile that specialises every kernel, and the program cache. Memory handles in views are
// cl_mem objects cast to void*. Every operation is enqueued on the queue; download() and the
// reductions wait for their result, everything else returns once enqueued.
//
// One file per operation (reduce.cpp, spmv.cpp, ...) implements its methods: it picks the
// kernel variant from the profile's family, derives the launch shape from the profile's
// parameters and the problem size, and enqueues. Kernels are in kernels/opencl/*.cl.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "cl_common.hpp"
#include "device_profile.hpp"
#include "program_cache.hpp"
#include "tessera/backend.hpp"

namespace tessera::opencl {

// A scalar kernel argument in the operation's dtype (float or double on the device side).
struct Real {
  double value;
};

class OpenCLBackend final : public Backend {
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

#include "tessera/backend_operation_overrides.inc"
  std::unique_ptr<DeviceTimer> device_timer() override;  // device_timer.cpp: profiling events

  // Queues the device timer's mark kernel; `event` gets its profiling timestamps.
  void enqueue_mark(cl::Event& event);
  // "opencl:N gemm": the context of every error message of an operation.
  std::string where(const char* op) const;

 private:
  // ---- helpers for the operation files ----
  static cl_mem mem(const void* handle) { return static_cast<cl_mem>(const_cast<void*>(handle)); }
  bool cpu_family() const { return profile_.family == KernelFamily::cpu; }

  // Throws NotImplemented for f64 on a device without cl_khr_fp64.
  void require_dtype(Op op, DType dt) const;

  // Kernel `name` of kernels/opencl/<file> for dtype dt, with extra -D options.
  cl::Kernel& kernel(const char* file, DType dt, const std::string& defines, const char* name);

  // Sets the kernel's arguments in order: cl_mem handles (void*), cl::Buffer, int, long
  // (std::int64_t) or Real (converted to the dtype).
  template <class... Args>
  void set_args(cl::Kernel& k, DType dt, const Args&... args) {
    cl_uint index = 0;
    (set_arg(k, index++, dt, args), ...);
  }
  void set_arg(cl::Kernel& k, cl_uint i, DType, void* handle);
  void set_arg(cl::Kernel& k, cl_uint i, DType, const cl::Buffer& b);
  void set_arg(cl::Kernel& k, cl_uint i, DType, int v);
  void set_arg(cl::Kernel& k, cl_uint i, DType, std::int64_t v);
  void set_arg(cl::Kernel& k, cl_uint i, DType dt, Real v);

  // Enqueues k on the queue; a null local range lets the driver choose.
  void launch(cl::Kernel& k, const cl::NDRange& global, const cl::NDRange& local);

  // Device scratch memory, one growing buffer per slot, reused across calls (operations are
  // serialised by the lock and the queue is in order, so a slot is never in use twice).
  enum class Scratch {
    reduce_partial, reduce_result, stencil, gemm_a, gemm_b, conv_image, conv_cols,
    trsv_inverse, trsv_sync, spmv_stats, sptrsv_ticket, spmv_merge_coords, spmv_carry_rows, spmv_carry_vals,
    conv_ktab, count
  };
  cl::Buffer& scratch(Scratch slot, std::size_t bytes);

  // gemm's two steps, shared with conv_layer (see gemm.cpp and kernels/opencl/gemm.cl).
  struct GemmShape {
    std::int64_t m = 0, n = 0, k = 0;     // C is m x n, the inner dimension k
    std::int64_t mp = 0, np = 0, kp = 0;  // padded to whole panels (and, gpu, whole k-steps)
    int panel_m = 0, panel_n = 0;         // panel widths of packed A and B
  };
  DeviceProfile gemm_params(DType) const;
  GemmShape gemm_shape(DType, std::int64_t m, std::int64_t n, std::int64_t k) const;
  std::string gemm_defines(DType) const;
  // gemm_ptx.cl (NVIDIA inline PTX) runs gemm and conv_layer: gemm.kernels = 2 on NVIDIA's
  // platform. Its defines (conv_gather: B is a convolution's input, gathered) and group size.
  bool gemm_ptx() const;
  std::string gemm_ptx_defines(DType, bool conv_gather) const;
  std::size_t gemm_ptx_threads(DType) const;
  // Packs op(src) (rows x k, rows along the panels) into dst, in A's panels (is_a) or B's.
  void gemm_pack(DType, bool is_a, const void* src, std::int64_t ld, std::int64_t rows, std::int64_t k,
                 bool src_rows_contiguous, const cl::Buffer& dst, std::int64_t padded_rows, std::int64_t kp);
  // C (from c_offset, leading dimension ldc) = alpha * A B + beta * C from packed A and B. C's
  // columns come in groups of group_cols, group g at g * group_stride (see gemm.cl).
  void gemm_packed(DType, const GemmShape&, double alpha, const cl::Buffer& Ap, const cl::Buffer& Bp, double beta,
                   void* C, std::int64_t c_offset, std::int64_t ldc, std::int64_t group_cols,
                   std::int64_t group_stride);

  // conv_layer on gemm_ptx.cl: implicit GEMM, B gathered from the input (conv.cpp).
  void conv_layer_implicit(DType, const ConvParams&, const TensorView& in, const TensorView& filter,
                           const TensorView& out);

  // The longest row of A (one kernel and a read-back, then cached by A.generation).
  int spmv_max_row(DType, const CsrView& A, const std::string& wg_define);
  std::unordered_map<std::uint64_t, int> spmv_longest_;
  // The merge-path kernel (skewed rows): its tile partition, once per matrix (cached like the
  // longest row; a matrix without generation uses scratch), then the tiles and the fix-up pass.
  cl::Buffer spmv_merge_coords(DType, const CsrView& A, const std::string& gpu_defines, int tiles);
  std::unordered_map<std::uint64_t, cl::Buffer> spmv_merge_coords_;
  void spmv_merge(DType, double alpha, const CsrView& A, const VecView& x, double beta, const VecView& y,
                  const std::string& gpu_defines);

  std::string trsv_defines(DType) const;
  // Shared by trsv and trsm: X := op(A)^-1 * X for X n x nrhs with leading dimension ldb.
  void trsm_impl(DType, Uplo, Trans, Diag, const MatView& A, void* B, std::int64_t ldb, std::int64_t nrhs);
  // trsm_impl for profiles with trsv.inverse (kernels/opencl/trsv_inv.cl).
  std::string trsv_inverse_defines(bool trans) const;
  void trsm_inverse(DType, Uplo, Trans, Diag, const MatView& A, void* B, std::int64_t ldb, std::int64_t nrhs);

  double reduce_impl(DType, const char* op_name, const VecView& x, const VecView* y);

  int index_;
  cl::Platform platform_;
  cl::Device device_;
  cl::Context context_;
  cl::CommandQueue queue_;
  DeviceProfile profile_;
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
  std::mutex mutex_;  // one operation at a time: kernel objects and scratch are shared state
};

}  // namespace tessera::opencl
