// Sparse triangular solve on CSR (only the triangle named by uplo is used).
//
// Analysis, all on the GPU (no matrix copy to the host): the diagonal of every row (inverted,
// checked), the level of every row computed sync-free (a row's level is one more than its
// dependencies'; a block's own rows wait on each other in shared memory, on earlier blocks' rows
// in L2), then rows are bucketed by segment: by level, and within
// a level by part of the rows (histogram, scan, scatter). Cost: a few passes over the matrix
// plus the level chain; no sort.
//
// Solve, four ways (the backend picks):
// - Narrow levels (plan::solve_sync_free): one block walks them with a barrier between levels
//   (solve_block_kernel below).
// - Wide levels: one block per part of the rows walks every level over its part, a barrier
//   between its levels, the rows of earlier parts read from their published words
//   (solve_block_kernel with PARTS).
// - Few wide levels (a handful, sptrsv.few_levels): one launch, blocks level by level
//   (solve_levels_kernel).
// - Or sync-free in level order: blocks take rows in level order through an atomic ticket, so
//   whatever a row waits for is held by a thread that is already running (no deadlock); the
//   window of rows in flight (bounded: a few blocks per SM) spans several levels, so rows of one
//   level proceed in parallel and a row starts the moment its own dependencies are done.
// A row is published as its value and the solve's epoch in single-copy-atomic words (Published
// below); the epoch changes per solve, so the words need no clearing between solves.
#include <algorithm>
#include <climits>
#include <type_traits>

#include "kernels/cuda/common.cuh"

