#include "measure.hpp"

#include <algorithm>
#include <vector>

namespace bench {

namespace {
double timed_call(Runner& r) {
  r.reset();
  r.sync();
  const double t0 = now_s();
  r.run();
  r.sync();
  return (now_s() - t0) * 1e3;
}
}  // namespace

Timing measure(Runner& runner, const MeasureOptions& options) {
  Timing t;
  t.first_call_ms = timed_call(runner);

  std::vector<double> ms;
  double timed_s = 0;
  while (ms.empty() || (static_cast<int>(ms.size()) < options.max_reps &&
                        (timed_s < options.min_time_s || static_cast<int>(ms.size()) < options.min_reps))) {
    ms.push_back(timed_call(runner));
    timed_s += ms.back() * 1e-3;
  }
  std::sort(ms.begin(), ms.end());
  const std::size_t n = ms.size();
  t.reps = static_cast<int>(n);
  t.min_ms = ms.front();
  t.max_ms = ms.back();
  t.median_ms = n % 2 ? ms[n / 2] : 0.5 * (ms[n / 2 - 1] + ms[n / 2]);
  return t;
}

}  // namespace bench
