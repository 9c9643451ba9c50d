// Convolutions (cross-correlation, no filter flip).
//
// conv2d: each thread owns a band of output rows and walks it kConvRows rows at a time. The
// image rows a pass needs are copied once into a ring of zero-padded rows, so borders ('same'),
// the ragged right edge and the vector tail need no special code. A pass computes kConvRows x
// kConvVecs output vectors: every tap loads one shifted (unaligned) image vector and feeds it
// to each output row that uses it, so a load is reused up to kConvRows times; filter taps are
// broadcast. Common K are compiled with the loops fully unrolled.
//
// conv_layer: out[n] (K x PQ) = filter (K x CRS) * im2col(in[n]) (CRS x PQ), with
// gemm_kernel.hpp's GEMM over a batch of images side by side: the filter is packed once for
// all images, and im2col never exists as a matrix: the B packer copies straight from a
// zero-padded copy of the batch.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/cpu/conv.cpp"
#include <hwy/foreach_target.h>  // re-includes this file once per target
#include <hwy/highway.h>

#include <vector>

#include "kernels/cpu/conv.hpp"
#include "kernels/cpu/gemm_driver.hpp"

HWY_BEFORE_NAMESPACE();
namespace tessera::cpu::HWY_NAMESPACE {

// Output rows x vectors per conv2d pass: 8 accumulators, a loaded vector pair and broadcasts
// fit even 16 registers, and each image vector loaded serves up to kConvRows output rows.
inline constexpr std::size_t kConvRows = 4, kConvVecs = 2;

// Window row t feeds output row o through filter row t - o, if that is a filter row.
HWY_INLINE constexpr bool ConvTapUsed(std::size_t t, std::size_t o, std::size_t K) { return t >= o && t - o < K; }

// Output rows out[0..R) at columns [q0, q0 + kConvVecs * N): sum over filter rows i and taps j
// of win[o + i][q0 + j] * f[i * K + j]; win holds R + K - 1 padded image rows. KT is K when
// known at compile time (loops unroll, tap tests fold away), 0 when only the runtime k is.
// Not inlined on purpose: inlined into the column loop, the compiler hoists all K^2 tap
// broadcasts into registers and, out of registers, re-loads every (unaligned, line-splitting)
// image vector for each output row instead of reusing it; then loads, not FMAs, set the pace.
template <std::size_t R, std::size_t KT, class D, class T = hn::TFromD<D>>
HWY_NOINLINE void Conv2dTile(D d, const T* const* win, const T* HWY_RESTRICT f, std::size_t k, std::size_t q0,
                             T* const* out, std::size_t cols) {
  static_assert(R >= 1 && R <= 4 && kConvVecs == 2, "unrolled for up to 4 rows x 2 vectors");
  const std::size_t K = KT ? KT : k, N = hn::Lanes(d);
  auto a00 = hn::Zero(d), a01 = hn::Zero(d);
  [[maybe_unused]] auto a10 = a00, a11 = a00, a20 = a00, a21 = a00, a30 = a00, a31 = a00;
#pragma GCC unroll 16
  for (std::size_t t = 0; t < R + K - 1; ++t) {  // window row t feeds output row o through filter row t - o
    const T* row = win[t] + q0;
#pragma GCC unroll 16
    for (std::size_t j = 0; j < K; ++j) {
      const auto v0 = hn::LoadU(d, row + j), v1 = hn::LoadU(d, row + j + N);
#define TESSERA_CONV_TAP(o)                                  \
  if (R > (o) && ConvTapUsed(t, (o), K)) {                   \
    const auto w = hn::Set(d, f[(t - (o)) * K + j]);         \
    a##o##0 = hn::MulAdd(w, v0, a##o##0);                    \
    a##o##1 = hn::MulAdd(w, v1, a##o##1);                    \
  }
      TESSERA_CONV_TAP(0) TESSERA_CONV_TAP(1) TESSERA_CONV_TAP(2) TESSERA_CONV_TAP(3)
#undef TESSERA_CONV_TAP
    }
  }
  const auto store = [&](T* o, decltype(a00) lo, decltype(a00) hi) {
    if (cols >= 2 * N) {
      hn::StoreU(lo, d, o + q0);
      hn::StoreU(hi, d, o + q0 + N);
    } else {  // the last, partial pair of vectors
      HWY_ALIGN T tmp[2 * HWY_MAX_BYTES / sizeof(T)];
      hn::Store(lo, d, tmp);
      hn::Store(hi, d, tmp + N);
      for (std::size_t j = 0; j < cols; ++j) o[q0 + j] = tmp[j];
    }
  };
  store(out[0], a00, a01);
  if constexpr (R > 1) store(out[1], a10, a11);
  if constexpr (R > 2) store(out[2], a20, a21);
  if constexpr (R > 3) store(out[3], a30, a31);
}

struct Conv2dShape {
  std::size_t H, W, ldi, K, P, Q, ldo, pad;  // pad: zeros before the first row / column
};

// Output rows [p_begin, p_end) on one thread. ring: (kConvRows + K - 1) padded rows of `len`
// and one zero row after them; win: kConvRows + K - 1 pointers.
template <std::size_t KT, class T>
void Conv2dBand(const Conv2dShape& s, const T* img, const T* f, T* out, std::size_t p_begin, std::size_t p_end,
                T* ring, std::size_t len, const T** win) {
  const GemmTag<T> d;
  const std::size_t N = hn::Lanes(d), K = s.K, slots = kConvRows + K - 1;
  T* zero = ring + slots * len;
  std::fill(zero, zero + len, T(0));
  // Image row r (which may lie in the padding) as a padded row: its ring slot, or the zero row.
  const auto padded = [&](std::int64_t r) -> const T* {
    if (r < 0 || r >= std::int64_t(s.H)) return zero;
    return ring + std::size_t(r) % slots * len;
  };
  const auto load = [&](std::int64_t r) {
    if (r < 0 || r >= std::int64_t(s.H)) return;
    T* dst = ring + std::size_t(r) % slots * len;
    std::fill(dst, dst + s.pad, T(0));
    std::copy(img + std::size_t(r) * s.ldi, img + std::size_t(r) * s.ldi + s.W, dst + s.pad);
    std::fill(dst + s.pad + s.W, dst + len, T(0));
  };
  std::int64_t loaded = std::int64_t(p_begin) - std::int64_t(s.pad);  // rows below this are in the ring
  for (std::size_t p = p_begin; p < p_end; p += kConvRows) {
    const std::size_t rows = std::min(kConvRows, p_end - p);
    const std::int64_t lo = std::int64_t(p) - std::int64_t(s.pad), hi = lo + std::int64_t(rows + K - 1);
    for (std::int64_t r = std::max(loaded, lo); r < hi; ++r) load(r);
    loaded = hi;
    for (std::size_t t = 0; t < rows + K - 1; ++t) win[t] = padded(lo + std::int64_t(t));
    T* outs[kConvRows];
    for (std::size_t o = 0; o < rows; ++o) outs[o] = out + (p + o) * s.ldo;
    for (std::size_t q0 = 0; q0 < s.Q; q0 += kConvVecs * N) {
      const std::size_t cols = s.Q - q0;
      if (rows == kConvRows) {
        Conv2dTile<kConvRows, KT>(d, win, f, K, q0, outs, cols);
      } else {
        for (std::size_t o = 0; o < rows; ++o) Conv2dTile<1, KT>(d, win + o, f, K, q0, outs + o, cols);
      }
    }
  }
}

template <class T>
void Conv2dImpl(bool same, const T* img, std::int64_t H, std::int64_t W, std::int64_t ldi, const T* filter,
                std::int64_t K_, std::int64_t ldf, T* out, std::int64_t P, std::int64_t Q, std::int64_t ldo,
                std::int64_t min_macs) {
  const std::size_t K = std::size_t(K_), N = hn::Lanes(GemmTag<T>());
  const Conv2dShape s{std::size_t(H), std::size_t(W), std::size_t(ldi), K, std::size_t(P), std::size_t(Q),
                      std::size_t(ldo), same ? (K - 1) / 2 : 0};
  // Padded rows hold every tap of every computed vector pair, the last one overrunning Q.
  const std::size_t len = DivCeil(s.Q + K - 1 + kConvVecs * N, N) * N, slots = kConvRows + K - 1;
  const int threads = threads_for(P * Q * K_ * K_, min_macs);
  const std::size_t per_thread = (slots + 1) * len;
  T* buf = static_cast<T*>(scratch(ScratchSlot::conv_rows, (threads * per_thread + K * K) * sizeof(T)));
  T* f = buf + threads * per_thread;  // the filter, dense
  for (std::size_t i = 0; i < K; ++i) {
    const T* row = filter + i * std::size_t(ldf);
    std::copy(row, row + K, f + i * K);
  }
  std::vector<const T*> windows(std::size_t(threads) * slots);
#pragma omp parallel num_threads(threads)
  {
    const int tid = omp_get_thread_num();
    const Range band = split(P, omp_get_num_threads(), tid, std::int64_t(kConvRows));
    T* ring = buf + std::size_t(tid) * per_thread;
    const T** win = windows.data() + std::size_t(tid) * slots;
    const auto b = std::size_t(band.begin), e = std::size_t(band.end);
    if (b < e) {
      switch (K) {
        case 3: Conv2dBand<3>(s, img, f, out, b, e, ring, len, win); break;
        case 5: Conv2dBand<5>(s, img, f, out, b, e, ring, len, win); break;
        case 7: Conv2dBand<7>(s, img, f, out, b, e, ring, len, win); break;
        default: Conv2dBand<0>(s, img, f, out, b, e, ring, len, win); break;
      }
    }
  }
}

// ---------------------------------------------------------------------------------------------
// conv_layer

// Images per GEMM: PQ alone is often a few hundred columns (13 x 13 = 169 = 3.5 NR-wide
// micro-panels), so a ragged last micro-panel would waste up to a quarter of the work; a batch
// of images side by side along N keeps that under a few percent.
inline constexpr std::size_t kConvGemmCols = 1024;

// B = im2col of a batch of images: row (c, r, s) of CRS, column (image i, p, q) holds
// in[i, c, p*sh + r - ph, q*sw + s - pw], or 0 in the padding. The batch is first copied with
// its zero padding made real (planes of Hp x Wp), so every element is valid and sits at
//   padded[row_base[c, r, s] + col_base[i, p, q]],  row_base = c Hp Wp + r Wp + s,
//   col_base = i C Hp Wp + p sh Wp + q sw.
// With unit column stride, neighbouring columns of one output row are neighbours in memory
// too: a micro-panel row is a few runs (Q long), copied as vectors, not NR gathers.
template <class T>
struct Im2colPackB {
  const T* padded;  // the batch: images x C x Hp x Wp, and one vector of slack for over-reads
  const std::size_t* row_base;
  const std::size_t* col_base;  // of the batch's columns
  bool unit_stride;
  void operator()(T* HWY_RESTRICT dst, std::size_t p0, std::size_t kc, std::size_t j0, std::size_t nc) const {
    const GemmTag<T> d;
    const std::size_t N = hn::Lanes(d), NR = kGemmNV * N;
    struct Run {
      std::size_t to, from, len;
    };
    Run runs[kGemmMaxNR<T>];
    for (std::size_t jr = 0; jr < nc; jr += NR, dst += NR * kc) {
      const std::size_t nr = std::min(NR, nc - jr);
      const std::size_t* cb = col_base + j0 + jr;
      std::size_t nruns = 0;
      for (std::size_t j = 0, len = 1; j < nr; j += len, len = 1) {
        while (unit_stride && j + len < nr && cb[j + len] == cb[j] + len) ++len;
        runs[nruns++] = {j, cb[j], len};
      }
      for (std::size_t p = 0; p < kc; ++p) {
        const T* src = padded + row_base[p0 + p];
        T* o = dst + p * NR;
        for (std::size_t k = 0; k < nruns; ++k) {
          const Run& run = runs[k];
          if (run.len == 1) {
            o[run.to] = src[run.from];
            continue;
          }
          std::size_t t = 0;
          for (; t + N <= run.len; t += N) hn::StoreU(hn::LoadU(d, src + run.from + t), d, o + run.to + t);
          if (t == run.len) continue;
          // The tail reads past the run (into the slack at worst) and writes only the run, but
          // on some targets (NEON) BlendedStore rewrites the whole vector: past the panel's last
          // row that could be the next micro-panel, another thread's, so that row goes scalar.
          if (p + 1 < kc || run.to + t + N <= NR) {
            hn::BlendedStore(hn::LoadU(d, src + run.from + t), hn::FirstN(d, run.len - t), d, o + run.to + t);
          } else {
            for (; t < run.len; ++t) o[run.to + t] = src[run.from + t];
          }
        }
        for (std::size_t j = nr; j < NR; ++j) o[j] = T(0);
      }
    }
  }
};

struct ConvLayerDims {
  std::size_t C, H, W, Hp, Wp, ph, pw;
};
// Images [0, count) of `in` into `padded` (count x C x Hp x Wp), zeros around each plane.
template <class T>
void PadImages(const ConvLayerDims& g, const T* in, std::size_t count, T* padded) {
  for (std::size_t plane = 0; plane < count * g.C; ++plane) {
    const T* src = in + plane * g.H * g.W;
    T* dst = padded + plane * g.Hp * g.Wp;
    std::fill(dst, dst + g.ph * g.Wp, T(0));
    for (std::size_t y = 0; y < g.H; ++y) {
      T* row = dst + (g.ph + y) * g.Wp;
      std::fill(row, row + g.pw, T(0));
      std::copy(src + y * g.W, src + (y + 1) * g.W, row + g.pw);
      std::fill(row + g.pw + g.W, row + g.Wp, T(0));
    }
    std::fill(dst + (g.ph + g.H) * g.Wp, dst + g.Hp * g.Wp, T(0));
  }
}

template <class T>
void ConvLayerImpl(const ConvLayerShape& sh, const T* in, const T* filter, T* out, std::int64_t min_flops) {
  const auto u = [](std::int64_t v) { return std::size_t(v); };
  const std::size_t N = u(sh.n), M = u(sh.k), RS = u(sh.r * sh.s), CRS = u(sh.c) * RS, PQ = u(sh.p * sh.q);
  const ConvLayerDims g{u(sh.c),     u(sh.h), u(sh.w), u(sh.h + 2 * sh.pad_h), u(sh.w + 2 * sh.pad_w),
                        u(sh.pad_h), u(sh.pad_w)};
  const std::size_t CHW = g.C * g.H * g.W, plane = g.Hp * g.Wp, KPQ = M * PQ;
  const GemmBlocking bk = MakeGemmBlocking<T>();
  const double flops = 2.0 * double(N) * double(M) * double(PQ) * double(CRS);
  const int threads = threads_for(static_cast<std::int64_t>(flops), min_flops);
  // Enough images for every thread: each runs whole batches on its own, without barriers.
  const bool per_thread = threads > 1 && (N % std::size_t(threads) == 0 || N >= 4 * std::size_t(threads));
  const std::size_t most = std::clamp<std::size_t>(kConvGemmCols / PQ, 1, per_thread ? DivCeil(N, threads) : N);
  std::size_t batch = most;  // of the batch sizes down to half the largest, the least ragged
  for (std::size_t b = most; b * 2 >= most && b >= 1; --b) {
    const auto waste = [&](std::size_t x) { return double(DivCeil(x * PQ, bk.nr) * bk.nr) / double(x * PQ); };
    if (waste(b) < waste(batch)) batch = b;
  }
  const std::size_t cols = batch * PQ;
  const std::size_t lanes = hn::Lanes(GemmTag<T>()), padded_elems = batch * g.C * plane + lanes;

  // Scratch shared by all threads: the filter packed once, the row and column base tables.
  constexpr std::size_t kLine = 64;
  const std::size_t filter_bytes = DivCeil(PrepackedAElems(M, CRS) * sizeof(T), kLine) * kLine;
  const std::size_t table_bytes = (CRS + cols) * sizeof(std::size_t);
  auto* shared = static_cast<std::uint8_t*>(scratch(ScratchSlot::conv_col, filter_bytes + table_bytes));
  const PrepackedA<T> pack_a =
      PrepackA(bk, M, CRS, MatrixPackA<T>{filter, CRS, false, T(1)}, reinterpret_cast<T*>(shared));
  auto* row_base = reinterpret_cast<std::size_t*>(shared + filter_bytes);
  std::size_t* col_base = row_base + CRS;
  for (std::size_t c = 0, row = 0; c < g.C; ++c)
    for (std::size_t r = 0; r < u(sh.r); ++r)
      for (std::size_t s = 0; s < u(sh.s); ++s) row_base[row++] = c * plane + r * g.Wp + s;
  for (std::size_t i = 0, j = 0; i < batch; ++i)
    for (std::size_t p = 0; p < u(sh.p); ++p)
      for (std::size_t q = 0; q < u(sh.q); ++q)
        col_base[j++] = i * g.C * plane + p * u(sh.stride_h) * g.Wp + q * u(sh.stride_w);
  // Images [n0, n0 + count) through one GEMM; `buf` holds their padded copy and, for a batch,
  // C (M x count*PQ) on its way to out's per-image K x PQ blocks.
  const auto run_batch = [&](std::size_t n0, std::size_t count, T* buf, auto&& gemm) {
    T* padded = buf;
    T* ctmp = buf + padded_elems;
    PadImages(g, in + n0 * CHW, count, padded);
    std::fill(padded + count * g.C * plane, padded + count * g.C * plane + lanes, T(0));  // slack
    const Im2colPackB<T> pack_b{padded, row_base, col_base, sh.stride_w == 1};
    if (count == 1) return gemm(pack_b, PQ, out + n0 * KPQ, PQ);
    gemm(pack_b, count * PQ, ctmp, count * PQ);
    for (std::size_t k = 0; k < M; ++k)
      for (std::size_t i = 0; i < count; ++i)
        std::copy(ctmp + k * count * PQ + i * PQ, ctmp + k * count * PQ + (i + 1) * PQ, out + (n0 + i) * KPQ + k * PQ);
  };

  const std::size_t batch_elems = Aligned<T>(padded_elems + (batch > 1 ? M * cols : 0));
  if (per_thread) {
    const std::size_t bbuf_elems = GemmBBufElems<T>(bk, cols, 1), mine = bbuf_elems + batch_elems;
    T* bufs = static_cast<T*>(scratch(ScratchSlot::conv_rows, threads * mine * sizeof(T)));
#pragma omp parallel num_threads(threads)
    {
      const int tid = omp_get_thread_num();
      const Range images = split(std::int64_t(N), omp_get_num_threads(), tid);
      T* bbuf = bufs + std::size_t(tid) * mine;
      for (auto n0 = std::size_t(images.begin); n0 < std::size_t(images.end); n0 += batch) {
        const std::size_t count = std::min(batch, std::size_t(images.end) - n0);
        run_batch(n0, count, bbuf + bbuf_elems, [&](const auto& pack_b, std::size_t n, T* c, std::size_t ldc) {
          GemmTeam(bk, M, n, CRS, pack_a, pack_b, T(0), c, ldc, static_cast<T*>(nullptr), bbuf, 0, 1);
        });
      }
    }
    return;
  }
  // Few images: the team shares each batch's GEMM.
  T* buf = static_cast<T*>(scratch(ScratchSlot::conv_rows, batch_elems * sizeof(T)));
  for (std::size_t n0 = 0; n0 < N; n0 += batch) {
    run_batch(n0, std::min(batch, N - n0), buf, [&](const auto& pack_b, std::size_t n, T* c, std::size_t ldc) {
      GemmParallel(bk, M, n, CRS, pack_a, pack_b, T(0), c, ldc, min_flops);
    });
  }
}

void Conv2dF32(bool same, const float* image, std::int64_t H, std::int64_t W, std::int64_t ldi, const float* filter,
               std::int64_t K, std::int64_t ldf, float* out, std::int64_t P, std::int64_t Q, std::int64_t ldo,
               std::int64_t min_macs) {
  Conv2dImpl(same, image, H, W, ldi, filter, K, ldf, out, P, Q, ldo, min_macs);
}
void Conv2dF64(bool same, const double* image, std::int64_t H, std::int64_t W, std::int64_t ldi, const double* filter,
               std::int64_t K, std::int64_t ldf, double* out, std::int64_t P, std::int64_t Q, std::int64_t ldo,
               std::int64_t min_macs) {
  Conv2dImpl(same, image, H, W, ldi, filter, K, ldf, out, P, Q, ldo, min_macs);
}
void ConvLayerF32(const ConvLayerShape& shape, const float* in, const float* filter, float* out,
                  std::int64_t min_flops) {
  ConvLayerImpl(shape, in, filter, out, min_flops);
}
void ConvLayerF64(const ConvLayerShape& shape, const double* in, const double* filter, double* out,
                  std::int64_t min_flops) {
  ConvLayerImpl(shape, in, filter, out, min_flops);
}

}  // namespace tessera::cpu::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace tessera::cpu {

