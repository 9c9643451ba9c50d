// How a GPU plane sweep cuts z into chunks, one block each per xy tile. A column of tiles over
// all of z can leave SMs idle (512^3 f32, the temporally blocked runs kernel at 3 levels: 100
// tiles for 132 SMs), while each chunk pays `pipeline` iterations that write nothing (the sweep
// starting below its first plane). The model: blocks run in rounds of `slots` (SMs x blocks
// resident a SM), each block's time its chunk plus the pipeline; it takes the chunk count whose
// rounds x iterations a block is least, fewer chunks on ties. One decision, asked by
// backends/cuda/stencil.cpp for kernels/cuda/stencil_tblock.cu's launches.
#pragma once

#include <cstdint>

namespace tessera::plan {

constexpr std::int64_t kMaxZChunks = 64;        // beyond it the pipeline's cost only grows
constexpr std::int64_t kMaxGridZChunks = 65535;  // CUDA's grid z

struct ZChunkQuery {
  std::int64_t nz = 1;
  std::int64_t xy_tiles = 1;  // blocks a chunk of planes takes
  std::int64_t slots = 1;     // blocks resident at once on the whole device
  std::int64_t pipeline = 0;  // iterations a block spends before its first written plane
};

// Planes a chunk (the last one may be shorter); nz where nz <= 1.
std::int64_t choose_z_chunk(const ZChunkQuery& q);

}  // namespace tessera::plan
