// OpenClQueue: the OpenCL backend's QueueImpl, an in-order cl::CommandQueue (created by the
// backend, or an application's own, retained and never otherwise owned) and the per-call scratch
// memory of the operations run on it. lib/ serialises the calls on one queue, so the scratch
// needs no lock; what queues share (programs, kernel objects, per-matrix caches) is the
// backend's, behind its mutex. OpenClEvent: a marker on such a queue.
#pragma once

#include <cstddef>
#include <memory>
#include <typeindex>
#include <unordered_map>

#include "cl_common.hpp"
#include "tessera/backend.hpp"

namespace tessera::opencl {

class OpenCLBackend;

// A device buffer reused by every call on one queue, grown to the largest size asked of it
// (OpenCLBackend::grow). The queue is in order, so one call's use ends before the next begins.
struct ScratchBuffer {
  cl::Buffer buffer;
  std::size_t bytes = 0;
};

class OpenClEvent final : public EventImpl {
 public:
  OpenClEvent(Backend& backend, cl::Event event) : backend_(backend), event_(std::move(event)) {}
  void synchronize() override;  // clWaitForEvents: a host wait
  bool ready() override;
  const cl::Event& event() const { return event_; }

 private:
  Backend& backend_;  // counts the wait; a Device outlives the events of its queues
  cl::Event event_;
};

class OpenClQueue final : public QueueImpl {
 public:
  // `queue`: in order, of the backend's context and device (checked by the backend).
  OpenClQueue(OpenCLBackend& backend, cl::CommandQueue queue);
  ~OpenClQueue() override;

  void synchronize() override;  // clFinish: a host wait
  void* native() const override { return queue_(); }
  std::shared_ptr<EventImpl> record() override;  // clEnqueueMarkerWithWaitList
  void wait(EventImpl& event) override;          // clEnqueueBarrierWithWaitList on the event

  cl::CommandQueue& queue() { return queue_; }
  // Whether the queue records profiling timestamps (the device timer needs them).
  bool profiling() const;

  // An operation's per-queue state (a struct of its file, default-constructed on first use,
  // kept while the queue lives): its scratch buffers. No lock: calls on a queue are serialised.
  template <class S>
  S& state() {
    auto& slot = states_[std::type_index(typeid(S))];
    if (!slot) slot = std::shared_ptr<void>(new S(), [](void* p) { delete static_cast<S*>(p); });
    return *static_cast<S*>(slot.get());
  }

 private:
  OpenCLBackend& backend_;
  cl::CommandQueue queue_;
  std::unordered_map<std::type_index, std::shared_ptr<void>> states_;
};

// The queue an operation was given: always one of this backend's (lib/ guarantees it).
inline OpenClQueue& cl_queue(QueueImpl& q) { return static_cast<OpenClQueue&>(q); }

}  // namespace tessera::opencl
