// SpMM on CUDA: kernels/cuda/spmm.cu, spmm.block threads a block (tuning/spmm.cpp). A matrix
// whose longest row (CsrStats, known since it was built) exceeds spmm.long_row takes the
// long-row path: its long rows listed and cut into chunks on the device (sized for the most long
// rows and chunks the matrix can have: launch.hpp). The listing depends on the structure and the
// chunk size (from k) only, so each queue keeps those of the matrices it saw last (keyed by
// CsrView::generation) and lists a matrix once; the list entries also hold the rows' tickets,
// which the kernels change while they run, hence one listing per queue, not one shared.
#include <algorithm>
#include <cstdint>
#include <deque>

#include "cuda_backend.hpp"
#include "kernels/cuda/launch.hpp"
#include "queue.hpp"

namespace tessera::cuda {

// A queue's long-row scratch: the listings (the two counts, the rows, the chunks) of the
// matrices it saw last, and the chunks' sums of one call.
struct CudaBackend::SpmmState {
  static constexpr std::size_t kMaxListings = 8;
  struct Listing {
    std::uint64_t generation = 0;
    int chunk = 0;
    DeviceBuffer lists;
  };
  std::deque<Listing> listings;  // newest last
  DeviceBuffer unlisted;         // a matrix without a generation, or one met while capturing a graph
  DeviceBuffer partial;

  static SpmmState& of(CudaQueue& q) {
    if (!q.state.spmm) q.state.spmm = std::make_shared<SpmmState>();
    return *q.state.spmm;
  }

  // The listing buffer for (generation, chunk), of `bytes`; `listed`: it holds the listing already.
  // While the stream records a graph nothing is kept: the listing kernels are recorded, not run
  // (asked only when a listing is to be made: the lookup is the common case).
  void* listing(std::uint64_t generation, int chunk, std::size_t bytes, cudaStream_t stream, bool& listed) {
    listed = generation != 0;
    for (const Listing& l : listings)
      if (listed && l.generation == generation && l.chunk == chunk) return l.lists.get();
    listed = false;
    if (generation == 0 || capturing(stream)) return unlisted.ensure(bytes);
    if (listings.size() >= kMaxListings) listings.pop_front();
    listings.emplace_back();
    listings.back().generation = generation;
    listings.back().chunk = chunk;
    return listings.back().lists.ensure(bytes);
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
    const int chunk = spmm_long_chunk(a.k);
    const std::int64_t max_rows = spmm_long_rows(A.nnz, long_row), max_chunks = spmm_long_chunks(A.nnz, long_row, chunk);
    const std::int64_t pass = std::min<std::int64_t>(a.k, kSpmmLongPass);
    const std::size_t list_at = 16, chunks_at = list_at + static_cast<std::size_t>(max_rows) * sizeof(int4);
    const std::size_t lists_bytes = chunks_at + static_cast<std::size_t>(max_chunks) * sizeof(int2);
    SpmmState& st = SpmmState::of(queue_of(q));
    auto* base = static_cast<unsigned char*>(st.listing(A.generation, chunk, lists_bytes, stream_of(q), a.long_listed));
    a.long_rows = true;
    a.long_row = static_cast<int>(long_row);
    a.long_chunk = chunk;
    a.long_counts = reinterpret_cast<int*>(base);
    a.long_list = reinterpret_cast<int4*>(base + list_at);
    a.long_chunks = reinterpret_cast<int2*>(base + chunks_at);
    a.long_partial = static_cast<T*>(st.partial.ensure(static_cast<std::size_t>(max_chunks * pass) * sizeof(T)));
    a.long_blocks = static_cast<int>(std::min<std::int64_t>(max_chunks, 8LL * sm_count()));
    a.one_launch = A.nnz <= tune_["spmm.one_launch_max_nnz"];
  }
  TESSERA_CUDA_CHECK(launch_spmm<T>(a, stream_of(q)));
}

TESSERA_INSTANTIATE_TYPED_OP(CudaBackend, spmm)

}  // namespace tessera::cuda
