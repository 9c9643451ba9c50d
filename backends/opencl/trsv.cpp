// trsv and trsm (kernels/opencl/trsv.cl): blocked substitution, one launch per block of
// trsv.block unknowns (a warp or wavefront on GPUs; larger on CPUs, where a launch costs more
// than a longer sequential block). Each launch updates every remaining block row with the
// block solved by the previous launch and solves the next diagonal block. gpu kernels: tiles in
// local memory and a group-parallel diagonal solve; cpu kernels: rows streamed by their
// work-items and a sequential diagonal solve by one work-item. trsv is trsm with one
// right-hand side (ldb = 1). With trsv.inverse = 1 (NVIDIA) the diagonal blocks are inverted
// first instead (kernels/opencl/trsv_inv.cl): trsv is then one flag-synchronised launch and
// trsm one launch per block column of two small tiled products.
#include <algorithm>
#include <string>

#include "opencl_backend.hpp"

namespace tessera::opencl {

namespace {

// Per-queue scratch of the inverse method: the inverted diagonal blocks and the flags.
struct TrsvScratch {
  ScratchBuffer inverse, sync;
};

// TW (gpu kernels): columns of the local tile, the whole block when T[TRSV_BLOCK][TRSV_BLOCK + 1]
// and x fit in the work-group's local memory, else the largest halving of it that fits (GCN:
// 64 x 64 doubles alone are its 32 KB).
template <class T>
std::string trsv_defines(const OpenCLBackend& cl) {
  const int bs = cl.tuning().get("trsv.block");
  const std::size_t limit = cl.local_mem_limit();
  auto fits = [&](int tw) { return (static_cast<std::size_t>(bs) * (tw + 1) + bs) * sizeof(T) <= limit; };
  int tw = bs;
  while (!fits(tw) && tw % 2 == 0) tw /= 2;
  if (!fits(tw)) tw = 1;  // validate_tuning made sure this one fits
  return cl.tuning().defines("trsv") + " -DTW=" + std::to_string(tw);
}

// X := op(A)^-1 * X with the inverted diagonal blocks (trsv.inverse). X starts b_off elements
// into B.
template <class T>
void trsm_inverse(OpenCLBackend& cl, OpenClQueue& q, Uplo uplo, Trans trans, Diag diag, const MatView& A, void* B,
                  std::int64_t b_off, std::int64_t ldb, std::int64_t nrhs) {
  const tuning::Tuning& t = cl.tuning();
  const std::int64_t n = A.rows;
  if (n == 0 || nrhs == 0) return;
  const int bs = t.get("trsv.block");
  const int nb = static_cast<int>((n + bs - 1) / bs);
  const int forward = (uplo == Uplo::lower) == (trans == Trans::N) ? 1 : 0;  // op(A) lower
  const int transposed = trans == Trans::T ? 1 : 0;
  const int unit = diag == Diag::unit ? 1 : 0;
  const std::string defines = t.defines("trsv") + " -DTRSV_TRANS=" + (transposed ? "1" : "0");
  TrsvScratch& scratch = q.state<TrsvScratch>();
  cl::Buffer& W = cl.grow(scratch.inverse, static_cast<std::size_t>(nb) * bs * bs * sizeof(T));
  cl::Kernel& inv = cl.kernel("trsv_inv.cl", dtype_v<T>, defines, "trsv_invert");
  cl.launch<T>(q, inv, cl::NDRange(static_cast<std::size_t>(nb) * bs), cl::NDRange(static_cast<std::size_t>(bs)),
               A.data, A.offset, A.ld, n, transposed, forward, unit, W);
  if (nrhs == 1 && ldb == 1) {  // trsv: one launch of at most the resident number of groups
    cl::Buffer& sync = cl.grow(scratch.sync, 2 * sizeof(cl_int));
    q.queue().enqueueFillBuffer(sync, cl_int{0}, 0, 2 * sizeof(cl_int));
    const int wg = t.get("trsv.wg");
    const int groups = std::max(1, std::min(nb, cl.compute_units() * t.get("trsv.groups_per_cu")));
    cl::Kernel& k = cl.kernel("trsv_inv.cl", dtype_v<T>, defines, "trsv_solve_flags");
    cl.launch<T>(q, k, cl::NDRange(static_cast<std::size_t>(groups) * wg), cl::NDRange(static_cast<std::size_t>(wg)),
                 A.data, A.offset, A.ld, W, B, b_off, n, nb, forward, sync);
    return;
  }
  cl::Kernel& k = cl.kernel("trsv_inv.cl", dtype_v<T>, defines, "trsm_block_column");
  const auto tiles = static_cast<std::size_t>((nrhs + 63) / 64);
  for (int s = 0; s < nb; ++s)
    cl.launch<T>(q, k, cl::NDRange(16 * tiles, static_cast<std::size_t>(16) * (nb - s)), cl::NDRange(16, 16), A.data,
                 A.offset, A.ld, W, B, b_off, ldb, n, nrhs, s, nb, forward, transposed);
}

// Shared by trsv and trsm: X := op(A)^-1 * X for X n x nrhs with leading dimension ldb.
template <class T>
void trsm_blocks(OpenCLBackend& cl, OpenClQueue& q, Uplo uplo, Trans trans, Diag diag, const MatView& A, void* B,
                 std::int64_t b_off, std::int64_t ldb, std::int64_t nrhs) {
  const tuning::Tuning& t = cl.tuning();
  if (!cl.cpu_kernels() && t["trsv.inverse"] != 0) {
    trsm_inverse<T>(cl, q, uplo, trans, diag, A, B, b_off, ldb, nrhs);
    return;
  }
  const std::int64_t n = A.rows;
  const int bs = t.get("trsv.block");
  const int nb = static_cast<int>((n + bs - 1) / bs);
  const int forward = (uplo == Uplo::lower) == (trans == Trans::N) ? 1 : 0;  // op(A) lower
  const int transposed = trans == Trans::T ? 1 : 0;
  const int unit = diag == Diag::unit ? 1 : 0;
  cl::Kernel& k = cl.kernel("trsv.cl", dtype_v<T>, trsv_defines<T>(cl),
                            cl.cpu_kernels() ? "trsm_step_simple" : "trsm_step_local");
  const int vw = cl.cpu_kernels() ? t.get("trsv.vw") : 1;  // right-hand sides per work-item
  const auto columns = static_cast<std::size_t>((nrhs + vw - 1) / vw);
  for (int s = 0; s < nb; ++s)
    cl.launch<T>(q, k, cl::NDRange(static_cast<std::size_t>(nb - s) * bs, columns),
                 cl::NDRange(static_cast<std::size_t>(bs), 1), A.data, A.offset, A.ld, B, b_off, ldb, n, nrhs, s, nb,
                 forward, transposed, unit);
}

}  // namespace

template <class T>
void OpenCLBackend::trsv(QueueImpl& q, Uplo uplo, Trans trans, Diag diag, const MatView& A, const VecView& x) {
  trsm_blocks<T>(*this, cl_queue(q), uplo, trans, diag, A, x.data, x.offset, 1, 1);
}

template <class T>
void OpenCLBackend::trsm(QueueImpl& qi, Uplo uplo, Trans trans, Diag diag, double alpha, const MatView& A,
                         const MatView& B) {
  OpenClQueue& q = cl_queue(qi);
  // X = op(A)^-1 (alpha B): scale first, as the reference does (NaN stays NaN).
  if (alpha != 1.0) {
    cl::Kernel& s = kernel("trsv.cl", dtype_v<T>, trsv_defines<T>(*this), "trsm_scale");  // the steps' program
    launch<T>(q, s, cl::NDRange(static_cast<std::size_t>(B.cols), static_cast<std::size_t>(B.rows)), cl::NullRange,
              B.data, B.offset, B.ld, B.rows, B.cols, Real{alpha});
  }
  trsm_blocks<T>(*this, q, uplo, trans, diag, A, B.data, B.offset, B.ld, B.cols);
}

TESSERA_INSTANTIATE_TYPED_OP(OpenCLBackend, trsv)
TESSERA_INSTANTIATE_TYPED_OP(OpenCLBackend, trsm)

}  // namespace tessera::opencl
