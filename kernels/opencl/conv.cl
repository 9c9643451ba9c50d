// Convolutions (cross-correlation, no filter flip).
//
// conv2d: the host first copies the image into a zero-padded scratch image (the 'same' padding,
// plus room for whole-vector reads past the right edge), so the compute kernel has no bounds
// checks in its inner loops. Each work-item computes CONV_VW consecutive outputs of one row: a
// vector load of CONV_VW inputs times one filter tap per step (cpu: explicit SIMD; gpu: CONV_VW = 1, a
// work-item per output, neighbours reading neighbouring words).
//
// conv_layer: im2col straight into gemm's packed B layout (see gemm.cl), then the gemm kernels
// with the filters as A (K x CRS) and one output image per batch entry.

#ifndef CONV_VW
#define CONV_VW 1
#endif

#if CONV_VW == 1
#define VECT REAL
#define LOADV(off, p) ((p)[off])
#define STOREV(v, off, p) ((p)[off] = (v))
#else
#define VECT REALV(CONV_VW)
#define LOADV(off, p) VLOADN(CONV_VW)(off, p)
#define STOREV(v, off, p) VSTOREN(CONV_VW)(v, off, p)
#endif

// padded(r, c) = image(r - pad, c - pad) inside the image, 0 elsewhere; padded is ph x pw.
__kernel void conv2d_pad(__global const REAL* image, long image_off, long ld, long rows, long cols, __global REAL* padded, long ph,
                         long pw, long pad) {
  image += image_off;
  const long c = get_global_id(0), r = get_global_id(1);
  if (c >= pw || r >= ph) return;
  const long ir = r - pad, ic = c - pad;
  padded[r * pw + c] = (ir >= 0 && ir < rows && ic >= 0 && ic < cols) ? image[ir * ld + ic] : 0;
}

// out(p, q) = sum_{i,j < K} padded(p + i, q + j) * filter(i, j). padded has pw columns and at
// least CONV_VW - 1 readable columns past q + K - 1 for the last vector of a row.
__kernel void conv2d_valid(__global const REAL* padded, long pw, __global const REAL* filter, long filter_off, long ldf, int K,
                           __global REAL* out, long out_off, long ldo, long P, long Q) {
  filter += filter_off;
  out += out_off;
  const long q0 = get_global_id(0) * CONV_VW, p = get_global_id(1);
  if (q0 >= Q || p >= P) return;
  VECT acc = 0;
  for (int i = 0; i < K; ++i) {
    const __global REAL* in = padded + (p + i) * pw + q0;
    const __global REAL* f = filter + i * ldf;
    for (int j = 0; j < K; ++j) acc = fma(LOADV(0, in + j), (VECT)(f[j]), acc);
  }
  __global REAL* o = out + p * ldo + q0;
  if (q0 + CONV_VW <= Q) {
    STOREV(acc, 0, o);
  } else {
    REAL lanes[CONV_VW];
    STOREV(acc, 0, lanes);
    for (int l = 0; q0 + l < Q; ++l) o[l] = lanes[l];
  }
}

