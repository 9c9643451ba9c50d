/// \file
/// The Backend interface: one abstract class, one method per operation, the dtype as an enum.
/// Every backend (reference, cpu, opencl, cuda) implements all of it; what a backend cannot do
/// throws NotImplemented and says so in support(). lib/ validates every argument before calling
/// a backend, so implementations may assume consistent shapes, one device, and valid CSR.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <string>

#include "tessera/device_info.hpp"
#include "tessera/types.hpp"

namespace tessera {

/// A vector passed to a backend: n elements starting `offset` elements into an allocation.
///
/// Views pass device allocations to a backend. `data` is the backend's own handle as returned by
/// Backend::allocate (a host pointer for reference/cpu, a device pointer for CUDA, a cl_mem for
/// OpenCL); element i of the view is element offset + i of the allocation. Backends add the
/// offset where they address memory (OpenCL passes it as a kernel argument: a cl_mem cannot be
/// offset, and sub-buffers carry alignment rules).
struct VecView {
  void* data = nullptr;     ///< the backend's handle of the allocation
  std::int64_t n = 0;       ///< number of elements
  std::int64_t offset = 0;  ///< elements from the start of the allocation to element 0
};

/// A dense matrix passed to a backend: row-major; element (i, j) at data[offset + i * ld + j],
/// ld >= cols.
struct MatView {
  void* data = nullptr;  ///< the backend's handle of the allocation (see VecView)
  /// Rows, columns and leading dimension (elements between the starts of two rows).
  ///@{
  std::int64_t rows = 0, cols = 0, ld = 0;
  ///@}
  std::int64_t offset = 0;  ///< elements from the start of the allocation to element (0, 0)
};

/// One value on the device: element `offset` of an allocation, of the operation's dtype.
struct ScalarRef {
  void* data = nullptr;     ///< the backend's handle of the allocation; null: absent
  std::int64_t offset = 0;  ///< elements from the start of the allocation
};

/// A scalar argument of a vector operation (alpha, beta, a fill value), read on the device where
/// it names device values, as cuBLAS's device pointer mode, but also as ratios and products of
/// them, so a Krylov method's alpha = rz / pq is never brought to the host:
///
///   coefficient = value * num[0] * num[1] / (den[0] * den[1])
///
/// with absent factors (data == null) left out. Computed in the operation's dtype (value
/// rounded to it first); in double for f32 where the backend finds it free.
struct Coef {
  double value = 1.0;               ///< the host factor
  std::array<ScalarRef, 2> num{};   ///< device factors multiplied in
  std::array<ScalarRef, 2> den{};   ///< device factors divided by
  /// True when no device factor is present: the coefficient is `value`, known on the host.
  bool on_host() const {
    return num[0].data == nullptr && num[1].data == nullptr && den[0].data == nullptr && den[1].data == nullptr;
  }
  /// True for a host zero: axpby and friends then do not read the vector it multiplies (NaN in it
  /// does not propagate), as BLAS's beta == 0.
  bool is_zero() const { return on_host() && value == 0.0; }
};

/// Row-length statistics of a CSR matrix, computed once on the host when the matrix is built
/// (CsrMatrix::from_host walks row_ptr anyway) and carried in every view: what the format and
/// kernel policies (lib/src/plan/) decide on, so no backend measures a matrix again.
struct CsrStats {
  /// Shortest and longest row (nonzeros).
  ///@{
  std::int64_t min_row = 0, max_row = 0;
  ///@}
  std::int64_t empty_rows = 0;  ///< rows without nonzeros
  double mean_row = 0.0;    ///< nnz / rows (0 without rows)
  double stddev_row = 0.0;  ///< standard deviation of the row lengths
  /// Pairs of consecutive rows of which at least one is short (at most `short_row` nonzeros),
  /// and how many of those pairs differ in length: how often a loop over short rows would
  /// mispredict its exit (the cpu backend's SpMV chooses its short-row kernel by it).
  ///@{
  static constexpr std::int64_t short_row = 8;
  std::int64_t short_pairs = 0, short_pair_changes = 0;
  ///@}
};
/// The statistics of rows + 1 row offsets (row_ptr in host memory, already validated).
CsrStats csr_stats(const std::int32_t* row_ptr, std::int64_t rows);

/// A CSR matrix passed to a backend: int32 indices, structure already validated (row_ptr[0] = 0,
/// non-decreasing, row_ptr[rows] = nnz, 0 <= col_idx < cols). Columns within a row may be
/// unsorted.
struct CsrView {
  void* row_ptr = nullptr;  ///< rows + 1 int32
  void* col_idx = nullptr;  ///< nnz int32
  void* values = nullptr;   ///< nnz of dtype
  /// Rows, columns and stored entries.
  ///@{
  std::int64_t rows = 0, cols = 0, nnz = 0;
  ///@}
  /// Identity of the matrix's contents: changes whenever the matrix is rebuilt, so a backend
  /// may cache per-matrix analysis (row statistics, a chosen kernel) keyed by it.
  std::uint64_t generation = 0;
  CsrStats stats;  ///< of this matrix (csr_stats)
  /// The row offsets in host memory (rows + 1, kept by the matrix since it was built), or null:
  /// what a per-matrix plan derived from the structure (a SELL-C-sigma layout) reads without a
  /// download. Valid as long as the view's matrix lives.
  const std::int32_t* host_row_ptr = nullptr;
  /// Counts CsrMatrix::update_values calls (the generation stays): a plan holding a copy of the
  /// values (a SELL-C-sigma layout) refreshes them when it differs from the one it was built at.
  std::uint64_t values_version = 0;
};

/// A grid passed to a backend: nz x ny x nx cells, x fastest (nz = 1 for 2D); ndim is 2 or 3.
struct GridView {
  void* data = nullptr;  ///< the backend's handle of the allocation (see VecView)
  int ndim = 2;          ///< 2 or 3
  /// Extents along x (fastest), y and z.
  ///@{
  std::int64_t nx = 0, ny = 0, nz = 1;
  ///@}
};

/// A dense 4D tensor passed to a backend: contiguous, NCHW order (filters: KCRS, outputs: NKPQ).
struct TensorView {
  void* data = nullptr;  ///< the backend's handle of the allocation (see VecView)
  /// Extents, outermost first.
  ///@{
  std::int64_t n = 0, c = 0, h = 0, w = 0;
  ///@}
};

/// Opaque result of a sparse triangular analysis; each backend derives its own.
class SptrsvPlanData {
 public:
  virtual ~SptrsvPlanData() = default;
};

/// Whether a backend runs an (Op, DType) pair: Backend::support's answer.
struct Support {
  bool ok = true;      ///< the pair runs
  std::string reason;  ///< why not, when !ok
};

class Backend;

/// A point in a queue's stream of work (Queue::record): the work queued before it.
class EventImpl {
 public:
  virtual ~EventImpl() = default;
  virtual void synchronize() = 0;  ///< waits on the host until the work before the event has finished
  virtual bool ready() = 0;        ///< whether it has, without waiting
};

class QueueImpl;

/// Work recorded from a queue (QueueImpl::end_capture), replayed with one launch: a CUDA graph.
class GraphImpl {
 public:
  virtual ~GraphImpl() = default;
  /// Enqueues the recorded work on `q` (a queue of the same backend) without waiting. Returns
  /// false, enqueueing nothing, when the graph can no longer run as recorded: scratch memory that
  /// it uses has been freed or reallocated since the capture (capture again).
  virtual bool launch(QueueImpl& q) = 0;
};

/// The backend side of a Queue: an in-order stream of work on one device (a CUDA stream, an
/// OpenCL in-order command queue; on host backends the calling thread, which runs each
/// operation before returning). Every operation and transfer names the queue it is ordered on.
/// lib/ serialises the calls made on one queue (one host thread at a time enqueues on it), so a
/// backend may keep per-queue scratch memory in its queue object without a lock of its own.
class QueueImpl {
 public:
  virtual ~QueueImpl() = default;
  /// Waits on the host until the work queued so far has finished (counts as a host wait).
  virtual void synchronize() = 0;
  /// The native handle: cudaStream_t, cl_command_queue, or null on host backends.
  virtual void* native() const = 0;
  /// An event at this point of the queue.
  virtual std::shared_ptr<EventImpl> record() = 0;
  /// Work queued here afterwards starts after `event` (of a queue of the same device) without
  /// the host waiting.
  virtual void wait(EventImpl& event) = 0;
  /// Whether work on this queue can be recorded into a graph (begin_capture / end_capture).
  virtual bool can_capture() const { return false; }
  /// From now on, work enqueued on this queue is recorded instead of run, until end_capture.
  /// Only called where can_capture() (lib/ checks), never while already capturing.
  virtual void begin_capture() {}
  /// Stops recording and returns the graph of the work recorded since begin_capture. Throws
  /// tessera::Error when the recording failed (work that cannot be recorded, such as a host
  /// wait, was attempted): the queue then records nothing any more and none of it has run.
  virtual std::shared_ptr<GraphImpl> end_capture() { return nullptr; }
};

/// A clock on a device's own queue (CUDA events on the backend's stream): marks placed between
/// the calls to time, so an interval excludes the host's launch and wake-up latencies. Valid
/// while its device is open; used by tessera-bench.
class DeviceTimer {
 public:
  virtual ~DeviceTimer() = default;
  virtual void start() = 0;  ///< queues the start mark after the work already queued
  virtual void stop() = 0;   ///< queues the stop mark
  /// Milliseconds between the marks; waits until the device has reached the stop mark.
  virtual double elapsed_ms() = 0;
  virtual std::string clock() const = 0;  ///< what the reports call it, e.g. "cuda-event"
};

/// The interface every backend implements: device memory, queues and one method per operation.
/// Backends usually derive from TypedBackend, which implements the operations' dtype dispatch.
///
/// Every operation takes the queue it is ordered on (first parameter, `q`, always one this
/// backend created or wrapped) and must not wait for the device: results that the host wants
/// go to device memory (reductions write a ScalarRef-like one-element VecView), and only
/// transfers with `blocking` and the synchronize calls of a queue, an event or the backend wait. Each of
/// those waits, and any wait a backend cannot avoid inside an operation, is counted with
/// note_host_wait(): the count (Device::host_waits) is how tests prove that a loop runs
/// without the host waiting.
///
/// Thread safety: lib/ calls a backend from any number of threads, but never concurrently on one
/// queue. State shared by queues (per-matrix caches, compiled programs, kernel objects) is the
/// backend's to protect.
class Backend {
 public:
  virtual ~Backend() = default;

