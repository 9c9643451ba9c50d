#include "plan/spmv_policy.hpp"

#include "host_machine.hpp"

#include <algorithm>
#include <climits>
#include <cstdio>

namespace tessera::plan {

const char* to_string(SpmvKernel k) {
  switch (k) {
    case SpmvKernel::rows: return "rows";
    case SpmvKernel::vector: return "vector";
    case SpmvKernel::stream: return "stream";
    case SpmvKernel::merge: return "merge";
    case SpmvKernel::split: return "split";
  }
  return "?";
}

bool irregular_short_rows(const CsrStats& s) {
  return s.short_pairs > 0 && s.short_pair_changes * 4 >= s.short_pairs;
}

bool predictor_learns_rows(const CsrView& A, const tuning::Tuning& tune) {
  return A.rows < tune["spmv.short_gather_min_rows"];
}

namespace {
// spmv.sell_max_llc: the matrix (values and column indices) within that many host last-level
// caches, or no bound (0).
bool within_cache_bound(const CsrView& A, const tuning::Tuning& tune, std::size_t value_bytes) {
  const std::int64_t times = tune["spmv.sell_max_llc"];
  const double bytes = static_cast<double>(A.nnz) * static_cast<double>(value_bytes + sizeof(std::int32_t));
  return times == 0 || bytes <= static_cast<double>(times) * static_cast<double>(host::machine().caches.l3);
}
bool even_rows(const CsrView& A, const tuning::Tuning& tune, std::size_t value_bytes) {
  const std::int64_t max_cv = tune["spmv.sell_max_cv"];
  return max_cv > 0 && A.stats.stddev_row * 100.0 <= static_cast<double>(max_cv) * A.stats.mean_row &&
         within_cache_bound(A, tune, value_bytes);
}
}  // namespace

bool irregular_sell(const CsrView& A, const tuning::Tuning& tune, std::size_t value_bytes) {
  // Short rows must be most of the matrix: FEM matrices with a few short, uneven boundary rows
  // (Dubcova1, bcsstk16: 16 and 59 a row on average) ran 10-30% slower as SELL.
  if (tune["spmv.sell_irregular"] == 0 || !irregular_short_rows(A.stats) || 2 * A.stats.short_pairs < A.rows)
    return false;
  // SELL's gain is the mispredicted loop exits it removes; where the predictor learns the rows,
  // CSR stays: on a Zen 5 VM SELL ran 1.25-1.7x slower than CSR on add32, bayer10, bcspwr10,
  // bips98_606, hep-th and wiki-Vote in f64 (bench/RESULTS.md, session 27).
  if (predictor_learns_rows(A, tune)) return false;
  return within_cache_bound(A, tune, value_bytes);
}

bool sell_forced(const tuning::Tuning& tune) {
  return static_cast<FormatSetting>(tune["spmv.format"]) == FormatSetting::sell;
}

bool sell_in_spmv_dot(const tuning::Tuning& tune) { return sell_forced(tune); }

bool sell_candidate(const CsrView& A, const tuning::Tuning& tune, std::size_t value_bytes) {
  if (A.rows == 0 || A.nnz == 0 || A.host_row_ptr == nullptr) return false;
  const auto setting = static_cast<FormatSetting>(tune["spmv.format"]);
  if (setting != FormatSetting::automatic) return setting == FormatSetting::sell;
  if (A.rows < tune["spmv.sell_min_rows"]) return false;
  return even_rows(A, tune, value_bytes) || irregular_sell(A, tune, value_bytes);
}

bool keep_sell(const CsrView& A, std::int64_t padded, const tuning::Tuning& tune, std::size_t value_bytes) {
  if (padded > static_cast<std::int64_t>(INT_MAX)) return false;
  if (sell_forced(tune)) return true;
  // Either route that proposed it may keep it, each under its own limit: a matrix that passes
  // both (cpu/intel's even-row route takes rows of any spread) keeps the larger.
  const auto within = [&](std::int64_t limit) { return (padded - A.nnz) * 100 <= limit * A.nnz; };
  return (even_rows(A, tune, value_bytes) && within(tune["spmv.sell_max_padding"])) ||
         (irregular_sell(A, tune, value_bytes) && within(tune["spmv.sell_irregular_max_padding"]));
}

bool narrow_candidate(const CsrView& A, const tuning::Tuning& tune) {
  if (A.rows == 0 || A.nnz == 0 || A.generation == 0) return false;
  return static_cast<IndexSetting>(tune["spmv.index"]) == IndexSetting::int16;
}

std::string describe_sell(int c, int sigma, std::int64_t padded, std::int64_t nnz) {
  char buf[96];
  std::snprintf(buf, sizeof buf, "sell(C=%d, sigma=%d, padding %.1f%%)", c, sigma,
                nnz > 0 ? 100.0 * static_cast<double>(padded - nnz) / static_cast<double>(nnz) : 0.0);
  return buf;
}

std::string describe_split(int lanes, std::int64_t long_rows, std::int64_t chunks) {
  char buf[96];
  std::snprintf(buf, sizeof buf, "csr/split(vector %d, %lld long rows in %lld chunks)", lanes,
                static_cast<long long>(long_rows), static_cast<long long>(chunks));
  return buf;
}

int vector_lanes(double mean, const tuning::Tuning& tune) {
  const int max_lanes = tune.get("spmv.max_lanes"), min_lanes = tune.get("spmv.min_lanes");
  const int shift = tune.get("spmv.lanes_shift");
  int p = 1;
  while (p < mean && p < (max_lanes << shift)) p *= 2;
  return std::clamp(p >> shift, std::min(min_lanes, max_lanes), max_lanes);
}

std::string describe_csr(const SpmvChoice& c) {
  std::string s = std::string("csr/") + to_string(c.kernel);
  if (c.kernel == SpmvKernel::vector) s += "(" + std::to_string(c.lanes) + ")";
  return s;
}

SpmvChoice choose_spmv(const CsrView& A, const tuning::Tuning& tune, bool cpu_kernels, std::int64_t merge_tile,
                       bool dot) {
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
  if (skewed && s.max_row > tune["spmv.merge_long_row"]) {
    // The split layout is built once per matrix from the host row offsets: none without them,
    // nor for a matrix without identity (generation 0), which would rebuild it at every call.
    if (tune.has("spmv.split_max_nnz") && A.nnz <= tune["spmv.split_max_nnz"] &&
        A.host_row_ptr != nullptr && A.generation != 0) {
      c.kernel = SpmvKernel::split;
      return c;
    }
    if (merge_fits) {
      c.kernel = SpmvKernel::merge;
      return c;
    }
  }
  const std::int64_t stream_mean = tune["spmv.stream_mean"];
  if (!skewed && stream_mean > 0 && mean <= static_cast<double>(stream_mean)) {
    const int dot_lanes = dot ? tune.get("spmv.dot_lanes") : 0;
    c.kernel = dot_lanes > 0 ? SpmvKernel::vector : SpmvKernel::stream;
    c.lanes = dot_lanes > 0 ? dot_lanes : 1;
    return c;
  }
  c.kernel = SpmvKernel::vector;
  c.lanes = vector_lanes(mean, tune);
  return c;
}

}  // namespace tessera::plan
