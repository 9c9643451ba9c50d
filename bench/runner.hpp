// Runner: one implementation of one workload on one device, as the measurement loop sees it.
// Tessera on a device and every vendor baseline are runners, so all are timed and checked by
// the same code.
#pragma once

#include <string>
#include <vector>

namespace tessera {
class DeviceTimer;
}

namespace bench {

class Runner {
 public:
  virtual ~Runner() = default;
  // Restores operands that the call overwrites in place (trsv's x, a stencil's grid, spmv's y),
  // so every timed call starts from the same input and the last result can be checked. Untimed.
  virtual void reset() {}
  // The timed call.
  virtual void run() = 0;
  // Waits until the device has finished all queued work (a no-op for synchronous host code).
  virtual void sync() {}
  // The output of the last call, widened to double (scalars as one element).
  virtual std::vector<double> result() = 0;
  // Milliseconds of one-off preparation done when the runner was built and reused by every
  // call (sparse triangular analysis); < 0 when there is none.
  virtual double setup_ms() const { return -1.0; }
  // Iterations a solve to convergence took (the cases that stop on a tolerance, where the
  // implementations may take different numbers); < 0 for everything else.
  virtual long long iterations() const { return -1; }
  // What the implementation chose, when it says (e.g. oneDNN's kernel name); empty otherwise.
  virtual std::string detail() const { return {}; }
  // A clock on the runner's own device queue (a GPU baseline's events on its stream), or null:
  // then the caller's (the Tessera device's timer or the host clock). Owned by the runner.
  virtual tessera::DeviceTimer* timer() { return nullptr; }
  // Operations one run() performs: the row reports the time of one (a CG run of 50 iterations:
  // per iteration; 1000 enqueues: per enqueue). FLOP and byte formulas are per operation too.
  virtual int calls_per_run() const { return 1; }
  // A runner that clocks part of run() itself (launch: the enqueue loop alone, without the
  // wait for the device that follows in sync()) returns that time here, in ms, >= 0; the
  // measurement loop then uses it instead of any other clock.
  virtual double own_ms() const { return -1.0; }
};

}  // namespace bench