  /// What the device says about itself (tessera-info, Device::info()).
  virtual DeviceInfo info() const = 0;
  /// Whether this backend runs `op` in `dtype`; when not, the reason. The default: everything.
  virtual Support support(Op, DType) const { return {}; }

  // ---- queues ----
  /// A new in-order queue on this device.
  virtual std::shared_ptr<QueueImpl> create_queue() = 0;
  /// A queue around a native one the application owns (cudaStream_t, cl_command_queue), not
  /// destroyed with it. Throws InvalidArgument for null, a queue of another device or context, an
  /// out-of-order OpenCL queue, or a backend without native queues.
  virtual std::shared_ptr<QueueImpl> wrap_queue(void* native) = 0;
  /// Waits until all work queued on the device, on every queue, has finished (a host wait).
  virtual void synchronize() = 0;

  // ---- memory (bytes) ----
  virtual void* allocate(std::size_t bytes) = 0;            ///< throws OutOfMemory
  virtual void deallocate(void* handle) noexcept = 0;       ///< frees what allocate returned
  /// A handle for memory the application owns: a device pointer (CUDA), a cl_mem (OpenCL, of
  /// this device's context, at least `bytes` long), a host pointer (host backends). Not freed by
  /// Tessera: release_wrapped undoes what wrapping took (OpenCL: a retain). Throws
  /// InvalidArgument for null or memory the device cannot use.
  virtual void* wrap_memory(void* native, std::size_t bytes) = 0;
  virtual void release_wrapped(void* handle) noexcept = 0;  ///< forgets a wrap_memory handle
  /// Page-locked host memory for asynchronous transfers (HostBuffer); plain aligned memory on
  /// host backends. Throws OutOfMemory.
  virtual void* allocate_host(std::size_t bytes) = 0;
  virtual void deallocate_host(void* p) noexcept = 0;  ///< frees what allocate_host returned
  /// Host to device: `bytes` from host_src to byte `dst_offset` of the allocation dst, ordered
  /// on q. blocking: returns after host_src may be reused (a host wait); else host_src must be
  /// memory from allocate_host and stay untouched until the queue has passed this point.
  virtual void upload(QueueImpl& q, void* dst, std::size_t dst_offset, const void* host_src, std::size_t bytes,
                      bool blocking) = 0;
  /// Device to host, as upload: blocking returns with the bytes in host_dst (a host wait).
  virtual void download(QueueImpl& q, void* host_dst, const void* src, std::size_t src_offset, std::size_t bytes,
                        bool blocking) = 0;
  /// Device to device on q (never waits); the ranges may belong to one allocation but do not overlap.
  virtual void copy(QueueImpl& q, void* dst, std::size_t dst_offset, const void* src, std::size_t src_offset,
                    std::size_t bytes) = 0;

