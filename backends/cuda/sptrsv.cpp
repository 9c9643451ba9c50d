// Sparse triangular solve. Analysis: the device's own implementation of the level schedule
// (plan/level_schedule.hpp is the host one), all on the GPU so the matrix never crosses to the
// host: inverted diagonal, levels, rows bucketed by level (and by part within a level), one host
// round trip (counted) for the diagonal check and the level count; a singular row is worded by
// plan::singular_row_error.
// Solve (kernels/cuda/sptrsv.cu): where the levels are narrow (plan::solve_sync_free,
// sptrsv.syncfree), one block walks them with barriers. Where they are wide and few
// (sptrsv.few_levels), one launch whose blocks take them level by level; wide and many: one block
// per part of the rows (sptrsv.parts) walks them over its own rows, reading earlier parts' rows
// from the per-row published words, or (parts 0) one sync-free launch in level order. The walks
// read the triangle from the plan's copy of it in their order (SptrsvEntries). The plan
// keeps the order, the copy and the inverted diagonal, read-only, so any queue may solve with it; the
// per-row words ("x[i] of epoch e"), the ticket and the few-levels counts a solve writes are the
// solving queue's (SptrsvState), and each solve bumps the queue's epoch and counts on the ticket
// and counts instead of clearing them.
#include <algorithm>
#include <climits>
#include <cmath>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "cuda_backend.hpp"
#include "kernels/cuda/launch.hpp"
#include "plan/level_schedule.hpp"
#include "queue.hpp"

namespace tessera::cuda {

namespace {

template <class T>
struct CudaSptrsvPlan final : SptrsvPlanData {
  SptrsvShape shape;
  bool warp_per_row = false;
  DeviceBuffer order, inv_diag;
  // A schedule of a few wide levels (sptrsv.few_levels): one launch, blocks level by level
  // (levels.levels > 0; the done counts' bases filled in per solve). Else one of the below.
  SptrsvLevelTable levels;
  // Blocks walk the levels (narrow levels: one block; wide ones with sptrsv.parts > 0:
  // parts): each segment's end position and the triangle copied in segment order (`copy`,
  // SptrsvEntries; the few-levels launch has `info` instead, each position's row and CSR entry
  // range); `lanes` threads a row; the part's x in shared memory where it fits. Else the sync-free
  // launch.
  bool blocks_walk = false;
  SptrsvWalk walk;
  int lanes = 1, threads = 32;
  bool smem_x = false;
  DeviceBuffer seg_end, info;
  DeviceBuffer entries;  // one allocation for `copy`'s four arrays
  SptrsvEntries<T> copy;
  // Recorded after the analysis's last kernel: a solve on another queue waits for it (on the
  // device). The analysing queue's state, while that queue lives: its solves are ordered after
  // the analysis by its stream and skip the wait (a host call of about a microsecond, in solves
  // of ten).
  cudaEvent_t done = nullptr;
  std::weak_ptr<const void> analysed_on;
  void order_after_analysis(cudaStream_t stream, const void* solving_queue) const {
    if (analysed_on.lock().get() != solving_queue) wait_for_event(stream, done);
  }
  CudaSptrsvPlan() = default;
  CudaSptrsvPlan(const CudaSptrsvPlan&) = delete;
  CudaSptrsvPlan& operator=(const CudaSptrsvPlan&) = delete;
  ~CudaSptrsvPlan() override {
    if (done != nullptr) (void)cudaEventDestroy(done);
  }
};

template <class U>
U* ptr(const DeviceBuffer& b) {
  return static_cast<U*>(b.get());
}

constexpr int kNoRow = 0x7f7f7f7f;  // what a memset of 0x7f bytes leaves: larger than any row

// The diagonal kernel reports the first row whose diagonal is missing or sums to zero; on that
// (error) path only, the row's column indices come back to tell which, so the message is the
// host analysis's own.
std::string singular_row_message(Backend& b, const CsrView& A, int row, cudaStream_t stream) {
  int range[2] = {0, 0};
  TESSERA_CUDA_CHECK(cudaMemcpyAsync(range, static_cast<const int*>(A.row_ptr) + row, 2 * sizeof(int),
                                     cudaMemcpyDeviceToHost, stream));
  b.note_host_wait();
  TESSERA_CUDA_CHECK(cudaStreamSynchronize(stream));
  std::vector<int> cols(static_cast<std::size_t>(std::max(0, range[1] - range[0])));
  if (!cols.empty()) {
    TESSERA_CUDA_CHECK(cudaMemcpyAsync(cols.data(), static_cast<const int*>(A.col_idx) + range[0],
                                       cols.size() * sizeof(int), cudaMemcpyDeviceToHost, stream));
    b.note_host_wait();
    TESSERA_CUDA_CHECK(cudaStreamSynchronize(stream));
  }
  const bool has_entry = std::find(cols.begin(), cols.end(), row) != cols.end();
  return plan::singular_row_error(row, has_entry ? "a zero diagonal" : "no diagonal entry");
}

}  // namespace

// A queue's sptrsv scratch. Analysis: the level and bucket arrays (n ints each) and three ints
// (first singular row, level count, ticket), reused rather than freed after each analysis (a
// cudaFree would wait for the device). Solve: the per-row published words, per dtype
// (kSptrsvReadyBytes), with the epoch of the queue's latest solve: f32 words left by earlier
// solves, of any plan, hold smaller epochs; f64 words are cleared before each solve
// (kSptrsvReadyClearedPerSolve). And the solves' block ticket, never reset while it has room:
// `taken` counts the tickets the queue's launches took.
struct CudaBackend::SptrsvState {
  DeviceBuffer level, counts, misc, entry_total, scan, check;
  struct Flags {
    DeviceBuffer ready;
    int epoch = 0;  // the value ready[i] took in this queue's latest solve
  };
  Flags flags[2];  // f32, f64
  DeviceBuffer ticket;
  int taken = 0;
  // The few-levels launch's per-level counts of finished blocks, never reset while they have
  // room: done_taken[l] counts what the queue's launches added to level l's.
  DeviceBuffer done;
  int done_taken[kSptrsvLaunchLevelsMax] = {};

