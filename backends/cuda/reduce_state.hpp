// A queue's scratch for the one-pass reductions (reduce.cpp: reduce, dot; vector.cpp: axpby_dot,
// dot2): [ticket counter][per-block partials], the counter zeroed once on the queue (the
// kernel's last block leaves it at zero). Per queue: two queues' reductions may run at once.
#pragma once

#include <algorithm>

#include "cuda_backend.hpp"
#include "kernels/cuda/launch.hpp"
#include "queue.hpp"

namespace tessera::cuda {

struct CudaBackend::ReduceState {
  DeviceBuffer scratch;
  int max_blocks = 1;

  // q's state, made on first use for grids of at most `max_blocks` blocks.
  static ReduceState& of(CudaQueue& q, int max_blocks) {
    if (!q.state.reduce) q.state.reduce = std::make_shared<ReduceState>(max_blocks, q.stream());
    return *q.state.reduce;
  }
  ReduceState(int blocks, cudaStream_t stream) : max_blocks(std::max(1, blocks)) {
    // The counter takes a double's slot, so the partials stay 8-byte aligned.
    scratch.ensure(sizeof(double) + static_cast<std::size_t>(kReduceMaxSums) * max_blocks * sizeof(double));
    TESSERA_CUDA_CHECK(cudaMemsetAsync(scratch.get(), 0, sizeof(double), stream));
  }

  ReduceScratch view() const {
    ReduceScratch s;
    s.counter = scratch.as<unsigned int>();
    s.partials = scratch.as<double>() + 1;
    return s;
  }
};

}  // namespace tessera::cuda