namespace tessera::cuda {

namespace {

__device__ __forceinline__ bool depends(bool lower, int row, int col) { return lower ? col < row : col > row; }

// The position of a row in dependency order, and its part and local index in a walk (SptrsvWalk).
__device__ __forceinline__ int pos_of(const SptrsvShape& s, int row) { return s.lower ? row : s.n - 1 - row; }
__device__ __forceinline__ int part_of(const SptrsvWalk& w, int pos) {
  const int q = pos / w.period, place = pos - q * w.period;
  return q / w.q_block * w.s_blocks + place / w.s_block;
}
__device__ __forceinline__ int local_of(const SptrsvWalk& w, int pos) {
  const int q = pos / w.period, place = pos - q * w.period;
  return q % w.q_block * w.s_block + place % w.s_block;
}

// One thread a row; the band through a block-wide maximum first (one global atomic a block).
template <class T>
__global__ __launch_bounds__(256) void diag_kernel(SptrsvShape s, const int* __restrict__ row_ptr,
                                                   const int* __restrict__ col_idx, const T* __restrict__ values,
                                                   T* __restrict__ inv_diag, int* __restrict__ bad_row,
                                                   int* __restrict__ band) {
  __shared__ int block_band;
  if (threadIdx.x == 0) block_band = 0;
  __syncthreads();
  const int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < s.n) {
    T d = 0;
    bool found = false;
    int far = 0;
    for (int e = row_ptr[row]; e < row_ptr[row + 1]; ++e) {
      const int j = col_idx[e];
      if (j == row) {
        d += values[e];  // duplicates add up, as they would in A x
        found = true;
      } else if (depends(s.lower, row, j)) {
        far = max(far, s.lower ? row - j : j - row);
      }
    }
    if (s.unit) {
      inv_diag[row] = T(1);
    } else if (!found || d == T(0)) {
      atomicMin(bad_row, row);
      inv_diag[row] = T(0);
    } else {
      inv_diag[row] = T(1) / d;
    }
    if (far > 0) atomicMax(&block_band, far);
  }
  __syncthreads();
  if (threadIdx.x == 0 && block_band > 0) atomicMax(band, block_band);
}

// Waits (acquire) until *p satisfies pred, with exponential back-off up to max_sleep_ns: the
// waiting threads of a wide window would otherwise flood L2 with polls and slow down the very
// stores they wait for.
template <class Pred>
__device__ __forceinline__ int wait_for(const int* p, Pred pred, int max_sleep_ns) {
  int v = load_acquire(p);
  unsigned ns = 16;
  while (!pred(v)) {
    __nanosleep(ns);
    if (ns < static_cast<unsigned>(max_sleep_ns)) ns *= 2;
    v = load_acquire(p);
  }
  return v;
}

// Each block takes one chunk of ROWS positions through an atomic ticket when it starts, so every
// position below the lowest unfinished one is done or held by a running block: waiting on
// earlier positions can never deadlock, however many blocks are resident. A thread exits as
// soon as its row is published; nothing makes a finished thread wait (no barrier, no
// reconvergence point) while another thread of its warp still waits for it — rows of one chunk
// may depend on each other. The ticket is never reset between launches: each launch's first
// ticket is `base`, the tickets earlier launches took (the host counts them).
template <int ROWS>
__device__ __forceinline__ int take_chunk(int* ticket, int base) {
  __shared__ int s_ticket;
  if (threadIdx.x == 0) s_ticket = atomicAdd(ticket, 1) - base;
  __syncthreads();
  return s_ticket * ROWS;
}

// A row's level being computed (one more than its deepest dependency's): its entries a batch
// of G at a time, the pending dependencies of the batch polled together.
struct RowLevel {
  static constexpr int G = 8;
  int row, begin, end, e0, lvl;
  int at[G];  // a pending dependency: its row (>= 0), or -1 - its place among `local`'s rows
  unsigned pending;
  // Starts the row at position pos; dependencies at positions from local_first on are local.
  __device__ void start(const SptrsvShape& s, const int* __restrict__ row_ptr, const int* __restrict__ col_idx,
                        int pos, int local_first) {
    row = s.lower ? pos : s.n - 1 - pos;  // dependency order
    begin = e0 = row_ptr[row];
    end = row_ptr[row + 1];
    lvl = 0;
    load_batch(s, col_idx, local_first);
  }
  __device__ void load_batch(const SptrsvShape& s, const int* __restrict__ col_idx, int local_first) {
    pending = 0;
#pragma unroll
    for (int k = 0; k < G; ++k) {
      const int j = e0 + k < end ? col_idx[e0 + k] : row;
      const int p = s.lower ? j : s.n - 1 - j;
      at[k] = p >= local_first ? -1 - (p - local_first) : j;
      if (depends(s.lower, row, j)) pending |= 1u << k;
    }
  }
  // One poll of the batch: local levels from `local`, others from `global` (0: not yet).
  // Returns whether a dependency outside the local rows is still pending.
  __device__ bool poll(volatile const int* local, const int* global) {
    bool outside = false;
#pragma unroll
    for (int k = 0; k < G; ++k)
      if (pending >> k & 1u) {
        const int v = at[k] < 0 ? local[-1 - at[k]] : load_relaxed(global + at[k]);
        if (v != 0) {
          lvl = max(lvl, v);
          pending &= ~(1u << k);
        } else {
          outside = outside || at[k] >= 0;
        }
      }
    return outside;
  }
  // After a poll that left nothing pending: the next batch, or false when the row is done (lvl
  // then its level).
  __device__ bool next_batch(const SptrsvShape& s, const int* __restrict__ col_idx, int local_first) {
    e0 += G;
    if (e0 < end) {
      load_batch(s, col_idx, local_first);
      return true;
    }
    ++lvl;
    return false;
  }
};

// The level of every row, sync-free in dependency order. A block takes a chunk of blockDim.x x
// rows_per_thread consecutive positions, thread t positions t, t + blockDim.x, ... of it in order;
// a dependency inside the chunk is read from the block's shared copy of its levels, one before it
// from the global array (relaxed loads and stores: a level word is all its reader needs, 0 meaning
// not yet). Chains of neighbouring rows (a grid's lines in natural order, banded FEM rows) then
// wait a shared-memory poll a row rather than an L2 round trip. More rows a thread put more rows
// in flight (a grid's level fronts cross every plane), but a thread takes them in order: where
// its next row is shallower than its last it waits behind it, and such waits chain (measured
// 200x slower on grids whose lines do not match the block), so the backend gives one by default.
// The waits end: a dependency is an earlier position, held by an earlier ticket's resident block
// or by a thread that reaches it without waiting on anything later. The lanes stay in one loop,
// each iteration a poll or a step forward for every lane, so no lane spins while the lane it
// waits for is parked. The first levels' row counts and longest rows and the deepest level are
// gathered in shared memory and added once a block. compute-sanitizer's racecheck reports the
// shared-memory polls (a volatile word read while another thread of the block writes it, with no
// barrier between) as hazards; they are the design, and scripts/gpu-machine-check.sh leaves this
// kernel out of racecheck.
__global__ __launch_bounds__(1024) void levels_kernel(SptrsvShape s, const int* __restrict__ row_ptr,
                                                      const int* __restrict__ col_idx, int* level,
                                                      int* __restrict__ first_counts, int* __restrict__ ticket,
                                                      int* __restrict__ max_level, int* __restrict__ longest,
                                                      int rows_per_thread, int sleep_ns) {
  extern __shared__ int chunk_levels[];
  __shared__ int counts[kSptrsvLaunchLevelsMax], longest_rows[kSptrsvLaunchLevelsMax], deepest;
  volatile int* own = chunk_levels;
  const int chunk = static_cast<int>(blockDim.x) * rows_per_thread;
  for (int i = threadIdx.x; i < chunk; i += blockDim.x) own[i] = 0;
  if (threadIdx.x < kSptrsvLaunchLevelsMax) counts[threadIdx.x] = longest_rows[threadIdx.x] = 0;
  if (threadIdx.x == 0) deepest = 0;
  const int first = take_chunk<1>(ticket, 0) * chunk;  // its barrier orders the zeros
  const int last = min(first + chunk, s.n);
  int pos = first + threadIdx.x, my_deepest = 0;
  RowLevel r;
  if (pos < last) r.start(s, row_ptr, col_idx, pos, first);
  unsigned ns = 16;
  while (__any_sync(kFullMask, pos < last)) {
    if (pos >= last) continue;
    const bool outside = r.poll(own, level);
    if (r.pending == 0) {
      if (r.next_batch(s, col_idx, first)) continue;
      own[pos - first] = r.lvl;
      store_relaxed(level + r.row, r.lvl);
      my_deepest = max(my_deepest, r.lvl);
      if (r.lvl <= kSptrsvLaunchLevelsMax) {
        atomicAdd(counts + (r.lvl - 1), 1);
        atomicMax(longest_rows + (r.lvl - 1), r.end - r.begin);
      }
      pos += blockDim.x;
      if (pos < last) r.start(s, row_ptr, col_idx, pos, first);
      ns = 16;
    } else if (outside) {  // another block's row: back off (this block's: poll shared memory again)
      __nanosleep(ns);
      if (ns < static_cast<unsigned>(sleep_ns)) ns *= 2;
    }
  }
  atomicMax(&deepest, my_deepest);
  __syncthreads();
  if (threadIdx.x < kSptrsvLaunchLevelsMax && counts[threadIdx.x] > 0) {
    atomicAdd(first_counts + threadIdx.x, counts[threadIdx.x]);
    atomicMax(longest + threadIdx.x, longest_rows[threadIdx.x]);
  }
  if (threadIdx.x == 0) atomicMax(max_level, deepest);
}

// Exclusive prefix of v over the block (1024 threads); *total gets the block's sum.
__device__ __forceinline__ int block_exclusive_scan(int v, int* warp_tot, int* total) {
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  int incl = v;
#pragma unroll
  for (int o = 1; o < 32; o <<= 1) {
    const int u = __shfl_up_sync(kFullMask, incl, o);
    if (lane >= o) incl += u;
  }
  if (lane == 31) warp_tot[warp] = incl;
  __syncthreads();
  if (warp == 0) {
    const int w = warp_tot[lane];
    int wi = w;
#pragma unroll
    for (int o = 1; o < 32; o <<= 1) {
      const int u = __shfl_up_sync(kFullMask, wi, o);
      if (lane >= o) wi += u;
    }
    warp_tot[lane] = wi - w;
    if (lane == 31) *total = wi;
  }
  __syncthreads();
  return warp_tot[warp] + incl - v;
}

// Exclusive scan in one block of 1024 threads, chunk by chunk (the level count is small for
// matrices with parallelism, and at most n for a chain).
__global__ __launch_bounds__(1024) void exclusive_scan_kernel(int* counts, int len) {
  __shared__ int warp_tot[32];
  __shared__ int total;
  int base = 0;
  for (int start = 0; start < len; start += 1024) {
    const int i = start + threadIdx.x;
    const int v = i < len ? counts[i] : 0;
    const int before = block_exclusive_scan(v, warp_tot, &total);
    if (i < len) counts[i] = base + before;
    base += total;
    __syncthreads();  // every thread has read warp_tot and total before the next chunk writes them
  }
}

// Longer scans in three passes of kScanChunk elements a block (four a thread, contiguous): each
// chunk's sum, those sums scanned by the kernel above, then each chunk scanned from its base. The
// one block above walks its chunks one after another, each a global load's latency: 100 000
// segments (382 levels x 264 parts at 128^3) took it ~100 iterations.
constexpr int kScanThreads = 1024, kScanPerThread = 4, kScanChunk = kScanThreads * kScanPerThread;

__global__ __launch_bounds__(kScanThreads) void chunk_sum_kernel(const int* __restrict__ counts, int len,
                                                                 int* __restrict__ sums) {
  __shared__ int warp_tot[32];
  __shared__ int total;
  const std::int64_t first = static_cast<std::int64_t>(blockIdx.x) * kScanChunk + threadIdx.x * kScanPerThread;
  int v = 0;
#pragma unroll
  for (int j = 0; j < kScanPerThread; ++j)
    if (first + j < len) v += counts[first + j];
  (void)block_exclusive_scan(v, warp_tot, &total);
  if (threadIdx.x == 0) sums[blockIdx.x] = total;
}

__global__ __launch_bounds__(kScanThreads) void chunk_scan_kernel(int* __restrict__ counts, int len,
                                                                  const int* __restrict__ bases) {
  __shared__ int warp_tot[32];
  __shared__ int total;
  const std::int64_t first = static_cast<std::int64_t>(blockIdx.x) * kScanChunk + threadIdx.x * kScanPerThread;
  int v[kScanPerThread];
  int sum = 0;
#pragma unroll
  for (int j = 0; j < kScanPerThread; ++j) {
    v[j] = first + j < len ? counts[first + j] : 0;
    sum += v[j];
  }
  int at = bases[blockIdx.x] + block_exclusive_scan(sum, warp_tot, &total);
#pragma unroll
  for (int j = 0; j < kScanPerThread; ++j)
    if (first + j < len) {
      counts[first + j] = at;
      at += v[j];
    }
}

// The segment of a row: its level's, and within the level its part's (positions in dependency
// order cut into parts of part_rows; one part: the level itself).
__device__ __forceinline__ int segment_of(const SptrsvShape& s, const SptrsvWalk& w, const int* level, int row) {
  return (level[row] - 1) * w.parts + part_of(w, pos_of(s, row));
}

// launch_sptrsv_partition_check: a thread a row, counts summed over the warp, then the block
// (32-bit: at most a block's rows times their entries), then added once a block.
__global__ __launch_bounds__(256) void partition_check_kernel(SptrsvShape s, SptrsvWalk tiles, SptrsvWalk contiguous,
                                                              const int* __restrict__ row_ptr,
                                                              const int* __restrict__ col_idx,
                                                              unsigned long long* __restrict__ out) {
  __shared__ unsigned cut[2];
  __shared__ int later;
  if (threadIdx.x == 0) cut[0] = cut[1] = later = 0;
  __syncthreads();
  const int row = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned cut_t = 0, cut_c = 0;
  bool ahead = false;
  if (row < s.n) {
    const int pos = pos_of(s, row), mine = part_of(tiles, pos), mine_c = pos / contiguous.part_rows;
    for (int e = row_ptr[row]; e < row_ptr[row + 1]; ++e) {
      const int j = col_idx[e];
      if (!depends(s.lower, row, j)) continue;
      const int pj = pos_of(s, j), theirs = part_of(tiles, pj);
      cut_t += theirs != mine ? 1u : 0u;
      cut_c += pj / contiguous.part_rows != mine_c ? 1u : 0u;
      ahead = ahead || theirs > mine;
    }
  }
  cut_t = __reduce_add_sync(kFullMask, cut_t);
  cut_c = __reduce_add_sync(kFullMask, cut_c);
  ahead = __any_sync(kFullMask, ahead);
  if (threadIdx.x % 32 == 0) {
    if (cut_t > 0) atomicAdd(&cut[0], cut_t);
    if (cut_c > 0) atomicAdd(&cut[1], cut_c);
    if (ahead) later = 1;
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    if (cut[0] > 0) atomicAdd(out, static_cast<unsigned long long>(cut[0]));
    if (cut[1] > 0) atomicAdd(out + 1, static_cast<unsigned long long>(cut[1]));
    if (later) out[2] = 1;
  }
}

__global__ void segment_count_kernel(SptrsvShape s, SptrsvWalk w, const int* __restrict__ level,
                                     int* __restrict__ counts) {
  const int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < s.n) atomicAdd(counts + segment_of(s, w, level, row), 1);
}

