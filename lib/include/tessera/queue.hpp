/// \file
/// Queue and Event: ordering work on a device, as CUDA streams and events or SYCL queues do.
#pragma once

#include <memory>

#include "tessera/backend.hpp"
#include "tessera/device.hpp"

namespace tessera {

class Event;
class Graph;

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

  /// The math mode (types.hpp) of the f32 gemm and conv_layer calls enqueued here afterwards
  /// without a mode of their own, from any copy of this queue (as cuBLAS's math mode on a
  /// handle): on Device::queue(), every such call on the device's default queue. New queues
  /// start exact. f64 operations ignore it. Throws InvalidArgument for a value outside MathMode.
  void set_math_mode(MathMode mode) const;
  /// The mode set_math_mode set (MathMode::exact on a new queue).
  MathMode math_mode() const;

  /// Whether this queue can record work into a Graph: true on cuda (CUDA graphs), false on the
  /// host devices (nothing to save: they run each call at once) and on opencl.
  bool can_capture() const;
  /// Starts recording: the work enqueued on this queue afterwards, from any thread, is recorded
  /// instead of run, until end_capture. Recording is for a sequence that repeats (a solver's
  /// iteration, a time step): replaying it costs one launch instead of one per operation.
  /// Run the sequence once before recording it, so that plans and scratch memory exist; an
  /// operation that waits for the device (Scalar::get, a blocking transfer) cannot be recorded.
  /// Throws NotImplemented where !can_capture() and InvalidArgument while already recording.
  void begin_capture() const;
  /// Stops recording and returns the graph. Throws InvalidArgument when not recording, and Error
  /// when something recorded could not be (a host wait was attempted): none of it has run, and
  /// the queue is usable again.
  Graph end_capture() const;

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

/// Work recorded from a queue (Queue::begin_capture ... Queue::end_capture), replayed with one
/// launch on any queue of the same device. The graph reads and writes the memory the recorded
/// operations named (the same vectors, scalars and matrices, with their contents at launch
/// time), so those must stay alive while the graph is used. Cheap to copy.
class Graph {
 public:
  Graph() = default;  ///< an empty graph
  explicit operator bool() const { return impl_ != nullptr; }  ///< false for an empty graph
  /// Enqueues the recorded work on q without waiting. Returns false and enqueues nothing when
  /// the graph cannot run as recorded any more (a backend's scratch memory that it uses was
  /// reallocated since, e.g. by a larger operation on the recording queue): record it again.
  /// Throws InvalidArgument for an empty graph, DeviceMismatch for a queue of another device.
  [[nodiscard]] bool launch(const Queue& q) const;
  const Device& device() const { return device_; }  ///< the device of the recording queue

 private:
  friend class Queue;
  Device device_;
  std::shared_ptr<GraphImpl> impl_;
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
