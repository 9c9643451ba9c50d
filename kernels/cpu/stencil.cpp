// Star stencil rows, vectorised along x (unit stride): each neighbour is an unaligned load at a
// shifted address, so no shuffles are needed. Radius and dimension are template parameters so
// the neighbour loops unroll. A row's last partial vector is recomputed as an overlapping full
// vector ending at the row's end (harmless: Jacobi writes a different buffer than it reads).
#include <cstddef>
#include <cstdint>

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/cpu/stencil.cpp"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

HWY_BEFORE_NAMESPACE();
namespace tessera::cpu::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// Sum order as the reference: c0 u + sum_d c_d ((x-d + x+d) + (y-d + y+d) [+ (z-d + z+d)]) left
// to right, so rounding differs from it only by FMA contraction and the dtype.
template <int R, bool k3D, class D, class T = hn::TFromD<D>>
HWY_INLINE hn::VFromD<D> Point(D d, const T* HWY_RESTRICT s, std::int64_t nx, std::int64_t plane, const T* c) {
  auto v = hn::Mul(hn::Set(d, c[0]), hn::LoadU(d, s));
  for (int k = 1; k <= R; ++k) {
    auto nb = hn::Add(hn::LoadU(d, s - k), hn::LoadU(d, s + k));
    nb = hn::Add(nb, hn::LoadU(d, s - k * nx));
    nb = hn::Add(nb, hn::LoadU(d, s + k * nx));
    if constexpr (k3D) {
      nb = hn::Add(nb, hn::LoadU(d, s - k * plane));
      nb = hn::Add(nb, hn::LoadU(d, s + k * plane));
    }
    v = hn::MulAdd(hn::Set(d, c[k]), nb, v);
  }
  return v;
}

template <int R, bool k3D, class T>
HWY_INLINE T PointScalar(const T* HWY_RESTRICT s, std::int64_t nx, std::int64_t plane, const T* c) {
  T v = c[0] * s[0];
  for (int k = 1; k <= R; ++k) {
    T nb = s[-k] + s[k] + s[-k * nx] + s[k * nx];
    if constexpr (k3D) nb += s[-k * plane] + s[k * plane];
    v += c[k] * nb;
  }
  return v;
}

template <int R, bool k3D, class T>
void Block(const T* HWY_RESTRICT src, T* HWY_RESTRICT dst, const T* c, std::int64_t nx, std::int64_t ny,
           std::int64_t z0, std::int64_t z1, std::int64_t y0, std::int64_t y1) {
  const hn::ScalableTag<T> d;
  const std::int64_t N = static_cast<std::int64_t>(hn::Lanes(d));
  const std::int64_t plane = nx * ny, x_end = nx - R;
  for (std::int64_t z = z0; z < z1; ++z) {
    for (std::int64_t y = y0; y < y1; ++y) {
      const std::int64_t row = z * plane + y * nx;
      const T* s = src + row;
      T* o = dst + row;
      std::int64_t x = R;
      for (; x + N <= x_end; x += N) hn::StoreU(Point<R, k3D>(d, s + x, nx, plane, c), d, o + x);
      if (x == x_end) continue;
      if (x_end - R >= N) {
        x = x_end - N;
        hn::StoreU(Point<R, k3D>(d, s + x, nx, plane, c), d, o + x);
      } else {
        for (; x < x_end; ++x) o[x] = PointScalar<R, k3D>(s + x, nx, plane, c);
      }
    }
  }
}

template <class T>
void BlockT(const T* src, T* dst, int ndim, int radius, const T* c, std::int64_t nx, std::int64_t ny, std::int64_t z0,
            std::int64_t z1, std::int64_t y0, std::int64_t y1) {
#define TESSERA_STENCIL_CASE(R)                             \
  case R:                                                   \
    if (ndim == 3)                                          \
      Block<R, true>(src, dst, c, nx, ny, z0, z1, y0, y1);  \
    else                                                    \
      Block<R, false>(src, dst, c, nx, ny, z0, z1, y0, y1); \
    return;
  switch (radius) {
    TESSERA_STENCIL_CASE(1)
    TESSERA_STENCIL_CASE(2)
    TESSERA_STENCIL_CASE(3)
    TESSERA_STENCIL_CASE(4)
    default: return;
  }
#undef TESSERA_STENCIL_CASE
}

void BlockF32(const float* src, float* dst, int ndim, int radius, const float* c, std::int64_t nx, std::int64_t ny,
              std::int64_t z0, std::int64_t z1, std::int64_t y0, std::int64_t y1) {
  BlockT(src, dst, ndim, radius, c, nx, ny, z0, z1, y0, y1);
}
void BlockF64(const double* src, double* dst, int ndim, int radius, const double* c, std::int64_t nx, std::int64_t ny,
              std::int64_t z0, std::int64_t z1, std::int64_t y0, std::int64_t y1) {
  BlockT(src, dst, ndim, radius, c, nx, ny, z0, z1, y0, y1);
}

}  // namespace tessera::cpu::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
#include "kernels/cpu/stencil.hpp"

namespace tessera::cpu {
HWY_EXPORT(BlockF32);
HWY_EXPORT(BlockF64);

void stencil_block_f32(const float* src, float* dst, int ndim, int radius, const float* c, std::int64_t nx,
                       std::int64_t ny, std::int64_t z0, std::int64_t z1, std::int64_t y0, std::int64_t y1) {
  HWY_DYNAMIC_DISPATCH(BlockF32)(src, dst, ndim, radius, c, nx, ny, z0, z1, y0, y1);
}
void stencil_block_f64(const double* src, double* dst, int ndim, int radius, const double* c, std::int64_t nx,
                       std::int64_t ny, std::int64_t z0, std::int64_t z1, std::int64_t y0, std::int64_t y1) {
  HWY_DYNAMIC_DISPATCH(BlockF64)(src, dst, ndim, radius, c, nx, ny, z0, z1, y0, y1);
}
}  // namespace tessera::cpu
#endif  // HWY_ONCE
