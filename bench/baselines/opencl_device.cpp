#include "baselines/opencl_device.hpp"

#include <map>
#include <memory>
#include <mutex>
#include <stdexcept>

#include "tessera/device.hpp"

namespace bench::opencl_baseline {

namespace {

std::string info_string(cl_device_id d, cl_device_info what) {
  std::size_t n = 0;
  check(clGetDeviceInfo(d, what, 0, nullptr, &n), "clGetDeviceInfo");
  std::string s(n, '\0');
  check(clGetDeviceInfo(d, what, n, s.data(), nullptr), "clGetDeviceInfo");
  // Drivers pad some strings with spaces or NULs (the plugin trims them the same way).
  while (!s.empty() && (s.back() == ' ' || s.back() == '\0')) s.pop_back();
  const auto b = s.find_first_not_of(' ');
  return b == std::string::npos ? std::string() : s.substr(b);
}

// Every device of every platform, in the plugin's order (backends/opencl/plugin.cpp).
std::vector<std::pair<cl_platform_id, cl_device_id>> enumerate() {
  std::vector<std::pair<cl_platform_id, cl_device_id>> out;
  cl_uint np = 0;
  if (clGetPlatformIDs(0, nullptr, &np) != CL_SUCCESS || np == 0) return out;
  std::vector<cl_platform_id> platforms(np);
  if (clGetPlatformIDs(np, platforms.data(), nullptr) != CL_SUCCESS) return out;
  for (cl_platform_id p : platforms) {
    cl_uint nd = 0;
    if (clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, 0, nullptr, &nd) != CL_SUCCESS || nd == 0) continue;
    std::vector<cl_device_id> devices(nd);
    if (clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, nd, devices.data(), nullptr) != CL_SUCCESS) continue;
    for (cl_device_id d : devices) out.emplace_back(p, d);
  }
  return out;
}

cl_kernel build_mark(const ClDevice& d) {
  const char* source = "__kernel void bench_mark(void) {}";
  cl_int err = CL_SUCCESS;
  cl_program program = clCreateProgramWithSource(d.context, 1, &source, nullptr, &err);
  check(err, "clCreateProgramWithSource");
  err = clBuildProgram(program, 1, &d.device, "", nullptr, nullptr);
  if (err != CL_SUCCESS) clReleaseProgram(program);
  check(err, "clBuildProgram (the timer's mark kernel)");
  cl_kernel k = clCreateKernel(program, "bench_mark", &err);
  clReleaseProgram(program);  // the kernel keeps it alive
  check(err, "clCreateKernel");
  return k;
}

class EventTimer final : public tessera::DeviceTimer {
 public:
  explicit EventTimer(const ClDevice& d) : d_(d) {}
  ~EventTimer() override { release(); }
  EventTimer(const EventTimer&) = delete;
  EventTimer& operator=(const EventTimer&) = delete;

  void start() override {
    release();
    start_ = enqueue_mark();
  }
  void stop() override { stop_ = enqueue_mark(); }
  double elapsed_ms() override {
    if (!start_ || !stop_) throw std::runtime_error("event timer: elapsed_ms() before start() and stop()");
    check(clWaitForEvents(1, &stop_), "clWaitForEvents");
    cl_ulong begin = 0, end = 0;
    check(clGetEventProfilingInfo(start_, CL_PROFILING_COMMAND_END, sizeof begin, &begin, nullptr),
          "clGetEventProfilingInfo");
    check(clGetEventProfilingInfo(stop_, CL_PROFILING_COMMAND_START, sizeof end, &end, nullptr),
          "clGetEventProfilingInfo");
    return end > begin ? static_cast<double>(end - begin) * 1e-6 : 0.0;
  }
  std::string clock() const override { return "opencl-event"; }

 private:
  cl_event enqueue_mark() {
    const std::size_t one = 1;
    cl_event e = nullptr;
    check(clEnqueueNDRangeKernel(d_.queue, d_.mark, 1, nullptr, &one, nullptr, 0, nullptr, &e),
          "clEnqueueNDRangeKernel (timer mark)");
    return e;
  }
  void release() {
    if (start_) clReleaseEvent(start_);
    if (stop_) clReleaseEvent(stop_);
    start_ = stop_ = nullptr;
  }

