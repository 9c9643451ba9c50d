// plan/stencil_chunks.hpp: the z-chunk model of the GPU plane sweeps, on the H200 shapes it
// was written for (132 SMs) and at its limits. Host arithmetic only.
#include <doctest/doctest.h>

#include <cstdint>
#include <initializer_list>

#include "plan/stencil_chunks.hpp"

using namespace tessera::plan;

namespace {

ZChunkQuery query(std::int64_t nz, std::int64_t tiles, std::int64_t slots, std::int64_t pipeline) {
  ZChunkQuery q;
  q.nz = nz;
  q.xy_tiles = tiles;
  q.slots = slots;
  q.pipeline = pipeline;
  return q;
}

std::int64_t chunks(std::int64_t nz, std::int64_t chunk) { return (nz + chunk - 1) / chunk; }

}  // namespace

TEST_CASE("stencil z chunks: enough tiles for every slot keep one chunk") {
  // 4096 tiles in a plane on 264 slots: cutting z only adds pipelines.
  CHECK(choose_z_chunk(query(512, 4096, 264, 5)) == 512);
  CHECK(choose_z_chunk(query(512, 264, 264, 5)) == 512);
}

TEST_CASE("stencil z chunks: too few tiles fill the device") {
  // 512^3 f32 at 3 levels on the runs kernel: 100 tiles, 132 SMs, one block each.
  const std::int64_t nz = 512, tiles = 100, slots = 132, pipeline = 8;
  const std::int64_t chunk = choose_z_chunk(query(nz, tiles, slots, pipeline));
  CHECK(chunk < nz);
  const std::int64_t used = chunks(nz, chunk), rounds = (tiles * used + slots - 1) / slots;
  // No other chunk count prices lower than the choice.
  for (std::int64_t c = 1; c <= kMaxZChunks; ++c) {
    const std::int64_t ch = (nz + c - 1) / c, u = chunks(nz, ch), r = (tiles * u + slots - 1) / slots;
    CHECK(rounds * (chunk + pipeline) <= r * (ch + pipeline));
  }
  CHECK(used * tiles >= slots);  // every slot has a block
}

TEST_CASE("stencil z chunks: every plane in a chunk, no chunk empty") {
  for (std::int64_t nz : {1, 2, 3, 7, 61, 512, 1000, 4097})
    for (std::int64_t tiles : {1, 5, 100, 10000})
      for (std::int64_t pipeline : {0, 2, 11}) {
        const std::int64_t chunk = choose_z_chunk(query(nz, tiles, 264, pipeline));
        CHECK(chunk >= 1);
        CHECK(chunk <= nz);
        CHECK(chunks(nz, chunk) <= kMaxZChunks);
        CHECK((chunks(nz, chunk) - 1) * chunk < nz);
      }
}

TEST_CASE("stencil z chunks: degenerate inputs") {
  CHECK(choose_z_chunk(query(0, 10, 10, 1)) == 1);
  CHECK(choose_z_chunk(query(5, 0, 0, -3)) >= 1);
  // Blocks in parallel pay their pipelines together: one tile on 132 slots is cut to the limit
  // however long the pipeline, while a full round of tiles is never cut (a second round would
  // pay the pipeline again).
  CHECK(choose_z_chunk(query(320, 1, 132, 1000)) == 320 / kMaxZChunks);
  CHECK(choose_z_chunk(query(300, 132, 132, 1)) == 300);
}
