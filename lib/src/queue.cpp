// Queues and events: the public handles over the backends' QueueImpl/EventImpl.
#include "tessera/queue.hpp"

#include <string>

#include "queue_state.hpp"
#include "tessera/errors.hpp"

namespace tessera {

namespace {

std::shared_ptr<detail::QueueState> make_state(const std::shared_ptr<Backend>& owner, std::shared_ptr<QueueImpl> impl) {
  return std::make_shared<detail::QueueState>(owner, std::move(impl));
}

}  // namespace

Queue Device::queue() const {
  checked();
  return Queue(*this, queue_);
}

Queue Device::new_queue() const {
  checked();
  return Queue(*this, make_state(backend_, backend_->create_queue()));
}

Queue Device::wrap_queue(void* native) const {
  checked();
  if (native == nullptr) throw InvalidArgument("Device::wrap_queue: the native queue is null");
  return Queue(*this, make_state(backend_, backend_->wrap_queue(native)));
}

namespace {
[[noreturn]] void throw_empty_queue() {
  throw InvalidArgument("Queue: the handle is empty (default-constructed); use Device::queue or Device::new_queue");
}
}  // namespace

detail::QueueState& Queue::state() const {
  if (!state_) throw_empty_queue();
  return *state_;
}

const Device& Queue::device() const {
  if (!state_) throw_empty_queue();
  return device_;
}

void Queue::synchronize() const {
  // Not under the queue's mutex: waiting must not keep other threads from enqueueing.
  state().impl->synchronize();
}

void* Queue::native() const { return state().impl->native(); }

QueueImpl& Queue::backend_queue() const { return *state().impl; }

Event Queue::record() const {
  detail::Enqueue e(*this);
  Event ev;
  ev.device_ = device_;
  ev.impl_ = e.impl().record();
  ev.queue_ = state_;
  return ev;
}

void Queue::wait(const Event& event) const {
  EventImpl& impl = event.checked("Queue::wait");
  if (event.device() != device())
    throw DeviceMismatch("Queue::wait: the event belongs to " + event.device().spec() + ", the queue to " +
                         device().spec() + "; events order queues of one device");
  detail::Enqueue e(*this);
  e.impl().wait(impl);
}

void Queue::set_math_mode(MathMode mode) const {
  detail::check_math_mode("Queue::set_math_mode", mode);
  detail::Enqueue e(*this);
  e.state().math = mode;
}

MathMode Queue::math_mode() const {
  detail::Enqueue e(*this);
  return e.state().math;
}

bool Queue::can_capture() const { return state().impl->can_capture(); }

void Queue::begin_capture() const {
  detail::Enqueue e(*this);
  if (!e.impl().can_capture())
    throw NotImplemented("Queue::begin_capture: queues of " + device().spec() + " cannot record graphs");
  if (e.state().capturing) throw InvalidArgument("Queue::begin_capture: the queue is already recording");
  e.impl().begin_capture();
  e.state().capturing = true;
}

Graph Queue::end_capture() const {
  detail::Enqueue e(*this);
  if (!e.state().capturing) throw InvalidArgument("Queue::end_capture: the queue is not recording");
  e.state().capturing = false;  // whatever end_capture says, the queue no longer records
  Graph g;
  g.device_ = device_;
  g.impl_ = e.impl().end_capture();
  return g;
}

bool Graph::launch(const Queue& q) const {
  if (!impl_) throw InvalidArgument("Graph::launch: the graph is empty (default-constructed)");
  if (q.device() != device_)
    throw DeviceMismatch("Graph::launch: the graph was recorded on " + device_.spec() + ", the queue belongs to " +
                         q.device().spec());
  detail::Enqueue e(q);
  return impl_->launch(e.impl());
}

EventImpl& Event::checked(const char* what) const {
  if (!impl_) throw InvalidArgument(std::string(what) + ": the event is empty (default-constructed)");
  if (queue_.expired())
    throw InvalidArgument(std::string(what) + ": the queue that recorded the event has been destroyed");
  return *impl_;
}

void Event::synchronize() const { checked("Event::synchronize").synchronize(); }
bool Event::ready() const { return checked("Event::ready").ready(); }

}  // namespace tessera