__global__ void scatter_kernel(SptrsvShape s, SptrsvWalk w, const int* __restrict__ level, int* __restrict__ cursor,
                               int* __restrict__ order) {
  const int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= s.n) return;
  order[atomicAdd(cursor + segment_of(s, w, level, row), 1)] = row;
}

__global__ __launch_bounds__(256) void widest_segment_kernel(const int* __restrict__ seg_end, int segments,
                                                             int* __restrict__ widest) {
  const int k = blockIdx.x * blockDim.x + threadIdx.x;
  const int rows = k < segments ? seg_end[k] - (k == 0 ? 0 : seg_end[k - 1]) : 0;
  const int most = __reduce_max_sync(kFullMask, rows);
  if (threadIdx.x % 32 == 0 && most > 0) atomicMax(widest, most);
}

// Publishing and reading solved values (kSptrsvReadyBytes a row): a poll that sees a row's word
// ready has its value in the same single (relaxed, single-copy atomic) 64-bit access, so a
// dependency costs one L2 round trip, and the polls for all of a row's dependencies go out
// together (no acquire, no fence between them). f32: epoch << 32 | bits, the epoch new per solve.
// f64: the bits alone, the words set to all ones before each solve (launch.hpp); a row whose value
// has those bits (a NaN with every payload bit set, only ever copied from an input) publishes the
// default quiet NaN instead.
__device__ __forceinline__ unsigned long long load_relaxed_u64(const unsigned long long* p) {
  unsigned long long v;
  asm volatile("ld.relaxed.gpu.global.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
  return v;
}
__device__ __forceinline__ void store_relaxed_u64(unsigned long long* p, unsigned long long v) {
  asm volatile("st.relaxed.gpu.global.u64 [%0], %1;" ::"l"(p), "l"(v) : "memory");
}

constexpr unsigned long long kUnsetF64 = ~0ull, kQuietNanF64 = 0x7ff8000000000000ull;
static_assert(kUnsetF64 == 0x0101010101010101ull * kSptrsvReadyUnsetByte, "the words' memset byte");

template <class T>
struct Published {
  static_assert(sizeof(T) == 4 || sizeof(T) == 8, "f32 or f64");
  using Word = unsigned long long;
  static __device__ __forceinline__ Word load(const void* slots, int j) {
    return load_relaxed_u64(static_cast<const unsigned long long*>(slots) + j);
  }
  // Whether the word was written in this solve, and then its value.
  static __device__ __forceinline__ bool ready(Word w, int epoch, T& v) {
    if constexpr (sizeof(T) == 4) {
      v = __uint_as_float(static_cast<unsigned int>(w));
      return static_cast<int>(w >> 32) == epoch;
    } else {
      v = __longlong_as_double(static_cast<long long>(w));
      return w != kUnsetF64;
    }
  }
  static __device__ __forceinline__ void publish(void* slots, int row, int epoch, T v) {
    Word w;
    if constexpr (sizeof(T) == 4) {
      w = static_cast<Word>(static_cast<unsigned int>(epoch)) << 32 | __float_as_uint(v);
    } else {
      w = static_cast<Word>(__double_as_longlong(v));
      if (w == kUnsetF64) w = kQuietNanF64;
    }
    store_relaxed_u64(static_cast<unsigned long long*>(slots) + row, w);
  }
};

template <class T>
__device__ __forceinline__ bool try_read(const void* slots, int j, int epoch, T& v) {
  return Published<T>::ready(Published<T>::load(slots, j), epoch, v);
}

// Polls until row j of this epoch is published, backing off up to max_sleep_ns.
template <class T>
__device__ __forceinline__ T wait_read(const void* slots, int j, int epoch, int max_sleep_ns) {
  T v;
  unsigned ns = 16;
  while (!try_read(slots, j, epoch, v)) {
    __nanosleep(ns);
    if (ns < static_cast<unsigned>(max_sleep_ns)) ns *= 2;
  }
  return v;
}

// Thread per row: one loop per thread that polls the current batch of (up to G) dependencies
// together and publishes the row inside the loop (see take_chunk).
template <class T>
__global__ __launch_bounds__(kSptrsvThreads) void solve_thread_kernel(
    SptrsvShape s, const int* __restrict__ order, const int* __restrict__ row_ptr, const int* __restrict__ col_idx,
    const T* __restrict__ values, const T* __restrict__ inv_diag, const T* b, T* x, void* ready, int epoch,
    int* __restrict__ ticket, int ticket_base, int sleep_ns) {
  constexpr int G = 8;
  const int pos = take_chunk<kSptrsvThreads>(ticket, ticket_base) + threadIdx.x;
  if (pos >= s.n) return;
  const int row = order[pos];
  // Independent of the dependencies: loaded before any waiting. b[row] is read only by the
  // thread that writes x[row], so x may alias b.
  const T brow = b[row], inv = inv_diag[row];
  const int end = row_ptr[row + 1];
  int e0 = row_ptr[row];
  T sum = 0;
  int c[G];
  T v[G], xv[G];
  unsigned pending = 0, deps = 0;
  auto load_batch = [&] {
    pending = 0;
#pragma unroll
    for (int k = 0; k < G; ++k) {
      c[k] = e0 + k < end ? col_idx[e0 + k] : row;
      v[k] = e0 + k < end ? values[e0 + k] : T(0);
      xv[k] = 0;
      if (depends(s.lower, row, c[k])) pending |= 1u << k;
    }
    deps = pending;
  };
  load_batch();
  unsigned ns = 16;
  for (;;) {
#pragma unroll
    for (int k = 0; k < G; ++k)
      if ((pending >> k & 1u) && try_read(ready, c[k], epoch, xv[k])) pending &= ~(1u << k);
    if (pending == 0) {
#pragma unroll
      for (int k = 0; k < G; ++k)
        if (deps >> k & 1u) sum += v[k] * xv[k];
      e0 += G;
      if (e0 >= end) {
        const T xr = (brow - sum) * inv;
        x[row] = xr;
        Published<T>::publish(ready, row, epoch, xr);
        return;
      }
      load_batch();
      ns = 16;
      continue;
    }
    __nanosleep(ns);
    if (ns < static_cast<unsigned>(sleep_ns)) ns *= 2;
  }
}

// Warp per row (long rows): the lanes wait on their own entries; rows a warp waits for belong to
// other warps, so the lanes may reconverge for the final sum.
template <class T>
__global__ __launch_bounds__(kSptrsvThreads) void solve_warp_kernel(
    SptrsvShape s, const int* __restrict__ order, const int* __restrict__ row_ptr, const int* __restrict__ col_idx,
    const T* __restrict__ values, const T* __restrict__ inv_diag, const T* b, T* x, void* ready, int epoch,
    int* __restrict__ ticket, int ticket_base, int sleep_ns) {
  constexpr int ROWS = kSptrsvThreads / 32;
  const int pos = take_chunk<ROWS>(ticket, ticket_base) + threadIdx.x / 32;
  if (pos >= s.n) return;  // whole warps leave together
  const int lane = threadIdx.x % 32;
  const int row = order[pos];
  const T brow = b[row], inv = inv_diag[row];
  T sum = 0;
  for (int e = row_ptr[row] + lane; e < row_ptr[row + 1]; e += 32) {
    const int j = col_idx[e];
    if (depends(s.lower, row, j)) sum += values[e] * wait_read<T>(ready, j, epoch, sleep_ns);
  }
  sum = warp_sum(sum);
  if (lane == 0) {
    const T xr = (brow - sum) * inv;
    x[row] = xr;
    Published<T>::publish(ready, row, epoch, xr);
  }
}

// A few wide levels in one launch (schedules of a handful of levels, sptrsv.few_levels): the
// blocks of each level, in level order; a block of level l waits until every block of level l - 1
// has counted itself done (a fence, then a count: the standard last-block pattern). One wait a
// level instead of a launch a level: a launch costs the host about 5 us (H200: 11 launches for
// 494_bus's 11 levels took 57 us, 2 for Chem97ZtZ's 2 took 15).
// The first level's rows have no dependency, x = b * inv_diag, so unless x is b (in place) the
// second level computes those values itself instead of waiting for them: a schedule of two levels
// has no wait at all (its blocks then need no ticket either), and later levels wait for the first
// level's count besides their previous level's. The row's entries are loaded before any wait.
// A level's rows get `lanes` threads each, enough that its longest row takes at most a batch of
// kSptrsvLevelEntries loads a lane: rows of a hundred entries, which a thread of the sync-free
// launch walks batch after dependent batch, take one.
template <class T>
__global__ __launch_bounds__(kSptrsvThreads) void solve_levels_kernel(
    SptrsvShape s, SptrsvLevelTable tab, const int4* __restrict__ info, const int* __restrict__ col_idx,
    const T* __restrict__ values, const T* __restrict__ inv_diag, const T* b, T* x, int* __restrict__ ticket,
    int ticket_base, int* __restrict__ done, int sleep_ns) {
  constexpr int E = kSptrsvLevelEntries;
  const int blk = ticket != nullptr ? take_chunk<1>(ticket, ticket_base) : static_cast<int>(blockIdx.x);
  // This block's level, and the level's table entries (constant indices: the table stays in
  // parameter space).
  int l = 0, level_block = 0, first = 0, count = 0, lanes = 1, prev_blocks = 0, prev_base = 0;
#pragma unroll
  for (int k = 0; k < kSptrsvLaunchLevelsMax; ++k)
    if (k < tab.levels && blk >= (k == 0 ? 0 : tab.block_end[k - 1]) && blk < tab.block_end[k]) {
      l = k;
      level_block = blk - (k == 0 ? 0 : tab.block_end[k - 1]);
      first = tab.first[k];
      count = tab.first[k + 1] - tab.first[k];
      lanes = tab.lanes[k];
      if (k > 0) {
        prev_blocks = tab.block_end[k - 1] - (k == 1 ? 0 : tab.block_end[k - 2]);
        prev_base = tab.done_base[k - 1];
      }
    }
  const bool from_b = l == 1 && b != x;  // the first level's values computed here
  const int p = level_block * (kSptrsvThreads / lanes) + static_cast<int>(threadIdx.x) / lanes;
  const int lane = static_cast<int>(threadIdx.x) % lanes;
  const int4 f = p < count ? info[first + p] : make_int4(-1, 0, 0, 0);
  const int row = f.x, end = f.z;
  T brow = 0, inv = 0;
  if (row >= 0 && lane == 0) {
    brow = b[row];  // read before x[row] is written: x may alias b
    inv = inv_diag[row];
  }
  int c[E];
  T v[E];
  auto load_batch = [&](int e0) {
#pragma unroll
    for (int k = 0; k < E; ++k) {  // every load of the batch issued before any is used
      const int e = e0 + k * lanes;
      c[k] = row >= 0 && e < end ? col_idx[e] : row;
      v[k] = row >= 0 && e < end ? values[e] : T(0);
    }
  };
  load_batch(f.y + lane);
  if (l > 0 && !from_b) {
    if (threadIdx.x == 0) {
      wait_for(done + (l - 1), [&](int d) { return d - prev_base >= prev_blocks; }, sleep_ns);
      if (l > 1 && b != x)  // the second level did not wait for the first
        wait_for(done, [&](int d) { return d - tab.done_base[0] >= tab.block_end[0]; }, sleep_ns);
    }
    __syncthreads();  // with thread 0's acquire: the earlier levels' x, read through L2 below
  }
  T sum = 0;
  for (int e0 = f.y + lane;;) {
#pragma unroll
    for (int k = 0; k < E; ++k)
      if (depends(s.lower, row, c[k])) sum += v[k] * (from_b ? b[c[k]] * inv_diag[c[k]] : __ldcg(x + c[k]));
    e0 += E * lanes;
    if (row < 0 || e0 >= end) break;
    load_batch(e0);
  }
  for (int o = lanes / 2; o > 0; o /= 2) sum += __shfl_xor_sync(kFullMask, sum, o, lanes);
  if (row >= 0 && lane == 0) x[row] = (brow - sum) * inv;
  __syncthreads();
  if (threadIdx.x == 0) {
    __threadfence();
    atomicAdd(done + l, 1);
  }
}

// ------------------------------------------------------------------ blocks that walk the levels
// For schedules of many narrow levels (the real FEM triangles: 3-45 rows a level on average,
// hundreds of levels) a sync-free solve pays an L2 publish-and-poll round trip per level (about
// 2 us on an H100), where one block pays a barrier (tens of ns). What remains per level is
// latency, so the loads a level needs do not wait for it: the positions' info is read two levels
// ahead and the rows' first entries (with b and the inverted diagonal) one level ahead, while the
// current level computes. x is read back from shared memory where the values fit: a global store
// by one thread leaves the line out of L1, and the next level's reader would go to L2. The rows'
// entries come from the analysis's copy of the triangle in this order (SptrsvEntries), a warp's
// k-th entries one contiguous run: a level's rows lie far apart in the matrix, and read from CSR
// each row took a cache line a load, so a level's time grew with its rows (~10 ns each, the L1's
// one line a cycle; session 32: bcsstk16 0.36 -> 0.26 ms, the 128^3 Laplacian 0.75 -> 0.61).
//
// Wide levels (PARTS, sptrsv.parts > 0): the rows are cut into parts (SptrsvWalk: contiguous
// runs of the dependency order, or tiles of a banded triangle), one block each, and every block
// walks all levels over its own rows only. A dependency inside the part costs a barrier as above;
// one in another part is polled from the published words (a level ahead, so a value published in
// time costs no wait). The analysis's copy says which: a column in the part is stored as -1 - its
// index in x (or in the part's shared x). A part that waits on another's row lags it by a
// publish-and-poll hop, and such waits chain: the 128^3 Laplacian's lower triangle cut into 264
// contiguous parts of about half a z plane waits on every z hop, in one chain through all the
// parts; cut into 16 x 16 tiles of 8 y lines by 8 z planes, the chains are 32 parts long
// (bench/models/sptrsv_parts.py). A block's part comes from a ticket, and the analysis keeps only
// partitions whose parts depend on earlier parts alone, so a part only ever waits on parts of
// blocks already running (as take_chunk); the backend asks for no more parts than are resident
// at once. Part counts measured in lib/src/tuning/sptrsv.cpp and bench/RESULTS.md (sessions 29,
// 30, 32, 33).
// Levels wider than one block were also tried on a thread-block cluster (sm_90: up to 16 blocks of
// 1024 threads, a hardware cluster barrier between levels, x through L2): 5-7 us a level against
// the sync-free solve's 2.1 (H100, 2026-11-27; 128^3 Laplacian 2.56 against 0.81 ms); removed.
__global__ void block_info_kernel(int n, const int* __restrict__ order, const int* __restrict__ row_ptr,
                                  int4* __restrict__ info) {
  const int p = blockIdx.x * blockDim.x + threadIdx.x;
  if (p >= n) return;
  const int row = order[p];
  info[p] = make_int4(row, row_ptr[row], row_ptr[row + 1], 0);
}

// The block walks' copy of the triangle (SptrsvEntries in launch.hpp): a warp's W = 32 / lanes
// positions form a slab, its rows' strict-triangle entries interleaved so that the k-th entries of
// the slab's 32 lanes are 32 consecutive words. Counts first: each position's entries and each
// slab's words (32 times its longest row's entries a lane), to be scanned into slab offsets.
// total: the words of all slabs in 64 bits (the int offsets must not overflow).
__global__ __launch_bounds__(256) void entry_count_kernel(SptrsvShape s, const int* __restrict__ order,
                                                          const int* __restrict__ row_ptr,
                                                          const int* __restrict__ col_idx, int lanes,
                                                          int* __restrict__ len, int* __restrict__ slab_words,
                                                          unsigned long long* __restrict__ total) {
  __shared__ unsigned long long block_words;
  if (threadIdx.x == 0) block_words = 0;
  __syncthreads();
  const int p = blockIdx.x * blockDim.x + threadIdx.x;
  const int W = 32 / lanes;  // a power of two: a slab's positions are lanes of one warp
  int c = 0;
  if (p < s.n) {
    const int row = order[p];
    for (int e = row_ptr[row]; e < row_ptr[row + 1]; ++e) c += depends(s.lower, row, col_idx[e]) ? 1 : 0;
    len[p] = c;
  }
  int steps = (c + lanes - 1) / lanes;
  for (int o = W / 2; o > 0; o /= 2) steps = max(steps, __shfl_xor_sync(kFullMask, steps, o, W));
  if (p < s.n && p % W == 0) {
    slab_words[p / W] = 32 * steps;
    atomicAdd(&block_words, 32ull * static_cast<unsigned>(steps));
  }
  __syncthreads();
  if (threadIdx.x == 0 && block_words > 0) atomicAdd(total, block_words);
}

// Then the copy: position p's row's k-th entry at slab_base[p / W] + (k / lanes) 32 + (p % W)
// lanes + k % lanes, and info[p] = {row, that offset at k = 0, entries, p}, inv_pos[p] = the
// row's inverted diagonal.
template <class T>
__global__ void entry_fill_kernel(SptrsvShape s, SptrsvWalk w, bool local_x, const int* __restrict__ order,
                                  const int* __restrict__ row_ptr, const int* __restrict__ col_idx,
                                  const T* __restrict__ values, const T* __restrict__ inv_diag, int lanes,
                                  const int* __restrict__ len, const int* __restrict__ slab_base,
                                  int4* __restrict__ info, T* __restrict__ inv_pos, int* __restrict__ ecol,
                                  T* __restrict__ eval) {
  const int p = blockIdx.x * blockDim.x + threadIdx.x;
  if (p >= s.n) return;
  const int W = 32 / lanes;
  const int row = order[p];
  const int base = slab_base[p / W] + (p % W) * lanes;
  info[p] = make_int4(row, base, len[p], p);
  inv_pos[p] = inv_diag[row];
  const int mine = part_of(w, pos_of(s, row));
  int k = 0;
  for (int e = row_ptr[row]; e < row_ptr[row + 1]; ++e) {
    const int j = col_idx[e];
    if (!depends(s.lower, row, j)) continue;
    const int at = base + (k / lanes) * 32 + k % lanes;
    const int pj = pos_of(s, j);
    ecol[at] = part_of(w, pj) == mine ? -1 - (local_x ? local_of(w, pj) : j) : j;
    eval[at] = values[e];
    ++k;
  }
}

template <class T, int LANES, bool SMEM_X, bool PARTS>
__global__ __launch_bounds__(sptrsv_block_threads(PARTS)) void solve_block_kernel(
    SptrsvShape s, SptrsvWalk w, const int* __restrict__ seg_end, const int4* __restrict__ info,
    const int* __restrict__ ecol, const T* __restrict__ eval, const T* __restrict__ inv_pos, const T* b, T* x,
    void* ready, int epoch, int* __restrict__ ticket, int ticket_base, int sleep_ns) {
  using P = Published<T>;
  constexpr int G = PARTS ? kSptrsvPartEntries : kSptrsvBlockEntries;
  const int groups = blockDim.x / LANES;
  extern __shared__ __align__(16) unsigned char block_smem[];
  T* xs = reinterpret_cast<T*>(block_smem);
  const int part = PARTS ? take_chunk<1>(ticket, ticket_base) : 0;
  if (part >= w.parts) return;  // (the whole block)
  const int g = threadIdx.x / LANES, lane = threadIdx.x % LANES;
  const int4 none = make_int4(-1, 0, 0, 0);
  // The part's first period and place (SptrsvWalk): a row's index in xs from one division.
  const int q0 = part / w.s_blocks * w.q_block, place0 = part % w.s_blocks * w.s_block;
  auto local_row = [&](int row) {
    const int pos = pos_of(s, row);
    if constexpr (!PARTS) return pos;
    const int q = w.period >= s.n ? 0 : pos / w.period;  // contiguous parts: one period
    return (q - q0) * w.s_block + (pos - q * w.period - place0);
  };
  // A row of a level and this lane's first G entries (c: the copy's column, kNone for none), with
  // the published words of those in other parts (c >= 0) as they were when the row was loaded; a
  // column in the part is -1 - its index in x (local in xs, SMEM_X). row < 0: no row. Its entries
  // (the copy's, all dependencies) lie at base + 32 k + lane for k = 0, 1, ... while k LANES + lane
  // < len. local: the row's index in xs.
  constexpr int kNone = INT_MIN;
  struct Row {
    int row, base, len, local;
    T b, inv;
    int c[G];
    T v[G];
    typename P::Word word[PARTS ? G : 1];
  };
  // Level L's segment of this part: positions [x, y) (empty past the last level), and the
  // position p's info if p is in it. The bounds are loaded levels ahead of their use (a level that
  // loads its own waits a global round trip for them: ncu, 17 % of the stall samples).
  auto seg = [&](int L) {
    if (L >= w.levels) return make_int2(0, 0);
    const int k = L * w.parts + part;
    return make_int2(k == 0 ? 0 : seg_end[k - 1], seg_end[k]);
  };
  auto info_at = [&](const int2 sg, int p) { return p < sg.y ? info[p] : none; };
  auto load = [&](int4 f) {
    Row r;
    r.row = f.x;
    r.base = f.y + lane;
    r.len = f.x >= 0 ? f.z : 0;
    r.b = r.inv = T(0);
    r.local = 0;
    if (f.x >= 0) {
      r.b = b[f.x];  // read before any x store: x may alias b (row f.x is written only below)
      r.inv = inv_pos[f.w];
      if constexpr (SMEM_X) r.local = local_row(f.x);
    }
#pragma unroll
    for (int k = 0; k < G; ++k) {
      const bool in = k * LANES + lane < r.len;
      r.c[k] = in ? ecol[r.base + 32 * k] : kNone;
      r.v[k] = in ? eval[r.base + 32 * k] : T(0);
    }
    return r;
  };
  // The published words of a loaded row's dependencies in earlier parts, polled once its
  // columns have arrived and looked at a level later (the polls are in flight meanwhile).
  auto poll = [&](Row& r) {
    if constexpr (PARTS) {
#pragma unroll
      for (int k = 0; k < G; ++k) r.word[k] = r.c[k] >= 0 ? P::load(ready, r.c[k]) : typename P::Word(0);
    }
  };
  // A column in the part (c < 0, not kNone): written by this block before the last barrier.
  auto xval = [&](int c) -> T {
    if constexpr (SMEM_X) return xs[-1 - c];
    else return x[-1 - c];
  };
  // Every thread calls it (the group's lanes meet in shuffles).
  auto solve = [&](const Row& r) {
    T sum = 0;
    bool missing = false;
    if constexpr (PARTS) {
      // Without a branch an entry (a predicated read of the part's x, a select): only a word
      // polled before its row was published sends the row down the waiting path below, which
      // sums the same products in the same order.
#pragma unroll
      for (int k = 0; k < G; ++k) {
        const int c = r.c[k];
        const bool here = c < 0 && c != kNone;
        T polled;
        const bool ok = P::ready(r.word[k], epoch, polled);
        const T local = here ? xval(c) : T(0);
        missing |= c >= 0 && !ok;
        sum += r.v[k] * (here ? local : (c >= 0 ? polled : T(0)));
      }
    }
    if (missing) sum = 0;
#pragma unroll
    for (int k = 0; k < G; ++k)
      if ((!PARTS || missing) && r.c[k] != kNone) {
        T xj = 0;
        if (!PARTS || r.c[k] < 0) {  // one part: every column is in it
          xj = xval(r.c[k]);
        } else if constexpr (PARTS) {
          if (!P::ready(r.word[k], epoch, xj)) xj = wait_read<T>(ready, r.c[k], epoch, sleep_ns);
        }
        sum += r.v[k] * xj;
      }
    for (int k = G; k * LANES + lane < r.len; ++k) {  // entries past the ones held
      const int c = ecol[r.base + 32 * k];
      T xj;
      if constexpr (PARTS) xj = c < 0 ? xval(c) : wait_read<T>(ready, c, epoch, sleep_ns);
      else xj = xval(c);
      sum += eval[r.base + 32 * k] * xj;
    }
#pragma unroll
    for (int o = LANES / 2; o > 0; o /= 2) sum += __shfl_xor_sync(kFullMask, sum, o, LANES);
    if (r.row >= 0 && lane == 0) {
      const T v = (r.b - sum) * r.inv;
      x[r.row] = v;
      if constexpr (SMEM_X) xs[r.local] = v;
      if constexpr (PARTS) P::publish(ready, r.row, epoch, v);
    }
  };
  // Level L (segment sg): its rows (loaded a level ago) solved while level L + 1's rows and
  // level L + 2's positions (segment sg_after) load: start issues the loads, finish solves.
  auto start = [&](Row& next, const int4 f_next, int4& f_after, const int2 sg_after) {
    f_after = info_at(sg_after, sg_after.x + g);
    next = load(f_next);
  };
  auto finish = [&](const int2 sg, const Row& cur, Row& next) {
    solve(cur);
    // A level of more rows than groups: the rest, loaded as they come.
    for (int base = sg.x + groups; base < sg.y; base += groups) {
      Row r = load(info_at(sg, base + g));
      poll(r);
      solve(r);
    }
    poll(next);  // after this level's work: next's columns have arrived meanwhile
    if (sg.y > sg.x) __syncthreads();  // (a part's empty levels write nothing)
  };
  int2 s0 = seg(0), s1 = seg(1), s2 = seg(2);  // the next three levels' segments
  Row r0 = load(info_at(s0, s0.x + g)), r1;
  poll(r0);
  int4 f0 = none, f1 = info_at(s1, s1.x + g);
  if constexpr (PARTS) {
    // Parts: rows two levels ahead, positions three, bounds four, one register set copied each
    // level (session 29: faster than two sets taken in turn, f32 0.75-0.76 against 0.89-0.91
    // ms). A level of a part is a single warp's latency (64-128 threads, one warp a scheduler),
    // so what it waits for shows: ncu (H200, 128^3 f32) had the copy at the loop's end wait for
    // the rows loaded one level ahead (the most sampled stall after the barrier); two ahead,
    // with four entries held (kSptrsvPartEntries) and the held entries summed without a
    // branch, the 128^3 Laplacian took 0.477 -> 0.442 ms f32 and 0.486 -> 0.458 f64 (session
    // 34; bench/RESULTS.md). Earlier: the bounds loaded ahead, f64 1.34 -> 0.98 ms (session 30).
    Row r2 = load(f1);
    int4 f3 = info_at(s2, s2.x + g);
    int2 s3 = seg(3);
    for (int L = 0; L < w.levels; ++L) {
      const Row cur = r0;
      r0 = r2;
      const int2 s4 = seg(L + 4);
      const int4 f4 = info_at(s3, s3.x + g);
      r2 = load(f3);
      f3 = f4;
      finish(s0, cur, r0);
      s0 = s1;
      s1 = s2;
      s2 = s3;
      s3 = s4;
    }
  } else {
    // Two register sets taken in turn (the loop unrolled by 2), so nothing waits for the loads
    // just issued: 6 % off the real FEM triangles' solves (H200, bcsstk16 0.453 -> 0.418-0.424
    // ms, calls minutes apart; cuSPARSE 0.88-0.96 in each); the bounds loaded ahead another
    // 13-15 % (session 30: bcsstk16 0.42 -> 0.358-0.362, Dubcova1 0.464 -> 0.401-0.404).
    for (int L = 0; L < w.levels; L += 2) {
      const int2 s3 = seg(L + 3);
      start(r1, f1, f0, s2);
      finish(s0, r0, r1);
      const int2 s4 = seg(L + 4);
      if (L + 1 < w.levels) {
        start(r0, f0, f1, s3);
        finish(s1, r1, r0);
      }
      s0 = s2;
      s1 = s3;
      s2 = s4;
    }
  }
}

}  // namespace

