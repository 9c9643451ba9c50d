// CudaGraph: the work a CudaQueue recorded by stream capture, instantiated once and replayed
// with one cudaGraphLaunch. Capture runs in relaxed mode, so that other threads' allocations
// and frees (legal at any time outside the capturing stream) neither fail nor break it.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "cuda_backend.hpp"

namespace tessera::cuda {

class CudaGraph final : public GraphImpl {
 public:
  // Takes the captured graph (instantiates it; destroys it on error).
  CudaGraph(CudaBackend& owner, cudaGraph_t graph, std::uint64_t generation);
  ~CudaGraph() override;
  CudaGraph(const CudaGraph&) = delete;
  CudaGraph& operator=(const CudaGraph&) = delete;

  bool launch(QueueImpl& q) override;

 private:
  CudaBackend& owner_;
  cudaGraph_t graph_ = nullptr;
  cudaGraphExec_t exec_ = nullptr;
  std::uint64_t generation_;  // scratch_generation() when the capture ended
};

}  // namespace tessera::cuda
