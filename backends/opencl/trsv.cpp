// trsv and trsm (kernels/opencl/trsv.cl): blocked substitution, one launch per block of
// trsv.block unknowns (32 on NVIDIA: a warp; 64 on GCN: a wavefront; larger on CPUs, where a
// launch costs more than a longer sequential block). Each launch updates every remaining block
// row with the block solved by the previous launch and solves the next diagonal block. gpu
// family: tiles in local memory and a group-parallel diagonal solve; cpu family: rows streamed
// by their work-items and a sequential diagonal solve by one work-item. trsv is trsm with one
// right-hand side (ldb = 1). Profiles with trsv.inverse = 1 (NVIDIA) instead invert the diagonal
// blocks first (kernels/opencl/trsv_inv.cl): trsv is then one flag-synchronised launch and
// trsm one launch per block column of two small tiled products.
#include <algorithm>
#include <string>

#include "opencl_backend.hpp"

namespace tessera::opencl {

// BS = trsv.block; VW (cpu) = right-hand sides per work-item; TW (gpu) = columns of the local
// tile: the whole block when T[BS][BS + 1] and x fit in the work-group's local memory, else the
// largest halving of it that fits (GCN: 64 x 64 doubles alone are its 32 KB).
std::string OpenCLBackend::trsv_defines(DType dt) const {
  const int bs = profile_.trsv_block;
  const int vw = cpu_family() ? profile_.trsv_vw : 1;
  const std::size_t limit = std::min<std::size_t>(static_cast<std::size_t>(profile_.local_mem_kb) * 1024, local_mem_);
  auto fits = [&](int tw) { return (static_cast<std::size_t>(bs) * (tw + 1) + bs) * dtype_size(dt) <= limit; };
  int tw = bs;
  while (!fits(tw) && tw % 2 == 0) tw /= 2;
  if (!fits(tw)) tw = 1;  // validate_profile made sure this one fits
  return "-DBS=" + std::to_string(bs) + " -DVW=" + std::to_string(vw) + " -DTW=" + std::to_string(tw);
}

std::string OpenCLBackend::trsv_inverse_defines(bool trans) const {
  return "-DBS=" + std::to_string(profile_.trsv_block) + " -DTWG=" + std::to_string(profile_.trsv_wg) +
         " -DTRSV_TRANS=" + (trans ? "1" : "0");
}

void OpenCLBackend::trsm_inverse(DType dt, Uplo uplo, Trans trans, Diag diag, const MatView& A, void* B,
                                 std::int64_t ldb, std::int64_t nrhs) {
  const std::int64_t n = A.rows;
  if (n == 0 || nrhs == 0) return;
  const int bs = profile_.trsv_block;
  const int nb = static_cast<int>((n + bs - 1) / bs);
  const int forward = (uplo == Uplo::lower) == (trans == Trans::N) ? 1 : 0;  // op(A) lower
  const int transposed = trans == Trans::T ? 1 : 0;
  const int unit = diag == Diag::unit ? 1 : 0;
  const std::string defines = trsv_inverse_defines(transposed != 0);
  cl::Buffer& W = scratch(Scratch::trsv_inverse, static_cast<std::size_t>(nb) * bs * bs * dtype_size(dt));
  cl::Kernel& inv = kernel("trsv_inv.cl", dt, defines, "trsv_invert");
  set_args(inv, dt, A.data, A.ld, n, transposed, forward, unit, W);
  launch(inv, cl::NDRange(static_cast<std::size_t>(nb) * bs), cl::NDRange(static_cast<std::size_t>(bs)));
  if (nrhs == 1 && ldb == 1) {  // trsv: one launch of at most the resident number of groups
    cl::Buffer& sync = scratch(Scratch::trsv_sync, 2 * sizeof(cl_int));
    queue_.enqueueFillBuffer(sync, cl_int{0}, 0, 2 * sizeof(cl_int));
    const int groups = std::max(1, std::min(nb, compute_units_ * profile_.trsv_groups_per_cu));
    cl::Kernel& k = kernel("trsv_inv.cl", dt, defines, "trsv_solve_flags");
    set_args(k, dt, A.data, A.ld, W, B, n, nb, forward, sync);
    launch(k, cl::NDRange(static_cast<std::size_t>(groups) * profile_.trsv_wg),
           cl::NDRange(static_cast<std::size_t>(profile_.trsv_wg)));
    return;
  }
  cl::Kernel& k = kernel("trsv_inv.cl", dt, defines, "trsm_block_column");
  const auto tiles = static_cast<std::size_t>((nrhs + 63) / 64);
  for (int s = 0; s < nb; ++s) {
    set_args(k, dt, A.data, A.ld, W, B, ldb, n, nrhs, s, nb, forward, transposed);
    launch(k, cl::NDRange(16 * tiles, static_cast<std::size_t>(16) * (nb - s)), cl::NDRange(16, 16));
  }
}

void OpenCLBackend::trsm_impl(DType dt, Uplo uplo, Trans trans, Diag diag, const MatView& A, void* B, std::int64_t ldb,
                              std::int64_t nrhs) {
  if (!cpu_family() && profile_.trsv_inverse) {
    trsm_inverse(dt, uplo, trans, diag, A, B, ldb, nrhs);
    return;
  }
  const std::int64_t n = A.rows;
  const int bs = profile_.trsv_block;
  const int nb = static_cast<int>((n + bs - 1) / bs);
  const int forward = (uplo == Uplo::lower) == (trans == Trans::N) ? 1 : 0;  // op(A) lower
  const int transposed = trans == Trans::T ? 1 : 0;
  const int unit = diag == Diag::unit ? 1 : 0;
  cl::Kernel& k = kernel("trsv.cl", dt, trsv_defines(dt), cpu_family() ? "trsm_step_simple" : "trsm_step_local");
  const int vw = cpu_family() ? profile_.trsv_vw : 1;  // right-hand sides per work-item
  const auto columns = static_cast<std::size_t>((nrhs + vw - 1) / vw);
  for (int s = 0; s < nb; ++s) {
    set_args(k, dt, A.data, A.ld, B, ldb, n, nrhs, s, nb, forward, transposed, unit);
    launch(k, cl::NDRange(static_cast<std::size_t>(nb - s) * bs, columns),
           cl::NDRange(static_cast<std::size_t>(bs), 1));
  }
}

void OpenCLBackend::trsv(DType dt, Uplo uplo, Trans trans, Diag diag, const MatView& A, const VecView& x) {
  require_dtype(Op::trsv, dt);
  std::lock_guard<std::mutex> lock(mutex_);
  translate_errors(where("trsv"), [&] { trsm_impl(dt, uplo, trans, diag, A, x.data, 1, 1); });
}

void OpenCLBackend::trsm(DType dt, Uplo uplo, Trans trans, Diag diag, double alpha, const MatView& A,
                         const MatView& B) {
  require_dtype(Op::trsm, dt);
  std::lock_guard<std::mutex> lock(mutex_);
  translate_errors(where("trsm"), [&] {
    // X = op(A)^-1 (alpha B): scale first, as the reference does (alpha = 0 gives 0, NaN stays NaN).
    if (alpha != 1.0) {
      cl::Kernel& s = kernel("trsv.cl", dt, trsv_defines(dt), "trsm_scale");  // the steps' program
      set_args(s, dt, B.data, B.ld, B.rows, B.cols, Real{alpha});
      launch(s, cl::NDRange(static_cast<std::size_t>(B.cols), static_cast<std::size_t>(B.rows)), cl::NullRange);
    }
    trsm_impl(dt, uplo, trans, diag, A, B.data, B.ld, B.cols);
  });
}

}  // namespace tessera::opencl
