// Star stencil rows, vectorised along x (unit stride): each neighbour is an unaligned load at a
// shifted address, so no shuffles are needed. Radius and dimension are template parameters so
// the neighbour loops unroll. A row's last partial vector is recomputed as an overlapping full
// vector ending at the row's end (harmless: Jacobi writes a different buffer than it reads).
//
// Streaming variant, for grids larger than the caches (the caller decides): whole aligned
// vectors from x = 0 to nx, the lanes within `radius` of the row's ends taken from src (the
// boundary, equal in both buffers), written with non-temporal stores, and the next incoming
// source row prefetched. A normal store first reads the destination line (write-allocate):
// one grid read more per step than the minimum, a third of the step's traffic.
#include <cstddef>
#include <cstdint>

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/cpu/stencil.cpp"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/cache_control.h>
#include <hwy/highway.h>

HWY_BEFORE_NAMESPACE();
namespace tessera::cpu::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// Sum order as the reference: c0 u + sum_d c_d ((x-d + x+d) + (y-d + y+d) [+ (z-d + z+d)]) left
// to right, so rounding differs from it only by FMA contraction and the dtype. The z neighbours
// are at explicit offsets (zo.lo[d - 1], zo.hi[d - 1] elements from the cell): the planes of a
// grid (+-d * plane) or the slots of the wavefront's ring of planes (stencil_wavefront.cpp),
// which must compute every cell with exactly these operations to give the same bits.
struct ZOffsets {
  std::int64_t lo[4], hi[4];
};

template <int R, bool k3D, class D, class T = hn::TFromD<D>>
HWY_INLINE hn::VFromD<D> Point(D d, const T* HWY_RESTRICT s, std::int64_t nx, const ZOffsets& zo, const T* c) {
  auto v = hn::Mul(hn::Set(d, c[0]), hn::LoadU(d, s));
  for (int k = 1; k <= R; ++k) {
    auto nb = hn::Add(hn::LoadU(d, s - k), hn::LoadU(d, s + k));
    nb = hn::Add(nb, hn::LoadU(d, s - k * nx));
    nb = hn::Add(nb, hn::LoadU(d, s + k * nx));
    if constexpr (k3D) {
      nb = hn::Add(nb, hn::LoadU(d, s + zo.lo[k - 1]));
      nb = hn::Add(nb, hn::LoadU(d, s + zo.hi[k - 1]));
    }
    v = hn::MulAdd(hn::Set(d, c[k]), nb, v);
  }
  return v;
}

// Two vectors of cells, at s and s + Lanes(d), each computed with Point's operations exactly, the
// two sums interleaved: a cell's sum is a chain of dependent additions and multiply-adds (35
// cycles of latency at radius 4 on Zen 2), and the out-of-order core overlapped too little of
// the next vector's chain when they were issued one after the other.
template <int R, bool k3D, class D, class T = hn::TFromD<D>>
HWY_INLINE void PointPair(D d, const T* HWY_RESTRICT s, T* HWY_RESTRICT o, std::int64_t nx, const ZOffsets& zo,
                          const T* c) {
  const std::int64_t N = static_cast<std::int64_t>(hn::Lanes(d));
  const T* HWY_RESTRICT t = s + N;
  auto v = hn::Mul(hn::Set(d, c[0]), hn::LoadU(d, s));
  auto w = hn::Mul(hn::Set(d, c[0]), hn::LoadU(d, t));
  for (int k = 1; k <= R; ++k) {
    auto nv = hn::Add(hn::LoadU(d, s - k), hn::LoadU(d, s + k));
    auto nw = hn::Add(hn::LoadU(d, t - k), hn::LoadU(d, t + k));
    nv = hn::Add(nv, hn::LoadU(d, s - k * nx));
    nw = hn::Add(nw, hn::LoadU(d, t - k * nx));
    nv = hn::Add(nv, hn::LoadU(d, s + k * nx));
    nw = hn::Add(nw, hn::LoadU(d, t + k * nx));
    if constexpr (k3D) {
      nv = hn::Add(nv, hn::LoadU(d, s + zo.lo[k - 1]));
      nw = hn::Add(nw, hn::LoadU(d, t + zo.lo[k - 1]));
      nv = hn::Add(nv, hn::LoadU(d, s + zo.hi[k - 1]));
      nw = hn::Add(nw, hn::LoadU(d, t + zo.hi[k - 1]));
    }
    v = hn::MulAdd(hn::Set(d, c[k]), nv, v);
    w = hn::MulAdd(hn::Set(d, c[k]), nw, w);
  }
  hn::StoreU(v, d, o);
  hn::StoreU(w, d, o + N);
}

