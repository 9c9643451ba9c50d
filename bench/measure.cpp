#include "measure.hpp"

#include <algorithm>
#include <vector>

namespace bench {

namespace {
double timed_call(Runner& r, tessera::DeviceTimer* timer) {
  r.reset();
  r.sync();
  if (r.own_ms() >= 0) {  // a self-timed runner (see runner.hpp): its clock, whatever `timer` is
    r.run();
    r.sync();
    return r.own_ms();
  }
  if (timer) {
    timer->start();
    r.run();
    timer->stop();
    const double ms = timer->elapsed_ms();
    r.sync();  // work on another queue of the runner, if any, is done before the next reset
    return ms;
  }
  const double t0 = now_s();
  r.run();
  r.sync();
  const double ms = (now_s() - t0) * 1e3;
  return r.own_ms() >= 0 ? r.own_ms() : ms;  // the first call of a self-timed runner
}
}  // namespace

Timing measure(Runner& runner, const MeasureOptions& options, tessera::DeviceTimer* timer) {
  Timing t;
  t.first_call_ms = timed_call(runner, nullptr);
  if (runner.own_ms() >= 0) {
    timer = nullptr;
    t.clock = "host (own)";
  } else if (timer) {
    t.clock = timer->clock();
  }

  std::vector<double> ms;
  double timed_s = 0;
  while (ms.empty() || (static_cast<int>(ms.size()) < options.max_reps &&
                        (timed_s < options.min_time_s || static_cast<int>(ms.size()) < options.min_reps))) {
    ms.push_back(timed_call(runner, timer));
    timed_s += ms.back() * 1e-3;
  }
  const double per_call = 1.0 / std::max(1, runner.calls_per_run());
  for (double& m : ms) m *= per_call;
  t.first_call_ms *= per_call;
  std::sort(ms.begin(), ms.end());
  const std::size_t n = ms.size();
  t.reps = static_cast<int>(n);
  t.min_ms = ms.front();
  t.max_ms = ms.back();
  t.median_ms = n % 2 ? ms[n / 2] : 0.5 * (ms[n / 2 - 1] + ms[n / 2]);
  return t;
}

}  // namespace bench
