// The cpu temporally blocked stencil (kernels/cpu/stencil_wavefront.hpp), called directly on
// small grids (the backend takes it only for grids beyond the last-level cache; the ctest entry
// cpu.stencil_time_blocked forces it through the backend): `levels` steps of a block of rows
// per call must give the bits of `levels` one-step kernel calls, on every SIMD target, for
// radius 1..4, odd grids, blocks of one row up to the whole interior, ragged last blocks, step
// counts 1, 3, 7, 16 split into passes, with and without streaming stores, and with the source
// planes read from the grid or packed into the ring (levels 1-3; levels 1 with pack: the packed
// one-step sweep).
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <memory>
#include <type_traits>
#include <utility>
#include <vector>

#include "../kernels/cpu/stencil.hpp"
#include "../kernels/cpu/stencil_wavefront.hpp"
#include "support/compare.hpp"
#include "support/cpu_targets.hpp"
#include "support/random.hpp"

namespace {

struct FreeDeleter {
  void operator()(void* p) const { std::free(p); }
};

template <class T>
std::unique_ptr<T[], FreeDeleter> aligned_array(std::size_t n) {
  T* p = static_cast<T*>(std::aligned_alloc(64, (n * sizeof(T) + 63) / 64 * 64));
  REQUIRE(p != nullptr);
  return std::unique_ptr<T[], FreeDeleter>(p);
}

struct Shape {
  std::int64_t nx, ny, nz;
};

// steps one-step kernel calls (the backend's path for grids in the cache), ping-ponging.
template <class T>
std::vector<T> one_step_each(const Shape& g, int r, const T* c, const std::vector<T>& u0, int steps) {
  std::vector<T> a = u0, b = u0;
  for (int s = 0; s < steps; ++s) {
    if constexpr (std::is_same_v<T, float>)
      tessera::cpu::stencil_block_f32(a.data(), b.data(), 3, r, c, g.nx, g.ny, r, g.nz - r, r, g.ny - r, false);
    else
      tessera::cpu::stencil_block_f64(a.data(), b.data(), 3, r, c, g.nx, g.ny, r, g.nz - r, r, g.ny - r, false);
    std::swap(a, b);
  }
  return a;
}

// steps in passes of at most `levels`, each pass the interior rows cut into `blocks` blocks.
template <class T>
std::vector<T> blocked(const Shape& g, int r, const T* c, const std::vector<T>& u0, int steps, int levels,
                       std::int64_t blocks, bool stream, bool pack) {
  const std::size_t cells = u0.size();
  auto a = aligned_array<T>(cells), b = aligned_array<T>(cells);
  std::copy(u0.begin(), u0.end(), a.get());
  std::copy(u0.begin(), u0.end(), b.get());
  const std::int64_t iy = g.ny - 2 * r, rows = (iy + blocks - 1) / blocks;
  const std::size_t ring_n = static_cast<std::size_t>(tessera::cpu::stencil_wavefront_ring_elems(r, levels, g.nx, rows, pack));
  auto ring = aligned_array<T>(ring_n + 1);
  // Poison the ring: a read of a slot row the wavefront did not write (or pack) shows as NaN.
  std::fill(ring.get(), ring.get() + ring_n, std::numeric_limits<T>::quiet_NaN());
  T* src = a.get();
  T* dst = b.get();
  for (int done = 0; done < steps;) {
    const int lv = std::min(levels, steps - done);
    for (std::int64_t y = r; y < g.ny - r; y += rows)
      tessera::cpu::stencil_wavefront<T>(src, dst, ring.get(), r, c, g.nx, g.ny, g.nz, lv, y,
                                         std::min(y + rows, g.ny - r), rows, stream, pack);
    std::swap(src, dst);
    done += lv;
  }
  return std::vector<T>(src, src + cells);
}

template <class T>
void check_wavefront() {
  std::uint32_t seed = 900;
  for (int r = 1; r <= 4; ++r) {
    // Odd grids; nx = 64 takes the streaming stores on every target (a multiple of the lanes).
    for (const Shape g : {Shape{2 * r + 9, 2 * r + 7, 2 * r + 11}, Shape{37, 4 * r + 5, 23}, Shape{64, 19, 3 * r + 4},
                          Shape{2 * r + 1, 2 * r + 1, 2 * r + 1}}) {
      const std::size_t cells = static_cast<std::size_t>(g.nx * g.ny * g.nz);
      const auto u0 = tessera_test::random_vector<T>(cells, ++seed);
      std::vector<T> c(static_cast<std::size_t>(r) + 1);
      for (std::size_t k = 0; k < c.size(); ++k) c[k] = static_cast<T>((k % 2 ? 0.7 : -0.45) / static_cast<double>(k + 1) / (6.0 * r));
      const std::int64_t iy = g.ny - 2 * r;
      // Each axis is covered without the full product (the QEMU stages run this per SIMD
      // target): passes that divide the steps (3 = 3, 16 = 16), ragged ones (3 = 2 + 1,
      // 7 = 4 + 3, 16 = 7 + 7 + 2), one-level passes, and a ring deeper than the steps (16 > 3;
      // one step with a ring of 16 levels computed what one step with a ring of one does: 15 % of
      // this test's time natively, too little to see under QEMU).
      const std::pair<int, std::vector<int>> plans[] = {{1, {1}}, {3, {1, 2, 3, 16}}, {7, {3, 4, 7}}, {16, {7, 16}}};
      for (const auto& [steps, level_counts] : plans) {
        const auto want = one_step_each<T>(g, r, c.data(), u0, steps);
        for (int levels : level_counts)
          for (std::int64_t blocks : {std::int64_t{1}, std::int64_t{2}, std::int64_t{3}, iy})
            for (bool stream : {false, true})
              for (bool pack : {false, true}) {
                if (blocks > iy) continue;
                // Streaming stores change only how a finished row is stored: one block and a
                // ragged cut into three cover them. Packing changes only where step 0 is read
                // from: levels 1-3 cover its slots being read by the last step and by
                // intermediate ones; with streaming stores once (one level, three blocks).
                if (stream && blocks != 1 && blocks != 3) continue;
                if (pack && (levels > 3 || (stream && (levels != 1 || blocks != 3)))) continue;
                INFO("radius " << r << ", " << g.nx << " x " << g.ny << " x " << g.nz << ", steps " << steps
                               << ", levels " << levels << ", blocks " << blocks << (stream ? ", streaming" : "")
                               << (pack ? ", source planes packed" : ""));
                tessera_test::check_bitwise(blocked<T>(g, r, c.data(), u0, steps, levels, blocks, stream, pack), want,
                                            "temporally blocked stencil");
              }
      }
    }
  }
}

}  // namespace

TEST_CASE_TEMPLATE("cpu stencil wavefront: several steps per pass give the one-step kernel's bits", T, float,
                   double) {
  tessera_test::for_each_cpu_target([](const std::string&) { check_wavefront<T>(); });
}