ZOffsets GridOffsets(std::int64_t plane) {
  ZOffsets zo{};
  for (int k = 1; k <= 4; ++k) {
    zo.lo[k - 1] = -k * plane;
    zo.hi[k - 1] = k * plane;
  }
  return zo;
}

// One row's cells x in [R, nx - R). A row's last partial vector is recomputed as an overlapping
// full vector; rows narrower than a vector go one lane at a time through the same Point (a
// one-lane vector), so every path computes a cell with the same operations.
// The coefficients and z offsets are copied into locals first: read through pointers the stores
// through `o` might alias as far as the compiler knows, they were loaded again (and broadcast)
// for every pair of vectors. Measured (Zen VM, AVX2, one thread, 64^3 x 100, ms, old / new):
// 7-point f32 6.20 / 5.70, f64 12.3 / 11.4; 13-point f32 10.6 / 9.6, f64 19.3 / 17.5; 25-point
// f32 20.1 / 20.7, f64 32.4 / 31.9 (bench/RESULTS.md session 23); at radius 4 the offsets alone
// in registers cost 8 % (f32 21.8), so radius 4 reads both from memory as before.
template <int R, bool k3D, class T>
HWY_INLINE void Row(const T* HWY_RESTRICT s, T* HWY_RESTRICT o, std::int64_t nx, const ZOffsets& z_offsets,
                    const T* coeffs) {
  const hn::ScalableTag<T> d;
  const std::int64_t N = static_cast<std::int64_t>(hn::Lanes(d)), x_end = nx - R;
  const ZOffsets local_zo = z_offsets;
  T local_c[R + 1];
  for (int k = 0; k <= R; ++k) local_c[k] = coeffs[k];
  const ZOffsets& zo = R <= 3 ? local_zo : z_offsets;
  const T* c = R <= 3 ? local_c : coeffs;
  std::int64_t x = R;
  for (; x + 2 * N <= x_end; x += 2 * N) PointPair<R, k3D>(d, s + x, o + x, nx, zo, c);
  for (; x + N <= x_end; x += N) hn::StoreU(Point<R, k3D>(d, s + x, nx, zo, c), d, o + x);
  if (x == x_end) return;
  if (x_end - R >= N) {
    x = x_end - N;
    hn::StoreU(Point<R, k3D>(d, s + x, nx, zo, c), d, o + x);
  } else {
    const hn::CappedTag<T, 1> d1;
    for (; x < x_end; ++x) hn::StoreU(Point<R, k3D>(d1, s + x, nx, zo, c), d1, o + x);
  }
}

// One row, whole aligned vectors from x = 0 to nx, written with non-temporal stores; the lanes
// within R of the row's ends keep src's values (the boundary, equal in both buffers). Needs nx
// a multiple of Lanes(d) and both rows vector aligned (StreamingFits). The loads left and right
// of the row's ends read the neighbouring rows, which exist (the row is at least R inside).
template <int R, bool k3D, class T>
HWY_INLINE void RowStreaming(const T* HWY_RESTRICT s, T* HWY_RESTRICT o, std::int64_t nx, const ZOffsets& zo,
                             const T* c) {
  const hn::ScalableTag<T> d;
  const std::int64_t N = static_cast<std::int64_t>(hn::Lanes(d));
  const hn::RebindToSigned<decltype(d)> di;
  using TI = hn::TFromD<decltype(di)>;
  const auto lane = hn::Iota(di, 0);
  for (std::int64_t x = 0; x < nx; x += N) {
    auto v = Point<R, k3D>(d, s + x, nx, zo, c);
    if (x < R || x + N > nx - R) {  // lanes outside [R, nx - R) keep the boundary
      const auto at = hn::Add(lane, hn::Set(di, static_cast<TI>(x)));
      const auto inside = hn::And(hn::Gt(at, hn::Set(di, static_cast<TI>(R - 1))),
                                  hn::Lt(at, hn::Set(di, static_cast<TI>(nx - R))));
      v = hn::IfThenElse(hn::RebindMask(d, inside), v, hn::Load(d, s + x));
    }
    hn::Stream(v, d, o + x);
  }
}

