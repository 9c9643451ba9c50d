// Convolutions (cross-correlation).
//
// conv2d, one channel, K x K filter: a block computes a 32 x 32 output tile from a
// (32 + K - 1)^2 input tile in shared memory (zeros outside the image give 'same' padding for
// free); each thread computes 4 outputs down a column, so for each filter column it loads
// 4 + K - 1 input values once and reuses them for 4 K products. The filter sits in constant
// memory (every thread reads the same tap at the same time: a broadcast) when K <= 32, else it is
// read from global memory (still uniform, L1 broadcast). Bound: reading the image and writing
// the output once (the halo re-reads are L2 hits).
//
// conv_layer: implicit GEMM. out(k, npq) = sum over crs of filter(k, crs) * im2col(crs, npq),
// with the filter as the row-major A and the im2col matrix gathered on the fly by the B loader
// (a per-(c, r, s) offset table replaces the divisions). f32 runs on gemm's FFMA tiles and loop
// (gemm_ffma.cuh; the gather is element copies with zero-fill for the padding), f64 on the
// register-staged main loop of gemm_core.cuh.
#include "kernels/cuda/gemm_ffma.cuh"
#include "kernels/cuda/gemm_tf32.cuh"

namespace tessera::cuda {

namespace {

__constant__ float c_filter_f[kConvConstFilterMax * kConvConstFilterMax];
__constant__ double c_filter_d[kConvConstFilterMax * kConvConstFilterMax];

template <class T>
__device__ __forceinline__ const T* const_filter();
template <>
__device__ __forceinline__ const float* const_filter<float>() {
  return c_filter_f;
}
template <>
__device__ __forceinline__ const double* const_filter<double>() {
  return c_filter_d;
}

constexpr int kConvRows = kConvTileY / kConvThreadsY;  // outputs per thread, down a column

// KC > 0: K known at compile time (loops unrolled, column window in registers); KC == 0: any K.
template <class T, int KC, bool CONST_FILTER>
__global__ __launch_bounds__(kConvTileX* kConvThreadsY) void conv2d_kernel(Conv2dShape s, const T* __restrict__ image,
                                                                           const T* __restrict__ gfilter,
                                                                           T* __restrict__ out) {
  extern __shared__ unsigned char smem_raw[];
  T* tile = reinterpret_cast<T*>(smem_raw);
  const int K = KC > 0 ? KC : static_cast<int>(s.K);
  const int SX = kConvTileX + K - 1, SY = kConvTileY + K - 1;
  // Taps: ld.const from the constant bank, or uniform global loads.
  auto tap = [&](int a, int b) -> T {
    if constexpr (CONST_FILTER) return const_filter<T>()[a * K + b];
    else return __ldg(gfilter + a * s.ld_filt + b);
  };

  const std::int64_t ox0 = static_cast<std::int64_t>(blockIdx.x) * kConvTileX;
  const std::int64_t oy0 = static_cast<std::int64_t>(blockIdx.y) * kConvTileY;
  const int tid = threadIdx.y * kConvTileX + threadIdx.x;
  for (int e = tid; e < SX * SY; e += kConvTileX * kConvThreadsY) {
    const int sy = e / SX, sx = e % SX;
    const std::int64_t gy = oy0 + sy - s.pad, gx = ox0 + sx - s.pad;
    tile[e] = gy >= 0 && gy < s.H && gx >= 0 && gx < s.W ? image[gy * s.ld_img + gx] : T(0);
  }
  __syncthreads();

  const int tx = threadIdx.x, ty0 = threadIdx.y * kConvRows;
  T acc[kConvRows];
#pragma unroll
  for (int r = 0; r < kConvRows; ++r) acc[r] = 0;
  if constexpr (KC > 0) {
#pragma unroll
    for (int b = 0; b < KC; ++b) {
      T col[kConvRows + KC - 1];
#pragma unroll
      for (int i = 0; i < kConvRows + KC - 1; ++i) col[i] = tile[(ty0 + i) * SX + tx + b];
#pragma unroll
      for (int a = 0; a < KC; ++a) {
        const T w = tap(a, b);
#pragma unroll
        for (int r = 0; r < kConvRows; ++r) acc[r] = fma(w, col[r + a], acc[r]);
      }
    }
  } else {
    for (int a = 0; a < K; ++a)
      for (int b = 0; b < K; ++b) {
        const T w = tap(a, b);
#pragma unroll
        for (int r = 0; r < kConvRows; ++r) acc[r] = fma(w, tile[(ty0 + r + a) * SX + tx + b], acc[r]);
      }
  }
  const std::int64_t ox = ox0 + tx;
  if (ox >= s.Q) return;
#pragma unroll
  for (int r = 0; r < kConvRows; ++r) {
    const std::int64_t oy = oy0 + ty0 + r;
    if (oy < s.P) out[oy * s.ld_out + ox] = acc[r];
  }
}

// Filters too large for a shared tile: one output per thread, straight from global memory.
template <class T>
__global__ void conv2d_direct_kernel(Conv2dShape s, const T* __restrict__ image, const T* __restrict__ filter,
                                     T* __restrict__ out) {
  const std::int64_t ox = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const std::int64_t oy = blockIdx.y;
  if (ox >= s.Q) return;
  T acc = 0;
  for (std::int64_t a = 0; a < s.K; ++a) {
    const std::int64_t gy = oy + a - s.pad;
    if (gy < 0 || gy >= s.H) continue;
    for (std::int64_t b = 0; b < s.K; ++b) {
      const std::int64_t gx = ox + b - s.pad;
      if (gx >= 0 && gx < s.W) acc = fma(filter[a * s.ld_filt + b], image[gy * s.ld_img + gx], acc);
    }
  }
  out[oy * s.ld_out + ox] = acc;
}

template <class T, int KC, bool CONST_FILTER>
cudaError_t launch_tile(const Conv2dShape& s, const T* image, const T* filter, T* out, cudaStream_t stream) {
  const std::size_t smem = static_cast<std::size_t>(kConvTileX + s.K - 1) * (kConvTileY + s.K - 1) * sizeof(T);
  if (cudaError_t e = allow_dynamic_smem(conv2d_kernel<T, KC, CONST_FILTER>, smem); e != cudaSuccess) return e;
  const dim3 grid(blocks_for(s.Q, kConvTileX), blocks_for(s.P, kConvTileY));
  if (grid.y > 65535u) return cudaErrorInvalidConfiguration;
  conv2d_kernel<T, KC, CONST_FILTER><<<grid, dim3(kConvTileX, kConvThreadsY), smem, stream>>>(s, image, filter, out);
  return cudaGetLastError();
}

// ---- conv_layer: implicit GEMM

// B(crs, npq) = in[n][c][p*sh - ph + r][q*sw - pw + s] or 0. Each thread's tile column j is the
// same for every k-tile (256 threads, BN | 256), so the pixel decomposition happens once; per
// element, one table load (a broadcast: the warp shares crs) replaces the divisions.
template <class C>
struct Im2colLoader {
  using T = typename C::T;
  const T* origin;    // in + n*C*H*W + ih0*W + iw0: element (c, r, s) is origin[table[crs].x]
  const int2* table;  // per crs: {c*H*W + r*W + s, r << 16 | s}
  int crs_left;       // CRS - this thread's first kk
  int ih0, iw0, H, W; // ih0 = -2^30 for a column past the end: every tap then reads as 0
  static_assert(C::THREADS % C::BN == 0, "a thread's column is fixed across its loads");

