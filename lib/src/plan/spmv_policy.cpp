#include "plan/spmv_policy.hpp"

#include <algorithm>
#include <climits>

namespace tessera::plan {

const char* to_string(SpmvKernel k) {
  switch (k) {
    case SpmvKernel::rows: return "rows";
    case SpmvKernel::vector: return "vector";
    case SpmvKernel::stream: return "stream";
    case SpmvKernel::merge: return "merge";
  }
  return "?";
}

SpmvChoice choose_spmv(const CsrView& A, const tuning::Tuning& tune, bool cpu_kernels, std::int64_t merge_tile) {
  SpmvChoice c;
  if (cpu_kernels) {
    c.kernel = SpmvKernel::rows;
    return c;
  }
  const CsrStats& s = A.stats;
  const double mean = s.mean_row;
  const std::int64_t merge_skew = tune["spmv.merge_skew"];
  const bool skewed = merge_skew > 0 && s.max_row > tune["spmv.long_row"] &&
                      static_cast<double>(s.max_row) > static_cast<double>(merge_skew) * mean;
  const bool merge_fits = A.rows + A.nnz < static_cast<std::int64_t>(INT_MAX) - merge_tile;
  if (skewed && merge_fits) {
    c.kernel = SpmvKernel::merge;
    return c;
  }
  const std::int64_t stream_mean = tune["spmv.stream_mean"];
  if (!skewed && stream_mean > 0 && mean <= static_cast<double>(stream_mean)) {
    c.kernel = SpmvKernel::stream;
    return c;
  }
  const int max_lanes = tune.get("spmv.max_lanes"), min_lanes = tune.get("spmv.min_lanes");
  const int shift = tune.get("spmv.lanes_shift");
  int p = 1;
  while (p < mean && p < (max_lanes << shift)) p *= 2;
  c.kernel = SpmvKernel::vector;
  c.lanes = std::clamp(p >> shift, std::min(min_lanes, max_lanes), max_lanes);
  return c;
}

}  // namespace tessera::plan
