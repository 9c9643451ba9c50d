// The gemm grid model (gemm_grid.hpp says what it counts and why).
#include "plan/gemm_grid.hpp"

#include <algorithm>

namespace tessera::plan {

namespace {

// The time of a round of r < blocks_per_sm blocks on one SM, in blocks at full occupancy: from
// `alone` for one block up to r = blocks_per_sm, linearly (CUDA's narrow f32 tiles, four an SM,
// on an H200: one 1.19, two 2.09 against 2.13 here; bench/RESULTS.md, session 22).
double short_round(std::int64_t r, const GemmTileModel& t) {
  if (t.blocks_per_sm <= 1) return static_cast<double>(r);
  const double idle = static_cast<double>(t.blocks_per_sm - r) / static_cast<double>(t.blocks_per_sm - 1);
  return std::max(static_cast<double>(r), static_cast<double>(r) + (t.alone - 1.0) * idle);
}

}  // namespace

GemmGridChoice choose_gemm_grid(const GemmGridQuery& q) {
  const std::int64_t sms = std::max(q.sms, 1), k = q.k;
  const bool forced_split = q.forced_splits >= 1;
  const double part_bytes = static_cast<double>(q.m) * static_cast<double>(q.n) * static_cast<double>(q.batch) *
                            static_cast<double>(q.elem_bytes);
  GemmGridChoice best;
  bool have = false;
  double best_time = 0;
  auto consider = [&](bool trans, bool narrow, const GemmTileModel& t) {
    const std::int64_t rows = trans ? q.n : q.m, cols = trans ? q.m : q.n;
    const std::int64_t tiles = ((rows + t.bm - 1) / t.bm) * ((cols + t.bn - 1) / t.bn) * q.batch;
    const int first = forced_split ? q.forced_splits : 1, last = forced_split ? q.forced_splits : kMaxSplits;
    for (int want = first; want <= last; ++want) {
      std::int64_t chunk = k, parts = 1;
      if (want > 1 && k > 0) {
        chunk = ((k + want - 1) / want + kSplitAlign - 1) / kSplitAlign * kSplitAlign;
        if (!forced_split && chunk < kSplitMinK) break;
        parts = (k + chunk - 1) / chunk;
        if (!forced_split && static_cast<double>(parts) * part_bytes > kSplitMaxBytes) break;
        if (parts < 2 || q.batch * parts > kMaxGridZ) {  // k fits one chunk; grid.z's limit
          parts = 1;
          chunk = k;
        } else if (!forced_split && parts != want) {
          continue;  // the same split as a smaller want
        }
      }
      // In FLOPs at the whole device's rate, so that the parts' bytes can be priced alike.
      const std::int64_t busiest = (tiles * parts + sms - 1) / sms;
      const std::int64_t full = busiest / t.blocks_per_sm * t.blocks_per_sm, rest = busiest - full;
      const double rounds = static_cast<double>(full) + (rest > 0 ? short_round(rest, t) : 0.0);
      double time = rounds * static_cast<double>(sms) * static_cast<double>(t.bm * t.bn) *
                    static_cast<double>(std::max<std::int64_t>(chunk, 1)) * 2.0 * t.margin;
      if (parts > 1) time = time * kSplitMargin + 2.0 * static_cast<double>(parts) * part_bytes * q.balance;
      if (!have || time < best_time) {
        have = true;
        best_time = time;
        best.c_trans = trans;
        best.narrow = narrow;
        best.splits = static_cast<int>(parts);
        best.k_chunk = parts > 1 ? chunk : 0;
      }
    }
  };
  const int trans_setting = q.may_transpose ? q.forced_trans : 0;
  for (int trans = 0; trans < 2; ++trans) {
    if ((trans == 1 && trans_setting == 0) || (trans == 0 && trans_setting == 1)) continue;
    if (q.forced_tiles != 1) consider(trans == 1, false, q.wide);
    if (q.forced_tiles != 0) consider(trans == 1, true, q.narrow);
  }
  return best;
}

}  // namespace tessera::plan
