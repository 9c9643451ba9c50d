// Dense triangular solve op(A) X = B in place (trsv: one column, ldb = 1), blocked: block rows
// of TRSV_BLOCK unknowns are solved in order, one kernel launch per block. Launch s:
//   - every remaining block row subtracts the contribution of the block solved at launch s-1
//     (a block of op(A) times that block of X: independent rows, so all groups run in parallel);
//   - the first remaining block (group 0), now up to date, solves its diagonal block.
// op(A)(i, j) = A(i, j), or A(j, i) when trans; `forward` is true when op(A) is lower
// triangular (solve top to bottom), false when upper (bottom to top). Blocks are numbered in
// solve order q = 0..nb-1; block q holds rows [first, first + TRSV_BLOCK) clipped to n.

#ifndef TRSV_BLOCK
#define TRSV_BLOCK 32   // unknowns per block = work-group size
#endif

#define OPA(i, j) (trans ? A[(long)(j) * lda + (i)] : A[(long)(i) * lda + (j)])

inline long block_first(int q, int nb, int forward) { return (long)(forward ? q : nb - 1 - q) * TRSV_BLOCK; }

__kernel void trsm_scale(__global REAL* B, long B_off, long ldb, long n, long nrhs, REAL alpha) {
  B += B_off;
  const long c = get_global_id(0), i = get_global_id(1);
  if (c < nrhs && i < n) B[i * ldb + c] *= alpha;
}

#if TESSERA_CPU_KERNELS  // cpu variant
// cpu: work-item t of group g updates row t of its block for TRSV_VW right-hand sides at once
// (explicit vectors along the rows of B; the row of op(A) is read once for all of them, and
// contiguously when !trans); group 0 then solves its block with one work-item, sequentially
// (a barrier-free loop is what a CPU runs fastest). Columns past the last whole vector (all of
// them for trsv) take the scalar path. Global (TRSV_BLOCK * (nb - s), ceil(nrhs / TRSV_VW)), local (TRSV_BLOCK, 1).
#ifndef TRSV_VW
#define TRSV_VW 1
#endif
#if TRSV_VW == 1
#define VECT REAL
#define LOADV(p) (*(p))
#define STOREV(v, p) (*(p) = (v))
#else
#define VECT REALV(TRSV_VW)
#define LOADV(p) VLOADN(TRSV_VW)(0, p)
#define STOREV(v, p) VSTOREN(TRSV_VW)(v, 0, p)
#endif
__kernel __attribute__((reqd_work_group_size(TRSV_BLOCK, 1, 1))) void trsm_step_simple(
    __global const REAL* A, long A_off, long lda, __global REAL* B, long B_off, long ldb, long n, long nrhs, int s, int nb, int forward,
    int trans, int unit) {
  A += A_off;
  B += B_off;
  const int g = get_group_id(0);
  const int t = get_local_id(0);
  const long c0 = get_global_id(1) * TRSV_VW;
  const bool whole = c0 + TRSV_VW <= nrhs;  // a full vector of right-hand sides
  const long c1 = min(c0 + TRSV_VW, nrhs);
  const long r0 = block_first(s + g, nb, forward);
  const long r = r0 + t;
  if (s > 0 && r < n) {
    const long p0 = block_first(s - 1, nb, forward);
    const long p1 = min(p0 + TRSV_BLOCK, n);
    if (whole) {
      VECT acc = 0;
      for (long j = p0; j < p1; ++j) acc += OPA(r, j) * LOADV(B + j * ldb + c0);
      STOREV(LOADV(B + r * ldb + c0) - acc, B + r * ldb + c0);
    } else {
      for (long c = c0; c < c1; ++c) {
        REAL acc = 0;
        for (long j = p0; j < p1; ++j) acc += OPA(r, j) * B[j * ldb + c];
        B[r * ldb + c] -= acc;
      }
    }
  }
  // Unconditional, though only group 0 needs it: PoCL mishandles barriers under conditions.
  barrier(CLK_GLOBAL_MEM_FENCE);  // the block's updated rows, written by its work-items
  if (g == 0 && t == 0) {
    const long r1 = min(r0 + TRSV_BLOCK, n);
    for (long step = 0; step < r1 - r0; ++step) {
      const long i = forward ? r0 + step : r1 - 1 - step;
      const long j0 = forward ? r0 : i + 1, j1 = forward ? i : r1;
      if (whole) {
        VECT v = LOADV(B + i * ldb + c0);
        for (long j = j0; j < j1; ++j) v -= OPA(i, j) * LOADV(B + j * ldb + c0);
        if (!unit) v /= OPA(i, i);
        STOREV(v, B + i * ldb + c0);
      } else {
        for (long c = c0; c < c1; ++c) {
          REAL v = B[i * ldb + c];
          for (long j = j0; j < j1; ++j) v -= OPA(i, j) * B[j * ldb + c];
          if (!unit) v /= OPA(i, i);
          B[i * ldb + c] = v;
        }
      }
    }
  }
}
#endif

