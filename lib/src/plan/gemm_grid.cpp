// The gemm grid model (gemm_grid.hpp says what it counts and why).
#include "plan/gemm_grid.hpp"

#include <algorithm>

namespace tessera::plan {

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
      const std::int64_t full = busiest / t.blocks_per_sm * t.blocks_per_sm;
      const double rounds =
          static_cast<double>(full) + (busiest > full ? std::max(static_cast<double>(busiest - full), t.alone) : 0.0);
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
