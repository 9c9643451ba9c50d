// Dense triangular solves through inverted diagonal blocks (gpu kernels, classes with
// trsv.inverse = 1; the method of kernels/cuda/trsv.cu in OpenCL 1.2):
//  1. trsv_invert: every TRSV_BLOCK x TRSV_BLOCK diagonal block of op(A) is inverted at once (a
//     group each), so a step of the chain of diagonal blocks becomes a small matrix-vector
//     product instead of TRSV_BLOCK dependent substitution steps;
//  2. trsv_solve_flags (trsv): one launch walks the block rows. A group takes block rows in
//     solve order from an atomic ticket, streams its row panel of op(A) against the solved
//     pieces of x as they are published (the panel's loads go out before each wait), then
//     x_b = inv(A_bb) (b_b - sum_j A_bj x_j) and publishes "b solved" in a counter. Blocks are
//     solved in ticket order, so the counter is the only flag.
//     Forward progress: OpenCL 1.2 promises none between work-groups. A group only ever waits
//     for smaller tickets, which groups already running hold, and the host launches no more
//     groups than the device keeps resident (trsv.groups_per_cu per compute unit), each looping
//     over tickets; so no group waits for one that has not started.
//  3. trsm_block_column (trsm): one launch per block column. Launch s: every block row below
//     (in solve order) loses op(A)_{q,s-1} X_{s-1} for a 64-column tile of X, and the group of
//     block row s then forms X_s = inv(A_ss) B_s for its tile: two small tiled gemms.
// Blocks are numbered in solve order q = 0..nb-1 (block_first); W holds the inverses by
// natural block index b: W[b * TRSV_BLOCK * TRSV_BLOCK + k * TRSV_BLOCK + i] = inv(op(A)_bb)(i, k).

#ifndef TRSV_BLOCK
#define TRSV_BLOCK 64  // unknowns per diagonal block; a multiple of 32
#endif
#ifndef TRSV_WG
#define TRSV_WG 256  // work-items of trsv_solve_flags; a multiple of TRSV_BLOCK and of 32
#endif

#define OPA(i, j) (trans ? A[(long)(j) * lda + (i)] : A[(long)(i) * lda + (j)])

inline long inv_block_first(int q, int nb, int forward) { return (long)(forward ? q : nb - 1 - q) * TRSV_BLOCK; }

