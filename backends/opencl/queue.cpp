#include "queue.hpp"

#include "opencl_backend.hpp"

namespace tessera::opencl {

void OpenClEvent::synchronize() {
  translate_errors("opencl event synchronize", [&] { event_.wait(); });
  backend_.note_host_wait();
}

bool OpenClEvent::ready() {
  return translate_errors("opencl event ready", [&] {
    return event_.getInfo<CL_EVENT_COMMAND_EXECUTION_STATUS>() == CL_COMPLETE;
  });
}

OpenClQueue::OpenClQueue(OpenCLBackend& backend, cl::CommandQueue queue)
    : backend_(backend), queue_(std::move(queue)) {}

OpenClQueue::~OpenClQueue() {
  // The scratch buffers may still be in use by enqueued work: the runtime keeps released memory
  // objects alive until then, but let this queue's work finish before its state goes (errors
  // cannot be reported from a destructor).
  try {
    queue_.finish();
  } catch (...) {
  }
}

void OpenClQueue::synchronize() {
  translate_errors(backend_.where("queue synchronize"), [&] { queue_.finish(); });
  backend_.note_host_wait();
}

std::shared_ptr<EventImpl> OpenClQueue::record() {
  return translate_errors(backend_.where("record"), [&] {
    cl::Event e;
    queue_.enqueueMarkerWithWaitList(nullptr, &e);
    return std::make_shared<OpenClEvent>(backend_, std::move(e));
  });
}

void OpenClQueue::wait(EventImpl& event) {
  const std::vector<cl::Event> list{static_cast<OpenClEvent&>(event).event()};
  translate_errors(backend_.where("wait"), [&] { queue_.enqueueBarrierWithWaitList(&list); });
}

bool OpenClQueue::profiling() const {
  return (queue_.getInfo<CL_QUEUE_PROPERTIES>() & CL_QUEUE_PROFILING_ENABLE) != 0;
}

}  // namespace tessera::opencl
