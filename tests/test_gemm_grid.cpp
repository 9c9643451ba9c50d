// plan/gemm_grid.hpp: the GPU gemm grid model (tiles, split-k, C^T's product) on the shapes it
// was calibrated on (bench/RESULTS.md, session 22, an H200 of 132 SMs with CUDA's f32 tiles),
// its limits (grid.z, the workspace) and the tuning overrides. Host arithmetic only: it runs
// wherever the tests do, and every CUDA gemm asks it.
#include <doctest/doctest.h>

#include <cstdint>
#include <initializer_list>

#include "plan/gemm_grid.hpp"

using namespace tessera::plan;

namespace {

// CUDA's f32 FFMA tiles (kernels/cuda/launch.hpp GemmTile<float>) on an H200.
GemmGridQuery h200_f32(std::int64_t m, std::int64_t n, std::int64_t k) {
  GemmGridQuery q;
  q.m = m;
  q.n = n;
  q.k = k;
  q.sms = 132;
  q.wide = {128, 128, 2, 1.05, 1.0};
  q.narrow = {128, 64, 4, 1.19, 1.15};
  q.elem_bytes = 4;
  q.balance = 20.0;
  q.may_transpose = true;
  return q;
}

void check_parts(const GemmGridChoice& g, std::int64_t k) {
  if (g.splits == 1) {
    CHECK(g.k_chunk == 0);
    return;
  }
  CHECK(g.k_chunk % kSplitAlign == 0);
  CHECK(g.k_chunk * g.splits >= k);  // every k in some part
  CHECK(g.k_chunk * (g.splits - 1) < k);  // and no part empty
}

}  // namespace

TEST_CASE("gemm grid: large squares run on wide tiles, whole, as they are") {
  for (std::int64_t n : {4096, 8192}) {
    const GemmGridChoice g = choose_gemm_grid(h200_f32(n, n, n));
    CHECK_FALSE(g.narrow);
    CHECK_FALSE(g.c_trans);
    CHECK(g.splits == 1);
  }
}

TEST_CASE("gemm grid: few tiles over a long k are split, a short and wide C transposed") {
  // 16384 x 64: 128 narrow tiles, one a busy SM; four parts fill the four blocks an SM.
  GemmGridChoice g = choose_gemm_grid(h200_f32(16384, 64, 16384));
  CHECK(g.narrow);
  CHECK_FALSE(g.c_trans);
  CHECK(g.splits == 4);
  check_parts(g, 16384);
  // 64 x 16384: the same product transposed (128-row tiles would be half empty).
  g = choose_gemm_grid(h200_f32(64, 16384, 16384));
  CHECK(g.c_trans);
  CHECK(g.narrow);
  CHECK(g.splits == 4);
  // Without the transposed store, the rows stay half empty; never transposed then.
  GemmGridQuery q = h200_f32(64, 16384, 16384);
  q.may_transpose = false;
  CHECK_FALSE(choose_gemm_grid(q).c_trans);
  // 64 tiles over k = 32768: parts until every SM holds its two blocks.
  g = choose_gemm_grid(h200_f32(1024, 1024, 32768));
  CHECK(g.splits >= 2);
  CHECK((1024 / 128) * (1024 / 128) * g.splits <= 2 * 132);
  check_parts(g, 32768);
  // An odd k: the last part is the short one.
  g = choose_gemm_grid(h200_f32(40, 70, 3001));
  CHECK(g.splits > 1);
  check_parts(g, 3001);
}

TEST_CASE("gemm grid: short k, the workspace and grid.z bound the split") {
  // Parts shorter than kSplitMinK: never by the model.
  CHECK(choose_gemm_grid(h200_f32(40, 70, kSplitMinK + kSplitAlign - 1)).splits == 1);
  CHECK(choose_gemm_grid(h200_f32(40, 70, 2 * kSplitMinK)).splits == 2);
  CHECK(choose_gemm_grid(h200_f32(40, 70, 0)).splits == 1);
  // A hypothetical GPU of 4096 SMs on 4096 x 4096 x 65536: parts of 64 MiB each, at most 4.
  GemmGridQuery q = h200_f32(4096, 4096, 65536);
  q.sms = 4096;
  GemmGridChoice g = choose_gemm_grid(q);
  CHECK(g.splits > 1);
  CHECK(static_cast<double>(g.splits) * 4096.0 * 4096.0 * 4.0 <= kSplitMaxBytes);
  // A batch of 40000 products: batch x parts must fit grid.z.
  q = h200_f32(16, 16, 65536);
  q.batch = 40000;
  q.sms = 1 << 20;
  g = choose_gemm_grid(q);
  CHECK(q.batch * g.splits <= kMaxGridZ);
}

TEST_CASE("gemm grid: the tuning overrides") {
  GemmGridQuery q = h200_f32(4096, 4096, 4096);
  q.forced_tiles = 1;
  CHECK(choose_gemm_grid(q).narrow);
  q = h200_f32(16384, 64, 16384);
  q.forced_tiles = 0;
  CHECK_FALSE(choose_gemm_grid(q).narrow);
  // Forced parts, even where the model would not split, and past its workspace bound.
  q = h200_f32(4096, 4096, 4096);
  q.forced_splits = 3;
  GemmGridChoice g = choose_gemm_grid(q);
  CHECK(g.splits == 3);
  check_parts(g, 4096);
  CHECK(choose_gemm_grid(h200_f32(1024, 1024, 32768)).splits > 1);
  q = h200_f32(1024, 1024, 32768);
  q.forced_splits = 1;
  CHECK(choose_gemm_grid(q).splits == 1);
  // More parts than k has chunks of kSplitAlign: as many as there are; k = 0 or 1: none.
  for (std::int64_t k : {0, 1, 40}) {
    q = h200_f32(33, 17, k);
    q.forced_splits = 3;
    g = choose_gemm_grid(q);
    CHECK(g.splits == (k > kSplitAlign ? 2 : 1));
    check_parts(g, k);
  }
  q = h200_f32(4096, 4096, 4096);
  q.forced_trans = 1;
  CHECK(choose_gemm_grid(q).c_trans);
  q.may_transpose = false;
  CHECK_FALSE(choose_gemm_grid(q).c_trans);
  q = h200_f32(64, 16384, 16384);
  q.forced_trans = 0;
  CHECK_FALSE(choose_gemm_grid(q).c_trans);
}
