// The general star stencil's rows (per-axis coefficients, any faces, a source), vectorised
// along x as the isotropic kernel (stencil.cpp): the neighbours along x are unaligned loads at
// shifted addresses. The y and z neighbours of a row are whole rows, located once per row
// through the faces' ghost mapping, so the vector loop is the same for a row next to a
// Neumann or periodic face as for an inner one; the cells within `radius` of an x face that is
// not Dirichlet take a vector whose x neighbours come from a ghost-filled copy of the row's end
// (cell by cell only in rows narrower than a vector). The rows come from the grid, or (3D,
// where planes alias in the cache: backends/cpu/stencil.cpp, pack_planes) from a ring of padded
// plane slots, as the isotropic kernel's one-step sweep through the wavefront's ring.
#include <cstddef>
#include <cstdint>
#include <cstring>

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/cpu/stencil_general.cpp"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

#include "kernels/cpu/stencil_general.hpp"

HWY_BEFORE_NAMESPACE();
namespace tessera::cpu::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// Where the rows of the source are: the grid itself, through the faces' ghost mapping ...
template <class T>
struct GridRows {
  const T* src;
  const GeneralStencil<T>* s;
  const T* at(std::int64_t z, std::int64_t y) const {
    const std::int64_t pz = s->ndim == 3 ? stencil_ghost(z, s->nz, s->faces[4], s->faces[5]) : z;
    return src + (pz * s->ny + stencil_ghost(y, s->ny, s->faces[2], s->faces[3])) * s->nx;
  }
};

// ... or a ring of 2r + 1 plane slots (PackedSweep below), logical plane z in slot z mod (2r +
// 1), slot row j holding grid row y_org + j, both already ghost-mapped when packed.
template <class T>
struct RingRows {
  const T* ring;
  std::int64_t slot_elems, slots, y_org, nx;
  const T* at(std::int64_t z, std::int64_t y) const {
    return ring + (z % slots + slots) % slots * slot_elems + (y - y_org) * nx;
  }
};

