// OpenCLBackend::device_timer: two mark kernels on the backend's in-order, profiling-enabled
// queue; the interval from the end of the first to the start of the second is what the device
// spent on the commands queued between them (its own clock: launch and wake-up latencies of the
// host are not in it, as with CUDA events).
#include "opencl_backend.hpp"

namespace tessera::opencl {

namespace {

class EventTimer final : public DeviceTimer {
 public:
  explicit EventTimer(OpenCLBackend& backend) : backend_(backend) {}

  void start() override { backend_.enqueue_mark(start_); }
  void stop() override { backend_.enqueue_mark(stop_); }
  double elapsed_ms() override {
    return translate_errors(backend_.where("device timer"), [&] {
      stop_.wait();
      const cl_ulong begin = start_.getProfilingInfo<CL_PROFILING_COMMAND_END>();
      const cl_ulong end = stop_.getProfilingInfo<CL_PROFILING_COMMAND_START>();
      return end > begin ? static_cast<double>(end - begin) * 1e-6 : 0.0;
    });
  }
  std::string clock() const override { return "opencl-event"; }

 private:
  OpenCLBackend& backend_;  // the timer must not outlive its device
  cl::Event start_, stop_;
};

}  // namespace

void OpenCLBackend::enqueue_mark(cl::Event& event) {
  std::lock_guard<std::mutex> lock(mutex_);  // the kernel object is shared state, as in run()
  translate_errors(where("device timer"), [&] {
    cl::Kernel& k = kernel("mark.cl", DType::f32, "", "tessera_mark");
    queue_.enqueueNDRangeKernel(k, cl::NullRange, cl::NDRange(1), cl::NullRange, nullptr, &event);
  });
}

std::unique_ptr<DeviceTimer> OpenCLBackend::device_timer() {
  auto timer = std::make_unique<EventTimer>(*this);
  cl::Event warm;
  enqueue_mark(warm);  // builds the mark's program now, not inside the first interval
  translate_errors(where("device timer"), [&] { warm.wait(); });
  return timer;
}

}  // namespace tessera::opencl
