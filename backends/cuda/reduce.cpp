// reduce and dot: one launch each, on the queue's stream, with the queue's scratch; the kernel's
// last block writes the result into `out` on the device (no host round trip, no wait). The grid
// is the SM count times reduce.blocks_per_sm, or fewer for short vectors (each thread should
// have at least one 16-byte load).
#include "cuda_backend.hpp"
#include "kernels/cuda/launch.hpp"
#include "queue.hpp"
#include "reduce_state.hpp"

namespace tessera::cuda {

template <class T>
void CudaBackend::reduce(QueueImpl& q, ReduceOp op, const VecView& x, const VecView& out) {
  CudaQueue& cq = queue_of(q);
  const ReduceState& st = ReduceState::of(cq, reduce_blocks_);
  TESSERA_CUDA_CHECK(
      launch_reduce<T>(op, dev_ptr<const T>(x), x.n, dev_ptr<T>(out), st.max_blocks, st.view(), cq.stream()));
}

template <class T>
void CudaBackend::dot(QueueImpl& q, const VecView& x, const VecView& y, const VecView& out) {
  CudaQueue& cq = queue_of(q);
  const ReduceState& st = ReduceState::of(cq, reduce_blocks_);
  TESSERA_CUDA_CHECK(launch_dot<T>(dev_ptr<const T>(x), dev_ptr<const T>(y), x.n, dev_ptr<T>(out), st.max_blocks,
                                   st.view(), cq.stream()));
}

TESSERA_INSTANTIATE_TYPED_OP(CudaBackend, reduce)
TESSERA_INSTANTIATE_TYPED_OP(CudaBackend, dot)

}  // namespace tessera::cuda
