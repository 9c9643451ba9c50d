// The general star stencil's rows (per-axis coefficients, any faces, a source), vectorised
// along x as the isotropic kernel (stencil.cpp): the neighbours along x are unaligned loads at
// shifted addresses. The y and z neighbours of a row are whole rows, located once per row
// through the faces' ghost mapping, so the vector loop is the same for a row next to a
// Neumann or periodic face as for an inner one; only the cells within `radius` of an x face
// that is not Dirichlet go cell by cell.
#include <cstddef>
#include <cstdint>

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/cpu/stencil_general.cpp"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

#include "kernels/cpu/stencil_general.hpp"

HWY_BEFORE_NAMESPACE();
namespace tessera::cpu::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

template <int R, bool k3D, class T>
void Rows(const T* HWY_RESTRICT src, T* HWY_RESTRICT dst, const GeneralStencil<T>& s, std::int64_t z0,
          std::int64_t z1, std::int64_t y0, std::int64_t y1) {
  const hn::ScalableTag<T> d;
  const std::int64_t N = static_cast<std::int64_t>(hn::Lanes(d));
  const std::int64_t nx = s.nx, ny = s.ny, nz = s.nz;
  const bool has_source = s.source != T(0);
  // Cells whose x neighbours all lie in the row: the vector range.
  const std::int64_t vb = s.x_begin > R ? s.x_begin : R, ve = s.x_end < nx - R ? s.x_end : nx - R;
  const auto centre = hn::Set(d, s.centre), source = hn::Set(d, s.source);
  for (std::int64_t z = z0; z < z1; ++z) {
    for (std::int64_t y = y0; y < y1; ++y) {
      const T* c = src + (z * ny + y) * nx;
      T* o = dst + (z * ny + y) * nx;
      const T* ym[R];
      const T* yp[R];
      const T* zm[R];
      const T* zp[R];
      for (int k = 1; k <= R; ++k) {
        ym[k - 1] = src + (z * ny + stencil_ghost(y - k, ny, s.faces[2], s.faces[3])) * nx;
        yp[k - 1] = src + (z * ny + stencil_ghost(y + k, ny, s.faces[2], s.faces[3])) * nx;
        if constexpr (k3D) {
          zm[k - 1] = src + (stencil_ghost(z - k, nz, s.faces[4], s.faces[5]) * ny + y) * nx;
          zp[k - 1] = src + (stencil_ghost(z + k, nz, s.faces[4], s.faces[5]) * ny + y) * nx;
        }
      }
      auto vec = [&](std::int64_t x) {
        auto v = hn::Mul(centre, hn::LoadU(d, c + x));
        for (int k = 1; k <= R; ++k) {
          v = hn::MulAdd(hn::Set(d, s.axis[0][k]), hn::Add(hn::LoadU(d, c + x - k), hn::LoadU(d, c + x + k)), v);
          v = hn::MulAdd(hn::Set(d, s.axis[1][k]), hn::Add(hn::LoadU(d, ym[k - 1] + x), hn::LoadU(d, yp[k - 1] + x)),
                         v);
          if constexpr (k3D)
            v = hn::MulAdd(hn::Set(d, s.axis[2][k]),
                           hn::Add(hn::LoadU(d, zm[k - 1] + x), hn::LoadU(d, zp[k - 1] + x)), v);
        }
        if (has_source) v = hn::Add(v, source);
        hn::StoreU(v, d, o + x);
      };
      auto cell = [&](std::int64_t x) {
        T v = s.centre * c[x];
        for (int k = 1; k <= R; ++k) {
          const T px = c[stencil_ghost(x - k, nx, s.faces[0], s.faces[1])] +
                       c[stencil_ghost(x + k, nx, s.faces[0], s.faces[1])];
          v += s.axis[0][k] * px;
          v += s.axis[1][k] * (ym[k - 1][x] + yp[k - 1][x]);
          if constexpr (k3D) v += s.axis[2][k] * (zm[k - 1][x] + zp[k - 1][x]);
        }
        if (has_source) v += s.source;
        o[x] = v;
      };
      for (std::int64_t x = s.x_begin; x < vb && x < s.x_end; ++x) cell(x);
      if (ve - vb >= N) {
        std::int64_t x = vb;
        for (; x + N <= ve; x += N) vec(x);
        if (x < ve) vec(ve - N);  // overlapping last vector: same values, dst is not read
      } else {
        for (std::int64_t x = vb; x < ve; ++x) cell(x);
      }
      for (std::int64_t x = ve > vb ? ve : vb; x < s.x_end; ++x) cell(x);
    }
  }
}

template <class T>
void RowsT(const T* src, T* dst, const GeneralStencil<T>& s, std::int64_t z0, std::int64_t z1, std::int64_t y0,
           std::int64_t y1) {
#define TESSERA_STENCIL_CASE(R)                                       \
  case R:                                                             \
    if (s.ndim == 3)                                                  \
      Rows<R, true>(src, dst, s, z0, z1, y0, y1);                     \
    else                                                              \
      Rows<R, false>(src, dst, s, z0, z1, y0, y1);                    \
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
             std::int64_t y0, std::int64_t y1) {
  RowsT(src, dst, s, z0, z1, y0, y1);
}
void RowsF64(const double* src, double* dst, const GeneralStencil<double>& s, std::int64_t z0, std::int64_t z1,
             std::int64_t y0, std::int64_t y1) {
  RowsT(src, dst, s, z0, z1, y0, y1);
}

}  // namespace tessera::cpu::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace tessera::cpu {
HWY_EXPORT(RowsF32);
HWY_EXPORT(RowsF64);

void stencil_rows_general_f32(const float* src, float* dst, const GeneralStencil<float>& s, std::int64_t z0,
                              std::int64_t z1, std::int64_t y0, std::int64_t y1) {
  HWY_DYNAMIC_DISPATCH(RowsF32)(src, dst, s, z0, z1, y0, y1);
}
void stencil_rows_general_f64(const double* src, double* dst, const GeneralStencil<double>& s, std::int64_t z0,
                              std::int64_t z1, std::int64_t y0, std::int64_t y1) {
  HWY_DYNAMIC_DISPATCH(RowsF64)(src, dst, s, z0, z1, y0, y1);
}
}  // namespace tessera::cpu
#endif  // HWY_ONCE
