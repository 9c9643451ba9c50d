// Dense triangular solves, row-major A.
//
// trsv is memory-bound (each of the n^2/2 stored elements is used once), so the design is
// "stream A's rows at full bandwidth on every thread": x is cut into blocks of kTrsvBlock
// unknowns, dealt round-robin to the threads; a block's own triangle is solved by its thread
// (small, in cache), everything else is a row-streaming update:
//  - op(A) = A (dot form): x_J -= A[J, solved] x_solved, one long row dot per unknown, folded
//    in piece by piece as the earlier blocks get solved;
//  - op(A) = A^T (axpy form): once x_J is known, A[J, later] (rows of A, i.e. columns of A^T)
//    times x_J is added into the thread's private accumulator for all later unknowns.
// trsm is compute-bound and recursive: split op(A) in halves, solve one, update the other half
// of B with the GEMM of gemm_driver.hpp (most flops land there), solve the other; leaves of
// <= kTrsmLeaf rows are solved with vectors along B's rows.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/cpu/trsv.cpp"
#include <hwy/foreach_target.h>  // re-includes this file once per target
#include <hwy/highway.h>

#include <atomic>
#include <thread>
#include <utility>
#include <vector>

#include "kernels/cpu/gemm_driver.hpp"
#include "kernels/cpu/trsv.hpp"