  __device__ __forceinline__ Im2colLoader(const ConvLayerShape& s, const T* in, const int2* table_,
                                          std::int64_t col0)
      : table(table_), H(static_cast<int>(s.H)), W(static_cast<int>(s.W)) {
    const std::int64_t PQ = s.P * s.Q;
    const std::int64_t j = col0 + threadIdx.x % C::BN;
    const bool ok = j < s.N * PQ;
    const std::int64_t jj = ok ? j : 0;
    const std::int64_t n = jj / PQ, pq = jj % PQ, p = pq / s.Q, q = pq % s.Q;
    ih0 = ok ? static_cast<int>(p * s.stride_h - s.pad_h) : -(1 << 30);
    iw0 = static_cast<int>(q * s.stride_w - s.pad_w);
    origin = in + n * s.C * s.H * s.W + (ok ? static_cast<std::int64_t>(ih0) * s.W + iw0 : 0);
    crs_left = static_cast<int>(s.C * s.R * s.S) - static_cast<int>(threadIdx.x / C::BN);
  }
  __device__ __forceinline__ void fetch(int k0, T (&r)[C::B_PER]) const {
#pragma unroll
    for (int p = 0; p < C::B_PER; ++p) {
      const int kk = k0 + p * (C::THREADS / C::BN);
      T v = 0;
      if (kk < crs_left) {
        const int2 t = __ldg(table + kk + threadIdx.x / C::BN);
        const int ih = ih0 + (t.y >> 16), iw = iw0 + (t.y & 0xffff);
        if (ih >= 0 && ih < H && iw >= 0 && iw < W) v = origin[t.x];
      }
      r[p] = v;
    }
  }
  __device__ __forceinline__ void commit(T* Bs, const T (&r)[C::B_PER]) const {
#pragma unroll
    for (int p = 0; p < C::B_PER; ++p) {
      const int e = threadIdx.x + p * C::THREADS;
      Bs[(e / C::BN) * C::LDB_S + e % C::BN] = r[p];
    }
  }
};

// The same gather as element copies into the cp.async pipeline (S[crs][npq]): thread t keeps
// column t % BN and rows t / BN + pass * THREADS / BN; padding taps are zero-filled copies.
template <class Cfg>
struct Im2colAsyncLoader {
  using T = typename Cfg::T;
  static constexpr int KSTEP = Cfg::THREADS / Cfg::BN;
  static constexpr int PASSES = Cfg::BK / KSTEP;
  static_assert(Cfg::THREADS % Cfg::BN == 0 && Cfg::BK % KSTEP == 0, "a thread's column is fixed");
  const T* in;        // the source of zero-fill copies
  const T* origin;
  const int2* table;
  int crs_left;
  int ih0, iw0, H, W;
  int soff;
  __device__ __forceinline__ Im2colAsyncLoader(const ConvLayerShape& s, const T* in_, const int2* table_,
                                               std::int64_t col0)
      : in(in_), table(table_), H(static_cast<int>(s.H)), W(static_cast<int>(s.W)) {
    const std::int64_t PQ = s.P * s.Q;
    const std::int64_t j = col0 + threadIdx.x % Cfg::BN;
    const bool ok = j < s.N * PQ;
    const std::int64_t jj = ok ? j : 0;
    const std::int64_t n = jj / PQ, pq = jj % PQ, p = pq / s.Q, q = pq % s.Q;
    ih0 = ok ? static_cast<int>(p * s.stride_h - s.pad_h) : -(1 << 30);
    iw0 = static_cast<int>(q * s.stride_w - s.pad_w);
    origin = in + n * s.C * s.H * s.W + (ok ? static_cast<std::int64_t>(ih0) * s.W + iw0 : 0);
    crs_left = static_cast<int>(s.C * s.R * s.S) - static_cast<int>(threadIdx.x / Cfg::BN);
    soff = static_cast<int>(threadIdx.x / Cfg::BN) * Cfg::BTile::LD + static_cast<int>(threadIdx.x % Cfg::BN);
  }
  // gemm_ffma.cuh's loop asks for plain copies of interior tiles: a gather has none.
  __device__ __forceinline__ bool interior() const { return false; }
  __device__ __forceinline__ void load_full(T* S, int k0) const { load(S, k0); }
  __device__ __forceinline__ void load(T* S, int k0) const {
    const unsigned s0 = smem_u32(S + soff);
    int2 t[PASSES];
#pragma unroll
    for (int p = 0; p < PASSES; ++p) {
      const int kk = k0 + p * KSTEP;
      t[p] = kk < crs_left ? __ldg(table + kk + threadIdx.x / Cfg::BN) : make_int2(0, -1);
    }
#pragma unroll
    for (int p = 0; p < PASSES; ++p) {
      const int ih = ih0 + (t[p].y >> 16), iw = iw0 + (t[p].y & 0xffff);
      const bool ok = t[p].y >= 0 && ih >= 0 && ih < H && iw >= 0 && iw < W;
      cp_async<sizeof(T)>(s0 + p * KSTEP * Cfg::BTile::LD * sizeof(T), ok ? origin + t[p].x : in,
                          ok ? static_cast<int>(sizeof(T)) : 0);
    }
  }
};

__global__ void conv_table_kernel(ConvLayerShape s, int2* table) {
  const std::int64_t e = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const std::int64_t RS = s.R * s.S;
  if (e >= s.C * RS) return;
  const std::int64_t c = e / RS, r = (e % RS) / s.S, q = e % s.S;
  table[e] = make_int2(static_cast<int>((c * s.H + r) * s.W + q), static_cast<int>(r << 16 | q));
}

// A block's accumulator tile (rows: output channels from row0; columns: output pixels of the
// whole batch from col0) into the NCHW output, clipped to K channels and N * P * Q pixels.
template <class Cfg, class T>
__device__ __forceinline__ void store_nchw_tile(const T (&acc)[Cfg::TM][Cfg::TN], T* __restrict__ out,
                                                const ConvLayerShape& s, std::int64_t row0, std::int64_t col0) {
  const std::int64_t PQ = s.P * s.Q, NPQ = s.N * PQ;
  const int tx = threadIdx.x % (Cfg::BN / Cfg::TN), ty = threadIdx.x / (Cfg::BN / Cfg::TN);
#pragma unroll
  for (int j = 0; j < Cfg::TN; ++j) {
    const std::int64_t col = col0 + tile_col<Cfg>(tx, j);
    if (col >= NPQ) continue;
    const std::int64_t n = col / PQ, pq = col % PQ;
    T* o = out + n * s.K * PQ + pq;
#pragma unroll
    for (int i = 0; i < Cfg::TM; ++i) {
      const std::int64_t k = row0 + tile_row<Cfg>(ty, i);
      if (k < s.K) o[k * PQ] = acc[i][j];
    }
  }
}

template <class Cfg>
__global__ __launch_bounds__(256, Cfg::S::BLOCKS_PER_SM) void conv_layer_kernel(
    ConvLayerShape s, const typename Cfg::T* __restrict__ in, const typename Cfg::T* __restrict__ filter,
    typename Cfg::T* __restrict__ out, const int2* __restrict__ table) {
  using T = typename Cfg::T;
  __shared__ __align__(16) T smem[Cfg::SMEM_ELEMS];
  const std::int64_t CRS = s.C * s.R * s.S;
  int tile_m, tile_n;
  block_tile(tile_m, tile_n);
  const std::int64_t row0 = static_cast<std::int64_t>(tile_m) * Cfg::BM;  // output channels
  const std::int64_t col0 = static_cast<std::int64_t>(tile_n) * Cfg::BN;  // output pixels
  const MatrixALoader<Cfg, false> al(filter, CRS, s.K, CRS, row0);
  const Im2colLoader<Cfg> bl(s, in, table, col0);
  T acc[Cfg::TM][Cfg::TN];
  gemm_mainloop<Cfg>(al, bl, CRS, acc, smem);

  store_nchw_tile<Cfg>(acc, out, s, row0, col0);
}

template <class Cfg>
__global__ __launch_bounds__(Cfg::THREADS, Cfg::MIN_BLOCKS) void conv_layer_async_kernel(
    ConvLayerShape s, const float* __restrict__ in, const float* __restrict__ filter, float* __restrict__ out,
    const int2* __restrict__ table) {
  extern __shared__ __align__(16) unsigned char conv_smem[];
  float* smem = reinterpret_cast<float*>(conv_smem);
  const std::int64_t CRS = s.C * s.R * s.S;
  int tile_m, tile_n;
  block_tile(tile_m, tile_n);
  const std::int64_t row0 = static_cast<std::int64_t>(tile_m) * Cfg::BM;  // output channels
  const std::int64_t col0 = static_cast<std::int64_t>(tile_n) * Cfg::BN;  // output pixels
  const KContiguousLoader<float, Cfg::BM, Cfg::BK, Cfg::THREADS> al(filter, CRS, s.K, CRS, row0);
  const Im2colAsyncLoader<Cfg> bl(s, in, table, col0);
  float acc[Cfg::TM][Cfg::TN];
#pragma unroll
  for (int i = 0; i < Cfg::TM; ++i)
#pragma unroll
    for (int j = 0; j < Cfg::TN; ++j) acc[i][j] = 0.f;
  ffma_mainloop<Cfg>(al, bl, CRS, smem, acc);

  store_nchw_tile<Cfg>(acc, out, s, row0, col0);
}

// The same layer on the TF32 tensor cores (MathMode::tf32 / tf32x3; Cfg a TmmaCfg): the loaders
// above feed gemm_tf32.cuh's tmma_tile; acc[i][j][2h + e] is the warp's (16 i + 8 h + g,
// 8 j + 2 t + e) element, g = lane / 4, t = lane % 4 (as gemm_tmma_kernel's epilogue).
template <class Cfg>
__global__ __launch_bounds__(Cfg::THREADS, Cfg::MIN_BLOCKS) void conv_layer_tmma_kernel(
    ConvLayerShape s, const float* __restrict__ in, const float* __restrict__ filter, float* __restrict__ out,
    const int2* __restrict__ table) {
#ifndef NDEBUG
  assert(blockDim.x == Cfg::THREADS);
#endif
  extern __shared__ __align__(16) unsigned char conv_smem[];
  float* smem = reinterpret_cast<float*>(conv_smem);
  const std::int64_t CRS = s.C * s.R * s.S;
  int tile_m, tile_n;
  block_tile(tile_m, tile_n);
  const std::int64_t row0 = static_cast<std::int64_t>(tile_m) * Cfg::BM;  // output channels
  const std::int64_t col0 = static_cast<std::int64_t>(tile_n) * Cfg::BN;  // output pixels
  const KContiguousLoader<float, Cfg::BM, Cfg::BK, Cfg::THREADS> al(filter, CRS, s.K, CRS, row0);
  const Im2colAsyncLoader<Cfg> bl(s, in, table, col0);
  float acc[Cfg::MT][Cfg::NT][4];
#pragma unroll
  for (int i = 0; i < Cfg::MT; ++i)
#pragma unroll
    for (int j = 0; j < Cfg::NT; ++j)
#pragma unroll
      for (int e = 0; e < 4; ++e) acc[i][j][e] = 0.f;
  const int tiles = static_cast<int>((CRS + Cfg::BK - 1) / Cfg::BK);
  async_pipeline<Cfg::STAGES, Cfg::ATile::ELEMS, Cfg::BTile::ELEMS>(
      al, bl, tiles, Cfg::BK, smem, [&](const float* as, const float* bs) { tmma_tile<Cfg>(as, bs, acc); });

  const std::int64_t PQ = s.P * s.Q, NPQ = s.N * PQ;
  const int w = threadIdx.x / 32, l = threadIdx.x % 32;
  const std::int64_t k0 = row0 + (w / Cfg::WARPS_N) * Cfg::WM + l / 4;
  const std::int64_t c0 = col0 + (w % Cfg::WARPS_N) * Cfg::WN + 2 * (l % 4);
#pragma unroll
  for (int j = 0; j < Cfg::NT; ++j)
#pragma unroll
    for (int e = 0; e < 2; ++e) {
      const std::int64_t col = c0 + 8 * j + e;
      if (col >= NPQ) continue;
      const std::int64_t n = col / PQ, pq = col % PQ;
      float* o = out + n * s.K * PQ + pq;
#pragma unroll
      for (int i = 0; i < Cfg::MT; ++i)
#pragma unroll
        for (int h = 0; h < 2; ++h) {
          const std::int64_t k = k0 + 16 * i + 8 * h;
          if (k < s.K) o[k * PQ] = acc[i][j][2 * h + e];
        }
    }
}

template <class Cfg>
cudaError_t launch_layer_async(const ConvLayerShape& s, const float* in, const float* filter, float* out,
                               const int2* table, cudaStream_t stream) {
  const dim3 grid(blocks_for(s.N * s.P * s.Q, Cfg::BN), blocks_for(s.K, Cfg::BM));
  if (grid.y > 65535u || static_cast<std::uint64_t>(grid.x) * grid.y > 0x7fffffffu)
    return cudaErrorInvalidConfiguration;
  auto kernel = [] {  // the FFMA kernel, or the TF32 one for a TmmaCfg
    if constexpr (InFours<Cfg>::value) return conv_layer_async_kernel<Cfg>;
    else return conv_layer_tmma_kernel<Cfg>;
  }();
  if (cudaError_t e = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, Cfg::SMEM_BYTES);
      e != cudaSuccess)
    return e;
  kernel<<<grid, Cfg::THREADS, Cfg::SMEM_BYTES, stream>>>(s, in, filter, out, table);
  return cudaGetLastError();
}

template <class Cfg>
cudaError_t launch_layer(const ConvLayerShape& s, const typename Cfg::T* in, const typename Cfg::T* filter,
                         typename Cfg::T* out, const int2* table, cudaStream_t stream) {
  const dim3 grid(blocks_for(s.N * s.P * s.Q, Cfg::BN), blocks_for(s.K, Cfg::BM));
  if (grid.y > 65535u || static_cast<std::uint64_t>(grid.x) * grid.y > 0x7fffffffu)
    return cudaErrorInvalidConfiguration;
  conv_layer_kernel<Cfg><<<grid, Cfg::THREADS, 0, stream>>>(s, in, filter, out, table);
  return cudaGetLastError();
}

}  // namespace

