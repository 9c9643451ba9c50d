#include "check.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace bench {

double tolerance(tessera::DType dtype) { return dtype == tessera::DType::f32 ? 1e-4 : 1e-10; }

CheckResult check_result(const Oracle& oracle, const std::vector<double>& got, tessera::DType dtype, double tol) {
  if (!(tol > 0)) tol = tolerance(dtype);
  CheckResult r;
  if (!oracle.available()) {
    r.status = "unchecked";
    r.detail = oracle.why_none;
    return r;
  }
  const bool full = oracle.index.empty();
  if (full && got.size() != oracle.expected.size()) {
    r.status = "FAILED";
    r.detail = "result has " + std::to_string(got.size()) + " elements, expected " +
               std::to_string(oracle.expected.size());
    return r;
  }
  double scale = oracle.scale;
  if (scale <= 0)
    for (double e : oracle.expected) scale = std::max(scale, std::fabs(e));
  if (!(scale > 0)) scale = 1.0;  // an all-zero expected result: absolute error

  double worst = 0.0, total = 0.0;
  std::int64_t worst_at = -1;
  for (std::size_t i = 0; i < oracle.expected.size(); ++i) {
    const auto pos = full ? static_cast<std::int64_t>(i) : oracle.index[i];
    if (pos < 0 || static_cast<std::size_t>(pos) >= got.size()) {
      r.status = "FAILED";
      r.detail = "result has " + std::to_string(got.size()) + " elements, sample index " + std::to_string(pos);
      return r;
    }
    const double s = oracle.entry_scale.empty() ? scale : oracle.entry_scale[i] > 0 ? oracle.entry_scale[i] : 1.0;
    const double err = std::fabs(got[static_cast<std::size_t>(pos)] - oracle.expected[i]) / s;
    total += err;
    if (!(err <= worst)) {  // also catches NaN, which then stays the worst
      worst = err;
      worst_at = pos;
      if (std::isnan(err)) break;
    }
  }
  r.error = worst;
  if (!oracle.expected.empty()) r.mean_error = total / static_cast<double>(oracle.expected.size());
  if (worst <= tol) {
    r.status = "ok";
    return r;
  }
  r.status = "FAILED";
  char buf[160];
  const std::size_t k = full ? static_cast<std::size_t>(worst_at)
                             : static_cast<std::size_t>(std::find(oracle.index.begin(), oracle.index.end(), worst_at) -
                                                        oracle.index.begin());
  std::snprintf(buf, sizeof buf, "element %lld: %.9g, expected %.9g (relative error %.3g > %.0e)",
                static_cast<long long>(worst_at), got[static_cast<std::size_t>(worst_at)], oracle.expected[k], worst,
                tol);
  r.detail = buf;
  return r;
}

}  // namespace bench