HWY_BEFORE_NAMESPACE();
namespace tessera::cpu::HWY_NAMESPACE {

// x is solved kTrsvBlock unknowns at a time. The chain of dependent work per block (its
// triangle, kTrsvBlock^2/2 elements, plus the last kTrsvBlock columns of its rows) must stay
// small next to a thread's share of the stream, yet rows should run long between waits.
inline constexpr std::size_t kTrsvBlock = 128;

template <class T>
HWY_INLINE T Dot(const T* HWY_RESTRICT a, const T* HWY_RESTRICT x, std::size_t len) {
  const GemmTag<T> d;
  const std::size_t N = hn::Lanes(d);
  auto s0 = hn::Zero(d), s1 = hn::Zero(d);
  std::size_t i = 0;
  for (; i + 2 * N <= len; i += 2 * N) {
    s0 = hn::MulAdd(hn::LoadU(d, a + i), hn::LoadU(d, x + i), s0);
    s1 = hn::MulAdd(hn::LoadU(d, a + i + N), hn::LoadU(d, x + i + N), s1);
  }
  if (i + N <= len) s0 = hn::MulAdd(hn::LoadU(d, a + i), hn::LoadU(d, x + i), s0), i += N;
  T s = hn::GetLane(hn::SumOfLanes(d, hn::Add(s0, s1)));
  for (; i < len; ++i) s += a[i] * x[i];
  return s;
}

// y[0:len] -= s * a[0:len]
template <class T>
HWY_INLINE void AxpySub(T s, const T* HWY_RESTRICT a, T* HWY_RESTRICT y, std::size_t len) {
  const GemmTag<T> d;
  const std::size_t N = hn::Lanes(d);
  const auto vs = hn::Set(d, s);
  std::size_t i = 0;
  for (; i + N <= len; i += N) hn::StoreU(hn::NegMulAdd(vs, hn::LoadU(d, a + i), hn::LoadU(d, y + i)), d, y + i);
  for (; i < len; ++i) y[i] -= s * a[i];
}

// Dot form: x[r] -= A[r, c0:c1] . x[c0:c1] for r in [r0, r1) (disjoint from [c0, c1)). Four rows
// per pass share each load of x.
template <class T>
void TrsvDotUpdate(const T* A, std::size_t lda, T* x, std::size_t r0, std::size_t r1, std::size_t c0, std::size_t c1) {
  const GemmTag<T> d;
  const std::size_t N = hn::Lanes(d), len = c1 - c0;
  const T* xs = x + c0;
  std::size_t r = r0;
  for (; r + 4 <= r1; r += 4) {
    const T* a0 = A + r * lda + c0;
    const T *a1 = a0 + lda, *a2 = a1 + lda, *a3 = a2 + lda;
    auto s0 = hn::Zero(d), s1 = hn::Zero(d), s2 = hn::Zero(d), s3 = hn::Zero(d);
    std::size_t i = 0;
    for (; i + N <= len; i += N) {
      const auto xv = hn::LoadU(d, xs + i);
      s0 = hn::MulAdd(hn::LoadU(d, a0 + i), xv, s0);
      s1 = hn::MulAdd(hn::LoadU(d, a1 + i), xv, s1);
      s2 = hn::MulAdd(hn::LoadU(d, a2 + i), xv, s2);
      s3 = hn::MulAdd(hn::LoadU(d, a3 + i), xv, s3);
    }
    T t0 = hn::GetLane(hn::SumOfLanes(d, s0)), t1 = hn::GetLane(hn::SumOfLanes(d, s1));
    T t2 = hn::GetLane(hn::SumOfLanes(d, s2)), t3 = hn::GetLane(hn::SumOfLanes(d, s3));
    for (; i < len; ++i) t0 += a0[i] * xs[i], t1 += a1[i] * xs[i], t2 += a2[i] * xs[i], t3 += a3[i] * xs[i];
    x[r] -= t0, x[r + 1] -= t1, x[r + 2] -= t2, x[r + 3] -= t3;
  }
  for (; r < r1; ++r) x[r] -= Dot(A + r * lda + c0, xs, len);
}

// Axpy form: y[c] -= sum_r xr[r - r0] A[r, c] over rows [r0, r1), for c in [c0, c1). Four rows
// per pass amortise each load and store of y (L2-resident) and keep A to four long streams,
// which the prefetchers follow at full bandwidth (column tiles would make it 4 x 32 short ones).
template <class T>
void TrsvAxpyUpdate(const T* A, std::size_t lda, const T* xr, std::size_t r0, std::size_t r1, T* y, std::size_t c0,
                    std::size_t c1) {
  const GemmTag<T> d;
  const std::size_t N = hn::Lanes(d);
  std::size_t r = r0;
  for (; r + 4 <= r1; r += 4) {
    const T* a0 = A + r * lda;
    const T *a1 = a0 + lda, *a2 = a1 + lda, *a3 = a2 + lda;
    const T x0 = xr[r - r0], x1 = xr[r - r0 + 1], x2 = xr[r - r0 + 2], x3 = xr[r - r0 + 3];
    const auto v0 = hn::Set(d, x0), v1 = hn::Set(d, x1), v2 = hn::Set(d, x2), v3 = hn::Set(d, x3);
    std::size_t c = c0;
    for (; c + N <= c1; c += N) {
      auto yv = hn::LoadU(d, y + c);
      yv = hn::NegMulAdd(v0, hn::LoadU(d, a0 + c), yv);
      yv = hn::NegMulAdd(v1, hn::LoadU(d, a1 + c), yv);
      yv = hn::NegMulAdd(v2, hn::LoadU(d, a2 + c), yv);
      yv = hn::NegMulAdd(v3, hn::LoadU(d, a3 + c), yv);
      hn::StoreU(yv, d, y + c);
    }
    for (; c < c1; ++c) y[c] -= x0 * a0[c] + x1 * a1[c] + x2 * a2[c] + x3 * a3[c];
  }
  for (; r < r1; ++r) AxpySub(xr[r - r0], A + r * lda + c0, y + c0, c1 - c0);
}

// The triangle of block [j0, j1) alone, x_J already holding its right-hand side.
template <class T>
void TrsvBlock(bool upper, bool trans, bool unit, const T* A, std::size_t lda, T* x, std::size_t j0, std::size_t j1) {
  if (!trans) {  // dot form along rows
    for (std::size_t s = j0; s < j1; ++s) {
      const std::size_t i = upper ? j0 + j1 - 1 - s : s;
      const std::size_t c0 = upper ? i + 1 : j0, c1 = upper ? j1 : i;
      const T v = x[i] - Dot(A + i * lda + c0, x + c0, c1 - c0);
      x[i] = unit ? v : v / A[i * lda + i];
    }
  } else {  // axpy form: once x_i is known, row i of A updates the unknowns still to come
    for (std::size_t s = j0; s < j1; ++s) {
      const std::size_t i = upper ? s : j0 + j1 - 1 - s;
      if (!unit) x[i] /= A[i * lda + i];
      if (upper) {
        AxpySub(x[i], A + i * lda + i + 1, x + i + 1, j1 - i - 1);
      } else {
        AxpySub(x[i], A + i * lda + j0, x + j0, i - j0);
      }
    }
  }
}

// Scheduling. Blocks go round-robin to the threads. Synchronisation is point to point, never a
// barrier, and a thread never idles while it has work it may do: each block's work splits into
// the critical part (what the next solve waits for) and bulk streaming that can run early or
// late, and a thread does its critical part first and its bulk while it would otherwise wait.
// So a thread the OS preempts (shared or oversubscribed cores) delays only the chain through
// its own block, while the others keep A streaming.
struct alignas(64) TrsvCounter {  // one cache line each: no false sharing between writers
  std::atomic<std::int64_t> value{0};
};
// Busy-wait briefly (the dependency is normally a block away), then give the core away.
inline constexpr unsigned kTrsvSpinsBeforeYield = 1024;
struct TrsvIdle {
  unsigned spins = 0;
  void wait() {
    if (++spins >= kTrsvSpinsBeforeYield) std::this_thread::yield();
  }
};
// Bulk work goes in pieces of at most this many positions (x kTrsvBlock rows: 2 MiB of A in
// f32, 16 KiB row segments that the prefetchers still follow), so a thread looks at the
// critical path again within ~100 microseconds.
inline constexpr std::size_t kTrsvChunk = 4096;

// Unknowns are visited in solve order ("positions" 0..n-1); a forward solve maps position p
// to unknown p, a backward one to n-1-p, so both run the same loop.
struct TrsvOrder {
  std::size_t n;
  bool forward;
  // Unknowns [lo, hi) of positions [p0, p1).
  std::pair<std::size_t, std::size_t> cols(std::size_t p0, std::size_t p1) const {
    return forward ? std::make_pair(p0, p1) : std::make_pair(n - p1, n - p0);
  }
};

// Dot form (op(A) = A): block b needs x at positions [0, p0(b)), i.e. the dots of its rows with
// every solved unknown, folded into x_b as they get solved (`solved` counts solved positions;
// folded[b] how far block b got). Critical: folding the newest solved positions into the
// thread's next block, then its triangle. Bulk: folding into the thread's later blocks.
template <class T>
void TrsvDotTeam(bool upper, bool unit, const TrsvOrder& order, const T* A, std::size_t lda, T* x,
                 std::atomic<std::int64_t>& solved, std::size_t* folded, int tid, int threads) {
  const std::size_t n = order.n, nblocks = DivCeil(n, kTrsvBlock), step = std::size_t(threads);
  const auto fold = [&](std::size_t b, std::size_t upto) {  // rows of block b, positions up to upto
    const auto [j0, j1] = order.cols(b * kTrsvBlock, std::min(n, (b + 1) * kTrsvBlock));
    const auto [c0, c1] = order.cols(folded[b], upto);
    TrsvDotUpdate(A, lda, x, j0, j1, c0, c1);
    folded[b] = upto;
  };
  TrsvIdle idle;
  for (std::size_t b = std::size_t(tid); b < nblocks;) {
    const std::size_t p0 = b * kTrsvBlock, p1 = std::min(n, p0 + kTrsvBlock);
    const auto ready = std::min(p0, std::size_t(solved.load(std::memory_order_acquire)));
    if (folded[b] < ready) {
      fold(b, ready);
    } else if (folded[b] == p0) {
      const auto [j0, j1] = order.cols(p0, p1);
      TrsvBlock(upper, false, unit, A, lda, x, j0, j1);
      solved.store(std::int64_t(p1), std::memory_order_release);
      b += step;
    } else {
      std::size_t later = b + step;
      while (later < nblocks && folded[later] >= ready) later += step;
      if (later < nblocks) {
        fold(later, std::min(ready, folded[later] + kTrsvChunk));
      } else {
        idle.wait();
      }
    }
  }
}

// Axpy form (op(A) = A^T): once block b is solved, its rows of A times x_b are added into the
// solving thread's own accumulator acc[tid] (n values) over all later positions; applied[b]
// counts how many of them, in order. Block c may start once every earlier block has applied
// through c's last position; it then sums its right-hand side and every thread's accumulator.
// Critical: solving the thread's next block as soon as it may start. Bulk: applying solved
// blocks, always the pending position nearest the front (needed soonest), in chunks that grow
// from one block, so the next block's owner waits for a kTrsvBlock^2 tile, not for a row.
template <class T>
void TrsvAxpyTeam(bool upper, bool unit, const TrsvOrder& order, const T* A, std::size_t lda, T* x, T* acc,
                  TrsvCounter* applied, int tid, int threads) {
  const std::size_t n = order.n, nblocks = DivCeil(n, kTrsvBlock), step = std::size_t(threads);
  const auto end_of = [&](std::size_t b) { return std::min(n, (b + 1) * kTrsvBlock); };
  T* mine = acc + std::size_t(tid) * n;
  struct Pending {  // a solved block of this thread still applying: next position, chunk length
    std::size_t block, pos, len;
  };
  std::vector<Pending> pending;
  pending.reserve(nblocks / step + 1);
  const auto may_start = [&](std::size_t c) {
    for (std::size_t b = 0; b < c; ++b) {
      const auto need = std::int64_t(end_of(c) - end_of(b));
      if (applied[b].value.load(std::memory_order_acquire) < need) return false;
    }
    return true;
  };
  TrsvIdle idle;
  for (std::size_t c = std::size_t(tid); c < nblocks || !pending.empty();) {
    if (c < nblocks && may_start(c)) {
      const auto [j0, j1] = order.cols(c * kTrsvBlock, end_of(c));
      for (int u = 0; u < threads; ++u) {
        const T* theirs = acc + std::size_t(u) * n;
        for (std::size_t j = j0; j < j1; ++j) x[j] += theirs[j];
      }
      TrsvBlock(upper, true, unit, A, lda, x, j0, j1);
      if (end_of(c) < n) pending.push_back({c, end_of(c), kTrsvBlock});
      c += step;
    } else if (!pending.empty()) {
      auto it = std::min_element(pending.begin(), pending.end(),
                                 [](const Pending& a, const Pending& b) { return a.pos < b.pos; });
      const std::size_t q1 = std::min(n, it->pos + it->len);
      const auto [j0, j1] = order.cols(it->block * kTrsvBlock, end_of(it->block));
      const auto [c0, c1] = order.cols(it->pos, q1);
      TrsvAxpyUpdate(A, lda, x + j0, j0, j1, mine, c0, c1);
      applied[it->block].value.store(std::int64_t(q1 - end_of(it->block)), std::memory_order_release);
      it->pos = q1;
      it->len = std::min(2 * it->len, kTrsvChunk);
      if (q1 == n) pending.erase(it);
    } else {
      idle.wait();
    }
  }
}

template <class T>
void TrsvImpl(bool upper, bool trans, bool unit, std::int64_t n, const T* A, std::int64_t lda, T* x,
              std::int64_t min_elems) {
  if (n <= 0) return;
  const int threads = threads_for(n * n / 2, min_elems);
  const TrsvOrder order{std::size_t(n), upper == trans};  // lower/N and upper/T run from the top
  const std::size_t ld = std::size_t(lda), nblocks = DivCeil(std::size_t(n), kTrsvBlock);
  if (!trans) {
    TrsvCounter solved;
    std::vector<std::size_t> folded(nblocks, 0);
    if (threads == 1) return TrsvDotTeam(upper, unit, order, A, ld, x, solved.value, folded.data(), 0, 1);
#pragma omp parallel num_threads(threads)
    TrsvDotTeam(upper, unit, order, A, ld, x, solved.value, folded.data(), omp_get_thread_num(),
                omp_get_num_threads());
    return;
  }
  std::vector<TrsvCounter> applied(nblocks);
  T* acc = static_cast<T*>(scratch(ScratchSlot::trsm, std::size_t(threads) * std::size_t(n) * sizeof(T)));
  std::fill(acc, acc + std::size_t(threads) * std::size_t(n), T(0));
  if (threads == 1) return TrsvAxpyTeam(upper, unit, order, A, ld, x, acc, applied.data(), 0, 1);
#pragma omp parallel num_threads(threads)
  TrsvAxpyTeam(upper, unit, order, A, ld, x, acc, applied.data(), omp_get_thread_num(), omp_get_num_threads());
}

// ---------------------------------------------------------------------------------------------
// trsm

// Leaves: few enough rows that the leaf's own O(rows^2 * nrhs) work is a small share, enough
// that the GEMMs above it have a useful depth.
inline constexpr std::size_t kTrsmLeaf = 32;
// Each thread of the column-slice mode needs this many columns for efficient GEMM tiles.
inline constexpr std::size_t kTrsmMinSliceTiles = 2;

template <class T>
struct TrsmProblem {
  const T* a;
  std::size_t lda;
  bool forward, trans, unit;
  T op(std::size_t i, std::size_t j) const { return trans ? a[j * lda + i] : a[i * lda + j]; }
  // -op(A)[r0:, c0:] as a GEMM A operand.
  MatrixPackA<T> neg_block(std::size_t r0, std::size_t c0) const {
    if (trans) return MatrixPackA<T>{a + c0 * lda + r0, lda, true, T(-1)};
    return MatrixPackA<T>{a + r0 * lda + c0, lda, false, T(-1)};
  }
};

// Rows [i0, i0 + nb) of B, NV vectors wide: each row of X is its right-hand side minus the
// solved rows of this leaf times op(A)'s coefficients, divided by the diagonal.
template <std::size_t NV, class T>
HWY_INLINE void TrsmLeafTile(const TrsmProblem<T>& p, std::size_t i0, std::size_t nb, T* b, std::size_t ldb) {
  static_assert(NV >= 1 && NV <= 4, "up to 4 vectors per row");
  const GemmTag<T> d;
  const std::size_t N = hn::Lanes(d);
  for (std::size_t s = 0; s < nb; ++s) {
    const std::size_t i = p.forward ? i0 + s : i0 + nb - 1 - s;
    const std::size_t j0 = p.forward ? i0 : i + 1, j1 = p.forward ? i : i0 + nb;
    T* bi = b + i * ldb;
    auto x0 = hn::LoadU(d, bi);
    [[maybe_unused]] auto x1 = x0, x2 = x0, x3 = x0;
    if constexpr (NV > 1) x1 = hn::LoadU(d, bi + N);
    if constexpr (NV > 2) x2 = hn::LoadU(d, bi + 2 * N);
    if constexpr (NV > 3) x3 = hn::LoadU(d, bi + 3 * N);
    for (std::size_t j = j0; j < j1; ++j) {
      const auto a = hn::Set(d, p.op(i, j));
      const T* bj = b + j * ldb;
      x0 = hn::NegMulAdd(a, hn::LoadU(d, bj), x0);
      if constexpr (NV > 1) x1 = hn::NegMulAdd(a, hn::LoadU(d, bj + N), x1);
      if constexpr (NV > 2) x2 = hn::NegMulAdd(a, hn::LoadU(d, bj + 2 * N), x2);
      if constexpr (NV > 3) x3 = hn::NegMulAdd(a, hn::LoadU(d, bj + 3 * N), x3);
    }
    if (!p.unit) {
      const auto diag = hn::Set(d, p.op(i, i));
      x0 = hn::Div(x0, diag);
      if constexpr (NV > 1) x1 = hn::Div(x1, diag);
      if constexpr (NV > 2) x2 = hn::Div(x2, diag);
      if constexpr (NV > 3) x3 = hn::Div(x3, diag);
    }
    hn::StoreU(x0, d, bi);
    if constexpr (NV > 1) hn::StoreU(x1, d, bi + N);
    if constexpr (NV > 2) hn::StoreU(x2, d, bi + 2 * N);
    if constexpr (NV > 3) hn::StoreU(x3, d, bi + 3 * N);
  }
}

template <class T>
void TrsmLeaf(const TrsmProblem<T>& p, std::size_t i0, std::size_t nb, T* b, std::size_t ldb, std::size_t ncols) {
  const std::size_t N = hn::Lanes(GemmTag<T>());
  std::size_t c = 0;
  for (; c + 4 * N <= ncols; c += 4 * N) TrsmLeafTile<4>(p, i0, nb, b + c, ldb);
  for (; c + N <= ncols; c += N) TrsmLeafTile<1>(p, i0, nb, b + c, ldb);
  for (; c < ncols; ++c) {  // the last < N columns
    for (std::size_t s = 0; s < nb; ++s) {
      const std::size_t i = p.forward ? i0 + s : i0 + nb - 1 - s;
      const std::size_t j0 = p.forward ? i0 : i + 1, j1 = p.forward ? i : i0 + nb;
      T v = b[i * ldb + c];
      for (std::size_t j = j0; j < j1; ++j) v -= p.op(i, j) * b[j * ldb + c];
      b[i * ldb + c] = p.unit ? v : v / p.op(i, i);
    }
  }
}

// Rows [i0, i0 + nb) of X; `update(m, k, pack_a, x, c)` does c (m x ncols) += pack_a's block
// (m x k) times x (k x ncols), both row blocks of B.
template <class T, class Update>
void TrsmRecurse(const TrsmProblem<T>& p, std::size_t i0, std::size_t nb, T* b, std::size_t ldb, std::size_t ncols,
                 const Update& update) {
  if (nb <= kTrsmLeaf) return TrsmLeaf(p, i0, nb, b, ldb, ncols);
  const std::size_t n1 = nb / 2, n2 = nb - n1, i1 = i0 + n1;
  if (p.forward) {
    TrsmRecurse(p, i0, n1, b, ldb, ncols, update);
    update(n2, n1, p.neg_block(i1, i0), b + i0 * ldb, b + i1 * ldb);
    TrsmRecurse(p, i1, n2, b, ldb, ncols, update);
  } else {
    TrsmRecurse(p, i1, n2, b, ldb, ncols, update);
    update(n1, n2, p.neg_block(i0, i1), b + i1 * ldb, b + i0 * ldb);
    TrsmRecurse(p, i0, n1, b, ldb, ncols, update);
  }
}

template <class T>
void ScaleRows(std::size_t rows, std::size_t cols, T alpha, T* b, std::size_t ldb) {
  if (alpha != T(1)) GemmScaleC(rows, cols, alpha, b, ldb);  // alpha == 0 writes zeros
}

template <class T>
void TrsmImpl(bool upper, bool trans, bool unit, std::int64_t n_, std::int64_t nrhs_, T alpha, const T* A,
              std::int64_t lda, T* B, std::int64_t ldb_, std::int64_t min_flops) {
  if (n_ <= 0 || nrhs_ <= 0) return;
  const std::size_t n = std::size_t(n_), nrhs = std::size_t(nrhs_), ldb = std::size_t(ldb_);
  const TrsmProblem<T> p{A, std::size_t(lda), upper == trans, trans, unit};
  const GemmBlocking bk = MakeGemmBlocking<T>();
  const double flops = double(n) * double(n) * double(nrhs);
  const int threads = threads_for(static_cast<std::int64_t>(flops), min_flops);

  if (threads > 1 && nrhs >= std::size_t(threads) * kTrsmMinSliceTiles * bk.nr) {
    // Columns of X are independent: each thread solves a slice of them on its own, with
    // one-thread GEMMs and no synchronisation at all.
    // Sized for a slice of any width: the team may come out smaller than asked for.
    const std::size_t per_thread = GemmABufElems<T>(bk) + GemmBBufElems<T>(bk, nrhs, 1);
    T* buf = static_cast<T*>(scratch(ScratchSlot::trsm, threads * per_thread * sizeof(T)));
#pragma omp parallel num_threads(threads)
    {
      const int tid = omp_get_thread_num();
      const Range cols = split(std::int64_t(nrhs), omp_get_num_threads(), tid, std::int64_t(bk.nr));
      const std::size_t ncols = std::size_t(cols.end - cols.begin);
      T* abuf = buf + tid * per_thread;
      T* bbuf = abuf + GemmABufElems<T>(bk);
      if (ncols > 0) {
        T* bs = B + cols.begin;
        ScaleRows(n, ncols, alpha, bs, ldb);
        const auto update = [&](std::size_t m, std::size_t k, const MatrixPackA<T>& pa, const T* x, T* c) {
          GemmTeam(bk, m, ncols, k, pa, MatrixPackB<T>{x, ldb, false}, T(1), c, ldb, abuf, bbuf, 0, 1);
        };
        TrsmRecurse(p, 0, n, bs, ldb, ncols, update);
      }
    }
    return;
  }
  // Few right-hand sides: one solve, each GEMM update split across the team by rows.
  ScaleRows(n, nrhs, alpha, B, ldb);
  const auto update = [&](std::size_t m, std::size_t k, const MatrixPackA<T>& pa, const T* x, T* c) {
    GemmParallel(bk, m, nrhs, k, pa, MatrixPackB<T>{x, ldb, false}, T(1), c, ldb, min_flops);
  };
  TrsmRecurse(p, 0, n, B, ldb, nrhs, update);
}

void TrsvF32(bool upper, bool trans, bool unit, std::int64_t n, const float* A, std::int64_t lda, float* x,
             std::int64_t min_elems) {
  TrsvImpl(upper, trans, unit, n, A, lda, x, min_elems);
}
void TrsvF64(bool upper, bool trans, bool unit, std::int64_t n, const double* A, std::int64_t lda, double* x,
             std::int64_t min_elems) {
  TrsvImpl(upper, trans, unit, n, A, lda, x, min_elems);
}
void TrsmF32(bool upper, bool trans, bool unit, std::int64_t n, std::int64_t nrhs, float alpha, const float* A,
             std::int64_t lda, float* B, std::int64_t ldb, std::int64_t min_flops) {
  TrsmImpl(upper, trans, unit, n, nrhs, alpha, A, lda, B, ldb, min_flops);
}
void TrsmF64(bool upper, bool trans, bool unit, std::int64_t n, std::int64_t nrhs, double alpha, const double* A,
             std::int64_t lda, double* B, std::int64_t ldb, std::int64_t min_flops) {
  TrsmImpl(upper, trans, unit, n, nrhs, alpha, A, lda, B, ldb, min_flops);
}

}  // namespace tessera::cpu::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace tessera::cpu {