#if TESSERA_GPU_KERNELS  // gpu variant
// gpu: tiles of op(A) go through local memory, TW columns at a time (TW = TRSV_BLOCK unless the
// device's local memory is too small for a TRSV_BLOCK x TRSV_BLOCK tile: GCN's 32 KB cannot hold 64 x 64
// doubles), loaded so that neighbouring work-items read neighbouring addresses of A whether or
// not it is transposed; the diagonal block is solved by the whole group, one unknown per
// barrier. Global (TRSV_BLOCK * (nb - s), nrhs), local (TRSV_BLOCK, 1).
#ifndef TW
#define TW TRSV_BLOCK  // columns of op(A) per local tile; divides TRSV_BLOCK
#endif

// T[i][jj] = op(A)(r0 + i, c0 + jj) for the TRSV_BLOCK x TW tile at (r0, c0); rows or columns past n
// read as the identity (1 on the diagonal, 0 elsewhere).
inline void load_tile(__local REAL (*T)[TW + 1], __global const REAL* A, long lda, long n, int trans, long r0,
                      long c0, int t) {
  for (int e = t; e < TRSV_BLOCK * TW; e += TRSV_BLOCK) {
    // Work-item order follows A's contiguous direction: columns of op(A) when !trans, rows when trans.
    const int i = trans ? e % TRSV_BLOCK : e / TW, jj = trans ? e / TRSV_BLOCK : e % TW;
    const long gi = r0 + i, gj = c0 + jj;
    T[i][jj] = (gi < n && gj < n) ? OPA(gi, gj) : (gi == gj ? 1 : 0);
  }
}

__kernel __attribute__((reqd_work_group_size(TRSV_BLOCK, 1, 1))) void trsm_step_local(
    __global const REAL* A, long A_off, long lda, __global REAL* B, long B_off, long ldb, long n, long nrhs, int s, int nb, int forward,
    int trans, int unit) {
  __local REAL T[TRSV_BLOCK][TW + 1];  // +1: row-wise reads by different work-items hit different banks
  __local REAL xv[TRSV_BLOCK];
  A += A_off;
  B += B_off;
  const int g = get_group_id(0);
  const int t = get_local_id(0);
  const long c = get_global_id(1);
  const long r0 = block_first(s + g, nb, forward);
  const long r = r0 + t;
  // No barrier sits under a condition, though both conditions below are uniform in the group:
  // PoCL 3.1 then treated the per-row test `r < n` after the update loop as uniform too (work-item
  // 0's answer for all), and the rows past n of the ragged block were read and written (found
  // under valgrind; the test "gpu cases: trsm with 64 right-hand sides" crashed at times).
  const bool update = s > 0;
  // The previous block is entirely inside the matrix except when it is the ragged last block
  // (solved first going backward): its rows past n hold x = 0 and contribute nothing.
  const long p0 = update ? block_first(s - 1, nb, forward) : 0;
  if (update) xv[t] = p0 + t < n ? B[(p0 + t) * ldb + c] : 0;
  REAL acc = 0;
  for (int j0 = 0; j0 < TRSV_BLOCK; j0 += TW) {
    if (update) load_tile(T, A, lda, n, trans, r0, p0 + j0, t);
    barrier(CLK_LOCAL_MEM_FENCE);
    if (update)
      for (int jj = 0; jj < TW; ++jj) acc += T[t][jj] * xv[j0 + jj];
    barrier(CLK_LOCAL_MEM_FENCE);  // before T (and, after the loop, xv) is reused
  }
  // Group 0 solves the diagonal block; the other groups pass the same barriers doing nothing.
  const bool solve = g == 0;
  const REAL b = r < n ? B[r * ldb + c] - acc : 0;  // rows past n: x = 0 and an identity row
  if (update && !solve && r < n) B[r * ldb + c] = b;
  if (solve) xv[t] = b;
  // Unknown j is final once its row has received every earlier update and been divided;
  // each work-item writes only its own xv[t], so one barrier per unknown suffices.
  for (int q = 0; q < TRSV_BLOCK / TW; ++q) {
    const int j0 = forward ? q * TW : TRSV_BLOCK - (q + 1) * TW;
    if (solve) load_tile(T, A, lda, n, trans, r0, r0 + j0, t);
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int step = 0; step < TW; ++step) {
      const int jj = forward ? step : TW - 1 - step, j = j0 + jj;
      if (solve && t == j && !unit) xv[j] /= T[j][jj];
      barrier(CLK_LOCAL_MEM_FENCE);
      if (solve && (forward ? t > j : t < j)) xv[t] -= T[t][jj] * xv[j];
    }
    barrier(CLK_LOCAL_MEM_FENCE);  // before the next tile overwrites T
  }
  if (solve && r < n) B[r * ldb + c] = xv[t];
}
#endif