cudaError_t launch_sptrsv_block_info(int n, const int* order, const int* row_ptr, int4* info, cudaStream_t stream) {
  block_info_kernel<<<blocks_for(n, 256), 256, 0, stream>>>(n, order, row_ptr, info);
  return cudaGetLastError();
}

cudaError_t launch_sptrsv_entry_counts(const SptrsvShape& s, const int* order, const int* row_ptr, const int* col_idx,
                                       int lanes, int* len, int* slab_words, unsigned long long* total,
                                       cudaStream_t stream) {
  if (!sptrsv_lanes_valid(lanes)) return cudaErrorInvalidValue;
  entry_count_kernel<<<blocks_for(s.n, 256), 256, 0, stream>>>(s, order, row_ptr, col_idx, lanes, len, slab_words,
                                                                total);
  return cudaGetLastError();
}

namespace {
// Every position's part below parts, its local index below part_rows.
bool walk_valid(const SptrsvShape& s, const SptrsvWalk& w) {
  using I = std::int64_t;
  if (w.parts < 1 || w.period < 1 || w.s_block < 1 || w.q_block < 1 || w.s_blocks < 1) return false;
  const I last_q = s.n > 0 ? (s.n - 1) / w.period : 0;
  return static_cast<I>(w.s_block) * w.s_blocks >= std::min<I>(w.period, s.n) &&
         (last_q / w.q_block + 1) * w.s_blocks <= w.parts && static_cast<I>(w.s_block) * w.q_block == w.part_rows;
}
}  // namespace