  /// How many times the host has waited for this device (see the class comment).
  std::uint64_t host_waits() const noexcept { return host_waits_.load(std::memory_order_relaxed); }
  /// Counts one host wait; called by the backend (and its queues and events) where it waits.
  void note_host_wait() noexcept { host_waits_.fetch_add(1, std::memory_order_relaxed); }

  // ---- operations ----
  // The counterparts of the functions in ops.hpp and algebra.hpp, called after lib/ has checked
  // the arguments. Outputs named `out` are one-element views (a Scalar) of the dtype.
  /// out = the reduction of x (norm2: the square root of sum_squares); sums of f32 accumulate in
  /// double. Empty input is rejected by lib/ for min/max and answered by lib/ for the rest.
  virtual void reduce(DType, QueueImpl& q, ReduceOp, const VecView& x, const VecView& out) = 0;
  /// out = the dot product of x and y (accurate as reduce).
  virtual void dot(DType, QueueImpl& q, const VecView& x, const VecView& y, const VecView& out) = 0;

  /// y = alpha * A * x + beta * y. beta == 0 means y is not read (NaNs in y do not propagate).
  virtual void spmv(DType, QueueImpl& q, double alpha, const CsrView& A, const VecView& x, double beta,
                    const VecView& y) = 0;

  /// Y = alpha * A * X + beta * Y with X (A.cols x k) and Y (A.rows x k) dense row-major, k >= 1.
  /// beta == 0 means Y is not read. X and Y do not overlap.
  virtual void spmm(DType, QueueImpl& q, double alpha, const CsrView& A, const MatView& X, double beta,
                    const MatView& Y) = 0;