template <class T>
cudaError_t launch_conv2d(const Conv2dShape& s, const T* image, const T* filter, T* out, cudaStream_t stream) {
  if (s.K <= kConvConstFilterMax) {
    // Pack the filter (it may have a leading dimension) into constant memory, in stream order.
    const void* sym = nullptr;
    if constexpr (sizeof(T) == 4) sym = &c_filter_f;
    else sym = &c_filter_d;
    void* dst = nullptr;
    if (cudaError_t e = cudaGetSymbolAddress(&dst, sym); e != cudaSuccess) return e;
    if (cudaError_t e = cudaMemcpy2DAsync(dst, s.K * sizeof(T), filter, s.ld_filt * sizeof(T), s.K * sizeof(T), s.K,
                                          cudaMemcpyDeviceToDevice, stream);
        e != cudaSuccess)
      return e;
    switch (s.K) {
      case 3: return launch_tile<T, 3, true>(s, image, filter, out, stream);
      case 5: return launch_tile<T, 5, true>(s, image, filter, out, stream);
      case 7: return launch_tile<T, 7, true>(s, image, filter, out, stream);
      default: return launch_tile<T, 0, true>(s, image, filter, out, stream);
    }
  }
  if (s.K <= kConvSharedMax) return launch_tile<T, 0, false>(s, image, filter, out, stream);
  if (s.P > 65535) return cudaErrorInvalidConfiguration;
  const dim3 grid(blocks_for(s.Q, 128), static_cast<unsigned int>(s.P));
  conv2d_direct_kernel<T><<<grid, 128, 0, stream>>>(s, image, filter, out);
  return cudaGetLastError();
}

