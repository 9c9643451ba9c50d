// What the NVIDIA baselines share (cuda_libs.cpp, cudnn.cpp): error checks, device copies of
// host arrays, the stream they all run on (GPU 0) and the event timer on it. Each runner
// uploads its inputs once (untimed) and is timed by events around the library call alone,
// like Tessera's cuda:0 rows (CUDA events on the plugin's stream).
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <exception>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "runner.hpp"
#include "tessera/backend.hpp"

namespace bench::cudalibs {

inline void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(e));
}

// The baselines' stream on GPU 0 (cuda_libs.cpp), created on first use and kept to the end.
// A blocking stream: its work is ordered after the synchronous cudaMemcpy uploads that reset()
// makes on the legacy default stream.
cudaStream_t stream();

// A device allocation, optionally holding a copy of a host array.
class DevBuf {
 public:
  DevBuf() = default;
  template <class U>
  explicit DevBuf(const std::vector<U>& host) : bytes_(host.size() * sizeof(U)) {
    check(cudaMalloc(&p_, bytes_ ? bytes_ : 1), "cudaMalloc");
    upload(host.data());
  }
  explicit DevBuf(std::size_t bytes) : bytes_(bytes) { check(cudaMalloc(&p_, bytes ? bytes : 1), "cudaMalloc"); }
  ~DevBuf() {
    if (p_) cudaFree(p_);
  }
  DevBuf(const DevBuf&) = delete;
  DevBuf& operator=(const DevBuf&) = delete;
  void upload(const void* host) { check(cudaMemcpy(p_, host, bytes_, cudaMemcpyHostToDevice), "cudaMemcpy H2D"); }
  template <class U>
  std::vector<double> download_as_double() const {
    std::vector<U> h(bytes_ / sizeof(U));
    check(cudaMemcpy(h.data(), p_, bytes_, cudaMemcpyDeviceToHost), "cudaMemcpy D2H");
    return std::vector<double>(h.begin(), h.end());
  }
  template <class U>
  U* get() const {
    return static_cast<U*>(p_);
  }
  std::size_t bytes() const { return bytes_; }

 private:
  void* p_ = nullptr;
  std::size_t bytes_ = 0;
};

// Events on stream(): the same clock as Tessera's cuda:0 (tessera::DeviceTimer, "cuda-event").
class EventTimer final : public tessera::DeviceTimer {
 public:
  EventTimer() {
    check(cudaEventCreate(&start_), "cudaEventCreate");
    const cudaError_t e = cudaEventCreate(&stop_);
    if (e != cudaSuccess) cudaEventDestroy(start_);
    check(e, "cudaEventCreate");
  }
  ~EventTimer() override {
    cudaEventDestroy(start_);
    cudaEventDestroy(stop_);
  }
  EventTimer(const EventTimer&) = delete;
  EventTimer& operator=(const EventTimer&) = delete;
  void start() override { check(cudaEventRecord(start_, stream()), "cudaEventRecord"); }
  void stop() override { check(cudaEventRecord(stop_, stream()), "cudaEventRecord"); }
  double elapsed_ms() override {
    check(cudaEventSynchronize(stop_), "cudaEventSynchronize");
    float ms = 0;
    check(cudaEventElapsedTime(&ms, start_, stop_), "cudaEventElapsedTime");
    return ms;
  }
  std::string clock() const override { return "cuda-event"; }

 private:
  cudaEvent_t start_ = nullptr, stop_ = nullptr;
};

// A runner on stream(): timed by its events; sync() waits for the whole device (the uploads
// of reset() included).
class GpuRunner : public Runner {
 public:
  void sync() override { check(cudaDeviceSynchronize(), "cudaDeviceSynchronize"); }
  tessera::DeviceTimer* timer() override {
    if (!timer_) timer_ = std::make_unique<EventTimer>();
    return timer_.get();
  }

 private:
  std::unique_ptr<EventTimer> timer_;
};

// A baseline that could not be set up: its first call rethrows why (Skipped: an n/a row), so
// the other baselines of the case still run.
class NotRunnable final : public Runner {
 public:
  explicit NotRunnable(std::exception_ptr why) : why_(std::move(why)) {}
  void run() override { std::rethrow_exception(why_); }
  std::vector<double> result() override { return {}; }

 private:
  std::exception_ptr why_;
};

}  // namespace bench::cudalibs