cudaError_t launch_sptrsv_widest_segment(const int* seg_end, int segments, int* widest, cudaStream_t stream) {
  if (segments < 1) return cudaErrorInvalidValue;
  widest_segment_kernel<<<blocks_for(segments, 256), 256, 0, stream>>>(seg_end, segments, widest);
  return cudaGetLastError();
}

cudaError_t launch_sptrsv_partition_check(const SptrsvShape& s, const SptrsvWalk& tiles, const SptrsvWalk& contiguous,
                                          const int* row_ptr, const int* col_idx, unsigned long long* out,
                                          cudaStream_t stream) {
  if (!walk_valid(s, tiles) || !walk_valid(s, contiguous) || contiguous.period < s.n) return cudaErrorInvalidValue;
  partition_check_kernel<<<blocks_for(s.n, 256), 256, 0, stream>>>(s, tiles, contiguous, row_ptr, col_idx, out);
  return cudaGetLastError();
}

template <class T>
cudaError_t launch_sptrsv_entry_fill(const SptrsvShape& s, const SptrsvWalk& w, bool local_x, const int* order,
                                     const int* row_ptr, const int* col_idx, const T* values, const T* inv_diag,
                                     int lanes, const int* len, const int* slab_base, const SptrsvEntries<T>& out,
                                     cudaStream_t stream) {
  if (!sptrsv_lanes_valid(lanes) || !walk_valid(s, w)) return cudaErrorInvalidValue;
  entry_fill_kernel<T><<<blocks_for(s.n, 256), 256, 0, stream>>>(s, w, local_x, order, row_ptr, col_idx, values,
                                                                  inv_diag, lanes, len, slab_base, out.info,
                                                                  out.inv_pos, out.ecol, out.eval);
  return cudaGetLastError();
}
template cudaError_t launch_sptrsv_entry_fill<float>(const SptrsvShape&, const SptrsvWalk&, bool, const int*,
                                                     const int*, const int*, const float*, const float*, int,
                                                     const int*, const int*, const SptrsvEntries<float>&,
                                                     cudaStream_t);
