// The correctness check of every measured result against an oracle.
//
// The oracle is the reference backend (plain loops, double accumulation) run once per case on
// the same inputs at the same size. Where that costs more than kOracleBudgetFlops (gemm from
// n ~ 800, the conv layer at --size large: seconds to minutes of sequential loops), the workload computes a
// random sample of output entries on the host in double instead (each entry is an independent
// dot product, so a sample checks every tile of the result with high probability).
//
// Error = max |got - expected| / scale, scale = max |expected| (or the workload's own scale,
// e.g. sum |x_i| for a reduction; or per entry, Oracle::entry_scale: badly scaled gemm data).
// Pass when error <= tolerance(dtype); NaN fails. The mean of
// |got - expected| / scale over the checked entries is reported beside it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tessera/types.hpp"

namespace bench {

// 1 GFLOP: the reference backend's plain loops run at 0.2-1 GFLOP/s on one core (its gemm at
// the low end: 13 s for n = 1024 on the 2-core VM), so this keeps each oracle call to seconds.
inline constexpr double kOracleBudgetFlops = 1e9;

struct Oracle {
  std::string source;    // "reference", "sampled", or empty when there is none
  std::string why_none;  // when there is none: why (e.g. the reference threw NotImplemented)
  std::vector<std::int64_t> index;  // positions checked; empty: every element, in order
  std::vector<double> expected;
  double scale = 0.0;  // 0: max |expected|
  std::vector<double> entry_scale;  // when given: each checked entry's own scale (replaces scale)
  bool available() const { return !source.empty(); }
};

struct CheckResult {
  std::string status;  // "ok", "FAILED", "unchecked" (no oracle)
  double error = -1.0; // relative error as defined above; < 0 when not computed
  double mean_error = -1.0;  // its mean over the checked entries
  std::string detail;  // what failed, for the report
};

// f32: 1e-4 and f64: 1e-10, relative to the scale. The cases are built to be well conditioned
// (diagonally dominant triangles, a contracting stencil, O(1) entries), so the error of any
// sound summation order is orders of magnitude below these; a real bug (a wrong tile, a missed
// row, a race) is far above them.
double tolerance(tessera::DType dtype);

// Baselines that round f32 inputs to TF32 (10 explicit mantissa bits, unit roundoff
// u = 2^-11 ~ 4.9e-4) before multiplying: each product carries a relative error up to ~2u, and
// with random-signed O(1) data the error of the sum is ~u * sqrt(terms) against a result of
// ~sqrt(terms), so ~1e-3 over a sample of thousands; 10u leaves margin yet still fails a wrong
// tile, which is off by O(1).
inline constexpr double kTf32Tolerance = 10.0 * 0x1.0p-11;

// tol > 0 replaces tolerance(dtype) (reduced-precision baselines: kTf32Tolerance).
CheckResult check_result(const Oracle& oracle, const std::vector<double>& got, tessera::DType dtype, double tol = 0);

}  // namespace bench
