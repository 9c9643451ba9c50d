/// \file
/// The Backend interface: one abstract class, one method per operation, the dtype as an enum.
/// Every backend (reference, cpu, opencl, cuda) implements all of it; what a backend cannot do
/// throws NotImplemented and says so in support(). lib/ validates every argument before calling
/// a backend, so implementations may assume consistent shapes, one device, and valid CSR.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "tessera/device_info.hpp"
#include "tessera/types.hpp"

namespace tessera {

/// A vector passed to a backend: n elements.
///
/// Views pass device allocations to a backend. `data` is the backend's own handle as returned by
/// Backend::allocate (a host pointer for reference/cpu, a device pointer for CUDA, a cl_mem for
/// OpenCL); views always start at the beginning of the allocation.
struct VecView {
  void* data = nullptr;  ///< the backend's handle of the allocation
  std::int64_t n = 0;    ///< number of elements
};

/// A dense matrix passed to a backend: row-major; element (i, j) at data[i * ld + j], ld >= cols.
struct MatView {
  void* data = nullptr;  ///< the backend's handle of the allocation (see VecView)
  /// Rows, columns and leading dimension (elements between the starts of two rows).
  ///@{
  std::int64_t rows = 0, cols = 0, ld = 0;
  ///@}
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

/// The interface every backend implements: device memory and one method per operation.
/// Backends usually derive from TypedBackend, which implements the operations' dtype dispatch.
class Backend {
 public:
  virtual ~Backend() = default;

  /// What the device says about itself (tessera-info, Device::info()).
  virtual DeviceInfo info() const = 0;
  /// Whether this backend runs `op` in `dtype`; when not, the reason. The default: everything.
  virtual Support support(Op, DType) const { return {}; }

  // ---- memory (bytes) ----
  virtual void* allocate(std::size_t bytes) = 0;            ///< throws OutOfMemory
  virtual void deallocate(void* handle) noexcept = 0;       ///< frees what allocate returned
  virtual void upload(void* dst, const void* host_src, std::size_t bytes) = 0;    ///< host to device
  virtual void download(void* host_dst, const void* src, std::size_t bytes) = 0;  ///< device to host
  virtual void copy(void* dst, const void* src, std::size_t bytes) = 0;  ///< device to device
  virtual void synchronize() = 0;  ///< waits until all work queued on the device has finished

  // ---- operations ----
  // The counterparts of the functions in ops.hpp, called after lib/ has checked the arguments.
  /// Reductions return the value widened to double; empty input is rejected by lib/ for min/max.
  virtual double reduce(DType, ReduceOp, const VecView& x) = 0;
  /// The dot product of x and y, widened to double.
  virtual double dot(DType, const VecView& x, const VecView& y) = 0;

  /// y = alpha * A * x + beta * y. beta == 0 means y is not read (NaNs in y do not propagate).
  virtual void spmv(DType, double alpha, const CsrView& A, const VecView& x, double beta, const VecView& y) = 0;

  /// Solve op(A) x = b in place (x holds b on entry), A square n x n.
  virtual void trsv(DType, Uplo, Trans, Diag, const MatView& A, const VecView& x) = 0;
  /// Solve op(A) X = alpha * B in place (B: n x nrhs, overwritten by X).
  virtual void trsm(DType, Uplo, Trans, Diag, double alpha, const MatView& A, const MatView& B) = 0;

  /// Sparse triangular solve: analysis once per matrix, then any number of solves. Only the
  /// triangle named by uplo is used; entries on the other side are ignored.
  virtual std::shared_ptr<SptrsvPlanData> sptrsv_analyze(DType, Uplo, Diag, const CsrView& A) = 0;
  /// Solve A x = b with a plan that sptrsv_analyze returned for A.
  virtual void sptrsv_solve(DType, const SptrsvPlanData& plan, const CsrView& A, const VecView& b,
                            const VecView& x) = 0;

  /// C = alpha * op(A) * op(B) + beta * C; beta == 0 means C is not read.
  virtual void gemm(DType, Trans ta, Trans tb, double alpha, const MatView& A, const MatView& B, double beta,
                    const MatView& C) = 0;

  /// `steps` applications of the star stencil to u, in place (see StencilSpec).
  virtual void stencil(DType, const StencilSpec&, const GridView& u, int steps) = 0;

  /// 2D single-channel cross-correlation of image with a K x K filter.
  virtual void conv2d(DType, ConvMode, const MatView& image, const MatView& filter, const MatView& out) = 0;
  /// CNN layer forward: in NCHW, filter KCRS, out NKPQ.
  virtual void conv_layer(DType, const ConvParams&, const TensorView& in, const TensorView& filter,
                          const TensorView& out) = 0;

  // ---- optional ----
  /// A device clock for timing this backend's queue (CUDA events, OpenCL profiling events), or
  /// null where the host clock is the right one (host backends). Last in the class: a slot
  /// appended to the vtable in plugin ABI version 2.
  virtual std::unique_ptr<DeviceTimer> device_timer() { return nullptr; }
};

}  // namespace tessera
