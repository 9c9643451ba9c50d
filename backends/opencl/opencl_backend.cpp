#include "opencl_backend.hpp"

#include <algorithm>
#include <cstdlib>
#include <sstream>

#include "device_class.hpp"
#include "tessera/errors.hpp"

namespace tessera::opencl {

namespace {

std::string type_name(cl_device_type t) {
  if (t & CL_DEVICE_TYPE_GPU) return "gpu";
  if (t & CL_DEVICE_TYPE_CPU) return "cpu";
  if (t & CL_DEVICE_TYPE_ACCELERATOR) return "accelerator";
  return "other";
}

std::string trim(std::string s) {
  // Drivers pad some strings with spaces or NULs.
  while (!s.empty() && (s.back() == ' ' || s.back() == '\0')) s.pop_back();
  const auto b = s.find_first_not_of(' ');
  return b == std::string::npos ? std::string() : s.substr(b);
}

// NVIDIA's OpenCL platform is named "NVIDIA CUDA".
bool platform_name_is_nvidia(const std::string& platform) { return platform.rfind("NVIDIA", 0) == 0; }

std::string bytes_text(std::uint64_t b) {
  std::ostringstream o;
  if (b >= (1ull << 30))
    o << static_cast<double>(b) / (1ull << 30) << " GiB";
  else if (b >= (1ull << 20))
    o << static_cast<double>(b) / (1ull << 20) << " MiB";
  else
    o << b / 1024 << " KiB";
  return o.str();
}

}  // namespace

OpenCLBackend::OpenCLBackend(int index, const cl::Platform& platform, const cl::Device& device)
    : index_(index), platform_(platform), device_(device) {
  const std::string ctx = "opencl:" + std::to_string(index) + ": opening the device";
  translate_errors(ctx, [&] {
    context_ = cl::Context(device_);

    DeviceFacts facts;
    facts.platform_name = trim(platform_.getInfo<CL_PLATFORM_NAME>());
    facts.vendor = trim(device_.getInfo<CL_DEVICE_VENDOR>());
    facts.device_name = trim(device_.getInfo<CL_DEVICE_NAME>());
    const cl_device_type type = device_.getInfo<CL_DEVICE_TYPE>();
    facts.is_gpu = (type & CL_DEVICE_TYPE_GPU) != 0;
    facts.is_cpu = (type & CL_DEVICE_TYPE_CPU) != 0;

    const std::string extensions = device_.getInfo<CL_DEVICE_EXTENSIONS>();
    fp64_ = extensions.find("cl_khr_fp64") != std::string::npos;
    compute_units_ = static_cast<int>(device_.getInfo<CL_DEVICE_MAX_COMPUTE_UNITS>());
    max_alloc_ = static_cast<std::size_t>(device_.getInfo<CL_DEVICE_MAX_MEM_ALLOC_SIZE>());
    max_wg_ = device_.getInfo<CL_DEVICE_MAX_WORK_GROUP_SIZE>();
    const auto local_mem = static_cast<std::size_t>(device_.getInfo<CL_DEVICE_LOCAL_MEM_SIZE>());
    local_mem_ = local_mem;
    base_align_bits_ = device_.getInfo<CL_DEVICE_MEM_BASE_ADDR_ALIGN>();
    const std::string driver = trim(device_.getInfo<CL_DRIVER_VERSION>());
    const std::string platform_version = trim(platform_.getInfo<CL_PLATFORM_VERSION>());
    const std::string device_version = trim(device_.getInfo<CL_DEVICE_VERSION>());
    const std::string c_version = trim(device_.getInfo<CL_DEVICE_OPENCL_C_VERSION>());

    // NVIDIA's own compiler takes inline PTX: the kernels that synchronise work-groups through
    // flags use it for a device-wide fence, which OpenCL 1.2's mem_fence does not give there
    // (it compiles to membar.cta). A device fact, not a tuning value: a class may be forced
    // onto another driver.
    nvidia_ptx_ = platform_name_is_nvidia(facts.platform_name);
    tuning_ = tuning::Tuning::for_device(device_class(facts), "opencl:" + std::to_string(index));
    validate_tuning(tuning_, max_wg_, local_mem);
    cpu_kernels_ = tuning_["device.cpu_kernels"] != 0;

    // Everything about the device and driver that can change a compiled binary.
    const std::string identity = facts.platform_name + "\n" + platform_version + "\n" + facts.vendor + "\n" +
                                 facts.device_name + "\n" + device_version + "\n" + driver;
    programs_ = std::make_unique<ProgramCache>(context_, device_, identity,
                                               "opencl:" + std::to_string(index) + " (" + facts.device_name + ")");

    info_.name = facts.device_name;
    info_.vendor = facts.vendor;
    info_.type = type_name(type);
    info_.compute_units = compute_units_;
    info_.memory_bytes = device_.getInfo<CL_DEVICE_GLOBAL_MEM_SIZE>();
    info_.driver = driver;
    info_.tuning_class = tuning_.device_class();
    info_.tuning = tuning_.values();
    info_.details = {
        {"platform", facts.platform_name + " (" + platform_version + ")"},
        {"device version", device_version},
        {"OpenCL C", c_version},
        {"max work-group size", std::to_string(max_wg_)},
        {"local memory", bytes_text(local_mem)},
        {"max allocation", bytes_text(max_alloc_)},
        {"fp64", fp64_ ? "yes (cl_khr_fp64)" : "no (cl_khr_fp64 missing: f64 operations unavailable)"},
        {"kernels", cpu_kernels_ ? "cpu variants (registers, no local memory)"
                                 : "gpu variants (local-memory tiles and trees)"},
        {"tuning", tuning_.device_class() + (tuning_.overridden() ? " (TESSERA_TUNE applies)" : "")},
        {"kernel disk cache", programs_->disk_dir().empty() ? "off" : programs_->disk_dir()},
    };
  });
}

OpenCLBackend::~OpenCLBackend() {
  // Let enqueued work finish before the context goes; errors cannot be reported from here.
  std::lock_guard<std::mutex> lock(queues_mutex_);
  for (auto& w : queues_)
    if (auto q = w.lock()) try {
        q->queue().finish();
      } catch (...) {
      }
}

// ---- queues ----

std::shared_ptr<QueueImpl> OpenCLBackend::adopt(cl::CommandQueue queue) {
  auto q = std::make_shared<OpenClQueue>(*this, std::move(queue));
  std::lock_guard<std::mutex> lock(queues_mutex_);
  queues_.erase(std::remove_if(queues_.begin(), queues_.end(), [](const auto& w) { return w.expired(); }),
                queues_.end());
  queues_.push_back(q);
  return q;
}

std::shared_ptr<QueueImpl> OpenCLBackend::create_queue() {
  // In order: operations run as enqueued. Profiling on: the device timer reads kernel
  // timestamps (a cost of a few hundred nanoseconds per command at most, below launch latency).
  return adopt(translate_errors(where("create_queue"),
                                [&] { return cl::CommandQueue(context_, device_, CL_QUEUE_PROFILING_ENABLE); }));
}

std::shared_ptr<QueueImpl> OpenCLBackend::wrap_queue(void* native) {
  if (native == nullptr) throw InvalidArgument(where("wrap_queue") + ": the cl_command_queue is null");
  auto* handle = static_cast<cl_command_queue>(native);
  cl_context ctx = nullptr;
  cl_device_id dev = nullptr;
  cl_command_queue_properties props = 0;
  if (::clGetCommandQueueInfo(handle, CL_QUEUE_CONTEXT, sizeof ctx, &ctx, nullptr) != CL_SUCCESS ||
      ::clGetCommandQueueInfo(handle, CL_QUEUE_DEVICE, sizeof dev, &dev, nullptr) != CL_SUCCESS ||
      ::clGetCommandQueueInfo(handle, CL_QUEUE_PROPERTIES, sizeof props, &props, nullptr) != CL_SUCCESS)
    throw InvalidArgument(where("wrap_queue") + ": not a valid cl_command_queue");
  if (ctx != context_() || dev != device_())
    throw InvalidArgument(where("wrap_queue") +
                          ": the cl_command_queue belongs to another context or device (make it on the "
                          "context of this device's native handles)");
  if (props & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE)
    throw InvalidArgument(where("wrap_queue") + ": the cl_command_queue is out of order; queues are in order");
  // retainObject = true: the wrapper takes a reference of its own and releases only that.
  return adopt(cl::CommandQueue(handle, true));
}

void OpenCLBackend::synchronize() {
  std::vector<std::shared_ptr<OpenClQueue>> live;
  {
    std::lock_guard<std::mutex> lock(queues_mutex_);
    for (auto& w : queues_)
      if (auto q = w.lock()) live.push_back(std::move(q));
  }
  translate_errors(where("synchronize"), [&] {
    for (auto& q : live) q->queue().finish();
  });
  note_host_wait();
}

Support OpenCLBackend::support(Op, DType dt) const {
  if (dt == DType::f64 && !fp64_)
    return {false, "opencl:" + std::to_string(index_) + " (" + info_.name +
                       ") does not report cl_khr_fp64: no double precision"};
  return {};
}

std::string OpenCLBackend::where(const char* op) const { return "opencl:" + std::to_string(index_) + " " + op; }

std::size_t OpenCLBackend::local_mem_limit() const {
  return std::min<std::size_t>(static_cast<std::size_t>(tuning_["device.local_mem_kb"]) * 1024, local_mem_);
}

// ---- memory ----

void* OpenCLBackend::allocate(std::size_t bytes) {
  if (bytes > max_alloc_)
    throw OutOfMemory("opencl:" + std::to_string(index_) + ": an allocation of " + std::to_string(bytes) +
                      " bytes exceeds the device's CL_DEVICE_MAX_MEM_ALLOC_SIZE of " + std::to_string(max_alloc_) +
                      " bytes");
  cl_int err = CL_SUCCESS;
  cl_mem m = ::clCreateBuffer(context_(), CL_MEM_READ_WRITE, bytes == 0 ? 1 : bytes, nullptr, &err);
  if (err != CL_SUCCESS || m == nullptr) {
    const std::string msg = "opencl:" + std::to_string(index_) + ": allocating " + std::to_string(bytes) +
                            " bytes: clCreateBuffer failed with " + error_name(err);
    if (is_out_of_memory(err) || err == CL_INVALID_BUFFER_SIZE) throw OutOfMemory(msg);
    throw Error(msg);
  }
  return m;
}

void OpenCLBackend::deallocate(void* handle) noexcept {
  // The runtime keeps the object alive until commands already enqueued on it complete.
  if (handle != nullptr) ::clReleaseMemObject(mem(handle));
}

void* OpenCLBackend::wrap_memory(void* native, std::size_t bytes) {
  if (native == nullptr) throw InvalidArgument(where("wrap_memory") + ": the cl_mem is null");
  cl_mem m = mem(native);
  cl_context ctx = nullptr;
  std::size_t size = 0;
  if (::clGetMemObjectInfo(m, CL_MEM_CONTEXT, sizeof ctx, &ctx, nullptr) != CL_SUCCESS ||
      ::clGetMemObjectInfo(m, CL_MEM_SIZE, sizeof size, &size, nullptr) != CL_SUCCESS)
    throw InvalidArgument(where("wrap_memory") + ": not a valid cl_mem");
  if (ctx != context_())
    throw InvalidArgument(where("wrap_memory") + ": the cl_mem belongs to another context");
  if (size < bytes)
    throw InvalidArgument(where("wrap_memory") + ": the cl_mem holds " + std::to_string(size) + " bytes, " +
                          std::to_string(bytes) + " needed");
  ::clRetainMemObject(m);  // released by release_wrapped; the application keeps its own reference
  return m;
}

void OpenCLBackend::release_wrapped(void* handle) noexcept {
  if (handle != nullptr) ::clReleaseMemObject(mem(handle));
}

// Plain 64-byte aligned host memory, which the interface allows on OpenCL. Pinned memory
// (a CL_MEM_ALLOC_HOST_PTR buffer kept mapped) would let NVIDIA's driver DMA without staging;
// not done yet: it needs a map from the host pointer back to its buffer for deallocate_host.
void* OpenCLBackend::allocate_host(std::size_t bytes) {
  void* p = nullptr;
  if (::posix_memalign(&p, 64, bytes == 0 ? 64 : (bytes + 63) / 64 * 64) != 0 || p == nullptr)
    throw OutOfMemory(where("allocate_host") + ": " + std::to_string(bytes) + " bytes of host memory");
  return p;
}

void OpenCLBackend::deallocate_host(void* p) noexcept { std::free(p); }

void OpenCLBackend::upload(QueueImpl& q, void* dst, std::size_t dst_offset, const void* host_src, std::size_t bytes,
                           bool blocking) {
  if (bytes == 0) return;
  translate_errors(where("upload"), [&] {
    const cl_int err = ::clEnqueueWriteBuffer(cl_queue(q).queue()(), mem(dst), blocking ? CL_TRUE : CL_FALSE,
                                              dst_offset, bytes, host_src, 0, nullptr, nullptr);
    if (err != CL_SUCCESS) throw cl::Error(err, "clEnqueueWriteBuffer");
  });
  if (blocking) note_host_wait();
}

void OpenCLBackend::download(QueueImpl& q, void* host_dst, const void* src, std::size_t src_offset,
                             std::size_t bytes, bool blocking) {
  if (bytes == 0) return;
  translate_errors(where("download"), [&] {
    const cl_int err = ::clEnqueueReadBuffer(cl_queue(q).queue()(), mem(src), blocking ? CL_TRUE : CL_FALSE,
                                             src_offset, bytes, host_dst, 0, nullptr, nullptr);
    if (err != CL_SUCCESS) throw cl::Error(err, "clEnqueueReadBuffer");
  });
  if (blocking) note_host_wait();
}

void OpenCLBackend::copy(QueueImpl& q, void* dst, std::size_t dst_offset, const void* src, std::size_t src_offset,
                         std::size_t bytes) {
  if (bytes == 0 || (dst == src && dst_offset == src_offset)) return;
  translate_errors(where("copy"), [&] {
    const cl_int err = ::clEnqueueCopyBuffer(cl_queue(q).queue()(), mem(src), mem(dst), src_offset, dst_offset,
                                             bytes, 0, nullptr, nullptr);
    if (err != CL_SUCCESS) throw cl::Error(err, "clEnqueueCopyBuffer");
  });
}

// ---- helpers for the operation files ----

cl::Kernel& OpenCLBackend::kernel(const char* file, DType dt, const std::string& defines, const char* name) {
  std::string options = "-cl-std=CL1.2 ";
  options += dt == DType::f32 ? "-DREAL=float" : "-DREAL=double -DTESSERA_FP64";
  options += " " + tuning_.defines("device");  // DEVICE_CPU_KERNELS picks each file's variants (common.cl)
  if (nvidia_ptx_) options += " -DTESSERA_NVIDIA_PTX=1";
  if (!defines.empty()) options += " " + defines;
  std::lock_guard<std::mutex> lock(mutex_);  // the cache's maps; a first use builds under it
  return programs_->kernel(file, options, name);
}

void OpenCLBackend::set_arg(cl::Kernel& k, cl_uint& i, DType, void* handle) {
  cl_mem m = mem(handle);  // may be null for an empty or absent operand, which OpenCL allows
  if (m == nullptr)
    k.setArg(i++, sizeof(cl_mem), nullptr);  // the kernel's pointer is then NULL (clSetKernelArg)
  else
    k.setArg(i++, sizeof(cl_mem), &m);
}
void OpenCLBackend::set_arg(cl::Kernel& k, cl_uint& i, DType, const cl::Buffer& b) { k.setArg(i++, b); }
void OpenCLBackend::set_arg(cl::Kernel& k, cl_uint& i, DType, int v) { k.setArg(i++, static_cast<cl_int>(v)); }
void OpenCLBackend::set_arg(cl::Kernel& k, cl_uint& i, DType, std::int64_t v) {
  k.setArg(i++, static_cast<cl_long>(v));
}
void OpenCLBackend::set_arg(cl::Kernel& k, cl_uint& i, DType dt, Real v) {
  if (dt == DType::f32)
    k.setArg(i++, static_cast<cl_float>(v.value));
  else
    k.setArg(i++, static_cast<cl_double>(v.value));
}
void OpenCLBackend::set_arg(cl::Kernel& k, cl_uint& i, DType, const cl::LocalSpaceArg& v) { k.setArg(i++, v); }
void OpenCLBackend::set_arg(cl::Kernel& k, cl_uint& i, DType dt, const Coef& c) {
  set_arg(k, i, dt, Real{c.value});
  for (const ScalarRef* s : {&c.num[0], &c.num[1], &c.den[0], &c.den[1]}) {
    set_arg(k, i, dt, s->data);
    set_arg(k, i, dt, s->offset);
  }
}

cl::Buffer& OpenCLBackend::grow(ScratchBuffer& s, std::size_t bytes) {
  if (bytes == 0) bytes = 1;
  if (s.bytes < bytes) {
    s.buffer = cl::Buffer();  // release the old one first: it may be most of the memory
    s.bytes = 0;
    if (bytes > max_alloc_)
      throw OutOfMemory("opencl:" + std::to_string(index_) + ": scratch memory of " + std::to_string(bytes) +
                        " bytes exceeds CL_DEVICE_MAX_MEM_ALLOC_SIZE (" + std::to_string(max_alloc_) + ")");
    s.buffer = cl::Buffer(context_, CL_MEM_READ_WRITE, bytes);
    s.bytes = bytes;
  }
  return s.buffer;
}

}  // namespace tessera::opencl
