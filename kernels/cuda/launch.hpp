// The CUDA kernels as the host sees them: one launcher per kernel, plain C++ (no CUDA syntax),
// so backends/cuda/*.cpp compile with the host compiler. Every launcher enqueues on `stream`
// and returns the launch's cudaError_t (cudaGetLastError), which the caller checks with its
// own file:line. Tile sizes fixed at compile time are exported as constants here, so the host
// derives grids from them and tessera-info can report them.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "tessera/types.hpp"

namespace tessera::cuda {

// ---------------------------------------------------------------- reduce
// One pass: a grid-stride loop with 16-byte loads (after a scalar head when a view's offset
// leaves x off a 16-byte boundary) into per-thread double accumulators, a block reduction with
// warp shuffles, and the last block to finish folds the per-block partials and writes the result
// to `out` on the device, as T. Grids: at most `max_blocks` blocks (scratch is sized for that).
constexpr int kReduceThreads = 256;
constexpr int kReduceMaxSums = 2;  // values reduced per launch at most (dot2: x.y and x.z)
struct ReduceScratch {
  double* partials = nullptr;       // >= kReduceMaxSums * max_blocks entries
  unsigned int* counter = nullptr;  // 0 between launches (the last block resets it)
};
// out[0] = op over x[0..n); norm2 is the square root of the sum of squares.
template <class T>
cudaError_t launch_reduce(ReduceOp op, const T* x, std::int64_t n, T* out, int max_blocks, const ReduceScratch& s,
                          cudaStream_t stream);
// out[0] = x . y
template <class T>
cudaError_t launch_dot(const T* x, const T* y, std::int64_t n, T* out, int max_blocks, const ReduceScratch& s,
                       cudaStream_t stream);

// ---------------------------------------------------------------- vector algebra
// Streaming kernels over whole vectors (kernels/cuda/vector.cu), 16-byte accesses as reduce.
constexpr int kVectorThreads = 256;
// A Coef as a kernel reads it: value * num[0] * num[1] / (den[0] * den[1]) in double, absent
// factors null; the pointers are at the scalars' elements. Thread 0 of each block reads them
// once, before any element is written.
template <class T>
struct DeviceCoef {
  double value = 1.0;
  const T* num[2] = {nullptr, nullptr};
  const T* den[2] = {nullptr, nullptr};
};
// y[i] = value (at most max_blocks blocks, grid-stride).
template <class T>
cudaError_t launch_fill(const DeviceCoef<T>& value, T* y, std::int64_t n, int max_blocks, cudaStream_t stream);
// y = alpha x + beta y in double; beta_zero: y is only written. x may be y.
template <class T>
cudaError_t launch_axpby(const DeviceCoef<T>& alpha, const T* x, const DeviceCoef<T>& beta, bool beta_zero, T* y,
                         std::int64_t n, int max_blocks, cudaStream_t stream);
// z = x * y, x / y or 1 / x (y unused, may be null); z may be x or y.
template <class T>
cudaError_t launch_elementwise(ElementwiseOp op, const T* x, const T* y, T* z, std::int64_t n, int max_blocks,
                               cudaStream_t stream);
// y = alpha x + beta y, then out[0] = y . w with the new y (w may be y), in one launch with the
// reduction's scratch; max_blocks as for launch_reduce.
template <class T>
cudaError_t launch_axpby_dot(const DeviceCoef<T>& alpha, const T* x, const DeviceCoef<T>& beta, bool beta_zero, T* y,
                             const T* w, std::int64_t n, T* out, int max_blocks, const ReduceScratch& s,
                             cudaStream_t stream);
// out_xy[0] = x . y and out_xz[0] = x . z in one pass.
template <class T>
cudaError_t launch_dot2(const T* x, const T* y, const T* z, std::int64_t n, T* out_xy, T* out_xz, int max_blocks,
                        const ReduceScratch& s, cudaStream_t stream);
// z = d * r, out_rz[0] = r . z and out_rr[0] = r . r in one pass.
template <class T>
cudaError_t launch_multiply_dot2(const T* d, const T* r, T* z, std::int64_t n, T* out_rz, T* out_rr, int max_blocks,
                                 const ReduceScratch& s, cudaStream_t stream);
// y1 = a1 x1 + b1 y1 and y2 = a2 x2 + b2 y2 in one pass (y2 may be x1: read before written).
template <class T>
cudaError_t launch_axpby_pair(const DeviceCoef<T>& a1, const T* x1, const DeviceCoef<T>& b1, bool b1_zero, T* y1,
                              const DeviceCoef<T>& a2, const T* x2, const DeviceCoef<T>& b2, bool b2_zero, T* y2,
                              std::int64_t n, int max_blocks, cudaStream_t stream);
// r = r + alpha x, z = d * r, out_rz[0] = r . z and out_rr[0] = r . r in one pass.
template <class T>
cudaError_t launch_axpy_multiply_dot2(const DeviceCoef<T>& alpha, const T* x, const T* d, T* r, T* z, std::int64_t n,
                                      T* out_rz, T* out_rr, int max_blocks, const ReduceScratch& s,
                                      cudaStream_t stream);
// y = x converted to T from the other float type, rounded to nearest even (a static_cast: f64
// beyond f32's range gives +-inf). One element per access: the sides' 16-byte packs differ in count.
template <class T>
cudaError_t launch_convert(const other_float_t<T>* x, T* y, std::int64_t n, int max_blocks, cudaStream_t stream);

// ---------------------------------------------------------------- spmv (CSR)
constexpr int kSpmvThreads = 256;
constexpr int kMergeThreads = 256;
// 8 items a thread (tiles of 2048) measured slower on the H200 (session 35, median ms f32):
// vsp_model1 0.0160-0.0163 against 0.0145-0.0147, power-law 2M 0.302 against 0.282.
constexpr int kMergeItemsPerThread = 4;
constexpr int kMergeTile = kMergeThreads * kMergeItemsPerThread;  // rows + nonzeros per block

// `lanes` (2, 4, 8, 16, 32) threads per row; y = alpha A x + beta y, beta == 0: y not read.
template <class T>
cudaError_t launch_spmv_vector(int lanes, int rows, const int* row_ptr, const int* col_idx, const T* values,
                               const T* x, T alpha, T beta, T* y, cudaStream_t stream);
// One warp per 32 consecutive rows, their nonzeros read as one run (kSpmvStreamChunk products
// per warp at a time in shared memory); for short rows of similar length.
constexpr int kSpmvStreamChunk = 256;
template <class T>
cudaError_t launch_spmv_stream(int rows, const int* row_ptr, const int* col_idx, const T* values, const T* x,
                               T alpha, T beta, T* y, cudaStream_t stream);
// y = alpha A x + beta y and out[0] = w . y (double sums, one pass as reduce) in one launch:
// lanes 0 the stream kernel, else the vector kernel with `lanes` (2..32) threads per row; at most
// max_blocks blocks (the reduction scratch's). w may be x or y.
template <class T>
cudaError_t launch_spmv_dot(int lanes, int rows, const int* row_ptr, const int* col_idx, const T* values, const T* x,
                            T alpha, T beta, T* y, const T* w, T* out, int max_blocks, const ReduceScratch& s,
                            cudaStream_t stream);
// Merge-path partition: coords[t] = (row, nonzero) where tile t of kMergeTile path items starts,
// for t = 0..tiles (tiles + 1 entries).
cudaError_t launch_merge_partition(int rows, int nnz, const int* row_ptr, int tiles, int2* coords,
                                   cudaStream_t stream);
// Nonzero-balanced SpMV over the partition; rows cut by a tile boundary are finished by a fix-up
// pass that adds each tile's carry-out (carry_rows/carry_vals: `tiles` entries of scratch).
template <class T>
cudaError_t launch_spmv_merge(int rows, int nnz, const int* row_ptr, const int* col_idx, const T* values,
                              const T* x, T alpha, T beta, T* y, int tiles, const int2* coords, int* carry_rows,
                              T* carry_vals, cudaStream_t stream);

// Split (plan/split_layout.hpp): warps 0 .. chunk_count - 1 (eight a block) sum a chunk of a
// long row each (`chunks`: four ints a chunk), the warp finishing a row's last chunk (a ticket in
// tickets[long row index], back to 0 when it is done) adds the row's partial sums; the blocks
// after them run the vector kernel with `lanes` (2..32) threads a row over the rows of at most
// long_row entries. partial: chunk_count values of scratch.
constexpr int kSpmvChunk = 256;  // entries a chunk: 8 loads a lane in flight
template <class T>
cudaError_t launch_spmv_split(int lanes, int rows, const int* row_ptr, const int* col_idx, const T* values,
                              const T* x, T alpha, T beta, T* y, int long_row, int chunk_count, const int* chunks,
                              T* partial, int* tickets, cudaStream_t stream);

// ---------------------------------------------------------------- spmv (SELL-C-sigma)
// plan/sell_layout.hpp: a thread per slot (row of a slice), its j-th entry at slice_ptr[slice]
// + j * c + lane, so a warp's rows (c = 32) read each step as one coalesced run, every slot to
// its slice's width, `steps` (1, 2, 4 or 8) of them loaded at a time. perm null: the slot is the
// row. rows = the matrix's rows.
template <class T>
cudaError_t launch_spmv_sell(int rows, int c, int steps, const int* slice_ptr, const int* perm, const int* col,
                             const T* val, const T* x, T alpha, T beta, T* y, cudaStream_t stream);
// The conversion from CSR, padding included (column -1, value 0): with_cols, the columns too;
// else the values only, after update_values.
template <class T>
cudaError_t launch_sell_fill(int rows, int c, const int* slice_ptr, const int* perm, const int* row_ptr,
                             const int* col_idx, const T* values, int* col, T* val, bool with_cols,
                             cudaStream_t stream);

// ---------------------------------------------------------------- dense triangular solves
// Diagonal blocks of kTrsvBlock<T> rows; the inverses of op(A)'s diagonal blocks are formed
// first (in parallel), then one kernel walks the block rows with a flag per solved block.
template <class T>
constexpr int kTrsvBlock = sizeof(T) == 4 ? 128 : 64;
constexpr int kTrsvThreads = 256;
struct TriangularShape {
  int n = 0;
  std::int64_t lda = 0;
  bool trans = false;      // op(A) = A^T
  bool eff_lower = false;  // op(A) is lower triangular
  bool unit = false;       // diagonal taken as 1, not read
};
// W: ceil(n / NB) blocks of NB x NB; block b holds inv(op(A)_bb) transposed (column-major).
template <class T>
cudaError_t launch_trsv_invert_diag(const TriangularShape& s, const T* A, T* W, cudaStream_t stream);
// sync: 2 ints, zero on entry (block ticket, solved block count). x: b on entry, solution on exit.
template <class T>
cudaError_t launch_trsv_solve(const TriangularShape& s, const T* A, const T* W, T* x, int* sync,
                              cudaStream_t stream);
// B (rows x cols, ld) *= alpha.
template <class T>
cudaError_t launch_scale_matrix(T* B, std::int64_t rows, std::int64_t cols, std::int64_t ld, T alpha,
                                cudaStream_t stream);

// ---------------------------------------------------------------- sparse triangular solve
constexpr int kSptrsvThreads = 128;
struct SptrsvShape {
  int n = 0;
  bool lower = true;
  bool unit = false;
};
// inv_diag[i] = 1 / (sum of row i's diagonal entries) (1 for unit); *bad_row = min row whose
// diagonal is missing or zero (non_unit only; *bad_row must hold INT_MAX-like on entry); *band
// (zero on entry) = the longest distance from a row to a dependency, in rows.
template <class T>
cudaError_t launch_sptrsv_diag(const SptrsvShape& s, const int* row_ptr, const int* col_idx, const T* values,
                               T* inv_diag, int* bad_row, int* band, cudaStream_t stream);
// Level of every row (1 + max level of its dependencies), computed sync-free in dependency
// order; level (n ints) zero on entry, ticket zero, *max_level zero. For l <=
// kSptrsvLaunchLevelsMax, first_counts[l - 1]: the rows of level l, longest[l - 1]: the most
// entries a row of level l has (kSptrsvLaunchLevelsMax ints each, zero on entry): what a
// schedule solved level by level in one launch needs. Blocks of `threads` (a multiple of 32, at
// most 1024) take chunks of threads x rows_per_thread rows, whose levels they keep in shared
// memory (chunk ints: at most sptrsv_level_chunk_max of the device). `sleep_ns`: the waiting
// threads' longest back-off.
constexpr int kSptrsvLaunchLevelsMax = 16;
struct SptrsvLevelBlocks {
  int threads = 128;
  int rows_per_thread = 1;
};
inline std::int64_t sptrsv_level_chunk_max(std::size_t shared_per_block_optin) {
  const std::size_t reserved = 1024;  // the block's static counters
  if (shared_per_block_optin <= reserved) return 0;
  return static_cast<std::int64_t>((shared_per_block_optin - reserved) / sizeof(int));
}
cudaError_t launch_sptrsv_levels(const SptrsvShape& s, const int* row_ptr, const int* col_idx, int* level,
                                 int* first_counts, int* ticket, int* max_level, int* longest,
                                 const SptrsvLevelBlocks& blocks, int sleep_ns, cudaStream_t stream);
// Exclusive scan of counts[0..len) in place: one block, or past 4096 elements three passes
// through `scratch` (exclusive_scan_scratch_ints(len) ints; none needed below that).
int exclusive_scan_scratch_ints(int len);
cudaError_t launch_exclusive_scan(int* counts, int len, int* scratch, cudaStream_t stream);
// How blocks walk the levels: `parts` blocks, each owning a tile of the rows' positions in
// dependency order (lower: row, upper: n - 1 - row). A position is read as pos = q period + s (q
// the period, s the place in it); the parts are tiles of s_block places by q_block periods,
// part = (q / q_block) s_blocks + s / s_block, and a part's rows have local indices (q % q_block)
// s_block + s % s_block below part_rows = s_block q_block (its x in shared memory). Contiguous
// parts are period = n, q_block = 1, s_block = part_rows; one part (part_rows = n) is one block
// walking every row. Tiles are for banded triangles (period: the band), whose parts then depend
// on their neighbours in s and in q only: a chain of s_blocks + q_blocks parts, not parts
// (backends/cuda/sptrsv.cpp). Rows are bucketed by segment, segment k = (level - 1) * parts +
// part, so the order is by level, and by part within a level.
struct SptrsvWalk {
  int levels = 0;
  int parts = 1;
  int part_rows = 0;
  int period = 1, s_block = 1, q_block = 1, s_blocks = 1;
};
// The walk of `parts` contiguous parts of n positions (one: the whole triangle).
inline SptrsvWalk sptrsv_contiguous_walk(int n, int levels, int parts) {
  SptrsvWalk w;
  w.levels = levels;
  w.part_rows = (n + parts - 1) / parts;
  w.parts = (n + w.part_rows - 1) / w.part_rows;  // no empty part
  w.period = n;
  w.s_block = w.part_rows;
  w.s_blocks = w.parts;
  return w;
}
// A tiled walk checked against `contiguous` (sptrsv_contiguous_walk) of as many parts, before the
// rows are bucketed: out[0] += the dependencies that cross parts of `tiles`, out[1] += those that cross
// parts of `contiguous`, out[2] = 1 if a row depends on a row of a later part of `tiles` (parts
// are taken in order: the walk would then wait on a part that may not have started). out: three
// zeros on entry.
cudaError_t launch_sptrsv_partition_check(const SptrsvShape& s, const SptrsvWalk& tiles, const SptrsvWalk& contiguous,
                                          const int* row_ptr, const int* col_idx, unsigned long long* out,
                                          cudaStream_t stream);
// counts[segment of row i] += 1 (counts zero on entry, levels * parts ints).
cudaError_t launch_sptrsv_segment_counts(const SptrsvShape& s, const SptrsvWalk& w, const int* level, int* counts,
                                         cudaStream_t stream);
// order[cursor[segment of row i]++] = i: with cursor the counts' exclusive scan, the rows by
// segment, cursor[k] left at segment k's end.
cudaError_t launch_sptrsv_scatter(const SptrsvShape& s, const SptrsvWalk& w, const int* level, int* cursor, int* order,
                                  cudaStream_t stream);
// Solve in level order; `ready` (kSptrsvReadyBytes per row) says which rows of this solve are
// final. f32: a word holds the value and the epoch of the solve that wrote it (`epoch`, > 0, new
// per solve; the words zero before the first solve), so they need no clearing between solves.
// f64: a word holds the value alone (value and epoch do not fit one single-copy-atomic access,
// and two words a row held the parts walk to one block an SM by registers), so every byte is set
// to kSptrsvReadyUnsetByte before each solve (kSptrsvReadyClearedPerSolve); the all-ones word is
// a NaN no solve publishes. The blocks' ticket counts on from ticket_base, the tickets earlier
// launches took (each takes one per block). warp_per_row: one warp per row (long rows) instead of
// one thread. residency_smem: dynamic shared memory per block (unused) that caps the resident
// blocks per SM: fewer rows waiting at once means fewer polls competing with the stores they wait
// for.
constexpr int kSptrsvReadyBytes = 8;
template <class T>
constexpr bool kSptrsvReadyClearedPerSolve = sizeof(T) == 8;
constexpr int kSptrsvReadyUnsetByte = 0xff;
// The blocks (tickets) of one such launch: a chunk of kSptrsvThreads rows each, or of a row a warp.
inline unsigned sptrsv_solve_blocks(int n, bool warp_per_row) {
  const int rows = warp_per_row ? kSptrsvThreads / 32 : kSptrsvThreads;
  return static_cast<unsigned>((n + rows - 1) / rows);
}
template <class T>
cudaError_t launch_sptrsv_solve(const SptrsvShape& s, bool warp_per_row, const int* order, const int* row_ptr,
                                const int* col_idx, const T* values, const T* inv_diag, const T* b, T* x,
                                void* ready, int epoch, int* ticket, int ticket_base, std::size_t residency_smem,
                                int sleep_ns, cudaStream_t stream);
// A schedule of at most kSptrsvLaunchLevelsMax levels in one launch: level l's rows at positions
// [first[l], first[l + 1]) of `info` (as launch_sptrsv_block_info writes it), `lanes[l]` (1, 2, 4,
// ... 32) threads a row, each loading kSptrsvLevelEntries entries at a time; its blocks
// (kSptrsvThreads threads) are [block_end[l - 1], block_end[l]), by ticket (ticket_base as in
// launch_sptrsv_solve) or, with ticket null (only where no block waits: two levels, x not b), by
// block index. done[l] counts level l's finished blocks on from done_base[l] (the counts earlier
// launches added: the host counts them).
constexpr int kSptrsvLevelEntries = 8;
struct SptrsvLevelTable {
  int levels = 0;
  int first[kSptrsvLaunchLevelsMax + 1] = {};
  int lanes[kSptrsvLaunchLevelsMax] = {};
  int block_end[kSptrsvLaunchLevelsMax] = {};
  int done_base[kSptrsvLaunchLevelsMax] = {};
};
template <class T>
cudaError_t launch_sptrsv_levels_solve(const SptrsvShape& s, const SptrsvLevelTable& tab, const int4* info,
                                       const int* col_idx, const T* values, const T* inv_diag, const T* b, T* x,
                                       int* ticket, int ticket_base, int* done, int sleep_ns, cudaStream_t stream);
// Blocks walk the levels (SptrsvWalk; one block for schedules of narrow levels, sptrsv.syncfree;
// parts of the rows for wide ones, sptrsv.parts) over the analysis's copy of the triangle in
// segment order (SptrsvEntries), segment k's rows at positions [seg_end[k - 1], seg_end[k]).
// `lanes` (1, 2, 4, ... 32) threads share a row, each holding up to kSptrsvBlockEntries of its
// entries ahead of time; `threads` (a multiple of 32 and of lanes, at most
// sptrsv_block_threads(parts > 1)) in a block; smem_x: the part's x kept in shared memory too
// (part_rows values fit the block's opt-in shared memory). Parts > 1: rows of earlier parts are
// read from `ready` (epoch, ticket and ticket_base as in launch_sptrsv_solve; one ticket per
// block), and every row is published there.
constexpr int kSptrsvBlockThreads = 512;
constexpr int kSptrsvBlockEntries = 8;
// Parts hold fewer, for three rows' worth of registers (two levels ahead): lanes are chosen for
// rows of twice the mean length in kSptrsvBlockEntries, so a mean row still fits; longer ones
// load the rest as they go.
constexpr int kSptrsvPartEntries = 4;
// Parts hold the published words of their entries too: 256 threads leave them the registers
// (f64 spilled at 512's 128).
constexpr int sptrsv_block_threads(bool parts) { return parts ? kSptrsvBlockThreads / 2 : kSptrsvBlockThreads; }
cudaError_t launch_sptrsv_block_info(int n, const int* order, const int* row_ptr, int4* info, cudaStream_t stream);
// The block walks' copy of the triangle, built by the analysis (the plan holds the values: a
// solve after CsrMatrix::update_values is refused). Position p (segment order) of row info[p].x
// has info[p].z strict-triangle entries (the diagonal is inv_pos[p]); its k-th, for lane k %
// lanes, at ecol / eval[info[p].y + 32 (k / lanes) + k % lanes]; info[p].w = p. An entry's column
// j is ecol's as it is where j lies in another part (its value then polled from the published
// words), and -1 - i where j is in the row's own part, i its local index (SptrsvWalk) if the
// part's x is in shared memory (local_x), else j. A warp's W = 32 /
// lanes positions p with equal p / W (a slab) interleave their entries, so that a warp loading
// each lane's next entry reads 32 consecutive words wherever its positions share a slab: the
// rows of a level are far apart in the matrix, and loading each row's entries from CSR took a
// cache line per row and load (ncu: the level's time grew with its rows by ~10 ns each,
// bench/RESULTS.md, session 32). Each slab is as deep as its longest row's entries a lane.
// The lane counts the walks are built for (1, 2, 4, ... 32).
constexpr bool sptrsv_lanes_valid(int lanes) { return lanes >= 1 && lanes <= 32 && (lanes & (lanes - 1)) == 0; }
template <class T>
struct SptrsvEntries {
  int4* info = nullptr;
  T* inv_pos = nullptr;
  int* ecol = nullptr;
  T* eval = nullptr;
};
// *widest (zero on entry) = the most rows a segment holds (seg_end: the segments' ends).
cudaError_t launch_sptrsv_widest_segment(const int* seg_end, int segments, int* widest, cudaStream_t stream);
// Step 1: len[p] = position p's strict-triangle entries, slab_words[slab] = the words its slab
// takes (scanned by the caller into the slabs' offsets: launch_exclusive_scan), *total (zero on
// entry) += all slabs' words. lanes: a power of two.
cudaError_t launch_sptrsv_entry_counts(const SptrsvShape& s, const int* order, const int* row_ptr, const int* col_idx,
                                       int lanes, int* len, int* slab_words, unsigned long long* total,
                                       cudaStream_t stream);
// Step 2: the copy, from the slabs' offsets; local_x: in-part columns as local indices (the
// walk keeps x in shared memory).
template <class T>
cudaError_t launch_sptrsv_entry_fill(const SptrsvShape& s, const SptrsvWalk& w, bool local_x, const int* order,
                                     const int* row_ptr, const int* col_idx, const T* values, const T* inv_diag,
                                     int lanes, const int* len, const int* slab_base, const SptrsvEntries<T>& out,
                                     cudaStream_t stream);
template <class T>
struct SptrsvBlockArgs {
  const int* seg_end = nullptr;
  const int4* info = nullptr;  // SptrsvEntries's, as are the next three
  const int* ecol = nullptr;
  const T* eval = nullptr;
  const T* inv_pos = nullptr;
  const T* b = nullptr;
  T* x = nullptr;
  int lanes = 1, threads = 32;
  bool smem_x = false;
  void* ready = nullptr;  // parts > 1 only, with the rest
  int epoch = 0;
  int* ticket = nullptr;
  int ticket_base = 0;
  int sleep_ns = 0;
};
template <class T>
cudaError_t launch_sptrsv_block_solve(const SptrsvShape& s, const SptrsvWalk& w, const SptrsvBlockArgs<T>& a,
                                      cudaStream_t stream);
// Blocks of the parts walk (launch_sptrsv_block_solve, parts > 1) that one SM holds at once with
// `threads` threads and smem_x_rows values of x in shared memory (0: smem_x off), by the
// occupancy calculator (0 on any error).
template <class T>
int sptrsv_parts_resident(int lanes, int threads, std::int64_t smem_x_rows);

// ---------------------------------------------------------------- gemm
// Tile shapes: GemmTile (gemm, trsm's updates, the f32 convolution layer) and ConvGemmTile (the
// f64 convolution layer's register-staged main loop, gemm_core.cuh); GemmProblem: one gemm's
// sizes, layouts and the tile width chosen for it.
//
// ConvGemmTile: block tile BM x BN x BK, TM x TN outputs per thread, 256 threads. NARROW halves
// BN and TN: twice the blocks, for problems whose wide tiles would leave the last wave of blocks
// mostly empty or that are narrower than a wide tile.
template <class T, bool NARROW = false>
struct ConvGemmTile {
  static constexpr int BM = sizeof(T) == 4 ? 128 : 64;
  static constexpr int BN = (sizeof(T) == 4 ? 128 : 64) / (NARROW ? 2 : 1);
  static constexpr int BK = 8;
  static constexpr int TM = sizeof(T) == 4 ? 8 : 4;
  static constexpr int TN = (sizeof(T) == 4 ? 8 : 4) / (NARROW ? 2 : 1);
  static constexpr int BLOCKS_PER_SM = 2;  // the kernels' __launch_bounds__ (<= 128 registers)
  static constexpr double NARROW_MARGIN = 1.15;  // narrow tiles must fill the waves this much better
  // Time of a block alone on its SM, in blocks' times at full occupancy (plan/gemm_grid.hpp):
  // BLOCKS_PER_SM counts a lone block as a full SM's round (not measured for these kernels).
  static constexpr double ALONE = BLOCKS_PER_SM;
};
// GemmTile: the gemm kernels' tiles: cp.async pipeline of STAGES k-tiles; f32 on FFMA
// (gemm_ffma.cuh, which keeps the next k-step's fragments in flight; also the f32 convolution
// layer's tiles), f64 on the FP64 tensor cores (gemm_dmma.cuh: BM x BN along the mma's M and N
// sides, which are C's columns and rows for C = A B; at most 255 registers a thread, two blocks an
// SM). The f32 wide tiles have two kernels on the same blocks (so the wave model is the same for
// both): DEEP, 8 x 16 outputs a thread, where k is long (GemmProblem::deep, tuning key
// gemm.deep_k), else 8 x 8.
template <class T, bool NARROW = false, bool DEEP = false>
struct GemmTile {
  static constexpr bool F32 = sizeof(T) == 4;
  static_assert(!DEEP || (F32 && !NARROW), "only the f32 wide tiles have a deep kernel");
  static constexpr int BM = F32 || !NARROW ? 128 : 64;
  static constexpr int BN = F32 && !NARROW ? 128 : 64;
  // f32, H200, medians at n = 4096 / 8192 / 5000 x 3000 x 2000 (cuBLAS 2.71-2.75 / 21.4-21.6 /
  // 1.39-1.43 ms in the same runs; bench/RESULTS.md, sessions 45 and 46):
  // - DEEP, 8 x 16 a thread (128 threads, up to 255 registers), BK 8, 4 stages: 3.05-3.06 /
  //   24.1 / 1.54; 3 stages 3.04-3.08 / 24.0-24.2 / 1.53-1.55, 2 stages 3.06-3.08 / 24.2; BK 16
  //   3.08-3.09 / 24.3 / 1.55. On the Winograd layers' batched products (k = 384 and 256) the
  //   layers took 0.520 and 0.144 ms where 8 x 8 took 0.460 and 0.123; at 4096 x 4096 and k =
  //   1024, 2048, 3072 the two tie (0.80, 1.55, 2.32 ms): 8 x 8 below gemm.deep_k.
  // - 8 x 8 a thread (256 threads, 128 registers: a quarter of its FFMAs read three sources of
  //   one register bank), BK 16: 3.14-3.18 / 24.8-25.0 / 1.53-1.54; BK 8 3.18, BK 32 3.15; 256 x
  //   128 tiles of 8 x 16 with one block an SM (cuBLAS's shape) 3.20-3.30.
  // - narrow, 8 x 8 a thread (128 threads), BK 16 on gemm_ffma.cuh's loop: 16384 x 64 x 16384
  //   0.90 ms, 64 x 16384 x 16384 0.83 (gemm_async.cuh's loop 0.93 / 0.88; BK 8 0.90 / 0.85; three
  //   blocks an SM instead of four 1.11 / 0.82).
  static constexpr int BK = DEEP ? 8 : 16;
  static constexpr int STAGES = DEEP ? 4 : 3;
  // Outputs per thread (f32) / per warp (f64: 2 x 2 warps).
  static constexpr int TM = F32 ? 8 : BM / 2;
  static constexpr int TN = F32 ? (DEEP ? 16 : 8) : 32;
  // f32: 256 threads (deep and narrow 128) of <= 128 registers (deep <= 255); f64 narrow: 4 (128
  // registers) spilled.
  static constexpr int BLOCKS_PER_SM = F32 && NARROW ? 4 : 2;
  // Narrow tiles' rate against the wide ones' (H200, n = 4096, gemm.tiles forced): f32 3.53
  // against 3.05 ms (session 46); f64: 64 x 16384 x 16384 narrow 0.91 ms against wide tiles on
  // half the k each 0.79 (session 22).
  static constexpr double NARROW_MARGIN = 1.15;
  // f64: the main loop pipelined across the barrier (gemm_dmma.cuh) on the wide tiles only (H200,
  // session 28, A/B in one run: wide 0.85 -> 0.87x cuBLAS at n = 4096, 0.87 -> 0.90x at 64 x 16384
  // x 16384; the narrow tiles, two row blocks a warp, lost 0.85 -> 0.77x at 16384 x 64 x 16384,
  // and again unrolled by their stages: 0.906 against 0.974 ms).
  static constexpr bool DMMA_PIPELINE = !F32 && !NARROW;
  // Time of a block alone on its SM, in blocks' times at full occupancy (plan/gemm_grid.hpp), on
  // an H200 (bench/RESULTS.md, session 22; one block an SM against BLOCKS_PER_SM on a part of the
  // k each): f32 narrow 1.100 ms against 0.924 with four (16384 x 64 x 16384); f32 wide 1.099
  // against 1.043 with two (measured on 256-thread 128 x 64 tiles, the wide tiles' kind); f64
  // 0.94 against 0.79 (64 x 16384 x 16384, wide): four DMMA warps alone hide little latency. The
  // f32 deep kernel (four warps a block) measured 1.16 (1024 x 1024 x 65536 in two parts, 3.53
  // ms, against four, 3.04; session 46): not applied, the model has one wide tile for both.
  static constexpr double ALONE = F32 ? (NARROW ? 1.19 : 1.05) : 1.19;
};
// f64 gemm puts the x-contiguous operand on the mma's M side (gemm_dmma.cuh): for C = A B that is
// op(B), and the blocks' BM then runs along C's columns.
inline bool dmma_swaps(bool ta, bool tb) { return !ta && !tb; }
// Tf32GemmTile: f32 gemm on the TF32 tensor cores (MathMode::tf32 and tf32x3, gemm_tf32.cuh):
// mma.sync m16n8k8 with FP32 accumulators on the same cp.async pipeline and shared-memory
// layout as GemmTile; 8 warps of WM x WN outputs: 128 x 128 blocks of 2 x 4 warps of 64 x 32,
// narrow 128 x 64 of 4 x 2 warps of 32 x 32. BK = 32: four mma k-steps per barrier.
template <bool NARROW = false>
struct Tf32GemmTile {
  static constexpr int BM = 128;
  static constexpr int BN = NARROW ? 64 : 128;
  static constexpr int BK = 32;
  static constexpr int STAGES = 3;
  static constexpr int WM = NARROW ? 32 : 64;  // outputs per warp
  static constexpr int WN = 32;
  static constexpr int BLOCKS_PER_SM = 2;  // 2 x 102 KB of shared memory (wide) fit an SM's 228 KB
  static constexpr double NARROW_MARGIN = 1.15;  // not measured yet: the f64 DMMA tiles' margin
  // A block alone on its SM, in blocks' times at two an SM (H200, session 22; one block an SM
  // against two on half the k each): 128 x 64 tiles, 16384 x 64 x 16384: tf32 0.93, tf32x3 1.09;
  // 128 x 128 tiles, 1024 x 1024 x 32768: tf32 1.13, tf32x3 1.38. One value for all: the
  // model then splits the 16384 x 64 tf32 product too (7 % slower there).
  static constexpr double ALONE = 1.3;
};
// Split-k's price in the grid model (plan/gemm_grid.hpp): the parts' sums go through memory
// once more (written, then read by launch_gemm_split_sum), priced at the unit's balance, its peak
// FLOP/s over the DRAM bandwidth (H100 / H200: FP32 FMA and FP64 tensor cores 67 TFLOP/s, TF32
// 495, a third of it for tf32x3's products; 3.35-4.8 TB/s).
constexpr double gemm_split_balance(MathMode math) {
  return math == MathMode::tf32 ? 150.0 : (math == MathMode::tf32x3 ? 50.0 : 20.0);
}
struct GemmProblem {
  std::int64_t m = 0, n = 0, k = 0;
  bool ta = false, tb = false;
  bool narrow = false;  // GemmTile<T, true> (Tf32GemmTile<true> for the TF32 modes)
  std::int64_t lda = 0, ldb = 0, ldc = 0;
  MathMode math = MathMode::exact;  // f32 only: tf32 and tf32x3 run on Tf32GemmTile
  // batch independent products (grid.z), the i-th at A + i stride_a, B + i stride_b, C + i
  // stride_c (the Winograd convolution's a^2 channel sums, conv_winograd.cu).
  std::int64_t batch = 1, stride_a = 0, stride_b = 0, stride_c = 0;
  // Split-k (plan/gemm_grid.hpp decides, launch_gemm_split_sum finishes): grid.z = batch x splits;
  // product z's part p = z % splits sums k in [p k_chunk, min(k, (p + 1) k_chunk)) from A +
  // p split_a, B + p split_b (k_chunk elements along k) into its own C (stride_c apart).
  int splits = 1;
  std::int64_t k_chunk = 0, split_a = 0, split_b = 0;
  // f32 exact wide tiles: the deep kernel (GemmTile<float, false, true>), for long k.
  bool deep = false;
  // The f32 kernels' transposed store (FFMA and TF32 mma.sync; plan/gemm_grid.hpp decides): the
  // kernel's product is C^T = op(B)^T op(A)^T, its element (i, j) written at C[j ldc + i].
  bool c_trans = false;
};
// Finishes a split-k gemm: C(i, j) = alpha sum_p W_p(i, j) + beta C(i, j) (beta == 0: C is not
// read) for every product of the batch, the parts summed in order p = 0, 1, ... (the same result
// every run). W: product b's part p at W + (b splits + p) m n, each m x n with leading dimension n.
template <class T>
cudaError_t launch_gemm_split_sum(std::int64_t m, std::int64_t n, std::int64_t batch, int splits, const T* W, T alpha,
                                  T beta, T* C, std::int64_t ldc, std::int64_t stride_c, cudaStream_t stream);
template <class T>
cudaError_t launch_gemm(const GemmProblem& s, T alpha, const T* A, const T* B, T beta, T* C, cudaStream_t stream);
// f32 under tf32 / tf32x3 on Hopper's wgmma (kernels/cuda/gemm_wgmma.cu; built only where the
// plugin targets sm_90, TESSERA_CUDA_SM90A, and run only on compute capability 9.0). Applies
// where one operand is K-major in memory (not op(A) = A^T with op(B) = B), both bases are 16-byte
// aligned and both leading dimensions multiples of 4 (the copy engine's rule).
// A batch's strides must keep every matrix 16-byte aligned.
bool gemm_wgmma_applies(const GemmProblem& s, const float* A, const float* B);
// Q (the K-major operand, below) rounded to TF32 (tf32x3: and split into hi and lo) before the
// products, into a workspace, in chunks of `rows` of Q's rows of `batch` matrices each
// (gemm_wgmma.cu says why). rows == 0: rounded in the kernel instead (a workspace too small for
// one tile's rows).
struct WgmmaRoundPlan {
  std::int64_t rows = 0, batch = 0;
};
WgmmaRoundPlan gemm_wgmma_round_plan(const GemmProblem& s, std::size_t workspace_bytes);
std::size_t gemm_wgmma_round_bytes(const GemmProblem& s, const WgmmaRoundPlan& plan);
cudaError_t launch_gemm_wgmma(const GemmProblem& s, float alpha, const float* A, const float* B, float beta, float* C,
                              const WgmmaRoundPlan& plan, float* workspace, cudaStream_t stream);
// The roles (gemm_wgmma.cu): Q, the K-major operand, is op(B) stored n x k when op(B) = B^T,
// else A (and C is computed transposed); P is the other. Block tile: 128 rows of P x
// gemm_wgmma_tile_n rows of Q.
inline bool gemm_wgmma_swaps(const GemmProblem& s) { return !s.tb; }
constexpr int kGemmWgmmaTileM = 128;
constexpr int gemm_wgmma_tile_n(MathMode m) { return m == MathMode::tf32x3 ? 128 : 256; }

// ---------------------------------------------------------------- spmm (CSR x dense)
// Y = alpha A X + beta Y, X and Y row-major (leading dimensions ldx, ldy), k columns; `block`
// threads a block (a multiple of 32). read_y == false: beta == 0, Y is not read. With long set,
// rows of more than long_row entries are listed on the device (long_counts: two ints, the launch
// clears them; at most nnz / (long_row + 1) rows in long_list) and cut into chunks of
// long_chunk entries (long_chunks: at most spmm_long_chunks(nnz, long_row, long_chunk)), each
// chunk's sums over at most kSpmmLongPass columns at a time written to long_partial (that many
// chunks x that many columns), then added in chunk order per row by the block that finishes
// the row's last chunk: one SM no longer walks a row of thousands of entries alone, and a row's
// result does not depend on the run. long_listed: the listing is already there (it depends on
// the matrix's structure and long_chunk only; the caller keeps it per matrix), not redone.
constexpr int kSpmmLongThreads = 256;
constexpr int kSpmmLongPass = 64;
// Entries a group of a chunk's block takes in turn: its lanes' loads of X, unrolled by 4, stay in
// flight across them.
constexpr int kSpmmChunkSteps = 32;
// The lanes a row's group has (the columns across them): the power of two >= k, at most 32.
constexpr int spmm_lanes(std::int64_t k) {
  int w = 1;
  while (w < 32 && w < k) w *= 2;
  return w;
}
constexpr int spmm_long_chunk(std::int64_t k) { return kSpmmLongThreads / spmm_lanes(k) * kSpmmChunkSteps; }
// Every long row has at most len / chunk + 1 chunks.
constexpr std::int64_t spmm_long_rows(std::int64_t nnz, std::int64_t long_row) { return nnz / (long_row + 1) + 1; }
constexpr std::int64_t spmm_long_chunks(std::int64_t nnz, std::int64_t long_row, int chunk) {
  return nnz / chunk + spmm_long_rows(nnz, long_row);
}
template <class T>
struct SpmmArgs {
  std::int64_t rows = 0, k = 0;
  const int* row_ptr = nullptr;
  const int* col_idx = nullptr;
  const T* values = nullptr;
  const T* X = nullptr;
  std::int64_t ldx = 0;
  T alpha{}, beta{};
  bool read_y = false;
  T* Y = nullptr;
  std::int64_t ldy = 0;
  int block = 256;
  bool long_rows = false;
  int long_row = 0, long_chunk = 0;
  bool long_listed = false;
  int* long_counts = nullptr;  // [0]: long rows, [1]: chunks
  int4* long_list = nullptr;   // row, first chunk, chunks, chunks finished (0 between launches)
  int2* long_chunks = nullptr;  // the row's place in long_list, chunk index within the row
  T* long_partial = nullptr;
  int long_blocks = 0;  // blocks of the chunk kernel
  bool one_launch = false;  // the rows and the chunks' first pass in one launch (block must be kSpmmLongThreads)
};
template <class T>
cudaError_t launch_spmm(const SpmmArgs<T>& a, cudaStream_t stream);

// ---------------------------------------------------------------- stencil
template <class T>
struct StencilCoeffs {
  T c[5];
};
constexpr int kStencil2dBlockX = 32, kStencil2dBlockY = 8, kStencil2dRowsPerThread = 4;
constexpr int kStencil3dBlockX = 32, kStencil3dBlockY = 8;
constexpr int kStencil3dCellsX = 4;    // the plane sweep's run of cells per thread along x (tile 128 x 8)
constexpr int kStencil3dPrefetch = 2;  // planes of the register queue loaded ahead
// One Jacobi step: every cell of `out` written (boundary cells copied from `in`).
template <class T>
cudaError_t launch_stencil2d(int radius, const StencilCoeffs<T>& c, const T* in, T* out, std::int64_t nx,
                             std::int64_t ny, cudaStream_t stream);
// 3D, the plane sweep (z_chunk planes a block, runs of kStencil3dCellsX cells a thread); grids
// whose nx or alignment does not allow the runs take launch_stencil3d_cell with one cell.
template <class T>
cudaError_t launch_stencil3d(int radius, const StencilCoeffs<T>& c, const T* in, T* out, std::int64_t nx,
                             std::int64_t ny, std::int64_t nz, int z_chunk, cudaStream_t stream);
// The same step with a thread per `cells` consecutive cells along x (stencil.plane_sweep = 0;
// cells 1, 2 or 4, loaded as vectors), the same result bit for bit. stencil3d_cell_run: the run
// length taken, 1 where nx or the grids' alignment does not allow `cells`.
int stencil3d_cell_run(int cells, const void* in, const void* out, std::int64_t nx, std::size_t elem);
template <class T>
cudaError_t launch_stencil3d_cell(int radius, int cells, const StencilCoeffs<T>& c, const T* in, T* out,
                                  std::int64_t nx, std::int64_t ny, std::int64_t nz, cudaStream_t stream);
// 3D, the plane sweep with its planes brought by Hopper's bulk tensor copy into a ring in shared
// memory (kernels/cuda/stencil_tma.cu; built where the plugin targets sm_90, TESSERA_CUDA_SM90A,
// run on compute capability 9.0 only): blocks of `lanes` x `rows` threads (32 x 8, 16 x 16 or 8 x
// 32, compiled to fit min_blocks 2 or 3 an SM; 32 x 16 for one), each a 16-byte run of cells
// along x, over z_chunk planes; `prefetch` planes in flight beyond the one awaited. Each cell's
// sum is launch_stencil3d's, in its order. Applies where both grids are 16-byte aligned and a row
// is a multiple of 16 bytes (stencil3d_tma_applies).
struct StencilBulkShape {
  int lanes = 32, rows = 16, min_blocks = 1, z_chunk = 64, prefetch = 3;
};
constexpr bool stencil3d_tma_shape_built(int lanes, int rows) {
  return (lanes == 32 && (rows == 8 || rows == 16)) || (lanes == 16 && rows == 16) || (lanes == 8 && rows == 32);
}
constexpr int stencil3d_tma_tile_x(int lanes, std::size_t elem) { return lanes * 16 / static_cast<int>(elem); }
bool stencil3d_tma_applies(const void* in, const void* out, std::int64_t nx, std::int64_t ny, std::int64_t nz,
                           std::size_t elem);
template <class T>
cudaError_t launch_stencil3d_tma(int radius, const StencilBulkShape& b, const StencilCoeffs<T>& c, const T* in, T* out,
                                 std::int64_t nx, std::int64_t ny, std::int64_t nz, cudaStream_t stream);
// The 3D 7-point stencil (radius 1), `levels` (2..kStencilTblockMaxLevels) Jacobi steps in one
// pass (temporal blocking, kernels/cuda/stencil.cu): blocks of lx x ly threads, a tile of as many
// cells whose inner (lx - 2 levels) x (ly - 2 levels) are written; every cell of `out` written
// (boundary cells copied), as launch_stencil3d. lx * ly <= 1024, both > 2 levels. min_blocks 2:
// the 1024-thread compile-time tiles (32 x 32, 64 x 16) built to fit two blocks per SM
// (__launch_bounds__(1024, 2): at most 32 registers a thread, spilling where more are needed);
// 1 or other tiles: the compiler's choice.
constexpr int kStencilTblockMaxLevels = 4;
template <class T>
cudaError_t launch_stencil3d_tblock(int levels, const StencilCoeffs<T>& c, const T* in, T* out, std::int64_t nx,
                                    std::int64_t ny, std::int64_t nz, int lx, int ly, int min_blocks,
                                    cudaStream_t stream);
// The same passes with a thread per 16-byte run of cells along x in `rows` (1, 2 or 4) rows
// (kernels/cuda/stencil_tblock.cu): blocks one warp wide and 32 / rows warps tall, x neighbours by
// warp shuffles, only each thread's first and last rows through shared memory; `levels` 1..4 (1:
// one step, a plane sweep through the same ring). Applies where nx and both grids allow the runs
// (stencil3d_tblock_runs_applies); each cell's operations are launch_stencil3d's, in its order
// (checked against the reference within the derived bound). z goes in chunks of z_chunk planes a
// block, chosen by plan/stencil_chunks.hpp from stencil3d_tblock_runs_tiling (the tiles of a
// plane, the iterations of a chunk's pipeline; xy_tiles 0 for a pair not built) and
// stencil3d_tblock_runs_resident (blocks resident an SM, a runtime query on the current device;
// it also sets the kernel's shared-memory size there).
constexpr int kStencilTblockRunsPrefetch = 2;  // planes loaded ahead of the one consumed
bool stencil3d_tblock_runs_applies(const void* in, const void* out, std::int64_t nx, std::size_t elem);
struct StencilRunsTiling {
  std::int64_t xy_tiles = 1;
  std::int64_t pipeline = 0;
};
StencilRunsTiling stencil3d_tblock_runs_tiling(int levels, int rows, std::size_t elem, std::int64_t nx,
                                               std::int64_t ny);
cudaError_t stencil3d_tblock_runs_resident(int levels, int rows, std::size_t elem, int* blocks);
template <class T>
cudaError_t launch_stencil3d_tblock_runs(int levels, int rows, const StencilCoeffs<T>& c, const T* in, T* out,
                                         std::int64_t nx, std::int64_t ny, std::int64_t nz, std::int64_t z_chunk,
                                         cudaStream_t stream);

// The general stencil (per-axis coefficients, faces 0 Dirichlet / 1 Neumann / 2 periodic as
// StencilBoundary, a source; lib/include/tessera/stencil.hpp): one step, every cell of `out`
// written (cells the faces keep fixed copied from `in`).
template <class T>
struct GeneralStencilArgs {
  int ndim = 2;
  std::int64_t nx = 0, ny = 0, nz = 1;
  T centre{}, source{};
  T axis[3][4] = {};  // [a][d - 1]
  int faces[6] = {};  // x low, x high, y low, y high, z low, z high
};
constexpr int kStencilGeneralBlockX = 32, kStencilGeneralBlockY = 8;
template <class T>
cudaError_t launch_stencil_general(int radius, const GeneralStencilArgs<T>& a, const T* in, T* out,
                                   cudaStream_t stream);

// ---------------------------------------------------------------- convolution
constexpr int kConvTileX = 32, kConvTileY = 32, kConvThreadsY = 8;
constexpr int kConvConstFilterMax = 32;  // K <= this: filter in constant memory
constexpr int kConvSharedMax = 65;       // K <= this: shared-memory tile kernel
struct Conv2dShape {
  std::int64_t H = 0, W = 0, K = 0, P = 0, Q = 0;
  std::int64_t ld_img = 0, ld_filt = 0, ld_out = 0;
  std::int64_t pad = 0;  // rows/cols of zeros before the image (same mode)
};
template <class T>
cudaError_t launch_conv2d(const Conv2dShape& s, const T* image, const T* filter, T* out, cudaStream_t stream);

struct ConvLayerShape {
  std::int64_t N = 0, C = 0, H = 0, W = 0;  // input
  std::int64_t K = 0, R = 0, S = 0;         // filters
  std::int64_t P = 0, Q = 0;                // output
  std::int64_t pad_h = 0, pad_w = 0, stride_h = 1, stride_w = 1;
};
// table: C*R*S int2 of scratch for the (c, r, s) -> offset lookup of the implicit im2col.
// math (f32 only): tf32 / tf32x3 run on Tf32GemmTile (narrow: Tf32GemmTile<true>); deep: f32
// exact wide tiles on the deep kernel (GemmProblem::deep).
template <class T>
cudaError_t launch_conv_layer(const ConvLayerShape& s, bool narrow, bool deep, MathMode math, const T* in,
                              const T* filter, T* out, int2* table, cudaStream_t stream);

// The conv layer with 3 x 3 filters and stride 1 summed directly on the TF32 tensor cores, f32
// under MathMode::tf32 / tf32x3 (kernels/cuda/conv_direct_tc.cu): a halo tile of the input in
// shared memory serves all nine taps. workspace: conv3x3_direct_tc_workspace(s, math) bytes, the
// filter rearranged into the tensor cores' fragment order (written by the launch, stream order).
bool conv3x3_direct_tc_applies(const ConvLayerShape& s);
std::int64_t conv3x3_direct_tc_workspace(const ConvLayerShape& s, MathMode math);
cudaError_t launch_conv3x3_direct_tc(const ConvLayerShape& s, MathMode math, const float* in, const float* filter,
                                     float* out, float* workspace, cudaStream_t stream);

// The conv layer as Winograd's F(m x m, 3 x 3), m = 2 or 4 (kernels/cuda/conv_winograd.cu;
// transforms: tessera/winograd.hpp), for 3 x 3 filters with stride 1: the transforms around a
// batched GEMM that the caller launches: a^2 products (a = m + 2) with inner dimension C, either
// M[e] = U[e] V[e] (K x T, tk false) or M^T[e] = V[e]^T U[e]^T (T x K, tk true). U: a^2 x K x C
// (leading dimension ldu >= C); V: a^2 x C x T (leading dimension ldt >= T); M: a^2 x K x T
// (leading dimension ldt) or M^T: a^2 x ldt x K (leading dimension ldk >= K); T = N tiles_h
// tiles_w tiles of the N images given (a chunk of the batch: in and out point at its first image).
struct WinogradShape {
  int m = 4;
  std::int64_t N = 0, C = 0, H = 0, W = 0, K = 0, P = 0, Q = 0;
  std::int64_t pad_h = 0, pad_w = 0;
  std::int64_t tiles_h = 0, tiles_w = 0;  // ceil(P / m), ceil(Q / m)
  std::int64_t ldt = 0, ldk = 0;
  bool tk = false;
};
template <class T>
cudaError_t launch_winograd_filter(int m, std::int64_t K, std::int64_t C, std::int64_t ld, bool ck, const T* filter,
                                   T* U, cudaStream_t stream);
template <class T>
cudaError_t launch_winograd_input(const WinogradShape& s, const T* in, T* V, cudaStream_t stream);
template <class T>
cudaError_t launch_winograd_output(const WinogradShape& s, const T* M, T* out, cudaStream_t stream);
// The products of f32 layers with few channels (kernels/cuda/conv_winograd_products.cu), in place
// of gemm's tiles: M[e] = U[e] V[e] (K x T: M[e][k][t], leading dimension s.ldt; s.tk false), U
// stored U[e][c][k] (launch_winograd_filter's ck, leading dimension s.ldk), V[e] C x T; FP32 sums
// whatever the math mode. One block per slot of the device's sms, at most max_blocks where that
// is > 0 (tests: many units a block).
constexpr std::int64_t kWinogradProductsMaxC = 64;
bool winograd_products_apply(std::int64_t C);
cudaError_t launch_winograd_products(const WinogradShape& s, const float* U, const float* V, float* M, int sms,
                                     int max_blocks, cudaStream_t stream);

}  // namespace tessera::cuda
