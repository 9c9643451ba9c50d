// CudaBackend's queues and events: creating and wrapping streams, recording and waiting on
// events, and the waits of the host (each counted by note_host_wait).
#include "queue.hpp"

#include <string>

namespace tessera::cuda {

CudaEvent::CudaEvent(CudaBackend& owner, cudaStream_t stream) : owner_(owner) {
  owner_.make_current();
  TESSERA_CUDA_CHECK(cudaEventCreateWithFlags(&event_, cudaEventDisableTiming));
  const cudaError_t err = cudaEventRecord(event_, stream);
  if (err != cudaSuccess) {
    (void)cudaEventDestroy(event_);
    check(err, "cudaEventRecord(event_, stream)", __FILE__, __LINE__);
  }
}

CudaEvent::~CudaEvent() {
  // The event may still be pending: CUDA releases it once it completes.
  (void)cudaSetDevice(owner_.device());
  (void)cudaEventDestroy(event_);
}

void CudaEvent::synchronize() {
  owner_.make_current();
  owner_.note_host_wait();
  TESSERA_CUDA_CHECK(cudaEventSynchronize(event_));
}

bool CudaEvent::ready() {
  owner_.make_current();
  const cudaError_t err = cudaEventQuery(event_);
  if (err == cudaErrorNotReady) return false;
  TESSERA_CUDA_CHECK(err);
  return true;
}

CudaQueue::CudaQueue(CudaBackend& owner) : owner_(owner), owned_(true) {
  owner_.make_current();
  // Non-blocking: work on this stream never waits for the legacy default stream, where an
  // application's or a library's stray synchronous calls would otherwise serialise it.
  TESSERA_CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
}

CudaQueue::CudaQueue(CudaBackend& owner, cudaStream_t stream) : owner_(owner), stream_(stream), owned_(false) {}

CudaQueue::~CudaQueue() {
  // Errors cannot be reported here (and the runtime may be unloading at exit): ignore them. The
  // stream's pending work still completes; the scratch in `state` is freed after this body, by
  // cudaFree, which waits for that work first.
  (void)cudaSetDevice(owner_.device());
  if (owned_ && stream_ != nullptr) (void)cudaStreamDestroy(stream_);
}

void CudaQueue::synchronize() {
  owner_.make_current();
  owner_.note_host_wait();
  TESSERA_CUDA_CHECK(cudaStreamSynchronize(stream_));
}

std::shared_ptr<EventImpl> CudaQueue::record() { return std::make_shared<CudaEvent>(owner_, stream_); }

void CudaQueue::wait(EventImpl& event) {
  owner_.make_current();
  TESSERA_CUDA_CHECK(cudaStreamWaitEvent(stream_, static_cast<CudaEvent&>(event).event(), 0));
}

std::shared_ptr<QueueImpl> CudaBackend::create_queue() { return std::make_shared<CudaQueue>(*this); }

std::shared_ptr<QueueImpl> CudaBackend::wrap_queue(void* native) {
  // The legacy default stream (null) synchronises with every blocking stream of the process: a
  // queue on it would silently serialise with other work, so it is refused.
  if (native == nullptr)
    throw InvalidArgument("cuda: wrap_queue: a null cudaStream_t (the legacy default stream) cannot be a queue");
  make_current();
  auto* stream = static_cast<cudaStream_t>(native);
  int dev = -1;
  if (const cudaError_t err = cudaStreamGetDevice(stream, &dev); err != cudaSuccess) {
    (void)cudaGetLastError();
    throw InvalidArgument("cuda: wrap_queue: not a usable cudaStream_t: " + cuda_error_text(err));
  }
  if (dev != device_)
    throw InvalidArgument("cuda: wrap_queue: the stream belongs to cuda:" + std::to_string(dev) + ", not cuda:" +
                          std::to_string(device_));
  return std::make_shared<CudaQueue>(*this, stream);
}

void CudaBackend::synchronize() {
  make_current();
  note_host_wait();
  TESSERA_CUDA_CHECK(cudaDeviceSynchronize());
}

}  // namespace tessera::cuda
