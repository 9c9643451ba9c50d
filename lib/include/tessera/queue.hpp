/// \file
/// Queue and Event: ordering work on a device, as CUDA streams and events or SYCL queues do.
#pragma once

#include <memory>

#include "tessera/backend.hpp"
#include "tessera/device.hpp"

namespace tessera {

class Event;

/// An in-order stream of work on one device: a CUDA stream, an OpenCL in-order command queue,
/// or, on the cpu and reference devices, the calling thread (each operation has finished when
/// its call returns). Operations given a queue are enqueued on it and return without waiting
/// for the device; only what hands a value to the host waits (Scalar::get, download, the
/// value-returning reductions, synchronize). Cheap to copy: copies are the same queue, which
/// lives while a copy does. Every operation has an overload taking a queue first; those without
/// one use the device's default queue (Device::queue()).
///
/// Work on different queues may run concurrently and in any order relative to each other:
/// order it with events (`Event e = a.record(); b.wait(e);`), which costs no host wait.
class Queue {
 public:
  Queue() = default;  ///< an empty handle; Device::queue() or Device::new_queue() give usable ones
  explicit operator bool() const { return state_ != nullptr; }  ///< false for an empty handle

  const Device& device() const;  ///< the device the queue belongs to
  /// Waits on the host until all work queued so far has finished (a host wait).
  void synchronize() const;
  /// An event marking the work queued so far.
  Event record() const;
  /// Work queued here afterwards starts after the event's work has finished, without the host
  /// waiting. Throws DeviceMismatch for an event of another device and InvalidArgument for an
  /// empty event or one whose queue has been destroyed.
  void wait(const Event& event) const;
  /// The native queue: a cudaStream_t on cuda, a cl_command_queue on opencl, null on host
  /// devices. Valid while the queue lives; do not destroy it.
  void* native() const;

  friend bool operator==(const Queue& a, const Queue& b) { return a.state_ == b.state_; }  ///< the same queue
  friend bool operator!=(const Queue& a, const Queue& b) { return !(a == b); }  ///< different queues

  /// The backend's side of the queue, for code that talks to a Backend directly (tessera-bench's
  /// device timers, plugins' tests); applications use the calls above.
  QueueImpl& backend_queue() const;

  /// The queue's state, for lib/'s own use (its mutex serialises enqueueing; see queue_state.hpp).
  detail::QueueState& state() const;

 private:
  friend class Device;
  Queue(Device device, std::shared_ptr<detail::QueueState> state)
      : device_(std::move(device)), state_(std::move(state)) {}
  Device device_;
  std::shared_ptr<detail::QueueState> state_;
};

/// A point in a queue's work (Queue::record). Cheap to copy.
class Event {
 public:
  Event() = default;  ///< an empty event
  explicit operator bool() const { return impl_ != nullptr; }  ///< false for an empty event
  /// Waits on the host until the work before the event has finished (a host wait). Throws
  /// InvalidArgument for an empty event or one whose queue has been destroyed.
  void synchronize() const;
  /// Whether that work has finished, without waiting (same errors as synchronize).
  bool ready() const;
  const Device& device() const { return device_; }  ///< the device of the recording queue

 private:
  friend class Queue;
  EventImpl& checked(const char* what) const;
  Device device_;
  std::shared_ptr<EventImpl> impl_;
  std::weak_ptr<detail::QueueState> queue_;  // the recording queue, to detect its destruction
};

}  // namespace tessera