template <int R, bool k3D, class T, class Source>
void Rows(const Source& rows, T* HWY_RESTRICT dst, const GeneralStencil<T>& stencil, std::int64_t z0,
          std::int64_t z1, std::int64_t y0, std::int64_t y1) {
  // Radius 1 and 2: the coefficients and faces in a local copy. Read through the reference, GCC
  // re-broadcast every coefficient (and re-tested the source) after each store to the output,
  // which it could not tell apart from them. Measured (AVX2 Zen VM, 64^3 x 100, one thread, ms,
  // two alternating rounds, reference / copy): 7-point anisotropic f32 10.4 / 9.2, f64 16.9 /
  // 15.2; 13-point Neumann f32 29.4 / 26.3, f64 40.5 / 35.9; 19-point Neumann f32 49.5 / 45.2,
  // f64 67.6 / 71.5; 25-point periodic f32 71.9 / 71.2, f64 91.1 / 95.6 (radius 3 and 4 keep
  // the reference: register pressure; bench/RESULTS.md session 24).
  const GeneralStencil<T> local = stencil;
  const GeneralStencil<T>& s = R <= 2 ? local : stencil;
  const hn::ScalableTag<T> d;
  const std::int64_t N = static_cast<std::int64_t>(hn::Lanes(d));
  const std::int64_t nx = s.nx, ny = s.ny;
  const bool has_source = s.source != T(0);
  // Cells whose x neighbours all lie in the row: the vector range.
  const std::int64_t vb = s.x_begin > R ? s.x_begin : R, ve = s.x_end < nx - R ? s.x_end : nx - R;
  const auto centre = hn::Set(d, s.centre), source = hn::Set(d, s.source);
  for (std::int64_t z = z0; z < z1; ++z) {
    for (std::int64_t y = y0; y < y1; ++y) {
      const T* HWY_RESTRICT c = rows.at(z, y);
      T* HWY_RESTRICT o = dst + (z * ny + y) * nx;
      const T* ym[R];
      const T* yp[R];
      const T* zm[R];
      const T* zp[R];
      for (int k = 1; k <= R; ++k) {
        ym[k - 1] = rows.at(z, y - k);
        yp[k - 1] = rows.at(z, y + k);
        if constexpr (k3D) {
          zm[k - 1] = rows.at(z - k, y);
          zp[k - 1] = rows.at(z + k, y);
        }
      }
      // The vector of cells at x, its x neighbours read around xr (the row at x, or a copy of
      // the row's end with its ghost cells filled in). always_inline: GCC called the lambda out
      // of line, once per vector.
      auto vec = [&](const T* HWY_RESTRICT xr, std::int64_t x) __attribute__((always_inline)) {
        auto v = hn::Mul(centre, hn::LoadU(d, xr));
        for (int k = 1; k <= R; ++k) {
          v = hn::MulAdd(hn::Set(d, s.axis[0][k]), hn::Add(hn::LoadU(d, xr - k), hn::LoadU(d, xr + k)), v);
          v = hn::MulAdd(hn::Set(d, s.axis[1][k]), hn::Add(hn::LoadU(d, ym[k - 1] + x), hn::LoadU(d, yp[k - 1] + x)),
                         v);
          if constexpr (k3D)
            v = hn::MulAdd(hn::Set(d, s.axis[2][k]),
                           hn::Add(hn::LoadU(d, zm[k - 1] + x), hn::LoadU(d, zp[k - 1] + x)), v);
        }
        if (has_source) v = hn::Add(v, source);
        hn::StoreU(v, d, o + x);
      };
      // The vectors at x and x + N of the row itself with vec's operations exactly, interleaved:
      // a cell's 3R multiply-adds are one dependent chain, which one vector after another
      // left exposed.
      auto vec2 = [&](std::int64_t x) __attribute__((always_inline)) {
        const std::int64_t x2 = x + N;
        auto v = hn::Mul(centre, hn::LoadU(d, c + x));
        auto w = hn::Mul(centre, hn::LoadU(d, c + x2));
        for (int k = 1; k <= R; ++k) {
          const auto ax = hn::Set(d, s.axis[0][k]), ay = hn::Set(d, s.axis[1][k]);
          v = hn::MulAdd(ax, hn::Add(hn::LoadU(d, c + x - k), hn::LoadU(d, c + x + k)), v);
          w = hn::MulAdd(ax, hn::Add(hn::LoadU(d, c + x2 - k), hn::LoadU(d, c + x2 + k)), w);
          v = hn::MulAdd(ay, hn::Add(hn::LoadU(d, ym[k - 1] + x), hn::LoadU(d, yp[k - 1] + x)), v);
          w = hn::MulAdd(ay, hn::Add(hn::LoadU(d, ym[k - 1] + x2), hn::LoadU(d, yp[k - 1] + x2)), w);
          if constexpr (k3D) {
            const auto az = hn::Set(d, s.axis[2][k]);
            v = hn::MulAdd(az, hn::Add(hn::LoadU(d, zm[k - 1] + x), hn::LoadU(d, zp[k - 1] + x)), v);
            w = hn::MulAdd(az, hn::Add(hn::LoadU(d, zm[k - 1] + x2), hn::LoadU(d, zp[k - 1] + x2)), w);
          }
        }
        if (has_source) {
          v = hn::Add(v, source);
          w = hn::Add(w, source);
        }
        hn::StoreU(v, d, o + x);
        hn::StoreU(w, d, o + x2);
      };
      // A cell alone (x neighbours through the x faces' ghost mapping) in one-lane vectors: the
      // vector path's operations exactly, where plain `v += a * b` would be contracted into an
      // FMA or not as the compiler pleases per instantiation (on aarch64 the grid and ring
      // paths' bits differed).
      auto cell = [&](std::int64_t x) {
        const hn::CappedTag<T, 1> d1;
        auto v = hn::Mul(hn::Set(d1, s.centre), hn::Set(d1, c[x]));
        for (int k = 1; k <= R; ++k) {
          const T px = c[stencil_ghost(x - k, nx, s.faces[0], s.faces[1])] +
                       c[stencil_ghost(x + k, nx, s.faces[0], s.faces[1])];
          v = hn::MulAdd(hn::Set(d1, s.axis[0][k]), hn::Set(d1, px), v);
          v = hn::MulAdd(hn::Set(d1, s.axis[1][k]), hn::Set(d1, ym[k - 1][x] + yp[k - 1][x]), v);
          if constexpr (k3D) v = hn::MulAdd(hn::Set(d1, s.axis[2][k]), hn::Set(d1, zm[k - 1][x] + zp[k - 1][x]), v);
        }
        if (has_source) v = hn::Add(v, hn::Set(d1, s.source));
        o[x] = hn::GetLane(v);
      };
      // The cells within R of a Neumann or periodic x face, a whole vector at a time where the
      // updated cells hold one: its x neighbours from a copy of the row's cells x - R ..
      // x + N + R - 1 through the ghost mapping. The copy costs N + 2R scalar moves and a
      // store-forwarding stall, R cells alone about R^2 multiply-adds. Measured (Zen 2, AVX2,
      // 64^3, Neumann faces, one thread, 100 steps, ms, two alternating rounds, cells alone /
      // edge vectors, both with the paired vectors above): radius 1 f64 21.2 / 27.8; radius 2
      // f32 32.9 / 36.9, f64 41.7 / 47.0; radius 3 f32 58.3 / 51.7, f64 71.6 / 69.2; radius 4
      // f32 91.4 / 74.5, f64 112 / 95. Hence vectors from radius 3 on, while the copy is at
      // most 4R cells long (AVX-512 f32 at radius 3 keeps the cells: not measured).
      auto edge = [&](std::int64_t x) {
        T e[HWY_MAX_BYTES / sizeof(T) + 2 * StencilSpec::max_radius];
        for (std::int64_t j = 0; j < N + 2 * R; ++j) e[j] = c[stencil_ghost(x - R + j, nx, s.faces[0], s.faces[1])];
        vec(e + R, x);
      };
      const bool edge_vectors = R >= 3 && N <= 4 * R && s.x_end - s.x_begin >= N;
      const std::int64_t re = ve > vb ? ve : vb;  // the right edge's first cell
      if (edge_vectors)
        for (std::int64_t x = s.x_begin; x < vb; x += N) edge(x < s.x_end - N ? x : s.x_end - N);
      else
        for (std::int64_t x = s.x_begin; x < vb && x < s.x_end; ++x) cell(x);
      if (ve - vb >= N) {
        std::int64_t x = vb;
        for (; x + 2 * N <= ve; x += 2 * N) vec2(x);
        for (; x + N <= ve; x += N) vec(c + x, x);
        if (x < ve) vec(c + ve - N, ve - N);  // overlapping last vector: same values, dst is not read
      } else {
        for (std::int64_t x = vb; x < ve; ++x) cell(x);
      }
      if (edge_vectors)
        for (std::int64_t x = s.x_end; x > re;) {
          x = x - N > s.x_begin ? x - N : s.x_begin;
          edge(x);
        }
      else
        for (std::int64_t x = re; x < s.x_end; ++x) cell(x);
    }
  }
}