  /// Solve op(A) x = b in place (x holds b on entry), A square n x n.
  virtual void trsv(DType, QueueImpl& q, Uplo, Trans, Diag, const MatView& A, const VecView& x) = 0;
  /// Solve op(A) X = alpha * B in place (B: n x nrhs, overwritten by X).
  virtual void trsm(DType, QueueImpl& q, Uplo, Trans, Diag, double alpha, const MatView& A, const MatView& B) = 0;

  /// Sparse triangular solve: analysis once per matrix, then any number of solves. Only the
  /// triangle named by uplo is used; entries on the other side are ignored. The analysis may
  /// wait for the device (it returns a verdict on singularity); solves do not.
  virtual std::shared_ptr<SptrsvPlanData> sptrsv_analyze(DType, QueueImpl& q, Uplo, Diag, const CsrView& A) = 0;
  /// Solve A x = b with a plan that sptrsv_analyze returned for A (on any queue of the device).
  virtual void sptrsv_solve(DType, QueueImpl& q, const SptrsvPlanData& plan, const CsrView& A, const VecView& b,
                            const VecView& x) = 0;

  /// C = alpha * op(A) * op(B) + beta * C; beta == 0 means C is not read. `math` (types.hpp):
  /// what the products may lose; lib/ passes MathMode::exact for f64 and for alpha == 0.
  virtual void gemm(DType, QueueImpl& q, Trans ta, Trans tb, double alpha, const MatView& A, const MatView& B,
                    double beta, const MatView& C, MathMode math) = 0;

