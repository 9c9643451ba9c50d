// The z-chunk model (stencil_chunks.hpp says what it counts and why).
#include "plan/stencil_chunks.hpp"

#include <algorithm>

namespace tessera::plan {

std::int64_t choose_z_chunk(const ZChunkQuery& q) {
  const std::int64_t nz = std::max<std::int64_t>(q.nz, 1), slots = std::max<std::int64_t>(q.slots, 1);
  const std::int64_t tiles = std::max<std::int64_t>(q.xy_tiles, 1), pipeline = std::max<std::int64_t>(q.pipeline, 0);
  std::int64_t best_chunk = nz, best_cost = -1;
  for (std::int64_t chunks = 1; chunks <= kMaxZChunks && chunks <= nz; ++chunks) {
    const std::int64_t chunk = (nz + chunks - 1) / chunks, used = (nz + chunk - 1) / chunk;
    if (used > kMaxGridZChunks) continue;
    const std::int64_t rounds = (tiles * used + slots - 1) / slots;
    const std::int64_t cost = rounds * (chunk + pipeline);
    if (best_cost < 0 || cost < best_cost) best_cost = cost, best_chunk = chunk;
  }
  return best_chunk;
}

}  // namespace tessera::plan
