// conv2d and conv_layer (kernels/opencl/conv.cl).
// conv2d: zero-padded copy of the image in scratch memory, then gpu kernels: tiles of input and
// filter in local memory (conv2d_tiled), or, for filters too large for that, the direct kernel;
// cpu kernels: the direct kernel, conv.vw consecutive outputs per work-item (vector loads are
// the SIMD). conv_layer: im2col written directly in gemm's packed-B layout, batches of images
// at a time (bounded scratch memory), and gemm's compute kernel with the filters as A; with
// gemm_ptx (NVIDIA), implicit GEMM instead: B gathered from the input in the tile copies.
#include <algorithm>
#include <string>

#include "gemm.hpp"
#include "opencl_backend.hpp"

namespace tessera::opencl {

namespace {

std::size_t round_up(std::int64_t v, std::int64_t m) { return static_cast<std::size_t>((v + m - 1) / m * m); }

// Per-queue scratch: conv2d's padded image, conv_layer's im2col columns and k table.
struct ConvScratch {
  ScratchBuffer image, cols, ktab;
};

// conv2d_tiled_k unrolls the filter (registers): one program per size up to this one.
constexpr std::int64_t kConvDirectMaxK = 7;

// Implicit GEMM (gemm_ptx.cl with CONV_GATHER): the filters packed as A, and B, the im2col of
// all images side by side, gathered from the input inside the gemm's tile copies through a
// table of each im2col row's (input offset, r, s). No im2col buffer, one launch for the batch
// (chunks only where images x P x Q would pass the kernel's int column index).
template <class T>
void conv_layer_implicit(OpenCLBackend& cl, OpenClQueue& q, const ConvParams& prm, const TensorView& in,
                         const TensorView& filter, const TensorView& out, MathMode math) {
  const std::int64_t N = in.n, C = in.c, H = in.h, W = in.w;
  const std::int64_t K = filter.n, R = filter.h, S = filter.w;
  const std::int64_t P = out.h, Q = out.w;
  const std::int64_t crs = C * R * S, pq = P * Q;
  auto i32 = [](std::int64_t v) { return static_cast<int>(v); };

  const GemmShape full = gemm_shape<T>(cl, K, pq, crs);
  cl::Buffer& Ap = cl.grow(q.state<GemmScratch>().a, static_cast<std::size_t>(full.mp * full.kp) * sizeof(T));
  gemm_pack<T>(cl, q, true, filter.data, 0, crs, K, crs, false, Ap, full.mp, full.kp);
  cl::Buffer& table = cl.grow(q.state<ConvScratch>().ktab, static_cast<std::size_t>(full.kp) * 4 * sizeof(cl_int));
  cl::Kernel& kt = cl.kernel("conv.cl", dtype_v<T>, "", "conv_k_table");
  cl.launch<T>(q, kt, cl::NDRange(round_up(full.kp, 64)), cl::NDRange(64), table, i32(R), i32(S), i32(H), i32(W),
               i32(crs), i32(full.kp));

  const std::size_t threads = gemm_ptx_threads<T>();
  cl::Kernel& kg = cl.kernel("gemm_ptx.cl", dtype_v<T>, gemm_ptx_defines<T>(cl, true, math), "gemm_ptx");
  const std::int64_t max_cols = (std::int64_t{1} << 31) - 1 - full.panel_n;
  const std::int64_t chunk = std::max<std::int64_t>(1, std::min<std::int64_t>(N, max_cols / pq));
  for (std::int64_t n0 = 0; n0 < N; n0 += chunk) {
    const std::int64_t count = std::min(chunk, N - n0), cols = count * pq;
    cl.launch<T>(q, kg,
                 cl::NDRange(static_cast<std::size_t>((cols + full.panel_n - 1) / full.panel_n) * threads,
                             static_cast<std::size_t>(full.mp / full.panel_m)),
                 cl::NDRange(threads, 1), Ap, in.data, out.data, n0 * K * pq, pq, K, i32(cols), i32(full.kp), Real{1.0},
                 Real{0.0}, 0, i32(pq), K * pq, table, i32(H), i32(W), i32(P), i32(Q), i32(prm.stride_h),
                 i32(prm.stride_w), i32(prm.pad_h), i32(prm.pad_w), n0, C * H * W);
  }
}

}  // namespace

template <class T>
void OpenCLBackend::conv2d(QueueImpl& qi, ConvMode mode, const MatView& image, const MatView& filter,
                           const MatView& out) {
  OpenClQueue& q = cl_queue(qi);
  const tuning::Tuning& t = tuning_;
  const std::int64_t K = filter.rows, P = out.rows, Q = out.cols;
  const std::int64_t pad = mode == ConvMode::same ? (K - 1) / 2 : 0;
  const std::int64_t lx = t["conv.lx"], ly = t["conv.ly"], vw = t["conv.vw"];
  const std::string defines = t.defines("conv");
  const cl::NDRange local(static_cast<std::size_t>(lx), static_cast<std::size_t>(ly));
  const std::int64_t tile_rows = ly * t["conv.rows"];
  const std::size_t limit = local_mem_limit();
  const std::int64_t gx = (Q + lx - 1) / lx, gy = (P + tile_rows - 1) / tile_rows;  // the tiled kernels' groups
  const cl::NDRange tiled_global(static_cast<std::size_t>(gx * lx), static_cast<std::size_t>(gy * ly));
  if (!cpu_kernels_ && K <= kConvDirectMaxK &&
      static_cast<std::size_t>((tile_rows + K - 1) * (lx + K - 1)) * sizeof(T) <= limit) {
    // gpu, small filters: the tile straight from the image, the filter size compiled in.
    cl::Kernel& kt = kernel("conv.cl", dtype_v<T>, defines + " -DKF=" + std::to_string(K), "conv2d_tiled_k");
    launch<T>(q, kt, tiled_global, local, image.data, image.offset, image.ld, image.rows, image.cols, pad, filter.data,
              filter.offset, filter.ld, out.data, out.offset, out.ld, P, Q);
    return;
  }
  // Rows: every input row an output reads. Columns: likewise, plus vw - 1 so that the last
  // vector of a row may read past it (zeros) instead of branching.
  const std::int64_t ph = P + K - 1, pw = Q + K - 1 + (vw - 1);
  cl::Buffer& padded = grow(q.state<ConvScratch>().image, static_cast<std::size_t>(ph * pw) * sizeof(T));
  cl::Kernel& kp = kernel("conv.cl", dtype_v<T>, defines, "conv2d_pad");
  launch<T>(q, kp, cl::NDRange(round_up(pw, 16), round_up(ph, 4)), cl::NDRange(16, 4), image.data, image.offset,
            image.ld, image.rows, image.cols, padded, ph, pw, pad);

  if (!cpu_kernels_) {
    // gpu: the tiled kernel when its input tile and the filter fit in local memory.
    const std::size_t lbytes = static_cast<std::size_t>((tile_rows + K - 1) * (lx + K - 1) + K * K) * sizeof(T);
    if (lbytes <= limit) {
      cl::Kernel& kt = kernel("conv.cl", dtype_v<T>, defines, "conv2d_tiled");
      launch<T>(q, kt, tiled_global, local, padded, ph, pw, filter.data, filter.offset, filter.ld, static_cast<int>(K),
                out.data, out.offset, out.ld, P, Q, cl::Local(lbytes));
      return;
    }
  }
  cl::Kernel& kc = kernel("conv.cl", dtype_v<T>, defines, "conv2d_valid");
  const std::int64_t items = (Q + vw - 1) / vw;
  launch<T>(q, kc, cl::NDRange(round_up(items, lx), round_up(P, ly)), local, padded, pw, filter.data, filter.offset,
            filter.ld, static_cast<int>(K), out.data, out.offset, out.ld, P, Q);
}

template <class T>
void OpenCLBackend::conv_layer(QueueImpl& qi, const ConvParams& prm, const TensorView& in, const TensorView& filter,
                               const TensorView& out, MathMode math) {
  // f32 under tf32: the TF32 tensor cores on the implicit GEMM (gemm_ptx.cl); exact FP32 for
  // tf32x3 and on the other paths, as gemm (gemm.cpp).
  OpenClQueue& q = cl_queue(qi);
  const std::int64_t N = in.n, C = in.c, H = in.h, W = in.w;
  const std::int64_t K = filter.n, R = filter.h, S = filter.w;
  const std::int64_t P = out.h, Q = out.w;
  const std::int64_t crs = C * R * S, pq = P * Q;
  const std::size_t esize = sizeof(T);

  // The implicit GEMM's table holds input offsets within an image as int.
  if (gemm_ptx(*this) && C * H * W < (std::int64_t{1} << 31)) {
    conv_layer_implicit<T>(*this, q, prm, in, filter, out, math);
    return;
  }
  // Output image n is the K x PQ product of the filters (A: K x CRS) and image n's im2col
  // (B: CRS x PQ). A chunk of images goes into one wide product, their im2col columns side by
  // side (one padding to whole panels per chunk, not per image, which matters for small
  // images: 13 x 13 = 169 columns would be padded to 256 with 128-wide gpu tiles), with C's
  // column groups of PQ mapping each image's columns to its own output image.
  const GemmShape full = gemm_shape<T>(*this, K, pq, crs);
  cl::Buffer& Ap = grow(q.state<GemmScratch>().a, static_cast<std::size_t>(full.mp * full.kp) * esize);
  gemm_pack<T>(*this, q, true, filter.data, 0, crs, K, crs, false, Ap, full.mp, full.kp);

  // Images per chunk: as many as fit in a bounded scratch buffer (at least one).
  const std::int64_t budget = static_cast<std::int64_t>(std::min<std::size_t>(max_alloc_ / 2, 256u << 20));
  const std::int64_t per_image = pq * full.kp * static_cast<std::int64_t>(esize);
  const std::int64_t chunk =
      std::max<std::int64_t>(1, std::min<std::int64_t>(N, budget / std::max<std::int64_t>(1, per_image)));
  const GemmShape widest = gemm_shape<T>(*this, K, chunk * pq, crs);
  cl::Buffer& cols = grow(q.state<ConvScratch>().cols, static_cast<std::size_t>(widest.np * widest.kp) * esize);
  // Built with gemm's defines: im2col writes gemm's panel layout (PANEL_B). Index arithmetic
  // is int in the kernel: every extent here is below 2^31 (the image offset is long there).
  cl::Kernel& ki = kernel("conv.cl", dtype_v<T>, gemm_defines<T>(*this), "conv_im2col");
  auto i32 = [](std::int64_t v) { return static_cast<int>(v); };
  for (std::int64_t n0 = 0; n0 < N; n0 += chunk) {
    const std::int64_t count = std::min(chunk, N - n0);
    const GemmShape s = gemm_shape<T>(*this, K, count * pq, crs);
    const std::int64_t panels = s.np / s.panel_n;
    if (cpu_kernels_) {
      // A work-item per panel row; a group: 16 neighbouring rows of one panel.
      launch<T>(q, ki, cl::NDRange(static_cast<std::size_t>(panels), round_up(s.kp, 16)), cl::NDRange(1, 16), in.data,
                i32(C), i32(H), i32(W), i32(R), i32(S), i32(P), i32(Q), i32(prm.pad_h), i32(prm.pad_w),
                i32(prm.stride_h), i32(prm.stride_w), n0, i32(count), cols, i32(panels), i32(s.kp));
    } else {
      // A work-item per element, along the columns.
      launch<T>(q, ki, cl::NDRange(round_up(s.np, 64), round_up(s.kp, 1)), cl::NDRange(64, 1), in.data, i32(C), i32(H),
                i32(W), i32(R), i32(S), i32(P), i32(Q), i32(prm.pad_h), i32(prm.pad_w), i32(prm.stride_h),
                i32(prm.stride_w), n0, i32(count), cols, i32(s.np), i32(s.kp));
    }
    gemm_packed<T>(*this, q, s, 1.0, Ap, cols, 0.0, out.data, n0 * K * pq, pq, pq, K * pq);
  }
}

TESSERA_INSTANTIATE_TYPED_OP(OpenCLBackend, conv2d)
TESSERA_INSTANTIATE_TYPED_OP(OpenCLBackend, conv_layer)

}  // namespace tessera::opencl