// ---- 1. inverses of the diagonal blocks. Global (TRSV_BLOCK * nb), local (TRSV_BLOCK). ----
// Work-item c forms column c of the inverse by a column sweep against e_c, in registers (the
// loops are unrolled, so x[] has constant indices); L is read by all work-items at once
// (broadcast). Rows and columns past n are the identity.
__kernel __attribute__((reqd_work_group_size(TRSV_BLOCK, 1, 1))) void trsv_invert(
    __global const REAL* A, long A_off, long lda, long n, int trans, int forward, int unit, __global REAL* W) {
  __local REAL L[TRSV_BLOCK][TRSV_BLOCK + 1];
  A += A_off;
  const int b = get_group_id(0), c = get_local_id(0);
  const long r0 = (long)b * TRSV_BLOCK;
  for (int e = c; e < TRSV_BLOCK * TRSV_BLOCK; e += TRSV_BLOCK) {
    // Neighbouring work-items read neighbouring addresses of A, transposed or not.
    const int i = trans ? e % TRSV_BLOCK : e / TRSV_BLOCK, k = trans ? e / TRSV_BLOCK : e % TRSV_BLOCK;
    const long gi = r0 + i, gk = r0 + k;
    REAL v;
    if (gi >= n || gk >= n) v = i == k ? 1 : 0;
    else if (i == k) v = unit ? 1 : OPA(gi, gk);
    else if (forward ? k < i : k > i) v = OPA(gi, gk);
    else v = 0;
    L[i][k] = v;
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  REAL x[TRSV_BLOCK];
#pragma unroll
  for (int i = 0; i < TRSV_BLOCK; ++i) x[i] = i == c ? 1 : 0;
  if (forward) {
#pragma unroll
    for (int k = 0; k < TRSV_BLOCK; ++k) {
      x[k] /= L[k][k];
#pragma unroll
      for (int i = k + 1; i < TRSV_BLOCK; ++i) x[i] -= L[i][k] * x[k];
    }
  } else {
#pragma unroll
    for (int k = TRSV_BLOCK - 1; k >= 0; --k) {
      x[k] /= L[k][k];
#pragma unroll
      for (int i = 0; i < k; ++i) x[i] -= L[i][k] * x[k];
    }
  }
  barrier(CLK_LOCAL_MEM_FENCE);  // every work-item is done reading L
#pragma unroll
  for (int i = 0; i < TRSV_BLOCK; ++i) L[i][c] = x[i];  // L[i][c] = inv(i, c)
  barrier(CLK_LOCAL_MEM_FENCE);
  __global REAL* out = W + (long)b * TRSV_BLOCK * TRSV_BLOCK;
  for (int e = c; e < TRSV_BLOCK * TRSV_BLOCK; e += TRSV_BLOCK)  // coalesced
    out[e] = L[e % TRSV_BLOCK][e / TRSV_BLOCK];
}

// ---- 2. trsv: one launch, flag-synchronised. Global (TRSV_WG * groups), local (TRSV_WG). ----
// Tile layout as in CUDA: 32-wide "lanes" along A's contiguous direction (coalesced), the
// TRSV_WG / 32 "warps" over the other; partial sums meet in local memory (no shuffles in 1.2).
// TRSV_TRANS (a program define): op(A) = A^T, read as rows of A.
#define WARPS (TRSV_WG / 32)
#define RPW (TRSV_BLOCK / WARPS)  // tile rows of A per warp
#define CPL (TRSV_BLOCK / 32)     // tile columns of A per lane, strided by 32
#define PARTS (TRSV_WG / TRSV_BLOCK)  // work-items per row of the inverse product
#define KPER (TRSV_BLOCK / PARTS)
#ifndef TRSV_TRANS
#define TRSV_TRANS 0
#endif
#if TRSV_TRANS
#define NACC CPL
#else
#define NACC RPW
#endif

__kernel __attribute__((reqd_work_group_size(TRSV_WG, 1, 1))) void trsv_solve_flags(
    __global const REAL* restrict A, long A_off, long lda, __global const REAL* restrict W, __global REAL* x_out, long x_out_off, long n, int nb,
    int forward, __global int* sync) {
  // Other groups write x while this one runs: read it around any cache that is not coherent.
  A += A_off;
  x_out += x_out_off;
  volatile __global REAL* x = x_out;
  volatile __global int* solved = sync + 1;
  __local REAL part[TRSV_BLOCK * 33];  // >= WARPS * TRSV_BLOCK and >= TRSV_WG (PARTS * TRSV_BLOCK)
  __local REAL rhs[TRSV_BLOCK];
  __local int s_ticket, s_ready;
  const int tid = get_local_id(0), lane = tid % 32, warp = tid / 32;
  const int ii = tid % TRSV_BLOCK, h = tid / TRSV_BLOCK;  // row and part of the inverse product
  int ready = 0;                          // solved blocks known to this group (uniform)
  for (;;) {
    if (tid == 0) s_ticket = atomic_inc(sync);
    barrier(CLK_LOCAL_MEM_FENCE);
    const int t = s_ticket;
    if (t >= nb) break;  // uniform: every work-item read the same ticket
    const int b = forward ? t : nb - 1 - t;
    const long r0 = (long)b * TRSV_BLOCK;
    const int rb = (int)min((long)TRSV_BLOCK, n - r0);
    REAL winv[KPER];  // this work-item's slice of inv(A_bb), loaded while the panel streams
    __global const REAL* Wb = W + (long)b * TRSV_BLOCK * TRSV_BLOCK;
#pragma unroll
    for (int kk = 0; kk < KPER; ++kk) winv[kk] = Wb[(h * KPER + kk) * TRSV_BLOCK + ii];
    if (tid < TRSV_BLOCK) rhs[tid] = tid < rb ? x[r0 + tid] : 0;
    REAL acc[NACC];
#pragma unroll
    for (int q = 0; q < NACC; ++q) acc[q] = 0;
    for (int tt = 0; tt < t; ++tt) {
      const long c0 = inv_block_first(tt, nb, forward);
      REAL a[RPW][CPL];
#pragma unroll
      for (int rr = 0; rr < RPW; ++rr)
#pragma unroll
        for (int q = 0; q < CPL; ++q) {
          const long arow = (TRSV_TRANS ? c0 : r0) + warp * RPW + rr;
          const long acol = (TRSV_TRANS ? r0 : c0) + lane + 32 * q;
          a[rr][q] = arow < n && acol < n ? A[arow * lda + acol] : 0;
        }
      if (tt >= ready) {  // uniform
        if (tid == 0) {
          int d;
          while ((d = *solved) <= tt) {
          }
          DEVICE_FENCE();  // acquire: the x_j read after the barrier come after the flag
          s_ready = d;
        }
        barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
        ready = s_ready;
        barrier(CLK_LOCAL_MEM_FENCE);  // s_ready is rewritten at the next wait
      }
#if TRSV_TRANS
      const long xr = c0 + warp * RPW;
#pragma unroll
      for (int rr = 0; rr < RPW; ++rr) {
        const REAL xv = xr + rr < n ? x[xr + rr] : 0;  // the same address across a warp
#pragma unroll
        for (int q = 0; q < CPL; ++q) acc[q] += a[rr][q] * xv;
      }
#else
      REAL xv[CPL];
#pragma unroll
      for (int q = 0; q < CPL; ++q) xv[q] = c0 + lane + 32 * q < n ? x[c0 + lane + 32 * q] : 0;
#pragma unroll
      for (int rr = 0; rr < RPW; ++rr)
#pragma unroll
        for (int q = 0; q < CPL; ++q) acc[rr] += a[rr][q] * xv[q];
#endif
    }
    // rhs -= the panel's sum: over the 32 lanes of a row (not transposed) or over the warps.
#if TRSV_TRANS
#pragma unroll
    for (int q = 0; q < CPL; ++q) part[warp * TRSV_BLOCK + lane + 32 * q] = acc[q];
#else
#pragma unroll
    for (int rr = 0; rr < RPW; ++rr) part[(warp * RPW + rr) * 33 + lane] = acc[rr];
#endif
    barrier(CLK_LOCAL_MEM_FENCE);
    if (tid < TRSV_BLOCK) {
      REAL tot = 0;
#if TRSV_TRANS
      for (int w = 0; w < WARPS; ++w) tot += part[w * TRSV_BLOCK + tid];
#else
      for (int l = 0; l < 32; ++l) tot += part[tid * 33 + l];
#endif
      rhs[tid] -= tot;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    {
      REAL v = 0;
#pragma unroll
      for (int kk = 0; kk < KPER; ++kk) v += winv[kk] * rhs[h * KPER + kk];
      part[h * TRSV_BLOCK + ii] = v;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    if (tid < rb) {
      REAL v = 0;
      for (int p = 0; p < PARTS; ++p) v += part[p * TRSV_BLOCK + tid];
      x[r0 + tid] = v;
      DEVICE_FENCE();  // release: the store is visible device-wide before the barrier below
    }
    // Publish once every work-item's store of x_b is out (the fences above, then the barrier).
    barrier(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE);
    if (tid == 0) atomic_xchg(sync + 1, t + 1);
  }
}

// ---- 3. trsm: one launch per block column. Global (16 * tiles, 16 * (nb - s)), local (16, 16). ----
// A group owns a TRSV_BLOCK x 64 tile of B (block row q = s + group y, columns from 64 * group x); a
// work-item owns TRSV_BLOCK/16 x 4 entries of it (rows ty + 16 a, columns tx + 16 c).
#define KC 32  // k-chunk of the tiles in local memory
#define RT (TRSV_BLOCK / 16)

// acc += op(M)(mr0 + i, mc0 + k) * B(xr0 + k, cb + c) over k < TRSV_BLOCK; entries of M past m_n, and
// rows of B past n or columns past nrhs, read as 0.
inline void tile_mac(REAL acc[RT][4], __local REAL (*Ms)[KC + 1], __local REAL (*Xs)[64 + 1], __global const REAL* M,
                     long ldm, int mtrans, long mr0, long mc0, long m_n, __global const REAL* B, long ldb, long xr0,
                     long cb, long n, long nrhs, int tx, int ty) {
  const int tid = ty * 16 + tx;
  for (int k0 = 0; k0 < TRSV_BLOCK; k0 += KC) {
    for (int e = tid; e < TRSV_BLOCK * KC; e += 256) {
      const int i = mtrans ? e % TRSV_BLOCK : e / KC, k = mtrans ? e / TRSV_BLOCK : e % KC;  // coalesced either way
      const long gi = mr0 + i, gk = mc0 + k0 + k;
      Ms[i][k] = gi < m_n && gk < m_n ? (mtrans ? M[gk * ldm + gi] : M[gi * ldm + gk]) : 0;
    }
    for (int e = tid; e < KC * 64; e += 256) {
      const int k = e / 64, c = e % 64;
      const long r = xr0 + k0 + k, col = cb + c;
      Xs[k][c] = r < n && col < nrhs ? B[r * ldb + col] : 0;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int k = 0; k < KC; ++k) {
      REAL xv[4];
#pragma unroll
      for (int c = 0; c < 4; ++c) xv[c] = Xs[k][tx + 16 * c];
#pragma unroll
      for (int a = 0; a < RT; ++a) {
        const REAL m = Ms[ty + 16 * a][k];
#pragma unroll
        for (int c = 0; c < 4; ++c) acc[a][c] += m * xv[c];
      }
    }
    barrier(CLK_LOCAL_MEM_FENCE);  // before the next chunk overwrites the tiles
  }
}

__kernel __attribute__((reqd_work_group_size(16, 16, 1))) void trsm_block_column(
    __global const REAL* A, long A_off, long lda, __global const REAL* W, __global REAL* B, long B_off, long ldb, long n, long nrhs, int s,
    int nb, int forward, int trans) {
  __local REAL Ms[TRSV_BLOCK][KC + 1];
  __local REAL Xs[KC][64 + 1];
  A += A_off;
  B += B_off;
  const int tx = get_local_id(0), ty = get_local_id(1);
  const long cb = (long)get_group_id(0) * 64;
  const int gy = get_group_id(1);
  const long r0 = inv_block_first(s + gy, nb, forward);
  REAL acc[RT][4];
  if (s > 0) {  // B_q -= op(A)_{q, s-1} X_{s-1}
    const long p0 = inv_block_first(s - 1, nb, forward);
#pragma unroll
    for (int a = 0; a < RT; ++a)
#pragma unroll
      for (int c = 0; c < 4; ++c) acc[a][c] = 0;
    tile_mac(acc, Ms, Xs, A, lda, trans, r0, p0, n, B, ldb, p0, cb, n, nrhs, tx, ty);
#pragma unroll
    for (int a = 0; a < RT; ++a)
#pragma unroll
      for (int c = 0; c < 4; ++c) {
        const long r = r0 + ty + 16 * a, col = cb + tx + 16 * c;
        if (r < n && col < nrhs) B[r * ldb + col] -= acc[a][c];
      }
  }
  if (gy == 0) {  // block row s is up to date: X_s = inv(A_ss) B_s (uniform per group)
    barrier(CLK_GLOBAL_MEM_FENCE);  // this group's updates of B_s, above
#pragma unroll
    for (int a = 0; a < RT; ++a)
#pragma unroll
      for (int c = 0; c < 4; ++c) acc[a][c] = 0;
    // W_b holds inv(i, k) at k * TRSV_BLOCK + i: op(M) with M transposed and ld TRSV_BLOCK.
    tile_mac(acc, Ms, Xs, W + (r0 / TRSV_BLOCK) * TRSV_BLOCK * TRSV_BLOCK, TRSV_BLOCK, 1, 0, 0, TRSV_BLOCK, B, ldb,
             r0, cb, n, nrhs, tx, ty);
    barrier(CLK_GLOBAL_MEM_FENCE);  // every read of B_s is done before it is overwritten
#pragma unroll
    for (int a = 0; a < RT; ++a)
#pragma unroll
      for (int c = 0; c < 4; ++c) {
        const long r = r0 + ty + 16 * a, col = cb + tx + 16 * c;
        if (r < n && col < nrhs) B[r * ldb + col] = acc[a][c];
      }
  }
}
