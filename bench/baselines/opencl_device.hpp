// The OpenCL device of Tessera's "opencl:N", for the OpenCL baselines (CLBlast, ViennaCL): found
// by the same enumeration as the plugin (platforms in the ICD loader's order, every device of
// each), checked against the name Tessera reports for that spec, and given one context and
// in-order queue of its own for the whole process, with profiling on for the event timer. Uses the C API only (the bench has no
// OpenCL C++ bindings); errors become std::runtime_error naming the call and the code.
#pragma once

#include <CL/cl.h>

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "runner.hpp"
#include "tessera/backend.hpp"

namespace bench::opencl_baseline {

struct ClDevice {
  std::string spec;  // "opencl:N"
  std::string name;  // CL_DEVICE_NAME, as Tessera reports it
  cl_platform_id platform = nullptr;
  cl_device_id device = nullptr;
  cl_context context = nullptr;
  cl_command_queue queue = nullptr;  // in order, CL_QUEUE_PROFILING_ENABLE
  cl_kernel mark = nullptr;          // an empty kernel: the event timer's marks
  bool fp64 = false;                 // cl_khr_fp64
};

// The device's clock ("opencl-event"): from the end of a mark kernel queued before the call to
// the start of one queued after it, the same method as Tessera's opencl:N timer
// (backends/opencl/device_timer.cpp), so both rows of a device read the same clock.
std::unique_ptr<tessera::DeviceTimer> event_timer(const ClDevice& d);

// The device for `spec`, opened on first use and kept to the end of the process. Throws when
// the spec does not name an OpenCL device or the device differs from Tessera's.
const ClDevice& device(const std::string& spec);

// The "opencl:N" specs among `specs`, in order.
std::vector<std::string> opencl_specs(const std::vector<std::string>& specs);

void check(cl_int err, const char* what);

// A device buffer holding a copy of a host array (uploaded once, untimed).
class ClBuffer {
 public:
  ClBuffer(const ClDevice& d, const void* host, std::size_t bytes);
  ClBuffer(const ClDevice& d, std::size_t bytes);
  ~ClBuffer();
  ClBuffer(const ClBuffer&) = delete;
  ClBuffer& operator=(const ClBuffer&) = delete;
  void upload(const void* host);
  void download(void* host) const;
  cl_mem get() const { return mem_; }
  std::size_t bytes() const { return bytes_; }

 private:
  const ClDevice& d_;
  cl_mem mem_ = nullptr;
  std::size_t bytes_ = 0;
};

// A runner whose calls are enqueued on the device's queue; sync() waits for them (clFinish),
// and they are timed by events on that queue (not on Tessera's).
class ClRunner : public Runner {
 public:
  explicit ClRunner(const ClDevice& dev) : dev_(dev), timer_(event_timer(dev)) {}
  void sync() override { check(clFinish(dev_.queue), "clFinish"); }
  std::string detail() const override { return dev_.name; }
  tessera::DeviceTimer* timer() override { return timer_.get(); }

 protected:
  const ClDevice& dev_;

 private:
  std::unique_ptr<tessera::DeviceTimer> timer_;
};

}  // namespace bench::opencl_baseline
