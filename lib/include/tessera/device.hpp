/// \file
/// Devices: discovery, opening by spec string, and the handle every container holds.
#pragma once

#include <cstdint>
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

class Queue;
namespace detail {
struct QueueState;  // lib/src/queue_state.hpp
}

/// A handle to an opened device; cheap to copy; all copies refer to the same device.
/// Opening the same spec twice yields the same device, so their data can be mixed.
///
/// Threads: a Device, and everything on it, may be used from any number of threads at once.
/// Work is ordered per Queue: each thread may have its own (new_queue()), or several may share
/// one, the default queue included; calls on one queue are serialised, calls on different
/// queues run concurrently. A container must not be written by one thread while another uses
/// it, as with any C++ object.
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
  /// Waits until all work queued on the device, on every queue, has finished.
  void synchronize() const { checked().backend_->synchronize(); }

  /// The default queue: where every operation called without a queue runs, in call order.
  Queue queue() const;
  /// A new in-order queue; work on different queues may run concurrently (order them with
  /// Event: Queue::record and Queue::wait).
  Queue new_queue() const;
  /// A queue around one the application owns (a cudaStream_t on cuda, an in-order
  /// cl_command_queue of this device's context on opencl), used in place and never destroyed by
  /// Tessera. Throws InvalidArgument for null, a queue of another device, or a host device
  /// (whose queue is the calling thread).
  Queue wrap_queue(void* native) const;

  /// How many times the host has waited for this device so far (a Scalar::get, a download, a
  /// synchronize, a value-returning reduction, or a wait inside an operation that could not be
  /// avoided): a loop that should run without waiting can be checked by comparing two readings.
  std::uint64_t host_waits() const { return checked().backend_->host_waits(); }

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
  Device(std::shared_ptr<Backend> backend, std::shared_ptr<const DeviceInfo> info,
         std::shared_ptr<detail::QueueState> queue)
      : backend_(std::move(backend)), info_(std::move(info)), queue_(std::move(queue)) {}
  friend class Registry;
  std::shared_ptr<Backend> backend_;
  std::shared_ptr<const DeviceInfo> info_;
  std::shared_ptr<detail::QueueState> queue_;  // the default queue
};

}  // namespace tessera