template <class T>
HWY_INLINE void PrefetchRow(const T* p, std::int64_t nx) {
  const char* b = reinterpret_cast<const char*>(p);
  const std::int64_t bytes = nx * static_cast<std::int64_t>(sizeof(T));
  for (std::int64_t i = 0; i < bytes; i += 64) hwy::Prefetch(b + i);
}

template <int R, bool k3D, class T>
void Block(const T* HWY_RESTRICT src, T* HWY_RESTRICT dst, const T* c, std::int64_t nx, std::int64_t ny,
           std::int64_t z0, std::int64_t z1, std::int64_t y0, std::int64_t y1) {
  const std::int64_t plane = nx * ny;
  const ZOffsets zo = GridOffsets(plane);
  for (std::int64_t z = z0; z < z1; ++z)
    for (std::int64_t y = y0; y < y1; ++y) {
      const std::int64_t row = z * plane + y * nx;
      Row<R, k3D>(src + row, dst + row, nx, zo, c);
    }
}

// Needs nx a multiple of Lanes(d) and both grids aligned to a vector (see StreamingFits).
template <int R, bool k3D, class T>
void BlockStreaming(const T* HWY_RESTRICT src, T* HWY_RESTRICT dst, const T* c, std::int64_t nx, std::int64_t ny,
                    std::int64_t z0, std::int64_t z1, std::int64_t y0, std::int64_t y1) {
  const std::int64_t plane = nx * ny;
  const ZOffsets zo = GridOffsets(plane);
  for (std::int64_t z = z0; z < z1; ++z) {
    for (std::int64_t y = y0; y < y1; ++y) {
      const std::int64_t row = z * plane + y * nx;
      // The row the next iteration reads first from memory (plane z + R + 1, or row y + R + 1
      // in 2D): its loads in flight while this row computes. Without it the non-temporal
      // stores gain nothing (measured: 256^3 f32, 2 threads, 43 ms either way; 30 ms with both).
      if (k3D ? z + 1 < z1 : y + 1 < y1) PrefetchRow(src + row + (R + 1) * (k3D ? plane : nx), nx);
      RowStreaming<R, k3D>(src + row, dst + row, nx, zo, c);
    }
  }
  hwy::FlushStream();  // the streamed lines are visible to the other threads after the barrier
}

template <class T>
bool StreamingFits(const T* src, const T* dst, std::int64_t nx) {
  const hn::ScalableTag<T> d;
  const std::size_t bytes = hn::Lanes(d) * sizeof(T);
  return nx % static_cast<std::int64_t>(hn::Lanes(d)) == 0 && reinterpret_cast<std::uintptr_t>(src) % bytes == 0 &&
         reinterpret_cast<std::uintptr_t>(dst) % bytes == 0;
}