template <class T>
cudaError_t launch_conv_layer(const ConvLayerShape& s, bool narrow, bool deep, MathMode math, const T* in,
                              const T* filter, T* out, int2* table, cudaStream_t stream) {
  const std::int64_t CRS = s.C * s.R * s.S;
  conv_table_kernel<<<blocks_for(CRS, 256), 256, 0, stream>>>(s, table);
  if (cudaError_t e = cudaGetLastError(); e != cudaSuccess) return e;
  if constexpr (sizeof(T) == 4) {
    if (math != MathMode::exact) {
      using TW = Tf32GemmTile<false>;
      using TN = Tf32GemmTile<true>;
      if (math == MathMode::tf32x3)
        return narrow ? launch_layer_async<TmmaCfg<TN::BM, TN::BN, TN::BK, TN::STAGES, TN::WM, TN::WN, true,
                                                   TN::BLOCKS_PER_SM>>(s, in, filter, out, table, stream)
                      : launch_layer_async<TmmaCfg<TW::BM, TW::BN, TW::BK, TW::STAGES, TW::WM, TW::WN, true,
                                                   TW::BLOCKS_PER_SM>>(s, in, filter, out, table, stream);
      return narrow ? launch_layer_async<TmmaCfg<TN::BM, TN::BN, TN::BK, TN::STAGES, TN::WM, TN::WN, false,
                                                 TN::BLOCKS_PER_SM>>(s, in, filter, out, table, stream)
                    : launch_layer_async<TmmaCfg<TW::BM, TW::BN, TW::BK, TW::STAGES, TW::WM, TW::WN, false,
                                                 TW::BLOCKS_PER_SM>>(s, in, filter, out, table, stream);
    }
    if (narrow) return launch_layer_async<FfmaTileCfg<true>>(s, in, filter, out, table, stream);
    return deep ? launch_layer_async<FfmaTileCfg<false, true>>(s, in, filter, out, table, stream)
                : launch_layer_async<FfmaTileCfg<false>>(s, in, filter, out, table, stream);
  } else {
    return narrow ? launch_layer<GemmCfg<T, true>>(s, in, filter, out, table, stream)
                  : launch_layer<GemmCfg<T, false>>(s, in, filter, out, table, stream);
  }
}

template cudaError_t launch_conv2d<float>(const Conv2dShape&, const float*, const float*, float*, cudaStream_t);
template cudaError_t launch_conv2d<double>(const Conv2dShape&, const double*, const double*, double*, cudaStream_t);
template cudaError_t launch_conv_layer<float>(const ConvLayerShape&, bool, bool, MathMode, const float*, const float*,
                                              float*, int2*, cudaStream_t);
template cudaError_t launch_conv_layer<double>(const ConvLayerShape&, bool, bool, MathMode, const double*, const double*,
                                               double*, int2*, cudaStream_t);

}  // namespace tessera::cuda