  /// `steps` applications of the star stencil to u, in place (see StencilSpec).
  virtual void stencil(DType, QueueImpl& q, const StencilSpec&, const GridView& u, int steps) = 0;

  /// 2D single-channel cross-correlation of image with a K x K filter.
  virtual void conv2d(DType, QueueImpl& q, ConvMode, const MatView& image, const MatView& filter,
                      const MatView& out) = 0;
  /// CNN layer forward: in NCHW, filter KCRS, out NKPQ; `math` as gemm's (exact for f64).
  virtual void conv_layer(DType, QueueImpl& q, const ConvParams&, const TensorView& in, const TensorView& filter,
                          const TensorView& out, MathMode math) = 0;

  // ---- vector algebra (Op::vector) ----
  /// y[i] = value for every i (a one-element y sets a Scalar, e.g. to a ratio of others).
  virtual void fill(DType, QueueImpl& q, const Coef& value, const VecView& y) = 0;
  /// y = alpha * x + beta * y, element-wise; beta.is_zero(): y is only written. x may be y (scal).
  virtual void axpby(DType, QueueImpl& q, const Coef& alpha, const VecView& x, const Coef& beta,
                     const VecView& y) = 0;
  /// z = x * y, x / y or 1 / x (y unused) element-wise; z may be x or y.
  virtual void elementwise(DType, QueueImpl& q, ElementwiseOp op, const VecView& x, const VecView& y,
                           const VecView& z) = 0;
  /// y = alpha * x + beta * y, then out = y . w (w may be y: out = ||y||^2), in one pass.
  virtual void axpby_dot(DType, QueueImpl& q, const Coef& alpha, const VecView& x, const Coef& beta, const VecView& y,
                         const VecView& w, const VecView& out) = 0;
  /// out_xy = x . y and out_xz = x . z in one pass over x (y or z may be x).
  virtual void dot2(DType, QueueImpl& q, const VecView& x, const VecView& y, const VecView& z, const VecView& out_xy,
                    const VecView& out_xz) = 0;
  /// z = d * r element-wise, then out_rz = r . z and out_rr = r . r, in one pass (a Jacobi
  /// preconditioner's apply with both dots CG needs after it). z is neither d nor r.
  virtual void multiply_dot2(DType, QueueImpl& q, const VecView& d, const VecView& r, const VecView& z,
                             const VecView& out_rz, const VecView& out_rr) = 0;
  /// y1 = a1 * x1 + b1 * y1 and y2 = a2 * x2 + b2 * y2 in one pass, in that order at each
  /// element (a b.is_zero() y is only written): y2 may be x1, whose old values the first update
  /// reads (CG's x += alpha p; p = z + beta p). y1 and y2 are distinct; x2 is not y1.
  virtual void axpby_pair(DType, QueueImpl& q, const Coef& a1, const VecView& x1, const Coef& b1, const VecView& y1,
                          const Coef& a2, const VecView& x2, const Coef& b2, const VecView& y2) = 0;
  /// r = r + alpha * x, then multiply_dot2(d, r, z): z = d * r, out_rz = r . z, out_rr = r . r,
  /// in one pass (CG's residual update with a Jacobi apply and both dots). z is none of x, d, r.
  virtual void axpy_multiply_dot2(DType, QueueImpl& q, const Coef& alpha, const VecView& x, const VecView& d,
                                  const VecView& r, const VecView& z, const VecView& out_rz,
                                  const VecView& out_rr) = 0;
  /// y = x converted to the operation's dtype from the other one (f32 y from f64 x, f64 y from
  /// f32 x; the dtype names y's type): each element rounded to nearest, ties to even, as a C++
  /// cast on IEEE hardware (a finite f64 beyond f32's range becomes +-inf; NaN stays NaN). x and y
  /// do not overlap (lib/ checks).
  virtual void convert(DType, QueueImpl& q, const VecView& x, const VecView& y) = 0;

