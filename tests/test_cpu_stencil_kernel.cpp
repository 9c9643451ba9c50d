// The cpu stencil kernel's streaming-store path (taken by the backend only for grids larger than
// the last-level cache, which the scaled test runs do not reach) on every SIMD target: on small
// grids it must give the same bits as the regular path, keep the boundary lanes, and fall back
// to the regular path where the row length is not a multiple of the vector or a grid is not
// vector aligned.
#include <doctest/doctest.h>

#include <cstdint>
#include <cstdlib>
#include <memory>
#include <type_traits>
#include <vector>

#include "../backends/cpu/stencil_stores.hpp"
#include "../kernels/cpu/stencil.hpp"
#include "support/compare.hpp"
#include "support/cpu_targets.hpp"
#include "support/random.hpp"

namespace {

struct FreeDeleter {
  void operator()(void* p) const { std::free(p); }
};

// A 64-byte aligned copy of v, optionally shifted by one element (then not vector aligned).
template <class T>
std::unique_ptr<T[], FreeDeleter> aligned_copy(const std::vector<T>& v, bool shift) {
  const std::size_t bytes = ((v.size() + 1) * sizeof(T) + 63) / 64 * 64;
  T* p = static_cast<T*>(std::aligned_alloc(64, bytes));
  REQUIRE(p != nullptr);
  for (std::size_t i = 0; i < v.size(); ++i) p[i + (shift ? 1 : 0)] = v[i];
  return std::unique_ptr<T[], FreeDeleter>(p);
}

template <class T>
void block(const T* src, T* dst, int ndim, int r, const T* c, std::int64_t nx, std::int64_t ny, std::int64_t nz,
           bool stream) {
  const std::int64_t z0 = ndim == 3 ? r : 0, z1 = ndim == 3 ? nz - r : 1;
  if constexpr (std::is_same_v<T, float>)
    tessera::cpu::stencil_block_f32(src, dst, ndim, r, c, nx, ny, z0, z1, r, ny - r, stream);
  else
    tessera::cpu::stencil_block_f64(src, dst, ndim, r, c, nx, ny, z0, z1, r, ny - r, stream);
}

template <class T>
void check_streaming() {
  struct Case {
    int ndim;
    std::int64_t nx, ny, nz;
  };
  // nx = 64: a multiple of every target's lanes (streams); 37: of none but the scalar's.
  for (const Case g : {Case{2, 64, 11, 1}, Case{3, 64, 10, 9}, Case{3, 37, 10, 9}}) {
    for (int r = 1; r <= 4; ++r) {
      for (const bool shifted : {false, true}) {
        INFO("ndim " << g.ndim << ", " << g.nx << " x " << g.ny << " x " << g.nz << ", radius " << r
                     << (shifted ? ", grids shifted off the vector alignment" : ""));
        const std::size_t cells = static_cast<std::size_t>(g.nx * g.ny * g.nz);
        const auto h = tessera_test::random_vector<T>(cells, 41 + static_cast<std::uint64_t>(r));
        std::vector<T> c(static_cast<std::size_t>(r) + 1);
        for (std::size_t k = 0; k < c.size(); ++k) c[k] = static_cast<T>(0.5 / static_cast<double>(k + 1));
        const std::size_t off = shifted ? 1 : 0;
        auto src = aligned_copy(h, shifted);
        auto regular = aligned_copy(h, shifted);  // dst starts as a copy: equal boundaries
        auto streamed = aligned_copy(h, shifted);
        block(src.get() + off, regular.get() + off, g.ndim, r, c.data(), g.nx, g.ny, g.nz, false);
        block(src.get() + off, streamed.get() + off, g.ndim, r, c.data(), g.nx, g.ny, g.nz, true);
        const std::vector<T> want(regular.get() + off, regular.get() + off + cells);
        const std::vector<T> got(streamed.get() + off, streamed.get() + off + cells);
        tessera_test::check_bitwise(got, want, "streamed stencil block");
      }
    }
  }
}

}  // namespace

TEST_CASE_TEMPLATE("cpu stencil kernel: streaming stores give the regular path's bits", T, float, double) {
  tessera_test::for_each_cpu_target([](const std::string&) { check_streaming<T>(); });
}

// Whether the backend streams is stencil.stream_stores: off and on are obeyed whatever the host;
// the probe (2) sweeps grids beyond the last-level cache once and its verdict is kept for the
// process (a second call with another block size gives the same answer without a sweep).
TEST_CASE("cpu stencil: stencil.stream_stores off / on obeyed, the probe's verdict kept") {
  CHECK_FALSE(tessera::cpu::stencil_stream_stores(0, 256 * 1024));
  CHECK(tessera::cpu::stencil_stream_stores(1, 256 * 1024));
  const bool measured = tessera::cpu::stencil_stream_stores(2, 256 * 1024);
  CHECK(tessera::cpu::stencil_stream_stores(2, 4096) == measured);
  CHECK_FALSE(tessera::cpu::stencil_stream_stores(0, 256 * 1024));
}
