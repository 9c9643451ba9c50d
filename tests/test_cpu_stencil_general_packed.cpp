// The cpu general stencil (per-axis coefficients, any faces, a source) with its source planes
// read from a ring of padded plane slots (kernels/cpu/stencil_general.hpp, ring; the backend
// takes it where planes alias in the cache, which small test grids never do): on every SIMD
// target, for radius 1..4, every face kind on the y and z faces (their ghost rows and planes
// are packed into the ring) and on x, odd grids, and blocks of rows and planes that start and
// end at faces and inside, it must give the bits of the same rows computed from the grid. The
// ring starts poisoned with NaN: a row the sweep did not pack shows.
#include <doctest/doctest.h>

#include <array>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <vector>

#include "../kernels/cpu/stencil_general.hpp"
#include "../kernels/cpu/stencil_wavefront.hpp"
#include "support/compare.hpp"
#include "support/cpu_targets.hpp"
#include "support/random.hpp"

namespace {

using tessera::StencilBoundary;

template <class T>
void rows(const std::vector<T>& src, std::vector<T>& dst, const tessera::cpu::GeneralStencil<T>& s, std::int64_t z0,
          std::int64_t z1, std::int64_t y0, std::int64_t y1, T* ring, std::int64_t slot_elems) {
  if constexpr (std::is_same_v<T, float>)
    tessera::cpu::stencil_rows_general_f32(src.data(), dst.data(), s, z0, z1, y0, y1, ring, slot_elems);
  else
    tessera::cpu::stencil_rows_general_f64(src.data(), dst.data(), s, z0, z1, y0, y1, ring, slot_elems);
}

template <class T>
void check_packed() {
  constexpr auto D = StencilBoundary::dirichlet, N = StencilBoundary::neumann, P = StencilBoundary::periodic;
  // x faces, y faces, z faces (low = high per axis).
  const std::array<std::array<StencilBoundary, 3>, 4> face_sets = {
      {{D, D, D}, {N, P, N}, {P, N, P}, {D, P, N}}};
  std::uint32_t seed = 700;
  for (int r = 1; r <= 4; ++r) {
    for (const auto& f : face_sets) {
      tessera::cpu::GeneralStencil<T> s;
      s.ndim = 3;
      s.radius = r;
      s.nx = 2 * r + 13;  // odd and past a vector on every target
      s.ny = 2 * r + 9;
      s.nz = 2 * r + 7;
      for (int a = 0; a < 3; ++a) s.faces[2 * a] = s.faces[2 * a + 1] = f[static_cast<std::size_t>(a)];
      s.centre = T(0.31);
      for (int a = 0; a < 3; ++a)
        for (int k = 1; k <= r; ++k) s.axis[a][k] = static_cast<T>(0.07 * (a + 1) / k);
      s.source = T(0.125);
      const auto begin = [&](int a) { return f[static_cast<std::size_t>(a)] == D ? std::int64_t{r} : 0; };
      const auto end = [&](int a, std::int64_t n) { return f[static_cast<std::size_t>(a)] == D ? n - r : n; };
      s.x_begin = begin(0);
      s.x_end = end(0, s.nx);
      const std::int64_t ya = begin(1), yb = end(1, s.ny), za = begin(2), zb = end(2, s.nz);
      const auto src = tessera_test::random_vector<T>(static_cast<std::size_t>(s.nx * s.ny * s.nz), ++seed);
      // Blocks: the whole range, one touching each face, and one inside; plane ranges likewise.
      const std::int64_t ym = (ya + yb) / 2, zm = (za + zb) / 2;
      for (const auto& [y0, y1] : {std::array{ya, yb}, std::array{ya, ym}, std::array{ym, yb}, std::array{ya + 1, ym + 1}})
        for (const auto& [z0, z1] : {std::array{za, zb}, std::array{za, zm}, std::array{zm + 1, zb}}) {
          INFO("radius " << r << ", faces x/y/z " << int(f[0]) << "/" << int(f[1]) << "/" << int(f[2]) << ", rows ["
                         << y0 << ", " << y1 << "), planes [" << z0 << ", " << z1 << ")");
          std::vector<T> want = src, got = src;
          rows<T>(src, want, s, z0, z1, y0, y1, nullptr, 0);
          const std::int64_t slot = tessera::cpu::stencil_wavefront_slot_elems(r, 1, s.nx, y1 - y0, true);
          const std::int64_t ring_n = tessera::cpu::stencil_wavefront_ring_elems(r, 1, s.nx, y1 - y0, true);
          std::vector<T> ring(static_cast<std::size_t>(ring_n), std::numeric_limits<T>::quiet_NaN());
          rows<T>(src, got, s, z0, z1, y0, y1, ring.data(), slot);
          tessera_test::check_bitwise(got, want, "general stencil from the packed ring");
        }
    }
  }
}

}  // namespace

TEST_CASE_TEMPLATE("cpu general stencil: rows from the packed ring of planes give the grid's bits", T, float,
                   double) {
  tessera_test::for_each_cpu_target([](const std::string&) { check_packed<T>(); });
}