  // ---- optional ----
  /// A device clock for timing work on queue q (CUDA events, OpenCL profiling events), or null
  /// where the host clock is the right one (host backends).
  virtual std::unique_ptr<DeviceTimer> device_timer(QueueImpl& q) {
    (void)q;
    return nullptr;
  }
  /// y = alpha A x + beta y, then out = w . y over the updated y (CG's A p and p . Ap). The
  /// default is spmv, then dot; a backend overrides it where reading y once for both is faster
  /// (cpu: the dot of each thread's rows follows their product while they are in cache).
  virtual void spmv_dot(DType dtype, QueueImpl& q, double alpha, const CsrView& A, const VecView& x, double beta,
                        const VecView& y, const VecView& w, const VecView& out) {
    spmv(dtype, q, alpha, A, x, beta, y);
    dot(dtype, q, w, y, out);
  }
  /// `steps` iterations of conjugate gradients on A in one call, for the systems that a
  /// backend's fused kernel holds (small ones, where an iteration's separate launches or thread
  /// teams cost more than its arithmetic). The state is CG's (lib/src/solve/cg_method.hpp): on
  /// entry rz holds r . z and p the search direction; each iteration forms ap = A p, alpha =
  /// rz / (p . ap), r -= alpha ap, z = d * r (z is r, not written, when d.data is null: no
  /// preconditioner), rz' = r . z, rr = r . r, x += alpha p, p = z + (rz' / rz) p. On return rz
  /// and rr hold the last iteration's values and ap, z the last iteration's. No value is read
  /// on the host; a breakdown (p . ap = 0) leaves NaN or Inf in rz and rr, as the separate
  /// operations would. Returns false, enqueuing nothing, where the backend has no fused kernel
  /// for A (the default): the caller then runs the iterations as separate operations.
  virtual bool cg_steps(DType dtype, QueueImpl& q, std::int64_t steps, const CsrView& A, const VecView& d,
                        const VecView& x, const VecView& r, const VecView& p, const VecView& ap, const VecView& z,
                        const VecView& rz, const VecView& rr) {
    (void)dtype, (void)q, (void)steps, (void)A, (void)d, (void)x, (void)r, (void)p, (void)ap, (void)z, (void)rz,
        (void)rr;
    return false;
  }
  /// What spmv runs for A on this device: the storage and kernel its plan chooses, e.g.
  /// "csr/vector(8)" or "sell(C=32, sigma=256)", for tessera-info, the bench and tests. May
  /// build the matrix's plan (as the first spmv would). Empty where the backend has one kernel.
  virtual std::string spmv_kernel(DType dtype, const CsrView& A) {
    (void)dtype;
    (void)A;
    return {};
  }

 private:
  std::atomic<std::uint64_t> host_waits_{0};
};

/// \def TESSERA_DEVICE_BACKEND_OVERRIDES
/// Inside a backend class that defines Backend's queue, memory and timer methods out of line
/// (the CUDA and OpenCL plugins): declares them all, with Backend's signatures, once.
#define TESSERA_DEVICE_BACKEND_OVERRIDES                                                                      \
  std::shared_ptr<QueueImpl> create_queue() override;                                                        \
  std::shared_ptr<QueueImpl> wrap_queue(void* native) override;                                              \
  void synchronize() override;                                                                               \
  void* allocate(std::size_t bytes) override;                                                                \
  void deallocate(void* handle) noexcept override;                                                           \
  void* wrap_memory(void* native, std::size_t bytes) override;                                               \
  void release_wrapped(void* handle) noexcept override;                                                      \
  void* allocate_host(std::size_t bytes) override;                                                           \
  void deallocate_host(void* p) noexcept override;                                                           \
  void upload(QueueImpl& q, void* dst, std::size_t dst_offset, const void* host_src, std::size_t bytes,      \
              bool blocking) override;                                                                       \
  void download(QueueImpl& q, void* host_dst, const void* src, std::size_t src_offset, std::size_t bytes,    \
                bool blocking) override;                                                                     \
  void copy(QueueImpl& q, void* dst, std::size_t dst_offset, const void* src, std::size_t src_offset,        \
            std::size_t bytes) override;                                                                     \
  std::unique_ptr<DeviceTimer> device_timer(QueueImpl& q) override;

}  // namespace tessera
