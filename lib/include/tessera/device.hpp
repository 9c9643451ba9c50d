/// \file
/// Devices: discovery, opening by spec string, and the handle every container holds.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "tessera/backend.hpp"
#include "tessera/device_info.hpp"

namespace tessera {

/// Every device of every available backend, in order: reference, cpu, cuda:N..., opencl:N...
std::vector<DeviceInfo> devices();

/// Every backend Tessera knows, with its availability and, if unavailable, the reason.
std::vector<BackendStatus> backends();

/// A handle to an opened device; cheap to copy; all copies refer to the same device.
/// Opening the same spec twice yields the same device, so their data can be mixed.
class Device {
 public:
  Device() = default;  ///< an empty handle; open() gives a usable one
  explicit operator bool() const { return backend_ != nullptr; }  ///< false for an empty handle

  /// Opens a device. spec: "reference", "cpu", "opencl[:N]", "cuda[:N]" or "auto". "auto" opens
  /// what the environment variable TESSERA_DEVICE names, or else the first of cuda:0, the first
  /// OpenCL GPU, cpu that is available. Throws InvalidArgument for an unknown spec and
  /// BackendUnavailable (with the reason) for a backend or index that is not there.
  static Device open(const std::string& spec = "auto");

  /// What the device says about itself. On an empty handle (as every accessor below): throws
  /// InvalidArgument.
  const DeviceInfo& info() const { return *checked().info_; }
  const std::string& spec() const { return checked().info_->spec; }  ///< e.g. "cuda:0"
  Backend& backend() const { return *checked().backend_; }           ///< the backend that runs its work
  /// Waits until all work queued on the device has finished.
  void synchronize() const { checked().backend_->synchronize(); }

  /// The same device (the same backend instance).
  friend bool operator==(const Device& a, const Device& b) { return a.backend_ == b.backend_; }
  /// Different devices.
  friend bool operator!=(const Device& a, const Device& b) { return !(a == b); }

 private:
  const Device& checked() const {
    if (backend_ == nullptr) throw_empty();
    return *this;
  }
  [[noreturn]] static void throw_empty();
  Device(std::shared_ptr<Backend> backend, std::shared_ptr<const DeviceInfo> info)
      : backend_(std::move(backend)), info_(std::move(info)) {}
  friend class Registry;
  std::shared_ptr<Backend> backend_;
  std::shared_ptr<const DeviceInfo> info_;
};

}  // namespace tessera
