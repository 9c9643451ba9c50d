// The plugin's entry point: every device of every platform the ICD loader finds becomes
// opencl:N, platforms in the loader's order, devices in each platform's order.
#include <cstdio>
#include <cstring>
#include <exception>
#include <string>
#include <vector>

#include "opencl_backend.hpp"
#include "tessera/errors.hpp"
#include "tessera/plugin_abi.hpp"

namespace {

using tessera::opencl::error_name;

struct Found {
  cl_platform_id platform;
  cl_device_id device;
};

// The C API here, not the bindings: device_count must not throw, and the reasons for finding
// nothing (no ICD, a platform with no device) are part of its answer.
std::vector<Found> enumerate(std::string& reason) {
  std::vector<Found> out;
  cl_uint np = 0;
  cl_int err = ::clGetPlatformIDs(0, nullptr, &np);
  if (err != CL_SUCCESS || np == 0) {
    reason = "no OpenCL platform found (clGetPlatformIDs: " +
             (err != CL_SUCCESS ? error_name(err) : std::string("0 platforms")) +
             "; is an ICD installed in /etc/OpenCL/vendors, or OCL_ICD_VENDORS set?)";
    return out;
  }
  std::vector<cl_platform_id> platforms(np);
  err = ::clGetPlatformIDs(np, platforms.data(), nullptr);
  if (err != CL_SUCCESS) {
    reason = "no OpenCL platform found (clGetPlatformIDs: " + error_name(err) + ")";
    return out;
  }
  std::string notes;
  for (cl_platform_id p : platforms) {
    cl_uint nd = 0;
    err = ::clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, 0, nullptr, &nd);
    if (err == CL_DEVICE_NOT_FOUND || (err == CL_SUCCESS && nd == 0)) continue;
    if (err != CL_SUCCESS) {
      notes += (notes.empty() ? "" : "; ") + std::string("a platform failed clGetDeviceIDs with ") + error_name(err);
      continue;
    }
    std::vector<cl_device_id> devices(nd);
    if (::clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, nd, devices.data(), nullptr) != CL_SUCCESS) continue;
    for (cl_device_id d : devices) out.push_back({p, d});
  }
  if (out.empty())
    reason =
        std::to_string(np) + " OpenCL platform(s) found, but no device" + (notes.empty() ? "" : " (" + notes + ")");
  return out;
}

int device_count(char* reason, std::size_t reason_size) noexcept {
  try {
    std::string why;
    const auto found = enumerate(why);
    if (found.empty() && reason != nullptr && reason_size > 0) std::snprintf(reason, reason_size, "%s", why.c_str());
    return static_cast<int>(found.size());
  } catch (const std::exception& e) {
    if (reason != nullptr && reason_size > 0)
      std::snprintf(reason, reason_size, "OpenCL enumeration failed: %s", e.what());
  } catch (...) {
    if (reason != nullptr && reason_size > 0) std::snprintf(reason, reason_size, "OpenCL enumeration failed");
  }
  return 0;
}

tessera::Backend* create_backend(int index) {
  std::string why;
  const auto found = enumerate(why);
  if (index < 0 || static_cast<std::size_t>(index) >= found.size())
    throw tessera::BackendUnavailable("opencl:" + std::to_string(index) + ": no such device (" +
                                      std::to_string(found.size()) + " found" + (why.empty() ? "" : ": " + why) + ")");
  // retainObject = true: the bindings then release what they retained, leaving the loader's
  // reference counts as they were.
  const cl::Platform platform(found[static_cast<std::size_t>(index)].platform, true);
  const cl::Device device(found[static_cast<std::size_t>(index)].device, true);
  return new tessera::opencl::OpenCLBackend(index, platform, device);
}

const TesseraPluginV1 plugin = {TESSERA_PLUGIN_ABI_VERSION, "opencl", &device_count, &create_backend};

}  // namespace

extern "C" __attribute__((visibility("default"))) const TesseraPluginV1* tessera_plugin_entry() { return &plugin; }
