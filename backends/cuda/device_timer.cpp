// CudaBackend::device_timer: a pair of CUDA events recorded on a queue's stream, so that
// tessera-bench times the work queued between them on the GPU's own clock (resolution about
// 0.5 us), without the host's launch and synchronisation latencies.
#include "cuda_backend.hpp"
#include "queue.hpp"

namespace tessera::cuda {

namespace {

class EventTimer final : public DeviceTimer {
 public:
  EventTimer(int device, cudaStream_t stream) : device_(device), stream_(stream) {
    TESSERA_CUDA_CHECK(cudaSetDevice(device_));
    TESSERA_CUDA_CHECK(cudaEventCreate(&start_));
    const cudaError_t err = cudaEventCreate(&stop_);
    if (err != cudaSuccess) {
      (void)cudaEventDestroy(start_);
      check(err, "cudaEventCreate(&stop_)", __FILE__, __LINE__);
    }
  }
  ~EventTimer() override {
    (void)cudaEventDestroy(start_);
    (void)cudaEventDestroy(stop_);
  }
  EventTimer(const EventTimer&) = delete;
  EventTimer& operator=(const EventTimer&) = delete;

  void start() override {
    TESSERA_CUDA_CHECK(cudaSetDevice(device_));
    TESSERA_CUDA_CHECK(cudaEventRecord(start_, stream_));
  }
  void stop() override {
    TESSERA_CUDA_CHECK(cudaSetDevice(device_));
    TESSERA_CUDA_CHECK(cudaEventRecord(stop_, stream_));
  }
  double elapsed_ms() override {
    TESSERA_CUDA_CHECK(cudaSetDevice(device_));
    TESSERA_CUDA_CHECK(cudaEventSynchronize(stop_));
    float ms = 0;
    TESSERA_CUDA_CHECK(cudaEventElapsedTime(&ms, start_, stop_));
    return ms;
  }
  std::string clock() const override { return "cuda-event"; }

 private:
  int device_;
  cudaStream_t stream_;  // the queue's: the timer must not outlive it
  cudaEvent_t start_ = nullptr, stop_ = nullptr;
};

}  // namespace

std::unique_ptr<DeviceTimer> CudaBackend::device_timer(QueueImpl& q) {
  return std::make_unique<EventTimer>(device_, stream_of(q));
}

}  // namespace tessera::cuda
