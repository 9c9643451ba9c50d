// What lib/ keeps for each queue: the backend's queue, the mutex that serialises enqueueing on
// it (the Backend contract: never two calls on one queue at once, so backends keep per-queue
// scratch without locks of their own), and a small device slot that value-returning reductions
// write their result into before it is downloaded. Not part of the public headers.
#pragma once

#include <memory>
#include <mutex>
#include <string>

#include "tessera/backend.hpp"
#include "tessera/errors.hpp"
#include "tessera/queue.hpp"

namespace tessera::detail {

struct QueueState {
  QueueState(std::shared_ptr<Backend> b, std::shared_ptr<QueueImpl> q) : backend(std::move(b)), impl(std::move(q)) {}
  ~QueueState() {
    if (slot != nullptr) backend->deallocate(slot);
  }
  QueueState(const QueueState&) = delete;
  QueueState& operator=(const QueueState&) = delete;

  std::shared_ptr<Backend> backend;  // outlives the queue
  std::shared_ptr<QueueImpl> impl;
  std::mutex mutex;
  void* slot = nullptr;  // 16 bytes on the device, allocated on first use (under mutex)
  bool capturing = false;  // between Queue::begin_capture and end_capture (under mutex)
  MathMode math = MathMode::exact;  // Queue::set_math_mode (under mutex)
  static constexpr std::size_t slot_bytes = 16;
};

// The one domain check of a MathMode (Queue::set_math_mode and the per-call overloads).
inline void check_math_mode(const char* op, MathMode m) {
  if (m != MathMode::exact && m != MathMode::tf32 && m != MathMode::tf32x3)
    throw InvalidArgument(std::string(op) + ": math mode " + std::to_string(static_cast<unsigned>(m)) +
                          " is not a MathMode (expected exact, tf32 or tf32x3)");
}

// Holds a queue's mutex while work is enqueued on it.
class Enqueue {
 public:
  explicit Enqueue(const Queue& q) : st_(q.state()), lock_(st_.mutex) {}
  QueueImpl& impl() const { return *st_.impl; }
  Backend& backend() const { return *st_.backend; }
  QueueState& state() const { return st_; }
  // The result slot (see QueueState), as a one-element view of any dtype.
  VecView slot() {
    if (st_.slot == nullptr) st_.slot = st_.backend->allocate(QueueState::slot_bytes);
    return {st_.slot, 1, 0};
  }

 private:
  QueueState& st_;
  std::unique_lock<std::mutex> lock_;
};

}  // namespace tessera::detail
