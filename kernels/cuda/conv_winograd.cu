// conv_layer as Winograd's F(m x m, 3 x 3) (transforms and error bound: tessera/winograd.hpp):
// three elementwise transform kernels around a batched GEMM that the backend launches on gemm's
// tiles (backends/cuda/conv.cpp):
//   filter: U[e][k][c] = (G g_kc G^T)[e]          one thread per (k, c)
//   input:  V[e][c][t] = (B^T d_ct B)[e]          one thread per (c, t), t = (n, tile row, tile column)
//   GEMM:   M[e] = U[e] (K x C) * V[e] (C x T), or M^T[e] = V[e]^T U[e]^T (T x K)
//   output: out(n, k, tile) = A^T M[.][k][t] A    one thread per (k, t)
// e runs over the a x a transform positions (a = m + 2). t is the fastest index of V, so the
// input transform writes a^2 coalesced rows. The backend picks the products' orientation
// (WinogradShape::tk): K x T suits the output transform best, T x K puts the tiles along the
// GEMM's wide side when K is too small for its 128-row tiles. Bound: the GEMM's
// FLOPs (a^2 C K T multiply-adds, (a / m)^2 / 9 of the direct algorithm's) plus the transforms'
// traffic: V and M are a^2 / m^2 times the input and output (2.25x for F(4 x 4)), each written
// once and read once.
#include <cstdint>
#include <type_traits>

#include "kernels/cuda/common.cuh"
#include "kernels/cuda/launch.hpp"
#include "tessera/winograd.hpp"

