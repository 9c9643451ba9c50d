// conv2d and conv_layer (kernels/opencl/conv.cl).
// conv2d: zero-padded copy of the image in scratch memory, then a direct kernel (each
// work-item conv.vw consecutive outputs; vw > 1 on CPU profiles, where the vector loads are
// the SIMD). conv_layer: im2col written directly in gemm's packed-B layout, batches of images
// at a time (bounded scratch memory), and gemm's compute kernel with the filters as A.
#include <algorithm>
#include <string>

#include "opencl_backend.hpp"

namespace tessera::opencl {

namespace {

std::size_t round_up(std::int64_t v, std::int64_t m) { return static_cast<std::size_t>((v + m - 1) / m * m); }

}  // namespace

void OpenCLBackend::conv2d(DType dt, ConvMode mode, const MatView& image, const MatView& filter, const MatView& out) {
  require_dtype(Op::conv2d, dt);
  std::lock_guard<std::mutex> lock(mutex_);
  translate_errors(where("conv2d"), [&] {
    const DeviceProfile& p = profile_;
    const std::int64_t K = filter.rows, P = out.rows, Q = out.cols;
    const std::int64_t pad = mode == ConvMode::same ? (K - 1) / 2 : 0;
    const int vw = p.conv_vw;
    // Rows: every input row an output reads. Columns: likewise, plus vw - 1 so that the last
    // vector of a row may read past it (zeros) instead of branching.
    const std::int64_t ph = P + K - 1, pw = Q + K - 1 + (vw - 1);
    cl::Buffer& padded = scratch(Scratch::conv_image, static_cast<std::size_t>(ph * pw) * dtype_size(dt));
    const std::string defines = "-DVW=" + std::to_string(vw);
    cl::Kernel& kp = kernel("conv.cl", dt, defines, "conv2d_pad");
    set_args(kp, dt, image.data, image.ld, image.rows, image.cols, padded, ph, pw, pad);
    launch(kp, cl::NDRange(round_up(pw, 16), round_up(ph, 4)), cl::NDRange(16, 4));

    cl::Kernel& kc = kernel("conv.cl", dt, defines, "conv2d_valid");
    set_args(kc, dt, padded, pw, filter.data, filter.ld, static_cast<int>(K), out.data, out.ld, P, Q);
    const std::int64_t items = (Q + vw - 1) / vw;
    launch(kc, cl::NDRange(round_up(items, p.conv_lx), round_up(P, p.conv_ly)),
           cl::NDRange(static_cast<std::size_t>(p.conv_lx), static_cast<std::size_t>(p.conv_ly)));
  });
}

void OpenCLBackend::conv_layer(DType dt, const ConvParams& prm, const TensorView& in, const TensorView& filter,
                               const TensorView& out) {
  require_dtype(Op::conv_layer, dt);
  std::lock_guard<std::mutex> lock(mutex_);
  translate_errors(where("conv_layer"), [&] {
    const std::int64_t N = in.n, C = in.c, H = in.h, W = in.w;
    const std::int64_t K = filter.n, R = filter.h, S = filter.w;
    const std::int64_t P = out.h, Q = out.w;
    const std::int64_t crs = C * R * S, pq = P * Q;
    const std::size_t esize = dtype_size(dt);
    const GemmShape s = gemm_shape(dt, K, pq, crs);

    // A = the filters, K x CRS row-major: packed once for every image.
    cl::Buffer& Ap = scratch(Scratch::gemm_a, static_cast<std::size_t>(s.mp * s.kp) * esize);
    gemm_pack(dt, true, filter.data, crs, K, crs, false, Ap, s.mp, s.kp);

    // B = im2col of as many images as fit in a bounded scratch buffer.
    const std::int64_t per_image = s.np * s.kp;
    const std::int64_t budget = static_cast<std::int64_t>(std::min<std::size_t>(max_alloc_ / 2, 256u << 20));
    const std::int64_t batch = std::max<std::int64_t>(1, std::min<std::int64_t>(N, budget / std::max<std::int64_t>(1, per_image * static_cast<std::int64_t>(esize))));
    cl::Buffer& cols = scratch(Scratch::conv_cols, static_cast<std::size_t>(batch * per_image) * esize);
    // Built with gemm's defines: im2col writes gemm's panel layout (PANEL_B).
    cl::Kernel& ki = kernel("conv.cl", dt, gemm_defines(dt), "conv_im2col");
    const std::int64_t panels = s.np / s.panel_n;
    for (std::int64_t n0 = 0; n0 < N; n0 += batch) {
      const std::int64_t count = std::min(batch, N - n0);
      set_args(ki, dt, in.data, C, H, W, R, S, P, Q, prm.pad_h, prm.pad_w, prm.stride_h, prm.stride_w, n0, cols,
               panels, s.kp, per_image);
      // A group: 16 consecutive k of one panel, i.e. 16 neighbouring panel rows.
      launch(ki, cl::NDRange(round_up(panels, 1), round_up(s.kp, 16), static_cast<std::size_t>(count)),
             cl::NDRange(1, 16, 1));
      gemm_packed(dt, s, 1.0, Ap, cols, per_image, 0.0, out.data, n0 * K * pq, K * pq, pq, count);
    }
  });
}

}  // namespace tessera::opencl