#if TESSERA_GPU_KERNELS
// gpu: a work-group computes a tile of CONV_LX x (CONV_LY * CONV_ROWS) outputs from a copy of the input tile
// it needs ((CONV_LY * CONV_ROWS + K - 1) x (CONV_LX + K - 1)) and of the filter in local memory, so each
// input is read from global memory about once instead of K * K times; a work-item computes
// CONV_ROWS outputs of one column, CONV_LY rows apart (neighbouring work-items, neighbouring columns:
// no bank conflicts). `lmem` is sized by the host; filters too large for it take conv2d_valid.
#ifndef CONV_LX
#define CONV_LX 32
#endif
#ifndef CONV_LY
#define CONV_LY 8
#endif
#ifndef CONV_ROWS
#define CONV_ROWS 4
#endif
__kernel __attribute__((reqd_work_group_size(CONV_LX, CONV_LY, 1))) void conv2d_tiled(
    __global const REAL* padded, long ph, long pw, __global const REAL* filter, long filter_off, long ldf, int K, __global REAL* out, long out_off,
    long ldo, long P, long Q, __local REAL* lmem) {
  filter += filter_off;
  out += out_off;
  const int tx = get_local_id(0), ty = get_local_id(1);
  const long q0 = (long)get_group_id(0) * CONV_LX, p0 = (long)get_group_id(1) * (CONV_LY * CONV_ROWS);
  const int tw = CONV_LX + K - 1, th = CONV_LY * CONV_ROWS + K - 1;
  __local REAL* tile = lmem;
  __local REAL* f = lmem + tw * th;
  for (int e = ty * CONV_LX + tx; e < tw * th; e += CONV_LX * CONV_LY) {
    const int r = e / tw, c = e % tw;
    const long gr = p0 + r, gc = q0 + c;
    tile[e] = (gr < ph && gc < pw) ? padded[gr * pw + gc] : 0;
  }
  for (int e = ty * CONV_LX + tx; e < K * K; e += CONV_LX * CONV_LY) f[e] = filter[(e / K) * ldf + e % K];
  barrier(CLK_LOCAL_MEM_FENCE);
  REAL acc[CONV_ROWS];
#pragma unroll
  for (int u = 0; u < CONV_ROWS; ++u) acc[u] = 0;
  for (int i = 0; i < K; ++i)
    for (int j = 0; j < K; ++j) {
      const REAL w = f[i * K + j];
#pragma unroll
      for (int u = 0; u < CONV_ROWS; ++u) acc[u] = fma(tile[(ty + CONV_LY * u + i) * tw + tx + j], w, acc[u]);
    }
  const long q = q0 + tx;
#pragma unroll
  for (int u = 0; u < CONV_ROWS; ++u) {
    const long p = p0 + ty + CONV_LY * u;
    if (p < P && q < Q) out[p * ldo + q] = acc[u];
  }
}
#endif

#if TESSERA_GPU_KERNELS
#ifdef KF
// gpu, small filters (KF = K, a program define, up to 7): as conv2d_tiled, but the tile is read
// straight from the image (rows and columns outside it are the zero padding: no padded copy,
// one pass over memory fewer), the filter sits in registers, and a work-item computes CONV_ROWS
// consecutive outputs of a column, so each input it reads from local memory serves up to KF of
// them (a sliding window: (CONV_ROWS + KF - 1) x KF local reads for CONV_ROWS x KF x KF products).
// Global (CONV_LX * tiles across, CONV_LY * tiles down), local (CONV_LX, CONV_LY); a tile is
// CONV_LX x (CONV_LY * CONV_ROWS).
#define TH (CONV_LY * CONV_ROWS + KF - 1)
#define TWD (CONV_LX + KF - 1)
__kernel __attribute__((reqd_work_group_size(CONV_LX, CONV_LY, 1))) void conv2d_tiled_k(
    __global const REAL* image, long image_off, long ld, long rows, long cols, long pad, __global const REAL* filter, long filter_off, long ldf,
    __global REAL* out, long out_off, long ldo, long P, long Q) {
  __local REAL tile[TH][TWD];
  image += image_off;
  filter += filter_off;
  out += out_off;
  const int tx = get_local_id(0), ty = get_local_id(1);
  const long q0 = (long)get_group_id(0) * CONV_LX, p0 = (long)get_group_id(1) * (CONV_LY * CONV_ROWS);
  for (int e = ty * CONV_LX + tx; e < TH * TWD; e += CONV_LX * CONV_LY) {
    const int r = e / TWD, c = e % TWD;
    const long ir = p0 + r - pad, ic = q0 + c - pad;
    tile[r][c] = (ir >= 0 && ir < rows && ic >= 0 && ic < cols) ? image[ir * ld + ic] : 0;
  }
  REAL f[KF][KF];
#pragma unroll
  for (int i = 0; i < KF; ++i)
#pragma unroll
    for (int j = 0; j < KF; ++j) f[i][j] = filter[i * ldf + j];  // the same address for the group
  barrier(CLK_LOCAL_MEM_FENCE);
  REAL acc[CONV_ROWS];
#pragma unroll
  for (int u = 0; u < CONV_ROWS; ++u) acc[u] = 0;
#pragma unroll
  for (int r = 0; r < CONV_ROWS + KF - 1; ++r)  // input row ty * CONV_ROWS + r of the tile
#pragma unroll
    for (int j = 0; j < KF; ++j) {
      const REAL v = tile[ty * CONV_ROWS + r][tx + j];
#pragma unroll
      for (int u = 0; u < CONV_ROWS; ++u)
        if (r - u >= 0 && r - u < KF) acc[u] = fma(v, f[r - u][j], acc[u]);  // constant after unrolling
    }
  const long q = q0 + tx;
#pragma unroll
  for (int u = 0; u < CONV_ROWS; ++u) {
    const long p = p0 + ty * CONV_ROWS + u;
    if (p < P && q < Q) out[p * ldo + q] = acc[u];
  }
}
#endif
#endif

