// SpMV: the kernel comes from the one SpMV policy (plan/spmv_policy.hpp), from the matrix's row
// statistics (CsrView::stats, computed on the host when it was built) and this device's spmv.*
// tuning values:
//  - merge: the merge-path kernel, over a partition of rows + nonzeros into equal tiles that is
//    computed once per matrix (keyed by CsrView::generation) and kept here;
//  - stream: a warp per 32 rows, their nonzeros read as one coalesced run;
//  - vector: `lanes` threads per row.
#include <algorithm>
#include <cstdint>
#include <memory>
#include <unordered_map>
#include <vector>

#include "cuda_backend.hpp"
#include "kernels/cuda/launch.hpp"
#include "plan/spmv_policy.hpp"

namespace tessera::cuda {

// The merge-path partitions of the matrices seen last (bounded: oldest dropped first).
struct CudaBackend::SpmvState {
  struct Partition {
    int tiles = 0;
    DeviceBuffer coords, carry_rows, carry_vals;
  };
  static constexpr std::size_t kMaxPartitions = 32;
  std::unordered_map<std::uint64_t, std::unique_ptr<Partition>> partitions;
  std::vector<std::uint64_t> order;  // generations, oldest first

  static SpmvState& of(CudaBackend& b) {
    if (!b.spmv_) b.spmv_ = std::make_shared<SpmvState>();
    return *b.spmv_;
  }

  // A's partition, computed (queued on `stream`) unless cached; scratch for `value_size` carries.
  Partition& partition(const CsrView& A, std::size_t value_size, cudaStream_t stream) {
    Partition* p = nullptr;
    if (A.generation != 0)
      if (auto it = partitions.find(A.generation); it != partitions.end()) p = it->second.get();
    if (p == nullptr) {
      auto fresh = std::make_unique<Partition>();
      fresh->tiles = static_cast<int>((A.rows + A.nnz + kMergeTile - 1) / kMergeTile);
      fresh->coords.ensure(static_cast<std::size_t>(fresh->tiles + 1) * sizeof(int2));
      fresh->carry_rows.ensure(static_cast<std::size_t>(fresh->tiles) * sizeof(int));
      TESSERA_CUDA_CHECK(launch_merge_partition(static_cast<int>(A.rows), static_cast<int>(A.nnz),
                                                static_cast<const int*>(A.row_ptr), fresh->tiles,
                                                fresh->coords.as<int2>(), stream));
      // No identity to cache under (generation 0): kept only until the next such call.
      if (A.generation != 0) {
        if (order.size() >= kMaxPartitions) {
          partitions.erase(order.front());
          order.erase(order.begin());
        }
        order.push_back(A.generation);
      }
      p = (partitions[A.generation] = std::move(fresh)).get();
    }
    p->carry_vals.ensure(static_cast<std::size_t>(p->tiles) * value_size);
    return *p;
  }
};

template <class T>
void CudaBackend::spmv(double alpha, const CsrView& A, const VecView& x, double beta, const VecView& y) {
  if (A.rows == 0) return;
  const plan::SpmvChoice choice = plan::choose_spmv(A, tune_, false, kMergeTile);
  const auto* rp = static_cast<const int*>(A.row_ptr);
  const auto* ci = static_cast<const int*>(A.col_idx);
  const auto* v = static_cast<const T*>(A.values);
  const auto* xp = static_cast<const T*>(x.data);
  auto* yp = static_cast<T*>(y.data);
  const int rows = static_cast<int>(A.rows);
  const T a = static_cast<T>(alpha), b = static_cast<T>(beta);
  switch (choice.kernel) {
    case plan::SpmvKernel::merge: {
      auto& part = SpmvState::of(*this).partition(A, sizeof(T), stream_);
      TESSERA_CUDA_CHECK(launch_spmv_merge<T>(rows, static_cast<int>(A.nnz), rp, ci, v, xp, a, b, yp, part.tiles,
                                              part.coords.as<int2>(), part.carry_rows.as<int>(),
                                              part.carry_vals.as<T>(), stream_));
      break;
    }
    case plan::SpmvKernel::stream:
      TESSERA_CUDA_CHECK(launch_spmv_stream<T>(rows, rp, ci, v, xp, a, b, yp, stream_));
      break;
    default:
      // The vector kernel is compiled for 2..32 lanes (a warp at most); spmv.min_lanes and
      // spmv.max_lanes may ask for fewer or more.
      TESSERA_CUDA_CHECK(launch_spmv_vector<T>(std::clamp(choice.lanes, 2, 32), rows, rp, ci, v, xp, a, b, yp,
                                               stream_));
      break;
  }
}

TESSERA_INSTANTIATE_TYPED_OP(CudaBackend, spmv)

}  // namespace tessera::cuda