template <class T>
void BlockT(const T* src, T* dst, int ndim, int radius, const T* c, std::int64_t nx, std::int64_t ny, std::int64_t z0,
            std::int64_t z1, std::int64_t y0, std::int64_t y1, bool stream) {
  const bool streaming = stream && StreamingFits(src, dst, nx);
#define TESSERA_STENCIL_CASE(R)                                                 \
  case R:                                                                       \
    if (streaming && ndim == 3)                                                 \
      BlockStreaming<R, true>(src, dst, c, nx, ny, z0, z1, y0, y1);             \
    else if (streaming)                                                         \
      BlockStreaming<R, false>(src, dst, c, nx, ny, z0, z1, y0, y1);            \
    else if (ndim == 3)                                                         \
      Block<R, true>(src, dst, c, nx, ny, z0, z1, y0, y1);                      \
    else                                                                        \
      Block<R, false>(src, dst, c, nx, ny, z0, z1, y0, y1);                     \
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

// 3D rows of one plane with explicit z offsets (stencil_plane_rows_*).
template <int R, class T>
void PlaneRows(const T* HWY_RESTRICT src, T* HWY_RESTRICT dst, const T* c, std::int64_t nx, std::int64_t rows,
               const ZOffsets& zo, std::int64_t prefetch, bool streaming) {
  for (std::int64_t y = 0; y < rows; ++y) {
    const T* s = src + y * nx;
    T* o = dst + y * nx;
    if (prefetch != 0) PrefetchRow(s + prefetch, nx);
    if (streaming)
      RowStreaming<R, true>(s, o, nx, zo, c);
    else
      Row<R, true>(s, o, nx, zo, c);
  }
  if (streaming) hwy::FlushStream();
}

template <class T>
void PlaneRowsT(const T* src, T* dst, int radius, const T* c, std::int64_t nx, std::int64_t rows,
                const std::int64_t* zoff, std::int64_t prefetch, bool stream) {
  ZOffsets zo{};
  for (int k = 0; k < radius; ++k) {
    zo.lo[k] = zoff[k];
    zo.hi[k] = zoff[radius + k];
  }
  const bool streaming = stream && StreamingFits(src, dst, nx);
  switch (radius) {
    case 1: PlaneRows<1>(src, dst, c, nx, rows, zo, prefetch, streaming); return;
    case 2: PlaneRows<2>(src, dst, c, nx, rows, zo, prefetch, streaming); return;
    case 3: PlaneRows<3>(src, dst, c, nx, rows, zo, prefetch, streaming); return;
    case 4: PlaneRows<4>(src, dst, c, nx, rows, zo, prefetch, streaming); return;
    default: return;
  }
}

void PlaneRowsF32(const float* src, float* dst, int radius, const float* c, std::int64_t nx, std::int64_t rows,
                  const std::int64_t* zoff, std::int64_t prefetch, bool stream) {
  PlaneRowsT(src, dst, radius, c, nx, rows, zoff, prefetch, stream);
}
void PlaneRowsF64(const double* src, double* dst, int radius, const double* c, std::int64_t nx, std::int64_t rows,
                  const std::int64_t* zoff, std::int64_t prefetch, bool stream) {
  PlaneRowsT(src, dst, radius, c, nx, rows, zoff, prefetch, stream);
}

void BlockF32(const float* src, float* dst, int ndim, int radius, const float* c, std::int64_t nx, std::int64_t ny,
              std::int64_t z0, std::int64_t z1, std::int64_t y0, std::int64_t y1, bool stream) {
  BlockT(src, dst, ndim, radius, c, nx, ny, z0, z1, y0, y1, stream);
}
void BlockF64(const double* src, double* dst, int ndim, int radius, const double* c, std::int64_t nx, std::int64_t ny,
              std::int64_t z0, std::int64_t z1, std::int64_t y0, std::int64_t y1, bool stream) {
  BlockT(src, dst, ndim, radius, c, nx, ny, z0, z1, y0, y1, stream);
}

}  // namespace tessera::cpu::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
#include "kernels/cpu/stencil.hpp"

namespace tessera::cpu {
HWY_EXPORT(BlockF32);
HWY_EXPORT(BlockF64);
HWY_EXPORT(PlaneRowsF32);
HWY_EXPORT(PlaneRowsF64);

void stencil_plane_rows_f32(const float* src, float* dst, int radius, const float* c, std::int64_t nx,
                            std::int64_t rows, const std::int64_t* zoff, std::int64_t prefetch, bool stream) {
  HWY_DYNAMIC_DISPATCH(PlaneRowsF32)(src, dst, radius, c, nx, rows, zoff, prefetch, stream);
}
void stencil_plane_rows_f64(const double* src, double* dst, int radius, const double* c, std::int64_t nx,
                            std::int64_t rows, const std::int64_t* zoff, std::int64_t prefetch, bool stream) {
  HWY_DYNAMIC_DISPATCH(PlaneRowsF64)(src, dst, radius, c, nx, rows, zoff, prefetch, stream);
}

void stencil_block_f32(const float* src, float* dst, int ndim, int radius, const float* c, std::int64_t nx,
                       std::int64_t ny, std::int64_t z0, std::int64_t z1, std::int64_t y0, std::int64_t y1,
                       bool stream) {
  HWY_DYNAMIC_DISPATCH(BlockF32)(src, dst, ndim, radius, c, nx, ny, z0, z1, y0, y1, stream);
}
void stencil_block_f64(const double* src, double* dst, int ndim, int radius, const double* c, std::int64_t nx,
                       std::int64_t ny, std::int64_t z0, std::int64_t z1, std::int64_t y0, std::int64_t y1,
                       bool stream) {
  HWY_DYNAMIC_DISPATCH(BlockF64)(src, dst, ndim, radius, c, nx, ny, z0, z1, y0, y1, stream);
}
}  // namespace tessera::cpu
#endif  // HWY_ONCE