// im2col into gemm's B panels (built with gemm's defines, for PANEL_B), `images` images side by
// side: row k = (c, r, s) of CRS, column J = (b, p, q) = b * PQ + p * Q + q, Kp rows (zero beyond
// CRS), cols_padded columns (zero beyond images * PQ).
#ifndef PANEL_B
#define PANEL_B 1
#endif

#if TESSERA_GPU_KERNELS
// gpu: a work-item per element, neighbouring work-items on neighbouring columns (= q): the
// reads of a row of the image and the writes of a panel row are both coalesced.
// Global (cols_padded, Kp).
__kernel void conv_im2col(__global const REAL* in, int C, int H, int W_in, int R, int S, int P, int Q, int pad_h,
                          int pad_w, int stride_h, int stride_w, long image0, int images, __global REAL* dst,
                          int cols_padded, int Kp) {
  const int J = get_global_id(0), k = get_global_id(1);
  if (J >= cols_padded || k >= Kp) return;
  REAL v = 0;
  if (J < images * P * Q && k < C * R * S) {
    const int b = J / (P * Q), pq = J % (P * Q);
    const int c = k / (R * S), rs = k % (R * S), r = rs / S, s = rs % S;
    const int p = pq / Q, q = pq % Q;
    const int h = p * stride_h + r - pad_h, w = q * stride_w + s - pad_w;
    if (h >= 0 && h < H && w >= 0 && w < W_in) v = in[(((image0 + b) * C + c) * H + h) * (long)W_in + w];
  }
  dst[((long)(J / PANEL_B) * Kp + k) * PANEL_B + J % PANEL_B] = v;
}
#endif

#if TESSERA_CPU_KERNELS
// cpu: a work-item fills one panel row: PANEL_B consecutive columns at one k, contiguous in
// dst; (b, p, q) advance by increments, so the divisions are per work-item, not per element.
// Global (panels, Kp).
__kernel void conv_im2col(__global const REAL* in, int C, int H, int W_in, int R, int S, int P, int Q, int pad_h,
                          int pad_w, int stride_h, int stride_w, long image0, int images, __global REAL* dst,
                          int panels, int Kp) {
  const int panel = get_global_id(0), k = get_global_id(1);
  if (panel >= panels || k >= Kp) return;
  __global REAL* out = dst + ((long)panel * Kp + k) * PANEL_B;
  if (k >= C * R * S) {
    for (int w = 0; w < PANEL_B; ++w) out[w] = 0;
    return;
  }
  const int c = k / (R * S), rs = k % (R * S), r = rs / S, s = rs % S;
  const int J0 = panel * PANEL_B;
  int b = J0 / (P * Q), p = J0 % (P * Q) / Q, q = J0 % Q;
  for (int w = 0; w < PANEL_B; ++w) {
    REAL v = 0;
    const int h = p * stride_h + r - pad_h, x = q * stride_w + s - pad_w;
    if (b < images && h >= 0 && h < H && x >= 0 && x < W_in)
      v = in[(((image0 + b) * C + c) * H + h) * (long)W_in + x];
    out[w] = v;
    if (++q == Q) {
      q = 0;
      if (++p == P) {
        p = 0;
        ++b;
      }
    }
  }
}
#endif

// conv_layer's implicit GEMM (gemm_ptx.cl, CONV_GATHER): for each im2col row k = (c, r, s) of
// CRS, (c * H * W + r * W + s, r, s); rows past CRS up to Kp get r = -2^30, which puts every
// input they would read outside the image (zero-filled). Global: Kp.
__kernel void conv_k_table(__global int4* tab, int R, int S, int H, int W_in, int crs, int Kp) {
  const int k = get_global_id(0);
  if (k >= Kp) return;
  if (k >= crs) {
    tab[k] = (int4)(0, -(1 << 30), 0, 0);
    return;
  }
  const int c = k / (R * S), rs = k % (R * S), r = rs / S, s = rs % S;
  tab[k] = (int4)((c * H + r) * W_in + s, r, s, 0);
}