namespace tessera::cuda {

namespace {

// acc + c x for a compile-time coefficient c (after unrolling): no multiply by 0 or +-1 (IEEE
// semantics keep x * 0 in the code otherwise), the others rounded to T.
template <class T>
__device__ __forceinline__ T add_term(T acc, double c, T x) {
  if (c == 0.0) return acc;
  if (c == 1.0) return acc + x;
  if (c == -1.0) return acc - x;
  return acc + static_cast<T>(c) * x;
}

// The 1D transform y = F x of every row (ROWS_IN = rows of x) of x (R x IN) into y (R x OUT):
// y[r][i] = sum_j coef(i, j) x[r][j]; the 2D transforms are two such passes, the second over the
// transposed intermediate.
template <int M, int OUT, int IN, int R, class T, class Coef>
__device__ __forceinline__ void transform_rows(const T (&x)[R][IN], T (&y)[OUT][R], Coef coef) {
#pragma unroll
  for (int r = 0; r < R; ++r)
#pragma unroll
    for (int i = 0; i < OUT; ++i) {
      T acc = T(0);
#pragma unroll
      for (int j = 0; j < IN; ++j) acc = add_term(acc, coef(M, i, j), x[r][j]);
      y[i][r] = acc;  // stored transposed: the next pass transforms the other dimension
    }
}

// f(i) for every i < count, the grid's threads striding over them.
template <class F>
__device__ __forceinline__ void grid_stride(std::int64_t count, F&& f) {
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < count;
       i += static_cast<std::int64_t>(gridDim.x) * blockDim.x)
    f(i);
}

// f(r, t) for every row r < rows (a channel, a filter) and tile t of the chunk, t fastest.
template <class F>
__device__ __forceinline__ void for_each_row_tile(const WinogradShape& s, std::int64_t rows, F&& f) {
  const std::int64_t tiles = s.N * s.tiles_h * s.tiles_w;
  grid_stride(rows * tiles, [&](std::int64_t i) { f(i / tiles, i % tiles); });
}

// Tile t of the chunk: its image and its tile row and column.
struct TileAt {
  std::int64_t n, th, tw;
};
__device__ __forceinline__ TileAt tile_at(const WinogradShape& s, std::int64_t t) {
  return {t / (s.tiles_h * s.tiles_w), t / s.tiles_w % s.tiles_h, t % s.tiles_w};
}

struct GCoef {
  __device__ constexpr double operator()(int m, int i, int j) const { return winograd::g(m, i, j); }
};
struct BtCoef {
  __device__ constexpr double operator()(int m, int i, int j) const { return winograd::bt(m, i, j); }
};
struct AtCoef {
  __device__ constexpr double operator()(int m, int i, int j) const { return winograd::at(m, i, j); }
};

// U[e][k][c] (leading dimension ld), or U[e][c][k] where ck (the streamed products' layout,
// conv_winograd_products.cu: a channel's filters in one row).
template <int M, class T>
__global__ void winograd_filter_kernel(std::int64_t K, std::int64_t C, std::int64_t ld, bool ck,
                                       const T* __restrict__ filter, T* __restrict__ U) {
  constexpr int A = winograd::tile(M);
  const std::int64_t KC = K * C;
  // i runs along U's rows (c fastest, or k fastest where ck): coalesced stores.
  grid_stride(KC, [&](std::int64_t j) {
    const std::int64_t k = ck ? j % K : j / C, c = ck ? j / K : j % C, i = k * C + c;
    T g[3][3];
#pragma unroll
    for (int r = 0; r < 3; ++r)
#pragma unroll
      for (int s = 0; s < 3; ++s) g[r][s] = filter[i * 9 + r * 3 + s];
    T gt[A][3], u[A][A];
    transform_rows<M>(g, gt, GCoef{});  // gt[i][r] = (g G^T)[r][i]
    transform_rows<M>(gt, u, GCoef{});  // u[j][i] = (G g G^T)[j][i]
#pragma unroll
    for (int a = 0; a < A; ++a)
#pragma unroll
      for (int b = 0; b < A; ++b)
        U[ck ? ((a * A + b) * C + c) * ld + k : ((a * A + b) * K + k) * ld + c] = u[a][b];
  });
}

template <int M, class T>
__global__ void winograd_input_kernel(WinogradShape s, const T* __restrict__ in, T* __restrict__ V) {
  constexpr int A = winograd::tile(M);
  for_each_row_tile(s, s.C, [&](std::int64_t c, std::int64_t t) {
    const TileAt at = tile_at(s, t);
    const T* img = in + (at.n * s.C + c) * s.H * s.W;
    const std::int64_t h0 = at.th * M - s.pad_h, w0 = at.tw * M - s.pad_w;
    T d[A][A];
#pragma unroll
    for (int a = 0; a < A; ++a)
#pragma unroll
      for (int b = 0; b < A; ++b) {
        const std::int64_t h = h0 + a, w = w0 + b;
        d[a][b] = h >= 0 && h < s.H && w >= 0 && w < s.W ? img[h * s.W + w] : T(0);
      }
    T x[A][A], v[A][A];
    transform_rows<M>(d, x, BtCoef{});  // x[j][a] = (d B)[a][j]
    transform_rows<M>(x, v, BtCoef{});  // v[i][j] = (B^T d B)[i][j]
#pragma unroll
    for (int a = 0; a < A; ++a)
#pragma unroll
      for (int b = 0; b < A; ++b) V[((a * A + b) * s.C + c) * s.ldt + t] = v[a][b];
  });
}

// The output tile of filter k over tile t: Y = A^T mm A, stored where it lies in the image.
template <int M, class T, int A>
__device__ __forceinline__ void store_output_tile(const WinogradShape& s, const T (&mm)[A][A], std::int64_t k,
                                                  std::int64_t t, T* __restrict__ out) {
  const TileAt at = tile_at(s, t);
  T x[M][A], y[M][M];
  transform_rows<M>(mm, x, AtCoef{});  // x[j][a] = (mm A)[a][j]
  transform_rows<M>(x, y, AtCoef{});   // y[i][j] = (A^T mm A)[i][j]
  T* o = out + (at.n * s.K + k) * s.P * s.Q;
  const std::int64_t p0 = at.th * M, q0 = at.tw * M;
  // A tile row that is whole 16-byte vectors (f32 F(4 x 4), f64), inside the image and aligned:
  // vector stores (a warp's scalar stores would each fill half of every sector they touch).
  if constexpr (M * sizeof(T) % 16 == 0) {
    constexpr int E = 16 / sizeof(T);
    if (q0 + M <= s.Q && (reinterpret_cast<std::uintptr_t>(o + p0 * s.Q + q0) | (s.Q * sizeof(T))) % 16 == 0) {
#pragma unroll
      for (int a = 0; a < M; ++a) {
        if (p0 + a >= s.P) break;
#pragma unroll
        for (int v = 0; v < M / E; ++v) {
          Pack<T, E> r;
#pragma unroll
          for (int b = 0; b < E; ++b) r.v[b] = y[a][v * E + b];
          store_pack<E>(o + (p0 + a) * s.Q + q0 + v * E, r);
        }
      }
      return;
    }
  }
#pragma unroll
  for (int a = 0; a < M; ++a)
#pragma unroll
    for (int b = 0; b < M; ++b)
      if (p0 + a < s.P && q0 + b < s.Q) o[(p0 + a) * s.Q + q0 + b] = y[a][b];
}

// M stored M[e][k][t] (s.tk false): a thread per (k, t), t fastest: coalesced rows of M, and a
// warp writes 32 consecutive tiles of one output plane.
template <int M, class T>
__global__ void winograd_output_kt_kernel(WinogradShape s, const T* __restrict__ Mt, T* __restrict__ out) {
  constexpr int A = winograd::tile(M);
  for_each_row_tile(s, s.K, [&](std::int64_t k, std::int64_t t) {
    T mm[A][A];
#pragma unroll
    for (int a = 0; a < A; ++a)
#pragma unroll
      for (int b = 0; b < A; ++b) mm[a][b] = Mt[((a * A + b) * s.K + k) * s.ldt + t];
    store_output_tile<M>(s, mm, k, t, out);
  });
}

// M stored M^T[e][t][k] (s.tk): a block of TILES tiles x 8 filters through shared memory. Every
// thread first reads, for each transform position, one element (8 threads per row: whole 32-byte
// sectors); the values are read back transposed, a warp per filter (TILES = 32 for f32; f64: 16,
// so the staged values fit 48 KB), and each warp writes consecutive tiles of one output plane.
// Measured (H100, ncu, ResNet-50's 56^2 layer, F(2 x 2)): 55 us, against 57 us for 8 filters
// fastest without the staging (8 planes written per warp), 136 us for a warp per filter reading
// M^T directly (a sector per element), and 43 us for the M[e][k][t] kernel above.
template <class T>
struct OutBlock {
  static constexpr int FILTERS = 8, TILES = sizeof(T) == 4 ? 32 : 16, THREADS = FILTERS * TILES;
  static constexpr int ROW = FILTERS + 1;  // padded: a warp's transposed reads hit distinct banks
};

template <int M, class T>
__global__ __launch_bounds__(OutBlock<T>::THREADS) void winograd_output_tk_kernel(WinogradShape s,
                                                                                    const T* __restrict__ Mt,
                                                                                    T* __restrict__ out) {
  using B = OutBlock<T>;
  constexpr int A = winograd::tile(M);
  __shared__ T staged[A * A][B::TILES][B::ROW];
  const std::int64_t tiles = s.N * s.tiles_h * s.tiles_w;
  const std::int64_t kb = (s.K + B::FILTERS - 1) / B::FILTERS, blocks = kb * ((tiles + B::TILES - 1) / B::TILES);
  for (std::int64_t b = blockIdx.x; b < blocks; b += gridDim.x) {
    const std::int64_t k0 = b % kb * B::FILTERS, t0 = b / kb * B::TILES;
    {  // the block's M^T values, filters fastest
      const int kk = threadIdx.x % B::FILTERS, tt = threadIdx.x / B::FILTERS;
      const bool in = k0 + kk < s.K && t0 + tt < tiles;
      const T* src = Mt + (t0 + tt) * s.ldk + k0 + kk;
#pragma unroll
      for (int e = 0; e < A * A; ++e) staged[e][tt][kk] = in ? __ldg(src + e * s.ldt * s.ldk) : T(0);
    }
    __syncthreads();
    const int kk = threadIdx.x / B::TILES, tt = threadIdx.x % B::TILES;
    T mm[A][A];
#pragma unroll
    for (int a = 0; a < A; ++a)
#pragma unroll
      for (int b2 = 0; b2 < A; ++b2) mm[a][b2] = staged[a * A + b2][tt][kk];
    __syncthreads();  // the next block's values may overwrite the staging
    if (k0 + kk < s.K && t0 + tt < tiles) store_output_tile<M>(s, mm, k0 + kk, t0 + tt, out);
  }
}

// Threads per block, and a cap on the blocks (the kernels stride over the rest).
constexpr int kWinogradBlock = 128;
unsigned winograd_blocks(std::int64_t items) { return blocks_for(imin64(items, std::int64_t{1} << 30), kWinogradBlock); }

template <class T, class Launch>
cudaError_t launch_for(int m, Launch&& launch) {
  if (m == 2) launch(std::integral_constant<int, 2>{});
  else if (m == 4) launch(std::integral_constant<int, 4>{});
  else return cudaErrorInvalidValue;
  return cudaGetLastError();
}

}  // namespace