HWY_EXPORT(Conv2dF32);
HWY_EXPORT(Conv2dF64);
HWY_EXPORT(ConvLayerF32);
HWY_EXPORT(ConvLayerF64);

void conv2d(bool same, const float* image, std::int64_t H, std::int64_t W, std::int64_t ldi, const float* filter,
            std::int64_t K, std::int64_t ldf, float* out, std::int64_t P, std::int64_t Q, std::int64_t ldo,
            std::int64_t min_macs_per_thread) {
  HWY_DYNAMIC_DISPATCH(Conv2dF32)(same, image, H, W, ldi, filter, K, ldf, out, P, Q, ldo, min_macs_per_thread);
}
void conv2d(bool same, const double* image, std::int64_t H, std::int64_t W, std::int64_t ldi, const double* filter,
            std::int64_t K, std::int64_t ldf, double* out, std::int64_t P, std::int64_t Q, std::int64_t ldo,
            std::int64_t min_macs_per_thread) {
  HWY_DYNAMIC_DISPATCH(Conv2dF64)(same, image, H, W, ldi, filter, K, ldf, out, P, Q, ldo, min_macs_per_thread);
}
void conv_layer(const ConvLayerShape& shape, const float* in, const float* filter, float* out,
                std::int64_t min_flops_per_thread) {
  HWY_DYNAMIC_DISPATCH(ConvLayerF32)(shape, in, filter, out, min_flops_per_thread);
}
void conv_layer(const ConvLayerShape& shape, const double* in, const double* filter, double* out,
                std::int64_t min_flops_per_thread) {
  HWY_DYNAMIC_DISPATCH(ConvLayerF64)(shape, in, filter, out, min_flops_per_thread);
}

}  // namespace tessera::cpu
#endif  // HWY_ONCE