  static const std::shared_ptr<SptrsvState>& shared(CudaQueue& q) {
    if (!q.state.sptrsv) q.state.sptrsv = std::make_shared<SptrsvState>();
    return q.state.sptrsv;
  }
  static SptrsvState& of(CudaQueue& q) { return *shared(q); }
  // This solve's epoch, its words (grown or cleared when needed), and the ticket's base for a
  // launch of `blocks` blocks.
  template <class T>
  Flags& flags_for(int n, cudaStream_t stream) {
    Flags& f = flags[sizeof(T) == 8 ? 1 : 0];
    const std::size_t bytes = static_cast<std::size_t>(n) * kSptrsvReadyBytes;
    if constexpr (kSptrsvReadyClearedPerSolve<T>) {
      TESSERA_CUDA_CHECK(cudaMemsetAsync(f.ready.ensure(bytes), kSptrsvReadyUnsetByte, bytes, stream));
      return f;
    }
    if (f.ready.get() == nullptr || f.ready.bytes() < bytes || f.epoch == INT_MAX) {
      // New (or regrown) words, or epochs exhausted: start over from clear words.
      f.ready.ensure(bytes);
      TESSERA_CUDA_CHECK(cudaMemsetAsync(f.ready.get(), 0, f.ready.bytes(), stream));
      f.epoch = 0;
    }
    ++f.epoch;
    return f;
  }
  int* ticket_for(unsigned blocks, int& base, cudaStream_t stream) {
    int* t = static_cast<int*>(ticket.get());
    if (t == nullptr || taken > INT_MAX - static_cast<int>(blocks)) {
      t = static_cast<int*>(ticket.ensure(sizeof(int)));
      TESSERA_CUDA_CHECK(cudaMemsetAsync(t, 0, sizeof(int), stream));
      taken = 0;
    }
    base = taken;
    return t;
  }
  // The counts for a launch of table t, with its bases filled in.
  int* done_for(SptrsvLevelTable& t, cudaStream_t stream) {
    int* d = static_cast<int*>(done.get());
    bool room = d != nullptr;
    for (int l = 0; l < t.levels; ++l) room = room && done_taken[l] <= INT_MAX - t.block_end[t.levels - 1];
    if (!room) {
      d = static_cast<int*>(done.ensure(sizeof done_taken));
      TESSERA_CUDA_CHECK(cudaMemsetAsync(d, 0, sizeof done_taken, stream));
      std::fill(std::begin(done_taken), std::end(done_taken), 0);
    }
    std::copy(done_taken, done_taken + t.levels, t.done_base);
    return d;
  }
};

namespace {

// Tiles of a banded triangle (SptrsvWalk): the band (the longest distance from a row to a
// dependency) as the period, so that a row's dependencies lie in its period or the one before;
// about sqrt(parts shape / 8) blocks of periods (sptrsv.tile_shape) by the rest in blocks of
// places, at most `parts` in all. A 7-point
// Laplacian's lower triangle (period: a z plane) then cuts into boxes of y lines by z planes,
// each depending on the box before it in y and in z only: the longest chain of parts that wait
// on each other is s_blocks + q_blocks, where contiguous parts (half a plane each at 128^3) wait
// in one chain of them all. None (parts 0) where the band leaves fewer than kMinPeriods periods.
SptrsvWalk tiled_walk(int n, int levels, int band, int parts, std::int64_t shape) {
  constexpr std::int64_t kMinPeriods = 8;
  SptrsvWalk w;
  w.parts = 0;
  if (band < 1 || parts < 4) return w;
  const std::int64_t periods = (static_cast<std::int64_t>(n) + band - 1) / band;
  if (periods < kMinPeriods) return w;
  auto up = [](std::int64_t a, std::int64_t b) { return (a + b - 1) / b; };
  std::int64_t q_blocks = std::clamp<std::int64_t>(std::llround(std::sqrt(static_cast<double>(parts) * shape / 8)), 1, periods);
  const std::int64_t s_blocks = std::clamp<std::int64_t>(parts / q_blocks, 1, band);
  w.levels = levels;
  w.period = band;
  w.s_block = static_cast<int>(up(band, s_blocks));
  w.s_blocks = static_cast<int>(up(band, w.s_block));
  w.q_block = static_cast<int>(up(periods, q_blocks));
  q_blocks = up(periods, w.q_block);
  w.parts = static_cast<int>(w.s_blocks * q_blocks);
  w.part_rows = static_cast<int>(static_cast<std::int64_t>(w.s_block) * w.q_block);
  return w;
}

// Whether the tiles cut fewer dependencies than the contiguous parts and none points to a later
// part (a part waits only on parts taken before it): one pass over the triangle and a host
// round trip, made only where tiles are a candidate. scratch: three words.
bool tiles_pay_off(Backend& b, const SptrsvShape& shape, const SptrsvWalk& tiles, const SptrsvWalk& contiguous,
                   const int* row_ptr, const int* col_idx, DeviceBuffer& scratch, cudaStream_t stream) {
  auto* out = static_cast<unsigned long long*>(scratch.ensure(3 * sizeof(unsigned long long)));
  TESSERA_CUDA_CHECK(cudaMemsetAsync(out, 0, 3 * sizeof(unsigned long long), stream));
  TESSERA_CUDA_CHECK(launch_sptrsv_partition_check(shape, tiles, contiguous, row_ptr, col_idx, out, stream));
  unsigned long long host[3] = {};
  TESSERA_CUDA_CHECK(cudaMemcpyAsync(host, out, sizeof host, cudaMemcpyDeviceToHost, stream));
  b.note_host_wait();
  TESSERA_CUDA_CHECK(cudaStreamSynchronize(stream));
  return host[2] == 0 && host[0] < host[1];
}

}  // namespace

template <class T>
std::shared_ptr<SptrsvPlanData> CudaBackend::sptrsv_analyze(QueueImpl& q, Uplo uplo, Diag diag, const CsrView& A) {
  if (A.rows >= INT_MAX) throw NotImplemented("cuda: sptrsv with more than 2^31 - 2 rows is not supported");
  const cudaStream_t stream = stream_of(q);
  auto plan = std::make_shared<CudaSptrsvPlan<T>>();
  const int n = static_cast<int>(A.rows);
  plan->shape.n = n;
  plan->shape.lower = uplo == Uplo::lower;
  plan->shape.unit = diag == Diag::unit;
  if (n == 0) return plan;
  // Rows much longer than a warp: a warp per row.
  plan->warp_per_row = A.nnz / n > 32;
  const std::size_t ints = static_cast<std::size_t>(n) * sizeof(int);
  plan->order.ensure(ints);
  plan->inv_diag.ensure(static_cast<std::size_t>(n) * sizeof(T));

  SptrsvState& st = SptrsvState::of(queue_of(q));
  int* level = static_cast<int*>(st.level.ensure(ints));
  int* counts = static_cast<int*>(st.counts.ensure(ints + sizeof(int)));  // + 1: the slabs' scan (below)
  // bad_row, max_level, ticket, then the longest row and the row count of each of the first
  // levels, then the band
  constexpr int kMisc = 3 + 2 * kSptrsvLaunchLevelsMax + 1, kBand = kMisc - 1;
  int* misc = static_cast<int*>(st.misc.ensure(kMisc * sizeof(int)));
  TESSERA_CUDA_CHECK(cudaMemsetAsync(misc, 0x7f, sizeof(int), stream));
  TESSERA_CUDA_CHECK(cudaMemsetAsync(misc + 1, 0, (kMisc - 1) * sizeof(int), stream));

  const auto* rp = static_cast<const int*>(A.row_ptr);
  const auto* ci = static_cast<const int*>(A.col_idx);
  TESSERA_CUDA_CHECK(launch_sptrsv_diag<T>(plan->shape, rp, ci, static_cast<const T*>(A.values),
                                           ptr<T>(plan->inv_diag), misc, misc + kBand, stream));
  int* const longest = misc + 3;
  int* const first_counts_d = longest + kSptrsvLaunchLevelsMax;
  // The levels: by blocks of sptrsv.level_threads threads taking sptrsv.level_rows rows each, or
  // (sptrsv.level_block_rows) a small triangle by one block holding every level in shared memory.
  // A thread's rows are taken in order, so more than one a thread pays off only where the rows a
  // block apart rise in level (lib/src/tuning/sptrsv.cpp): both off by default.
  const std::int64_t chunk_max = sptrsv_level_chunk_max(props_.sharedMemPerBlockOptin);
  SptrsvLevelBlocks lb;
  constexpr int kWidest = 1024;  // threads of the one block
  const bool one_block =
      n <= std::min<std::int64_t>(tune_.get("sptrsv.level_block_rows"), chunk_max / kWidest * kWidest);
  if (one_block) {
    lb.threads = kWidest;
    lb.rows_per_thread = (n + kWidest - 1) / kWidest;
  } else {
    lb.threads = static_cast<int>(tune_.get("sptrsv.level_threads"));
    lb.rows_per_thread = static_cast<int>(
        std::min<std::int64_t>(tune_.get("sptrsv.level_rows"), std::max<std::int64_t>(1, chunk_max / lb.threads)));
    TESSERA_CUDA_CHECK(cudaMemsetAsync(level, 0, ints, stream));  // "not yet" for other blocks' polls
  }
  TESSERA_CUDA_CHECK(launch_sptrsv_levels(plan->shape, rp, ci, level, first_counts_d, misc + 2, misc + 1, longest, lb,
                                          static_cast<int>(tune_.get("sptrsv.sleep_ns")), stream));
  // The verdict and the level count are needed here; with them, in the same round trip, the
  // first levels' row counts and longest rows (the few-levels launch needs them).
  int host[kMisc] = {};
  TESSERA_CUDA_CHECK(cudaMemcpyAsync(host, misc, sizeof host, cudaMemcpyDeviceToHost, stream));
  const int* const first_counts = host + 3 + kSptrsvLaunchLevelsMax;
  note_host_wait();
  TESSERA_CUDA_CHECK(cudaStreamSynchronize(stream));
  if (!plan->shape.unit && host[0] != kNoRow) throw InvalidArgument(singular_row_message(*this, A, host[0], stream));

  // How the levels are walked: a few wide ones by the few-levels launch, more by parts of the rows
  // (or the sync-free launch), narrow ones by one block. Parts: sptrsv.parts eighths of the SM
  // count, at most n / levels (a row a level each on average; the segment counts then fit the n
  // ints of `counts`).
  const int levels = host[1];
  const bool wide = plan::solve_sync_free(n, levels, tune_.get("sptrsv.syncfree"));
  if (wide && levels <= std::min<std::int64_t>(tune_.get("sptrsv.few_levels"), kSptrsvLaunchLevelsMax)) {
    // Lanes enough that the level's longest row takes at most one batch of kSptrsvLevelEntries
    // loads a lane (or as few as 32 lanes allow).
    SptrsvLevelTable& t = plan->levels;
    t.levels = levels;
    int blocks = 0;
    for (int l = 0; l < levels; ++l) {
      int lanes = 1;
      while (lanes < 32 && lanes * kSptrsvLevelEntries < host[3 + l]) lanes *= 2;
      t.lanes[l] = lanes;
      t.first[l + 1] = t.first[l] + first_counts[l];
      const int rows_per_block = kSptrsvThreads / lanes;
      blocks += (first_counts[l] + rows_per_block - 1) / rows_per_block;
      t.block_end[l] = blocks;
    }
  }
  const std::int64_t eighths = plan->levels.levels > 0 ? 0 : tune_.get("sptrsv.parts");
  plan->blocks_walk = !wide || eighths > 0;
  // Lanes enough for rows of twice the mean length in the entries each lane holds ahead (longer
  // rows load the rest as they go; the mean counts the whole row, as the walk did before it had
  // the triangle's copy).
  const std::int64_t per_lane = (2 * A.nnz / n + kSptrsvBlockEntries - 1) / kSptrsvBlockEntries;
  while (plan->lanes < 32 && plan->lanes < per_lane) plan->lanes *= 2;
  const int sms = props_.multiProcessorCount, most = sptrsv_block_threads(true);
  int parts = wide && eighths > 0
                  ? static_cast<int>(std::max<std::int64_t>(1, std::min<std::int64_t>(eighths * sms / 8, n / levels)))
                  : 1;
  if (parts > 1) {
    // Every part resident at once (a part that is not waits for the ones before it to end): at
    // most the SMs times the walk's blocks one SM holds (the occupancy calculator: registers, two
    // blocks of 256 threads on sm_90).
    const int bare = sptrsv_parts_resident<T>(plan->lanes, most, 0);
    if (bare > 0) parts = std::min(parts, bare * sms);
  }
  SptrsvWalk& w = plan->walk;
  w = sptrsv_contiguous_walk(n, levels, parts);
  if (w.parts > 1 && tune_.get("sptrsv.tiles") != 0) {
    const SptrsvWalk tiles = tiled_walk(n, levels, host[kBand], w.parts, tune_.get("sptrsv.tile_shape"));
    if (tiles.parts > 1 && tiles_pay_off(*this, plan->shape, tiles, w, rp, ci, st.check, stream)) w = tiles;
  }
  if (w.parts > 1) {
    // The part's x in shared memory only where it fits beside the other parts on its SM.
    const bool fits = static_cast<std::size_t>(w.part_rows) * sizeof(T) <= props_.sharedMemPerBlockOptin;
    plan->smem_x = fits && sptrsv_parts_resident<T>(plan->lanes, most, w.part_rows) * sms >= w.parts;
  } else {
    plan->smem_x = static_cast<std::size_t>(w.part_rows) * sizeof(T) <= props_.sharedMemPerBlockOptin;
  }
  const int segments = levels * w.parts;
  // Rows counted by segment (by level where there is one part).
  TESSERA_CUDA_CHECK(cudaMemsetAsync(counts, 0, static_cast<std::size_t>(segments) * sizeof(int), stream));
  TESSERA_CUDA_CHECK(launch_sptrsv_segment_counts(plan->shape, w, level, counts, stream));
  // Scratch for the longer scans (the segments', the slabs' below).
  auto scan_scratch = [&](int len) {
    return static_cast<int*>(
        st.scan.ensure(static_cast<std::size_t>(std::max(1, exclusive_scan_scratch_ints(len))) * sizeof(int)));
  };
  TESSERA_CUDA_CHECK(launch_exclusive_scan(counts, segments, scan_scratch(segments), stream));
  TESSERA_CUDA_CHECK(launch_sptrsv_scatter(plan->shape, w, level, counts, ptr<int>(plan->order), stream));
  if (plan->levels.levels > 0) {
    plan->info.ensure(static_cast<std::size_t>(n) * sizeof(int4));
    TESSERA_CUDA_CHECK(launch_sptrsv_block_info(n, ptr<int>(plan->order), rp, ptr<int4>(plan->info), stream));
  }
  if (plan->blocks_walk) {  // the scatter left each segment's end position in counts
    const std::size_t seg_bytes = static_cast<std::size_t>(segments) * sizeof(int);
    plan->seg_end.ensure(seg_bytes);
    TESSERA_CUDA_CHECK(cudaMemcpyAsync(plan->seg_end.get(), counts, seg_bytes, cudaMemcpyDeviceToDevice, stream));
    // The triangle in segment order (SptrsvEntries), its slabs' offsets scanned in counts (free
    // once seg_end has its copy) and their total read back to size it: a second round trip.
    const int W = 32 / plan->lanes;
    const int slabs = static_cast<int>((static_cast<std::int64_t>(n) + W - 1) / W);
    // With the total, in the same round trip, the widest segment's rows (the parts' threads).
    auto* total_d = static_cast<unsigned long long*>(st.entry_total.ensure(2 * sizeof(unsigned long long)));
    TESSERA_CUDA_CHECK(cudaMemsetAsync(total_d, 0, 2 * sizeof(unsigned long long), stream));
    if (w.parts > 1)
      TESSERA_CUDA_CHECK(launch_sptrsv_widest_segment(ptr<int>(plan->seg_end), segments,
                                                      reinterpret_cast<int*>(total_d + 1), stream));
    TESSERA_CUDA_CHECK(cudaMemsetAsync(counts + slabs, 0, sizeof(int), stream));
    int* const len = level;  // free since the scatter
    TESSERA_CUDA_CHECK(launch_sptrsv_entry_counts(plan->shape, ptr<int>(plan->order), rp, ci, plan->lanes, len, counts,
                                                  total_d, stream));
    TESSERA_CUDA_CHECK(launch_exclusive_scan(counts, slabs + 1, scan_scratch(slabs + 1), stream));
    unsigned long long totals[2] = {};
    TESSERA_CUDA_CHECK(cudaMemcpyAsync(totals, total_d, sizeof totals, cudaMemcpyDeviceToHost, stream));
    note_host_wait();
    TESSERA_CUDA_CHECK(cudaStreamSynchronize(stream));
    const unsigned long long total = totals[0];
    int widest = 0;
    std::memcpy(&widest, totals + 1, sizeof widest);
    if (total > static_cast<unsigned long long>(INT_MAX))  // the offsets are ints
      throw NotImplemented("cuda: sptrsv of a triangle whose rows, padded to their slabs, exceed 2^31 - 1 entries");
    // One allocation for the four arrays (each cudaMalloc of the analysis costs host time).
    constexpr std::size_t kAlign = 256;
    auto up = [](std::size_t b) { return (b + kAlign - 1) / kAlign * kAlign; };
    const std::size_t info_bytes = up(static_cast<std::size_t>(n) * sizeof(int4));
    const std::size_t inv_bytes = up(static_cast<std::size_t>(n) * sizeof(T));
    const std::size_t col_bytes = up(static_cast<std::size_t>(total) * sizeof(int));
    auto* base = static_cast<unsigned char*>(
        plan->entries.ensure(info_bytes + inv_bytes + col_bytes + static_cast<std::size_t>(total) * sizeof(T)));
    SptrsvEntries<T>& e = plan->copy;
    e.info = reinterpret_cast<int4*>(base);
    e.inv_pos = reinterpret_cast<T*>(base + info_bytes);
    e.ecol = reinterpret_cast<int*>(base + info_bytes + inv_bytes);
    e.eval = reinterpret_cast<T*>(base + info_bytes + inv_bytes + col_bytes);
    TESSERA_CUDA_CHECK(launch_sptrsv_entry_fill<T>(plan->shape, w, plan->smem_x, ptr<int>(plan->order), rp, ci,
                                                   static_cast<const T*>(A.values), ptr<T>(plan->inv_diag),
                                                   plan->lanes, len, counts, e, stream));
    // Groups (a row each a step): one block, sptrsv.walk_groups times the mean rows of a level;
    // parts, sptrsv.part_groups quarters of the widest segment's rows (tiles are busy on a part of
    // the levels only, so the mean over all of them is far below their width). A block of idle
    // warps still issues every level's instructions, and a wider level takes further rounds.
    const std::int64_t groups =
        w.parts > 1 ? (tune_.get("sptrsv.part_groups") * widest + 3) / 4
                    : tune_.get("sptrsv.walk_groups") * ((n + segments - 1) / segments);
    plan->threads = 32;
    while (plan->threads < sptrsv_block_threads(w.parts > 1) && plan->threads < groups * plan->lanes)
      plan->threads *= 2;
  }
  TESSERA_CUDA_CHECK(cudaEventCreateWithFlags(&plan->done, cudaEventDisableTiming));
  TESSERA_CUDA_CHECK(cudaEventRecord(plan->done, stream));
  plan->analysed_on = SptrsvState::shared(queue_of(q));
  return plan;
}

template <class T>
void CudaBackend::sptrsv_solve(QueueImpl& q, const SptrsvPlanData& data, const CsrView& A, const VecView& b,
                               const VecView& x) {
  const auto* plan = dynamic_cast<const CudaSptrsvPlan<T>*>(&data);
  if (plan == nullptr)
    throw InvalidArgument("sptrsv_solve: the plan was not made by the cuda backend for this data type");
  if (plan->shape.n == 0) return;
  const cudaStream_t stream = stream_of(q);
  SptrsvState& st = SptrsvState::of(queue_of(q));
  if (plan->levels.levels > 0) {
    SptrsvLevelTable t = plan->levels;
    const unsigned blocks = static_cast<unsigned>(t.block_end[t.levels - 1]);
    // Blocks wait (and so take tickets) unless there are two levels and x is not b.
    const bool waits = t.levels > 2 || dev_ptr<const T>(b) == dev_ptr<const T>(x);
    int ticket_base = 0;
    int* ticket = waits ? st.ticket_for(blocks, ticket_base, stream) : nullptr;
    int* done = st.done_for(t, stream);
    plan->order_after_analysis(stream, &st);
    TESSERA_CUDA_CHECK(launch_sptrsv_levels_solve<T>(plan->shape, t, ptr<int4>(plan->info),
                                                     static_cast<const int*>(A.col_idx),
                                                     static_cast<const T*>(A.values), ptr<T>(plan->inv_diag),
                                                     dev_ptr<const T>(b), dev_ptr<T>(x), ticket, ticket_base, done,
                                                     static_cast<int>(tune_.get("sptrsv.sleep_ns")), stream));
    if (waits) st.taken += static_cast<int>(blocks);
    for (int l = 0; l < t.levels; ++l) st.done_taken[l] += t.block_end[l] - (l == 0 ? 0 : t.block_end[l - 1]);
    return;
  }
  const SptrsvWalk& w = plan->walk;
  SptrsvState::Flags* flags = nullptr;
  int* ticket = nullptr;
  int ticket_base = 0;
  // Each block of the launch takes a ticket.
  const unsigned blocks = plan->blocks_walk ? static_cast<unsigned>(w.parts)
                                            : sptrsv_solve_blocks(plan->shape.n, plan->warp_per_row);
  if (!plan->blocks_walk || w.parts > 1) {
    flags = &st.flags_for<T>(plan->shape.n, stream);
    ticket = st.ticket_for(blocks, ticket_base, stream);
  }
  plan->order_after_analysis(stream, &st);
  if (plan->blocks_walk) {
    SptrsvBlockArgs<T> a;
    a.seg_end = ptr<int>(plan->seg_end);
    a.info = plan->copy.info;
    a.ecol = plan->copy.ecol;
    a.eval = plan->copy.eval;
    a.inv_pos = plan->copy.inv_pos;
    a.b = dev_ptr<const T>(b);
    a.x = dev_ptr<T>(x);
    a.lanes = plan->lanes;
    a.threads = plan->threads;
    a.smem_x = plan->smem_x;
    if (flags != nullptr) {
      a.ready = flags->ready.get();
      a.epoch = flags->epoch;
      a.ticket = ticket;
      a.ticket_base = ticket_base;
      a.sleep_ns = static_cast<int>(tune_.get("sptrsv.sleep_ns"));
    }
    TESSERA_CUDA_CHECK(launch_sptrsv_block_solve<T>(plan->shape, w, a, stream));
  } else {
    // At most sptrsv.blocks_per_sm blocks per SM: each asks for its share of the SM's shared
    // memory (less the 1 KB per block the hardware reserves), within the per-block opt-in limit.
    const std::size_t per_sm = props_.sharedMemPerMultiprocessor;
    const std::size_t share = per_sm / static_cast<std::size_t>(tune_.get("sptrsv.blocks_per_sm"));
    const std::size_t residency_smem =
        std::min<std::size_t>(share > 2048 ? share - 1024 - 256 : 0, props_.sharedMemPerBlockOptin);
    TESSERA_CUDA_CHECK(launch_sptrsv_solve<T>(
        plan->shape, plan->warp_per_row, ptr<int>(plan->order), static_cast<const int*>(A.row_ptr),
        static_cast<const int*>(A.col_idx), static_cast<const T*>(A.values), ptr<T>(plan->inv_diag),
        dev_ptr<const T>(b), dev_ptr<T>(x), flags->ready.get(), flags->epoch, ticket, ticket_base, residency_smem,
        tune_.get("sptrsv.sleep_ns"), stream));
  }
  if (ticket != nullptr) st.taken += static_cast<int>(blocks);  // launched: its blocks take their tickets
}

TESSERA_INSTANTIATE_TYPED_OP(CudaBackend, sptrsv_analyze)
TESSERA_INSTANTIATE_TYPED_OP(CudaBackend, sptrsv_solve)

}  // namespace tessera::cuda
