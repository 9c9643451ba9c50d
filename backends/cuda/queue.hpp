// CudaQueue: a Queue of the cuda device, i.e. a CUDA stream (non-blocking: it never waits for the
// legacy default stream), made here or wrapped from the application, plus the per-call scratch of
// the operations that run on it. lib/ serialises the calls on one queue, so that scratch needs no
// lock, and two queues never share any: their work may overlap on the device. CudaEvent: a point
// in a queue's stream (a cudaEvent without timing: recording and waiting are cheaper).
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <memory>

#include "cuda_backend.hpp"

namespace tessera::cuda {

class CudaEvent final : public EventImpl {
 public:
  // An event recorded on `stream` now.
  CudaEvent(CudaBackend& owner, cudaStream_t stream);
  ~CudaEvent() override;
  CudaEvent(const CudaEvent&) = delete;
  CudaEvent& operator=(const CudaEvent&) = delete;

  void synchronize() override;  // counts a host wait
  bool ready() override;
  cudaEvent_t event() const { return event_; }

 private:
  CudaBackend& owner_;
  cudaEvent_t event_ = nullptr;
};

class CudaQueue final : public QueueImpl {
 public:
  // A new non-blocking stream on owner's device, destroyed with the queue.
  explicit CudaQueue(CudaBackend& owner);
  // The application's `stream` (of owner's device, checked by the caller), not destroyed here.
  CudaQueue(CudaBackend& owner, cudaStream_t stream);
  ~CudaQueue() override;
  CudaQueue(const CudaQueue&) = delete;
  CudaQueue& operator=(const CudaQueue&) = delete;

  void synchronize() override;  // counts a host wait
  void* native() const override { return stream_; }
  std::shared_ptr<EventImpl> record() override;
  void wait(EventImpl& event) override;  // cudaStreamWaitEvent: the host does not wait
  // Stream capture into a CudaGraph (graph.cpp).
  bool can_capture() const override { return true; }
  void begin_capture() override;
  std::shared_ptr<GraphImpl> end_capture() override;

  cudaStream_t stream() const { return stream_; }

  // The operations' per-queue scratch, each made on first use by the operation's file (the
  // types are complete only there).
  struct State {
    std::shared_ptr<CudaBackend::ReduceState> reduce;
    std::shared_ptr<CudaBackend::SpmvState> spmv;
    std::shared_ptr<CudaBackend::SpmmState> spmm;
    std::shared_ptr<CudaBackend::TrsvState> trsv;
    std::shared_ptr<CudaBackend::SptrsvState> sptrsv;
    std::shared_ptr<CudaBackend::StencilState> stencil;
    std::shared_ptr<CudaBackend::ConvState> conv;
    std::shared_ptr<CudaBackend::GemmState> gemm;
  } state;

 private:
  CudaBackend& owner_;
  cudaStream_t stream_ = nullptr;
  bool owned_ = false;
  std::uint64_t capture_generation_ = 0;  // scratch_generation() at begin_capture
};

// The queue an operation was given: always one this backend made (lib/ checks the device).
inline CudaQueue& queue_of(QueueImpl& q) { return static_cast<CudaQueue&>(q); }
inline cudaStream_t stream_of(QueueImpl& q) { return static_cast<CudaQueue&>(q).stream(); }

}  // namespace tessera::cuda
