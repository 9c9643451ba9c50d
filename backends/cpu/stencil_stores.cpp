// The probe behind stencil.stream_stores (stencil_stores.hpp): the 7-point f32 sweep of
// kernels/cpu/stencil.cpp over a grid beyond the last-level cache, written with and without
// non-temporal stores, each timed three times alternately on every thread; the faster is kept.
#include "cpu/stencil_stores.hpp"

#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <limits>

#include "host_machine.hpp"
#include "host_memory_backend.hpp"
#include "kernels/cpu/dispatch.hpp"
#include "kernels/cpu/stencil.hpp"

namespace tessera::cpu {
namespace {

bool probe_streaming(std::int64_t block_bytes) {
  // 512 x 512 planes (1 MiB in f32), enough of them that each grid is twice the last-level
  // cache (8-256 planes), so that the sweep runs from memory as the real grids it decides for.
  constexpr std::int64_t nx = 512, ny = 512, plane = nx * ny;
  const auto llc = static_cast<std::int64_t>(host::machine().caches.l3);
  const std::int64_t nz = std::clamp<std::int64_t>(2 * llc / (plane * 4), 8, 256);
  const std::int64_t cells = plane * nz;
  struct Grid {
    float* p;
    explicit Grid(std::int64_t n) : p(static_cast<float*>(host_memory::allocate(static_cast<std::size_t>(n) * 4))) {}
    ~Grid() { host_memory::deallocate(p); }
  } src(cells), dst(cells);
  const int threads = num_threads();
  // First touch by the sweeping threads (their pages), with values that are not all equal.
#pragma omp parallel for num_threads(threads) schedule(static)
  for (std::int64_t i = 0; i < cells; ++i) {
    src.p[i] = static_cast<float>(i % 1021) * 0.001f;
    dst.p[i] = 0.0f;
  }
  const float c[2] = {0.4f, 0.1f};
  const std::int64_t rows = std::max<std::int64_t>(2, block_bytes / (4 * nx * 4));
  const auto sweep = [&](bool stream) {
    const auto t0 = std::chrono::steady_clock::now();
#pragma omp parallel num_threads(threads)
    {
      const Range zr = split(nz - 2, omp_get_num_threads(), omp_get_thread_num());
      for (std::int64_t y = 1; y < ny - 1 && zr.begin < zr.end; y += rows)
        stencil_block_f32(src.p, dst.p, 3, 1, c, nx, ny, 1 + zr.begin, 1 + zr.end, y, std::min(y + rows, ny - 1),
                          stream);
    }
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  };
  double streamed = std::numeric_limits<double>::infinity(), cached = streamed;
  for (int round = 0; round < 3; ++round) {
    streamed = std::min(streamed, sweep(true));
    cached = std::min(cached, sweep(false));
  }
  return streamed < cached;
}

}  // namespace

bool stencil_stream_stores(std::int64_t setting, std::int64_t block_bytes) {
  if (setting != 2) return setting == 1;
  static const bool verdict = probe_streaming(block_bytes);  // once per process, thread-safe
  return verdict;
}

}  // namespace tessera::cpu
