// Runs a short-recurrence method's iterations, replaying them from a recorded graph where the
// queue can record (cuda). An iteration of CG is about eight operations; on a small system each
// takes the GPU a few microseconds, less than the host needs to enqueue it, so the host's
// enqueue cost bounds the iteration (26-37 us on an H200 for n < 20000). A graph launch
// enqueues a whole iteration pair at once and the GPU runs its kernels back to back. Before
// either, a backend with a fused kernel for the system runs all n iterations in one call
// (Method::fused_steps; e.g. one OpenCL work-group looping over the iterations).
#pragma once

#include <cstdint>

#include "tessera/errors.hpp"
#include "tessera/queue.hpp"

namespace tessera::solve_detail {

// M: a Method of driver.hpp (step(q, probe), period()).
template <class M>
class StepGraph {
 public:
  StepGraph(const Queue& q, M& m, bool allowed, bool fuse = false)
      : q_(q), m_(m), allowed_(allowed && q.can_capture()), fuse_(fuse) {}

  // n unprobed iterations, enqueued without waiting.
  void run(std::int64_t n) {
    if (fuse_ && n > 0) {
      if (m_.fused_steps(q_, n)) {
        ++fused_calls_;
        return;
      }
      fuse_ = false;  // the backend declined this system: it will again
    }
    // The first interval runs directly: it builds the plans and grows the scratch that the
    // recording must find in place (nothing in a recorded iteration may allocate or wait).
    const bool record_now = warm_;
    warm_ = true;
    const int period = m_.period();
    while (n > 0) {
      if (record_now && allowed_ && phase_ == 0 && n >= period && replay()) {
        n -= period;
        continue;
      }
      m_.step(q_, nullptr);
      phase_ = (phase_ + 1) % period;
      --n;
    }
  }

  bool used() const { return launches_ > 0; }
  bool fused() const { return fused_calls_ > 0; }

 private:
  // One launch of the recorded period; false (and graphs off) when it cannot be had.
  bool replay() {
    for (int attempt = 0; attempt < 2; ++attempt) {
      if (!graph_ && !record()) return false;
      if (graph_.launch(q_)) {
        ++launches_;
        return true;
      }
      graph_ = Graph();  // stale: scratch was reallocated since; record once more
    }
    allowed_ = false;
    return false;
  }

  // Records one period of steps (the host runs them, the device does not). The steps' host
  // side (the scalars' swaps) completes a whole period, so after a failed recording the method
  // is where it was and the iterations continue unrecorded.
  bool record() {
    q_.begin_capture();
    try {
      for (int i = 0; i < m_.period(); ++i) m_.step(q_, nullptr);
    } catch (...) {
      try {
        (void)q_.end_capture();
      } catch (const Error&) {
      }
      throw;
    }
    try {
      graph_ = q_.end_capture();
    } catch (const Error&) {
      allowed_ = false;
      return false;
    }
    return true;
  }

  const Queue& q_;
  M& m_;
  bool allowed_;
  bool fuse_;
  bool warm_ = false;
  int phase_ = 0;  // steps since the last whole period (the graph starts at phase 0)
  Graph graph_;
  std::int64_t launches_ = 0;
  std::int64_t fused_calls_ = 0;
};

}  // namespace tessera::solve_detail
