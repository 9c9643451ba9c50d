#include "opencl_backend.hpp"

#include <algorithm>
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
    // In order: operations run as enqueued. Profiling on: the device timer reads kernel
    // timestamps (a cost of a few hundred nanoseconds per command at most, below launch latency).
    queue_ = cl::CommandQueue(context_, device_, CL_QUEUE_PROFILING_ENABLE);

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
  scratch_.resize(static_cast<std::size_t>(Scratch::count));
  scratch_bytes_.assign(static_cast<std::size_t>(Scratch::count), 0);
}

OpenCLBackend::~OpenCLBackend() {
  // Let enqueued work finish before the context goes; errors cannot be reported from here.
  try {
    queue_.finish();
  } catch (...) {
  }
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

void OpenCLBackend::upload(void* dst, const void* host_src, std::size_t bytes) {
  // Blocking: the caller may reuse its host memory as soon as this returns.
  translate_errors(where("upload"), [&] {
    cl_int err = ::clEnqueueWriteBuffer(queue_(), mem(dst), CL_TRUE, 0, bytes, host_src, 0, nullptr, nullptr);
    if (err != CL_SUCCESS) throw cl::Error(err, "clEnqueueWriteBuffer");
  });
}

void OpenCLBackend::download(void* host_dst, const void* src, std::size_t bytes) {
  translate_errors(where("download"), [&] {
    cl_int err = ::clEnqueueReadBuffer(queue_(), mem(src), CL_TRUE, 0, bytes, host_dst, 0, nullptr, nullptr);
    if (err != CL_SUCCESS) throw cl::Error(err, "clEnqueueReadBuffer");
  });
}

void OpenCLBackend::copy(void* dst, const void* src, std::size_t bytes) {
  if (bytes == 0 || dst == src) return;
  translate_errors(where("copy"), [&] {
    cl_int err = ::clEnqueueCopyBuffer(queue_(), mem(src), mem(dst), 0, 0, bytes, 0, nullptr, nullptr);
    if (err != CL_SUCCESS) throw cl::Error(err, "clEnqueueCopyBuffer");
  });
}

void OpenCLBackend::synchronize() {
  translate_errors(where("synchronize"), [&] { queue_.finish(); });
}

// ---- helpers for the operation files ----

cl::Kernel& OpenCLBackend::kernel(const char* file, DType dt, const std::string& defines, const char* name) {
  std::string options = "-cl-std=CL1.2 ";
  options += dt == DType::f32 ? "-DREAL=float" : "-DREAL=double -DTESSERA_FP64";
  options += " " + tuning_.defines("device");  // DEVICE_CPU_KERNELS picks each file's variants (common.cl)
  if (nvidia_ptx_) options += " -DTESSERA_NVIDIA_PTX=1";
  if (!defines.empty()) options += " " + defines;
  return programs_->kernel(file, options, name);
}

void OpenCLBackend::set_arg(cl::Kernel& k, cl_uint i, DType, void* handle) {
  cl_mem m = mem(handle);  // may be null for an empty operand, which OpenCL allows
  k.setArg(i, sizeof(cl_mem), &m);
}
void OpenCLBackend::set_arg(cl::Kernel& k, cl_uint i, DType, const cl::Buffer& b) { k.setArg(i, b); }
void OpenCLBackend::set_arg(cl::Kernel& k, cl_uint i, DType, int v) { k.setArg(i, static_cast<cl_int>(v)); }
void OpenCLBackend::set_arg(cl::Kernel& k, cl_uint i, DType, std::int64_t v) { k.setArg(i, static_cast<cl_long>(v)); }
void OpenCLBackend::set_arg(cl::Kernel& k, cl_uint i, DType dt, Real v) {
  if (dt == DType::f32)
    k.setArg(i, static_cast<cl_float>(v.value));
  else
    k.setArg(i, static_cast<cl_double>(v.value));
}

void OpenCLBackend::launch(cl::Kernel& k, const cl::NDRange& global, const cl::NDRange& local) {
  for (cl::size_type d = 0; d < global.dimensions(); ++d)
    if (global.get()[d] == 0) return;  // nothing to do; OpenCL 1.2 rejects empty ranges
  queue_.enqueueNDRangeKernel(k, cl::NullRange, global, local);
}

cl::Buffer& OpenCLBackend::scratch(Scratch slot, std::size_t bytes) {
  const auto i = static_cast<std::size_t>(slot);
  if (bytes == 0) bytes = 1;
  if (scratch_bytes_[i] < bytes) {
    scratch_[i] = cl::Buffer();  // release the old one first: it may be most of the memory
    scratch_bytes_[i] = 0;
    if (bytes > max_alloc_)
      throw OutOfMemory("opencl:" + std::to_string(index_) + ": scratch memory of " + std::to_string(bytes) +
                        " bytes exceeds CL_DEVICE_MAX_MEM_ALLOC_SIZE (" + std::to_string(max_alloc_) + ")");
    scratch_[i] = cl::Buffer(context_, CL_MEM_READ_WRITE, bytes);
    scratch_bytes_[i] = bytes;
  }
  return scratch_[i];
}

}  // namespace tessera::opencl