  const ClDevice& d_;
  cl_event start_ = nullptr, stop_ = nullptr;
};

std::unique_ptr<ClDevice> open(const std::string& spec) {
  const auto colon = spec.find(':');
  const std::string digits = colon == std::string::npos ? std::string() : spec.substr(colon + 1);
  if (spec.compare(0, colon, "opencl") != 0 || digits.empty() || digits.size() > 6 ||
      digits.find_first_not_of("0123456789") != std::string::npos)
    throw std::runtime_error("not an OpenCL device spec: " + spec);
  const std::size_t index = std::stoul(digits);
  const auto found = enumerate();
  if (index >= found.size())
    throw std::runtime_error(spec + ": the ICD loader lists only " + std::to_string(found.size()) +
                             " OpenCL device(s)");
  auto d = std::make_unique<ClDevice>();
  d->spec = spec;
  d->platform = found[index].first;
  d->device = found[index].second;
  d->name = info_string(d->device, CL_DEVICE_NAME);
  d->fp64 = info_string(d->device, CL_DEVICE_EXTENSIONS).find("cl_khr_fp64") != std::string::npos;
  // The same device as Tessera's row, or the comparison means nothing.
  const std::string tessera_name = tessera::Device::open(spec).info().name;
  if (tessera_name != d->name)
    throw std::runtime_error(spec + ": the baselines found '" + d->name + "' where Tessera has '" + tessera_name + "'");
  cl_int err = CL_SUCCESS;
  const cl_context_properties props[] = {CL_CONTEXT_PLATFORM, reinterpret_cast<cl_context_properties>(d->platform), 0};
  d->context = clCreateContext(props, 1, &d->device, nullptr, nullptr, &err);
  check(err, "clCreateContext");
  d->queue = clCreateCommandQueue(d->context, d->device, CL_QUEUE_PROFILING_ENABLE, &err);  // like Tessera's
  check(err, "clCreateCommandQueue");
  d->mark = build_mark(*d);
  return d;
}

}  // namespace

void check(cl_int err, const char* what) {
  if (err != CL_SUCCESS)
    throw std::runtime_error(std::string(what) + " failed with OpenCL error " + std::to_string(err));
}

const ClDevice& device(const std::string& spec) {
  // Kept to the end of the process and never released: the libraries cache programs built for
  // these contexts in their own statics, whose destruction order relative to ours is unknown.
  static std::mutex mutex;
  static auto* opened = new std::map<std::string, std::unique_ptr<ClDevice>>;
  std::lock_guard<std::mutex> lock(mutex);
  auto& slot = (*opened)[spec];
  if (!slot) slot = open(spec);
  return *slot;
}

std::unique_ptr<tessera::DeviceTimer> event_timer(const ClDevice& d) { return std::make_unique<EventTimer>(d); }

std::vector<std::string> opencl_specs(const std::vector<std::string>& specs) {
  std::vector<std::string> out;
  for (const auto& s : specs)
    if (s.rfind("opencl:", 0) == 0) out.push_back(s);
  return out;
}

ClBuffer::ClBuffer(const ClDevice& d, std::size_t bytes) : d_(d), bytes_(bytes) {
  cl_int err = CL_SUCCESS;
  mem_ = clCreateBuffer(d_.context, CL_MEM_READ_WRITE, bytes ? bytes : 1, nullptr, &err);
  check(err, "clCreateBuffer");
}

ClBuffer::ClBuffer(const ClDevice& d, const void* host, std::size_t bytes) : ClBuffer(d, bytes) { upload(host); }

ClBuffer::~ClBuffer() {
  if (mem_) clReleaseMemObject(mem_);
}

void ClBuffer::upload(const void* host) {
  if (bytes_)
    check(clEnqueueWriteBuffer(d_.queue, mem_, CL_TRUE, 0, bytes_, host, 0, nullptr, nullptr), "clEnqueueWriteBuffer");
}

void ClBuffer::download(void* host) const {
  if (bytes_)
    check(clEnqueueReadBuffer(d_.queue, mem_, CL_TRUE, 0, bytes_, host, 0, nullptr, nullptr), "clEnqueueReadBuffer");
}

}  // namespace bench::opencl_baseline