HWY_EXPORT(TrsvF32);
HWY_EXPORT(TrsvF64);
HWY_EXPORT(TrsmF32);
HWY_EXPORT(TrsmF64);

void trsv(bool upper, bool trans, bool unit, std::int64_t n, const float* A, std::int64_t lda, float* x,
          std::int64_t min_elems_per_thread) {
  HWY_DYNAMIC_DISPATCH(TrsvF32)(upper, trans, unit, n, A, lda, x, min_elems_per_thread);
}
void trsv(bool upper, bool trans, bool unit, std::int64_t n, const double* A, std::int64_t lda, double* x,
          std::int64_t min_elems_per_thread) {
  HWY_DYNAMIC_DISPATCH(TrsvF64)(upper, trans, unit, n, A, lda, x, min_elems_per_thread);
}
void trsm(bool upper, bool trans, bool unit, std::int64_t n, std::int64_t nrhs, float alpha, const float* A,
          std::int64_t lda, float* B, std::int64_t ldb, std::int64_t min_flops_per_thread) {
  HWY_DYNAMIC_DISPATCH(TrsmF32)(upper, trans, unit, n, nrhs, alpha, A, lda, B, ldb, min_flops_per_thread);
}
void trsm(bool upper, bool trans, bool unit, std::int64_t n, std::int64_t nrhs, double alpha, const double* A,
          std::int64_t lda, double* B, std::int64_t ldb, std::int64_t min_flops_per_thread) {
  HWY_DYNAMIC_DISPATCH(TrsmF64)(upper, trans, unit, n, nrhs, alpha, A, lda, B, ldb, min_flops_per_thread);
}

}  // namespace tessera::cpu
#endif  // HWY_ONCE