template <int R, bool k3D, class T>
void GridSweep(const T* src, T* dst, const GeneralStencil<T>& s, std::int64_t z0, std::int64_t z1, std::int64_t y0,
               std::int64_t y1) {
  Rows<R, k3D>(GridRows<T>{src, &s}, dst, s, z0, z1, y0, y1);
}

// The 3D rows [y0, y1) of planes [z0, z1) with the source planes read from the ring: logical
// planes z0 - R .. z0 + R - 1 packed first, then plane z + R before plane z is computed (over
// the slot of plane z - R - 1, which no row reads any more). A slot holds rows y0 - R .. y1 + R
// - 1; a plane or row beyond a face is packed as the cell it reads (ghost mapping), so the rows
// compute from the same values, with the same operations, as from the grid.
template <int R, class T>
void PackedSweep(const T* src, T* dst, T* ring, std::int64_t slot_elems, const GeneralStencil<T>& s,
                 std::int64_t z0, std::int64_t z1, std::int64_t y0, std::int64_t y1) {
  constexpr std::int64_t M = 2 * R + 1;
  const RingRows<T> rows{ring, slot_elems, M, y0 - R, s.nx};
  const GridRows<T> grid{src, &s};
  const std::size_t row_bytes = static_cast<std::size_t>(s.nx) * sizeof(T);
  auto pack = [&](std::int64_t z) {
    for (std::int64_t y = y0 - R; y < y1 + R; ++y)
      std::memcpy(const_cast<T*>(rows.at(z, y)), grid.at(z, y), row_bytes);
  };
  for (std::int64_t z = z0 - R; z < z0 + R && z < z1 + R; ++z) pack(z);
  for (std::int64_t z = z0; z < z1; ++z) {
    pack(z + R);
    Rows<R, true>(rows, dst, s, z, z + 1, y0, y1);
  }
}

