// CudaBackend's memory: device allocations (cudaMalloc), page-locked host memory for
// asynchronous transfers (cudaMallocHost), the application's device pointers (wrapped, never
// freed here), and the transfers, each ordered on the queue it is given. Only `blocking`
// transfers wait, and count it.
#include <cstdint>
#include <string>

#include "cuda_backend.hpp"
#include "queue.hpp"

namespace tessera::cuda {

void* CudaBackend::allocate(std::size_t bytes) {
  make_current();
  if (bytes == 0) return nullptr;
  void* p = nullptr;
  const cudaError_t err = cudaMalloc(&p, bytes);
  if (err == cudaErrorMemoryAllocation) {
    (void)cudaGetLastError();
    std::size_t free_b = 0, total_b = 0;
    (void)cudaMemGetInfo(&free_b, &total_b);
    throw OutOfMemory("cuda: cudaMalloc of " + std::to_string(bytes) + " bytes failed on " + props_.name + " (" +
                      bytes_text(free_b) + " free of " + bytes_text(total_b) + ")");
  }
  TESSERA_CUDA_CHECK(err);
  return p;
}

void CudaBackend::deallocate(void* handle) noexcept {
  if (handle == nullptr) return;
  (void)cudaSetDevice(device_);
  (void)cudaFree(handle);  // implicitly waits for work still using it, on every queue
}

void* CudaBackend::wrap_memory(void* native, std::size_t bytes) {
  if (native == nullptr) throw InvalidArgument("cuda: wrap_memory: a null device pointer");
  make_current();
  cudaPointerAttributes a{};
  if (const cudaError_t err = cudaPointerGetAttributes(&a, native); err != cudaSuccess) {
    (void)cudaGetLastError();
    throw InvalidArgument("cuda: wrap_memory: not a pointer CUDA knows: " + cuda_error_text(err));
  }
  // Device or managed memory allocated on this device; host memory, registered or not, would be
  // read over PCIe by every kernel, and another device's memory is another Device's business.
  const bool usable = (a.type == cudaMemoryTypeDevice || a.type == cudaMemoryTypeManaged) && a.device == device_;
  if (!usable)
    throw InvalidArgument("cuda: wrap_memory: " + std::to_string(bytes) + " bytes at " +
                          std::to_string(reinterpret_cast<std::uintptr_t>(native)) + " are " +
                          (a.type == cudaMemoryTypeDevice || a.type == cudaMemoryTypeManaged
                               ? "memory of cuda:" + std::to_string(a.device)
                           : a.type == cudaMemoryTypeHost ? std::string("page-locked host memory")
                                                          : std::string("not device memory")) +
                          ", not memory of cuda:" + std::to_string(device_));
  return native;
}

void CudaBackend::release_wrapped(void*) noexcept {}  // wrapping took nothing

void* CudaBackend::allocate_host(std::size_t bytes) {
  make_current();
  void* p = nullptr;
  const cudaError_t err = cudaMallocHost(&p, bytes == 0 ? 1 : bytes);
  if (err == cudaErrorMemoryAllocation) {
    (void)cudaGetLastError();
    throw OutOfMemory("cuda: cudaMallocHost of " + std::to_string(bytes) + " bytes (page-locked host memory) failed");
  }
  TESSERA_CUDA_CHECK(err);
  return p;
}

void CudaBackend::deallocate_host(void* p) noexcept {
  if (p == nullptr) return;
  (void)cudaSetDevice(device_);
  (void)cudaFreeHost(p);  // waits for transfers still using it
}

void CudaBackend::upload(QueueImpl& q, void* dst, std::size_t dst_offset, const void* host_src, std::size_t bytes,
                         bool blocking) {
  if (bytes == 0) return;
  make_current();
  const cudaStream_t s = stream_of(q);
  TESSERA_CUDA_CHECK(cudaMemcpyAsync(static_cast<char*>(dst) + dst_offset, host_src, bytes, cudaMemcpyHostToDevice, s));
  if (blocking) {  // the caller may reuse its host array at once
    note_host_wait();
    TESSERA_CUDA_CHECK(cudaStreamSynchronize(s));
  }
}

void CudaBackend::download(QueueImpl& q, void* host_dst, const void* src, std::size_t src_offset, std::size_t bytes,
                           bool blocking) {
  if (bytes == 0) return;
  make_current();
  const cudaStream_t s = stream_of(q);
  TESSERA_CUDA_CHECK(
      cudaMemcpyAsync(host_dst, static_cast<const char*>(src) + src_offset, bytes, cudaMemcpyDeviceToHost, s));
  if (blocking) {
    note_host_wait();
    TESSERA_CUDA_CHECK(cudaStreamSynchronize(s));
  }
}

void CudaBackend::copy(QueueImpl& q, void* dst, std::size_t dst_offset, const void* src, std::size_t src_offset,
                       std::size_t bytes) {
  if (bytes == 0) return;
  make_current();
  TESSERA_CUDA_CHECK(cudaMemcpyAsync(static_cast<char*>(dst) + dst_offset, static_cast<const char*>(src) + src_offset,
                                     bytes, cudaMemcpyDeviceToDevice, stream_of(q)));
}

}  // namespace tessera::cuda