template <class T>
cudaError_t launch_winograd_filter(int m, std::int64_t K, std::int64_t C, std::int64_t ld, bool ck, const T* filter,
                                   T* U, cudaStream_t stream) {
  const unsigned blocks = winograd_blocks(K * C);
  return launch_for<T>(m, [&](auto M) {
    winograd_filter_kernel<decltype(M)::value, T><<<blocks, kWinogradBlock, 0, stream>>>(K, C, ld, ck, filter, U);
  });
}

template <class T>
cudaError_t launch_winograd_input(const WinogradShape& s, const T* in, T* V, cudaStream_t stream) {
  const unsigned blocks = winograd_blocks(s.C * s.N * s.tiles_h * s.tiles_w);
  return launch_for<T>(s.m, [&](auto M) {
    winograd_input_kernel<decltype(M)::value, T><<<blocks, kWinogradBlock, 0, stream>>>(s, in, V);
  });
}

template <class T>
cudaError_t launch_winograd_output(const WinogradShape& s, const T* Mt, T* out, cudaStream_t stream) {
  const std::int64_t items = imin64(s.K * s.N * s.tiles_h * s.tiles_w, std::int64_t{1} << 30);
  return launch_for<T>(s.m, [&](auto M) {
    constexpr int m = decltype(M)::value;
    if (s.tk)
      winograd_output_tk_kernel<m, T>
          <<<blocks_for(items, OutBlock<T>::THREADS), OutBlock<T>::THREADS, 0, stream>>>(s, Mt, out);
    else
      winograd_output_kt_kernel<m, T><<<blocks_for(items, kWinogradBlock), kWinogradBlock, 0, stream>>>(s, Mt, out);
  });
}

#define TESSERA_WINOGRAD_INSTANTIATE(T)                                                                         \
  template cudaError_t launch_winograd_filter<T>(int, std::int64_t, std::int64_t, std::int64_t, bool, const T*, \
                                                 T*, cudaStream_t);                                            \
  template cudaError_t launch_winograd_input<T>(const WinogradShape&, const T*, T*, cudaStream_t);             \
  template cudaError_t launch_winograd_output<T>(const WinogradShape&, const T*, T*, cudaStream_t);
TESSERA_WINOGRAD_INSTANTIATE(float)
TESSERA_WINOGRAD_INSTANTIATE(double)
#undef TESSERA_WINOGRAD_INSTANTIATE

}  // namespace tessera::cuda