template cudaError_t launch_sptrsv_entry_fill<double>(const SptrsvShape&, const SptrsvWalk&, bool, const int*,
                                                      const int*, const int*, const double*, const double*, int,
                                                      const int*, const int*, const SptrsvEntries<double>&,
                                                      cudaStream_t);

namespace {
template <class T, int LANES, bool SMEM_X, bool PARTS>
cudaError_t launch_block_solve(const SptrsvShape& s, const SptrsvWalk& w, const SptrsvBlockArgs<T>& a,
                               cudaStream_t stream) {
  const std::size_t smem = SMEM_X ? static_cast<std::size_t>(w.part_rows) * sizeof(T) : 0;
  auto* kernel = solve_block_kernel<T, LANES, SMEM_X, PARTS>;
  if (cudaError_t e = allow_dynamic_smem(kernel, smem); e != cudaSuccess) return e;
  kernel<<<w.parts, a.threads, smem, stream>>>(s, w, a.seg_end, a.info, a.ecol, a.eval, a.inv_pos, a.b, a.x, a.ready,
                                               a.epoch, a.ticket, a.ticket_base, a.sleep_ns);
  return cudaGetLastError();
}
template <class T, int LANES>
cudaError_t launch_block_solve_x(const SptrsvShape& s, const SptrsvWalk& w, const SptrsvBlockArgs<T>& a,
                                 cudaStream_t stream) {
  if (w.parts > 1)
    return a.smem_x ? launch_block_solve<T, LANES, true, true>(s, w, a, stream)
                    : launch_block_solve<T, LANES, false, true>(s, w, a, stream);
  return a.smem_x ? launch_block_solve<T, LANES, true, false>(s, w, a, stream)
                  : launch_block_solve<T, LANES, false, false>(s, w, a, stream);
}
}  // namespace

