// The grid of a GPU gemm (or batch of them): wide or narrow tiles, k split into parts (split-k),
// and for kernels that can store C transposed, the product of C^T = op(B)^T op(A)^T. One
// decision, made here from the problem's shape and the kernel family's measured constants;
// backends/cuda/gemm_tiles.hpp asks and launches what it gets.
//
// The model times the busiest SM, in tile area x k per block: blocks_for(blocks, SMs) blocks,
// run blocks_per_sm at a time at the SM's full rate, a last, short round of r blocks taking
// longer than r blocks' time (an SM partly empty hides less latency): `alone` for one block,
// growing linearly to blocks_per_sm for a full round. Partial edge tiles and idle SMs both
// cost. Narrow tiles reuse each fragment half as often: their time counts `margin` more. The
// parts of a split sum into a workspace that the backend then adds up: their bytes (written,
// then read) are priced at the unit's balance, its peak FLOP/s over DRAM bytes/s, and the split
// must win by kSplitMargin besides. Ties go to the earlier candidate: as is, wide, unsplit.
#pragma once

#include <cstdint>

namespace tessera::plan {

// A kernel family's tile, as the model sees it.
struct GemmTileModel {
  std::int64_t bm = 128, bn = 128;  // rows x columns of C (of C^T when transposed) a block computes
  int blocks_per_sm = 2;
  double alone = 2.0;   // a lone block's time, in blocks at full occupancy (blocks_per_sm: no gain)
  double margin = 1.0;  // the tile's time factor against the wide tile's (narrow tiles' NARROW_MARGIN)
};

// The split's constants. k_chunk is a multiple of kSplitAlign (a multiple of every CUDA gemm
// kernel's BK and of a 16-byte vector, so the parts' bases keep the operands' alignment;
// backends/cuda/gemm_tiles.hpp checks) and at least kSplitMinK; the model's splits keep the
// parts' workspace within kSplitMaxBytes (a forced split does not) and batch x parts within
// kMaxGridZ.
constexpr double kSplitMargin = 1.03;
constexpr int kSplitAlign = 32;
constexpr int kSplitMinK = 128;
constexpr int kMaxSplits = 16;
constexpr double kSplitMaxBytes = 256.0 * (1 << 20);
constexpr std::int64_t kMaxGridZ = 65535;

struct GemmGridQuery {
  std::int64_t m = 0, n = 0, k = 0, batch = 1;
  int sms = 1;
  GemmTileModel wide, narrow;
  std::int64_t elem_bytes = 4;
  double balance = 20.0;       // the unit's peak FLOP/s over the DRAM bandwidth (bytes/s)
  bool may_transpose = false;  // the kernels can compute C^T (CUDA's f32 kernels)
  // Tuning overrides (gemm.tiles, gemm.splits, gemm.c_trans): -1 the model. tiles 0 wide, 1
  // narrow; splits >= 1 that many parts (within kMaxGridZ; 0 the model); c_trans 0 never, 1
  // always (where may_transpose).
  int forced_tiles = -1, forced_splits = -1, forced_trans = -1;
};

struct GemmGridChoice {
  bool narrow = false;
  bool c_trans = false;
  int splits = 1;
  std::int64_t k_chunk = 0;  // k per part when splits > 1
};

GemmGridChoice choose_gemm_grid(const GemmGridQuery& q);

}  // namespace tessera::plan
