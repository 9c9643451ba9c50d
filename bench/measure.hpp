// The measurement loop: one warm-up call (kernel compilation, first touch of output pages,
// plan caches: reported separately as first_call_ms), then timed calls until at least
// `min_time` seconds of timed calls and at least `min_reps` calls have been made.
// Each call: reset (untimed), synchronise, start the clock, call, synchronise, stop.
// The clock: a device timer when one is given (CUDA events on the stream the call runs on:
// the GPU's own time from the start mark to the stop mark, without the host's wake-up after
// synchronising; a call that returns a value to the host, like reduce, still includes that
// round trip, as it does for the caller); otherwise steady_clock on the host bracketing device
// synchronisation, which includes the launch latency. The first call is always host-timed:
// it is there to show one-off host-side costs (module loading, plan building).
#pragma once

#include <chrono>
#include <string>

#include "runner.hpp"
#include "tessera/backend.hpp"

namespace bench {

struct Timing {
  double first_call_ms = 0;
  double median_ms = 0, min_ms = 0, max_ms = 0;
  int reps = 0;
  std::string clock = "host";  // or the device timer's name ("cuda-event", "opencl-event")
};

struct MeasureOptions {
  double min_time_s = 0.3;
  int min_reps = 3;
  // Caps calls for very short operations (a tiny case at --size small): enough for a stable
  // median, bounded so the untimed resets cannot dominate the run.
  int max_reps = 100000;
};

// `timer`: the device clock to use, or null for the host clock.
Timing measure(Runner& runner, const MeasureOptions& options, tessera::DeviceTimer* timer = nullptr);

// Seconds since an arbitrary fixed point, monotonic.
inline double now_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

}  // namespace bench
