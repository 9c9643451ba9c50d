// Convolutions (cross-correlation, no filter flip).
//
// conv2d: the host first copies the image into a zero-padded scratch image (the 'same' padding,
// plus room for whole-vector reads past the right edge), so the compute kernel has no bounds
// checks in its inner loops. Each work-item computes VW consecutive outputs of one row: a
// vector load of VW inputs times one filter tap per step (cpu: explicit SIMD; gpu: VW = 1, a
// work-item per output, neighbours reading neighbouring words).
//
// conv_layer: im2col straight into gemm's packed B layout (see gemm.cl), then the gemm kernels
// with the filters as A (K x CRS) and one output image per batch entry.

#ifndef VW
#define VW 1
#endif

#if VW == 1
#define VECT REAL
#define LOADV(off, p) ((p)[off])
#define STOREV(v, off, p) ((p)[off] = (v))
#else
#define VECT REALV(VW)
#define LOADV(off, p) VLOADN(VW)(off, p)
#define STOREV(v, off, p) VSTOREN(VW)(v, off, p)
#endif

// padded(r, c) = image(r - pad, c - pad) inside the image, 0 elsewhere; padded is ph x pw.
__kernel void conv2d_pad(__global const REAL* image, long ld, long rows, long cols, __global REAL* padded, long ph,
                         long pw, long pad) {
  const long c = get_global_id(0), r = get_global_id(1);
  if (c >= pw || r >= ph) return;
  const long ir = r - pad, ic = c - pad;
  padded[r * pw + c] = (ir >= 0 && ir < rows && ic >= 0 && ic < cols) ? image[ir * ld + ic] : 0;
}

// out(p, q) = sum_{i,j < K} padded(p + i, q + j) * filter(i, j). padded has pw columns and at
// least VW - 1 readable columns past q + K - 1 for the last vector of a row.
__kernel void conv2d_valid(__global const REAL* padded, long pw, __global const REAL* filter, long ldf, int K,
                           __global REAL* out, long ldo, long P, long Q) {
  const long q0 = get_global_id(0) * VW, p = get_global_id(1);
  if (q0 >= Q || p >= P) return;
  VECT acc = 0;
  for (int i = 0; i < K; ++i) {
    const __global REAL* in = padded + (p + i) * pw + q0;
    const __global REAL* f = filter + i * ldf;
    for (int j = 0; j < K; ++j) acc = fma(LOADV(0, in + j), (VECT)(f[j]), acc);
  }
  __global REAL* o = out + p * ldo + q0;
  if (q0 + VW <= Q) {
    STOREV(acc, 0, o);
  } else {
    REAL lanes[VW];
    STOREV(acc, 0, lanes);
    for (int l = 0; q0 + l < Q; ++l) o[l] = lanes[l];
  }
}

// im2col into gemm's B panels (built with gemm's defines, for PANEL_B): row k = (c, r, s) of
// CRS, column j = (p, q) of PQ, Kp rows (zero beyond CRS), padded columns (zero beyond PQ).
// A work-item fills one panel row: PANEL_B consecutive columns j at one k, contiguous in dst;
// (p, q) advance by increments, so the divisions are per work-item, not per element.
// Global (panels, Kp, images).
#ifndef PANEL_B
#define PANEL_B 1
#endif
__kernel void conv_im2col(__global const REAL* in, long C, long H, long W_in, long R, long S, long P, long Q,
                          long pad_h, long pad_w, long stride_h, long stride_w, long image0, __global REAL* dst,
                          long panels, long Kp, long dst_batch_stride) {
  const long panel = get_global_id(0), k = get_global_id(1), b = get_global_id(2);
  if (panel >= panels || k >= Kp) return;
  __global REAL* out = dst + b * dst_batch_stride + (panel * Kp + k) * PANEL_B;
  const long j0 = panel * PANEL_B;
  if (k >= C * R * S) {
    for (int w = 0; w < PANEL_B; ++w) out[w] = 0;
    return;
  }
  const long c = k / (R * S), rs = k % (R * S), r = rs / S, s = rs % S;
  const __global REAL* plane = in + ((image0 + b) * C + c) * H * W_in;
  long p = j0 / Q, q = j0 % Q;
  for (int w = 0; w < PANEL_B; ++w) {
    REAL v = 0;
    const long h = p * stride_h + r - pad_h, x = q * stride_w + s - pad_w;
    if (p < P && h >= 0 && h < H && x >= 0 && x < W_in) v = plane[h * W_in + x];
    out[w] = v;
    if (++q == Q) {
      q = 0;
      ++p;
    }
  }
}
