// OpenCLBackend::device_timer: two mark kernels on a queue of the backend (in order, profiling
// enabled; a wrapped queue without profiling gets no device timer: the host clock is used); the interval from the end of the first to the start of the second is what the device
// spent on the commands queued between them (its own clock: launch and wake-up latencies of the
// host are not in it, as with CUDA events).
#include "opencl_backend.hpp"

namespace tessera::opencl {

namespace {

class EventTimer final : public DeviceTimer {
 public:
  EventTimer(OpenCLBackend& backend, OpenClQueue& q) : backend_(backend), q_(q) {}

  void start() override { backend_.enqueue_mark(q_, start_); }
  void stop() override { backend_.enqueue_mark(q_, stop_); }
  double elapsed_ms() override {
    return translate_errors(backend_.where("device timer"), [&] {
      stop_.wait();
      backend_.note_host_wait();
      const cl_ulong begin = start_.getProfilingInfo<CL_PROFILING_COMMAND_END>();
      const cl_ulong end = stop_.getProfilingInfo<CL_PROFILING_COMMAND_START>();
      return end > begin ? static_cast<double>(end - begin) * 1e-6 : 0.0;
    });
  }
  std::string clock() const override { return "opencl-event"; }

 private:
  OpenCLBackend& backend_;  // the timer must not outlive its device
  OpenClQueue& q_;          // nor its queue
  cl::Event start_, stop_;
};

}  // namespace

void OpenCLBackend::enqueue_mark(OpenClQueue& q, cl::Event& event) {
  translate_errors(where("device timer"), [&] {
    cl::Kernel& k = kernel("mark.cl", DType::f32, "", "tessera_mark");
    launch_ordered<float>(q, k, cl::NDRange(1), cl::NullRange, nullptr, &event);
  });
}

std::unique_ptr<DeviceTimer> OpenCLBackend::device_timer(QueueImpl& qi) {
  OpenClQueue& q = cl_queue(qi);
  if (!translate_errors(where("device timer"), [&] { return q.profiling(); })) return nullptr;
  auto timer = std::make_unique<EventTimer>(*this, q);
  cl::Event warm;
  enqueue_mark(q, warm);  // builds the mark's program now, not inside the first interval
  translate_errors(where("device timer"), [&] { warm.wait(); });
  note_host_wait();
  return timer;
}

}  // namespace tessera::opencl
