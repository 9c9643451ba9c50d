// The phase clock behind tessera/mpi/timing.hpp.
#pragma once

#include <chrono>

#include "tessera/mpi/timing.hpp"
#include "tessera/queue.hpp"

namespace tessera::mpi::detail {

bool timing_on();
PhaseTimes& times();

// Adds the time since construction (or the last lap) to a phase; with timing off it does nothing.
class PhaseClock {
 public:
  explicit PhaseClock(const Queue& q) : q_(q), on_(timing_on()) {
    if (on_) t_ = std::chrono::steady_clock::now();
  }
  // Ends the current phase into `slot` (waits for q's work first, when timing).
  void lap(double PhaseTimes::*slot) {
    if (!on_) return;
    q_.synchronize();
    const auto now = std::chrono::steady_clock::now();
    times().*slot += std::chrono::duration<double>(now - t_).count();
    t_ = now;
  }

 private:
  const Queue& q_;
  bool on_;
  std::chrono::steady_clock::time_point t_;
};

}  // namespace tessera::mpi::detail