namespace {
template <class T, int LANES, bool SMEM_X>
int parts_resident(int threads, std::size_t smem) {
  auto* kernel = solve_block_kernel<T, LANES, SMEM_X, true>;
  int blocks = 0;
  if (allow_dynamic_smem(kernel, smem) != cudaSuccess ||
      cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, kernel, threads, smem) != cudaSuccess) {
    (void)cudaGetLastError();
    return 0;
  }
  return blocks;
}

// f(std::integral_constant<int, lanes>()) for the walk's lane counts (1, 2, 4, ... 32), else
// `otherwise`: the kernels are instantiated per lane count.
template <class R, class F>
R with_lanes(int lanes, R otherwise, F&& f) {
  switch (lanes) {
    case 1: return f(std::integral_constant<int, 1>());
    case 2: return f(std::integral_constant<int, 2>());
    case 4: return f(std::integral_constant<int, 4>());
    case 8: return f(std::integral_constant<int, 8>());
    case 16: return f(std::integral_constant<int, 16>());
    case 32: return f(std::integral_constant<int, 32>());
    default: return otherwise;
  }
}
}  // namespace

template <class T>
int sptrsv_parts_resident(int lanes, int threads, std::int64_t smem_x_rows) {
  const std::size_t smem = static_cast<std::size_t>(smem_x_rows) * sizeof(T);
  return with_lanes(lanes, 0, [&](auto L) {
    constexpr int kLanes = decltype(L)::value;
    return smem > 0 ? parts_resident<T, kLanes, true>(threads, smem) : parts_resident<T, kLanes, false>(threads, 0);
  });
}
template int sptrsv_parts_resident<float>(int, int, std::int64_t);
template int sptrsv_parts_resident<double>(int, int, std::int64_t);