template <class T>
void RowsT(const T* src, T* dst, const GeneralStencil<T>& s, std::int64_t z0, std::int64_t z1, std::int64_t y0,
           std::int64_t y1, T* ring, std::int64_t slot_elems) {
#define TESSERA_STENCIL_CASE(R)                                       \
  case R:                                                             \
    if (ring != nullptr && s.ndim == 3)                               \
      PackedSweep<R>(src, dst, ring, slot_elems, s, z0, z1, y0, y1);  \
    else if (s.ndim == 3)                                             \
      GridSweep<R, true>(src, dst, s, z0, z1, y0, y1);                \
    else                                                              \
      GridSweep<R, false>(src, dst, s, z0, z1, y0, y1);               \
    return;
  switch (s.radius) {
    TESSERA_STENCIL_CASE(1)
    TESSERA_STENCIL_CASE(2)
    TESSERA_STENCIL_CASE(3)
    TESSERA_STENCIL_CASE(4)
    default: return;
  }
#undef TESSERA_STENCIL_CASE
}

void RowsF32(const float* src, float* dst, const GeneralStencil<float>& s, std::int64_t z0, std::int64_t z1,
             std::int64_t y0, std::int64_t y1, float* ring, std::int64_t slot_elems) {
  RowsT(src, dst, s, z0, z1, y0, y1, ring, slot_elems);
}
void RowsF64(const double* src, double* dst, const GeneralStencil<double>& s, std::int64_t z0, std::int64_t z1,
             std::int64_t y0, std::int64_t y1, double* ring, std::int64_t slot_elems) {
  RowsT(src, dst, s, z0, z1, y0, y1, ring, slot_elems);
}

}  // namespace tessera::cpu::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace tessera::cpu {
HWY_EXPORT(RowsF32);
HWY_EXPORT(RowsF64);

void stencil_rows_general_f32(const float* src, float* dst, const GeneralStencil<float>& s, std::int64_t z0,
                              std::int64_t z1, std::int64_t y0, std::int64_t y1, float* ring,
                              std::int64_t slot_elems) {
  HWY_DYNAMIC_DISPATCH(RowsF32)(src, dst, s, z0, z1, y0, y1, ring, slot_elems);
}
void stencil_rows_general_f64(const double* src, double* dst, const GeneralStencil<double>& s, std::int64_t z0,
                              std::int64_t z1, std::int64_t y0, std::int64_t y1, double* ring,
                              std::int64_t slot_elems) {
  HWY_DYNAMIC_DISPATCH(RowsF64)(src, dst, s, z0, z1, y0, y1, ring, slot_elems);
}
}  // namespace tessera::cpu
#endif  // HWY_ONCE
