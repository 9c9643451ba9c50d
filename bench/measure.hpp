// The measurement loop: one warm-up call (kernel compilation, first touch of output pages,
// plan caches: reported separately as first_call_ms), then timed calls until at least
// `min_time` seconds of timed calls and at least `min_reps` calls have been made.
// Each call: reset (untimed), synchronise, start the clock, call, synchronise, stop.
// steady_clock on the host brackets device synchronisation, so for asynchronous devices the
// time includes the launch latency, which is what a caller waiting on the result sees.
#pragma once

#include <chrono>

#include "runner.hpp"

namespace bench {

struct Timing {
  double first_call_ms = 0;
  double median_ms = 0, min_ms = 0, max_ms = 0;
  int reps = 0;
};

struct MeasureOptions {
  double min_time_s = 0.3;
  int min_reps = 3;
  // Caps calls for very short operations (a tiny case at --size small): enough for a stable
  // median, bounded so the untimed resets cannot dominate the run.
  int max_reps = 100000;
};

Timing measure(Runner& runner, const MeasureOptions& options);

// Seconds since an arbitrary fixed point, monotonic.
inline double now_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

}  // namespace bench
