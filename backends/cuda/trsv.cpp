// Dense triangular solves. trsv: invert the diagonal blocks of op(A) (one launch), then one
// sync-free launch walks the block rows (kernels/cuda/trsv.cu). trsm: the same inverses, then a
// right-looking sweep over block rows: X_b = inv(A_bb) B_b (a small gemm), then the rest of B
// loses op(A)_{rest,b} X_b (a tall gemm, where the flops are).
#include <algorithm>
#include <climits>
#include <string>

#include "cuda_backend.hpp"
#include "gemm_tiles.hpp"
#include "kernels/cuda/launch.hpp"
#include "queue.hpp"

namespace tessera::cuda {

// A queue's workspaces: the inverted diagonal blocks, trsv's block counters and trsm's panel.
struct CudaBackend::TrsvState {
  DeviceBuffer inverse, sync, panel;

  static TrsvState& of(CudaQueue& q) {
    if (!q.state.trsv) q.state.trsv = std::make_shared<TrsvState>();
    return *q.state.trsv;
  }
};

namespace {

TriangularShape shape_of(Uplo uplo, Trans trans, Diag diag, const MatView& A) {
  if (A.rows > INT_MAX)
    throw NotImplemented("cuda: trsv/trsm with n = " + std::to_string(A.rows) + " > 2^31 - 1 is not supported");
  TriangularShape s;
  s.n = static_cast<int>(A.rows);
  s.lda = A.ld;
  s.trans = trans == Trans::T;
  s.eff_lower = (uplo == Uplo::lower) != s.trans;  // the transpose of a lower triangle is upper
  s.unit = diag == Diag::unit;
  return s;
}

}  // namespace

template <class T>
void CudaBackend::trsv(QueueImpl& q, Uplo uplo, Trans trans, Diag diag, const MatView& A, const VecView& x) {
  if (A.rows == 0) return;
  const cudaStream_t stream = stream_of(q);
  TrsvState& st = TrsvState::of(queue_of(q));
  const TriangularShape s = shape_of(uplo, trans, diag, A);
  constexpr int NB = kTrsvBlock<T>;
  const std::size_t blocks = static_cast<std::size_t>((s.n + NB - 1) / NB);
  auto* W = static_cast<T*>(st.inverse.ensure(blocks * NB * NB * sizeof(T)));
  auto* sync = static_cast<int*>(st.sync.ensure(2 * sizeof(int)));
  const T* a = dev_ptr<const T>(A);
  TESSERA_CUDA_CHECK(cudaMemsetAsync(sync, 0, 2 * sizeof(int), stream));
  TESSERA_CUDA_CHECK(launch_trsv_invert_diag<T>(s, a, W, stream));
  TESSERA_CUDA_CHECK(launch_trsv_solve<T>(s, a, W, dev_ptr<T>(x), sync, stream));
}

template <class T>
void CudaBackend::trsm(QueueImpl& q, Uplo uplo, Trans trans, Diag diag, double alpha, const MatView& A,
                       const MatView& B) {
  if (A.rows == 0 || B.cols == 0) return;
  const cudaStream_t stream = stream_of(q);
  TrsvState& st = TrsvState::of(queue_of(q));
  const TriangularShape s = shape_of(uplo, trans, diag, A);
  constexpr int NB = kTrsvBlock<T>;
  const std::int64_t n = s.n, nrhs = B.cols, ldb = B.ld;
  T* b = dev_ptr<T>(B);
  const T* a = dev_ptr<const T>(A);
  if (alpha != 1.0) TESSERA_CUDA_CHECK(launch_scale_matrix<T>(b, n, nrhs, ldb, static_cast<T>(alpha), stream));

  const std::int64_t blocks = (n + NB - 1) / NB;
  auto* W = static_cast<T*>(st.inverse.ensure(static_cast<std::size_t>(blocks) * NB * NB * sizeof(T)));
  auto* panel = static_cast<T*>(st.panel.ensure(static_cast<std::size_t>(NB) * nrhs * sizeof(T)));
  TESSERA_CUDA_CHECK(launch_trsv_invert_diag<T>(s, a, W, stream));

  for (std::int64_t t = 0; t < blocks; ++t) {
    const std::int64_t blk = s.eff_lower ? t : blocks - 1 - t;
    const std::int64_t r0 = blk * NB, rb = std::min<std::int64_t>(NB, n - r0);
    T* Bb = b + r0 * ldb;
    // panel = inv(op(A)_bb) B_b; W_b holds the inverse transposed, hence ta = T.
    GemmProblem g;
    g.m = rb;
    g.n = nrhs;
    g.k = rb;
    g.ta = true;
    g.tb = false;
    g.lda = NB;
    g.ldb = ldb;
    g.ldc = nrhs;
    enqueue_gemm<T>(q, g, T(1), W + blk * NB * NB, Bb, T(0), panel);
    TESSERA_CUDA_CHECK(cudaMemcpy2DAsync(Bb, ldb * sizeof(T), panel, nrhs * sizeof(T), nrhs * sizeof(T), rb,
                                         cudaMemcpyDeviceToDevice, stream));
    // B_rest -= op(A)_{rest, b} X_b
    const std::int64_t R0 = s.eff_lower ? r0 + rb : 0;
    const std::int64_t Rn = s.eff_lower ? n - R0 : r0;
    if (Rn == 0) continue;
    GemmProblem u;
    u.m = Rn;
    u.n = nrhs;
    u.k = rb;
    u.ta = s.trans;  // op(A)(I, J) = A[J][I]: the panel of A is rows b, columns rest
    u.tb = false;
    u.lda = s.lda;
    u.ldb = ldb;
    u.ldc = ldb;
    const T* Apanel = s.trans ? a + r0 * s.lda + R0 : a + R0 * s.lda + r0;
    enqueue_gemm<T>(q, u, T(-1), Apanel, Bb, T(1), b + R0 * ldb);
  }
}

TESSERA_INSTANTIATE_TYPED_OP(CudaBackend, trsv)
TESSERA_INSTANTIATE_TYPED_OP(CudaBackend, trsm)

}  // namespace tessera::cuda
