// SpMM on CUDA: kernels/cuda/spmm.cu, spmm.block threads a block (tuning/spmm.cpp). A matrix
// whose longest row (CsrStats, known since it was built) exceeds spmm.long_row takes the
// long-row path: its long rows listed on the device into the queue's scratch, then a block each.
#include <algorithm>

#include "cuda_backend.hpp"
#include "kernels/cuda/launch.hpp"
#include "queue.hpp"

namespace tessera::cuda {

// A queue's list of long rows and its count.
struct CudaBackend::SpmmState {
  DeviceBuffer list;

  static SpmmState& of(CudaQueue& q) {
    if (!q.state.spmm) q.state.spmm = std::make_shared<SpmmState>();
    return *q.state.spmm;
  }
};

template <class T>
void CudaBackend::spmm(QueueImpl& q, double alpha, const CsrView& A, const MatView& X, double beta,
                       const MatView& Y) {
  SpmmArgs<T> a;
  a.rows = A.rows;
  a.k = Y.cols;
  a.row_ptr = static_cast<const int*>(A.row_ptr);
  a.col_idx = static_cast<const int*>(A.col_idx);
  a.values = static_cast<const T*>(A.values);
  a.X = dev_ptr<const T>(X);
  a.ldx = X.ld;
  a.alpha = static_cast<T>(alpha);
  a.beta = static_cast<T>(beta);
  a.read_y = beta != 0.0;
  a.Y = dev_ptr<T>(Y);
  a.ldy = Y.ld;
  a.block = tune_.get("spmm.block");
  const std::int64_t long_row = tune_["spmm.long_row"];
  if (long_row > 0 && A.stats.max_row > long_row) {
    const std::int64_t max_long = A.nnz / (long_row + 1) + 1;
    int* buf = static_cast<int*>(
        SpmmState::of(queue_of(q)).list.ensure(static_cast<std::size_t>(max_long + 1) * sizeof(int)));
    a.long_row = static_cast<int>(long_row);
    a.long_count = buf;
    a.long_list = buf + 1;
    a.long_blocks = static_cast<int>(std::min<std::int64_t>(max_long, 8LL * sm_count()));
  }
  TESSERA_CUDA_CHECK(launch_spmm<T>(a, stream_of(q)));
}

TESSERA_INSTANTIATE_TYPED_OP(CudaBackend, spmm)

}  // namespace tessera::cuda