template <class T>
cudaError_t launch_sptrsv_block_solve(const SptrsvShape& s, const SptrsvWalk& w, const SptrsvBlockArgs<T>& a,
                                      cudaStream_t stream) {
  if (a.threads < 32 || a.threads > sptrsv_block_threads(w.parts > 1) || a.threads % 32 != 0 || a.threads % a.lanes != 0 ||
      !walk_valid(s, w) || (w.parts > 1 && (a.ready == nullptr || a.ticket == nullptr)))
    return cudaErrorInvalidValue;
  return with_lanes(a.lanes, cudaErrorInvalidValue,
                    [&](auto L) { return launch_block_solve_x<T, decltype(L)::value>(s, w, a, stream); });
}

template <class T>
cudaError_t launch_sptrsv_diag(const SptrsvShape& s, const int* row_ptr, const int* col_idx, const T* values,
                               T* inv_diag, int* bad_row, int* band, cudaStream_t stream) {
  diag_kernel<T><<<blocks_for(s.n, 256), 256, 0, stream>>>(s, row_ptr, col_idx, values, inv_diag, bad_row, band);
  return cudaGetLastError();
}

cudaError_t launch_sptrsv_levels(const SptrsvShape& s, const int* row_ptr, const int* col_idx, int* level,
                                 int* first_counts, int* ticket, int* max_level, int* longest,
                                 const SptrsvLevelBlocks& b, int sleep_ns, cudaStream_t stream) {
  if (b.threads < 32 || b.threads > 1024 || b.threads % 32 != 0 || b.rows_per_thread < 1) return cudaErrorInvalidValue;
  const std::int64_t chunk = static_cast<std::int64_t>(b.threads) * b.rows_per_thread;
  const std::size_t smem = static_cast<std::size_t>(chunk) * sizeof(int);
  if (cudaError_t e = allow_dynamic_smem(levels_kernel, smem); e != cudaSuccess) return e;
  const auto blocks = static_cast<unsigned>((s.n + chunk - 1) / chunk);
  levels_kernel<<<blocks, b.threads, smem, stream>>>(s, row_ptr, col_idx, level, first_counts, ticket, max_level,
                                                     longest, b.rows_per_thread, sleep_ns);
  return cudaGetLastError();
}

int exclusive_scan_scratch_ints(int len) { return len <= kScanChunk ? 0 : (len + kScanChunk - 1) / kScanChunk; }

cudaError_t launch_exclusive_scan(int* counts, int len, int* scratch, cudaStream_t stream) {
  const int chunks = exclusive_scan_scratch_ints(len);
  if (chunks == 0) {
    exclusive_scan_kernel<<<1, 1024, 0, stream>>>(counts, len);
    return cudaGetLastError();
  }
  if (scratch == nullptr) return cudaErrorInvalidValue;
  chunk_sum_kernel<<<chunks, kScanThreads, 0, stream>>>(counts, len, scratch);
  exclusive_scan_kernel<<<1, 1024, 0, stream>>>(scratch, chunks);
  chunk_scan_kernel<<<chunks, kScanThreads, 0, stream>>>(counts, len, scratch);
  return cudaGetLastError();
}

cudaError_t launch_sptrsv_segment_counts(const SptrsvShape& s, const SptrsvWalk& w, const int* level, int* counts,
                                         cudaStream_t stream) {
  segment_count_kernel<<<blocks_for(s.n, 256), 256, 0, stream>>>(s, w, level, counts);
  return cudaGetLastError();
}

cudaError_t launch_sptrsv_scatter(const SptrsvShape& s, const SptrsvWalk& w, const int* level, int* cursor, int* order,
                                  cudaStream_t stream) {
  scatter_kernel<<<blocks_for(s.n, 256), 256, 0, stream>>>(s, w, level, cursor, order);
  return cudaGetLastError();
}

template <class T>
cudaError_t launch_sptrsv_solve(const SptrsvShape& s, bool warp_per_row, const int* order, const int* row_ptr,
                                const int* col_idx, const T* values, const T* inv_diag, const T* b, T* x,
                                void* ready, int epoch, int* ticket, int ticket_base, std::size_t residency_smem,
                                int sleep_ns, cudaStream_t stream) {
  // The dynamic shared memory is not used: it only bounds how many blocks an SM holds at once.
  if (warp_per_row) {
    if (cudaError_t e = allow_dynamic_smem(solve_warp_kernel<T>, residency_smem); e != cudaSuccess) return e;
    solve_warp_kernel<T><<<sptrsv_solve_blocks(s.n, true), kSptrsvThreads, residency_smem, stream>>>(
        s, order, row_ptr, col_idx, values, inv_diag, b, x, ready, epoch, ticket, ticket_base, sleep_ns);
  } else {
    if (cudaError_t e = allow_dynamic_smem(solve_thread_kernel<T>, residency_smem); e != cudaSuccess) return e;
    solve_thread_kernel<T><<<sptrsv_solve_blocks(s.n, false), kSptrsvThreads, residency_smem, stream>>>(
        s, order, row_ptr, col_idx, values, inv_diag, b, x, ready, epoch, ticket, ticket_base, sleep_ns);
  }
  return cudaGetLastError();
}

template <class T>
cudaError_t launch_sptrsv_levels_solve(const SptrsvShape& s, const SptrsvLevelTable& tab, const int4* info,
                                       const int* col_idx, const T* values, const T* inv_diag, const T* b, T* x,
                                       int* ticket, int ticket_base, int* done, int sleep_ns, cudaStream_t stream) {
  if (tab.levels < 1 || tab.levels > kSptrsvLaunchLevelsMax) return cudaErrorInvalidValue;
  solve_levels_kernel<T><<<tab.block_end[tab.levels - 1], kSptrsvThreads, 0, stream>>>(
      s, tab, info, col_idx, values, inv_diag, b, x, ticket, ticket_base, done, sleep_ns);
  return cudaGetLastError();
}

#define TESSERA_SPTRSV_INSTANTIATE(T)                                                                        \
  template cudaError_t launch_sptrsv_diag<T>(const SptrsvShape&, const int*, const int*, const T*, T*, int*,  \
                                             int*, cudaStream_t);                                             \
  template cudaError_t launch_sptrsv_block_solve<T>(const SptrsvShape&, const SptrsvWalk&,                     \
                                                    const SptrsvBlockArgs<T>&, cudaStream_t);                  \
  template cudaError_t launch_sptrsv_solve<T>(const SptrsvShape&, bool, const int*, const int*, const int*,   \
                                              const T*, const T*, const T*, T*, void*, int, int*, int,        \
                                              std::size_t, int, cudaStream_t);                               \
  template cudaError_t launch_sptrsv_levels_solve<T>(const SptrsvShape&, const SptrsvLevelTable&, const int4*, \
                                                     const int*, const T*, const T*, const T*, T*, int*, int,   \
                                                     int*, int, cudaStream_t);
TESSERA_SPTRSV_INSTANTIATE(float)
TESSERA_SPTRSV_INSTANTIATE(double)

}  // namespace tessera::cuda
