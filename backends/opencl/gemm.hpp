// gemm's two steps, packing and the compute kernel, shared by gemm (gemm.cpp) and conv_layer
// (conv.cpp, which runs its im2col products on them). See kernels/opencl/gemm.cl.
#pragma once

#include <cstdint>
#include <string>

#include "opencl_backend.hpp"

namespace tessera::opencl {

// C is m x n with inner dimension k; packed A and B are padded to whole panels (and, for the
// gpu kernels, whole k-steps).
struct GemmShape {
  std::int64_t m = 0, n = 0, k = 0;
  std::int64_t mp = 0, np = 0, kp = 0;  // padded
  int panel_m = 0, panel_n = 0;         // panel widths of packed A and B
};

// Per-queue scratch of gemm and conv_layer: packed A and B.
struct GemmScratch {
  ScratchBuffer a, b;
};

// gemm_ptx.cl (NVIDIA inline PTX) runs gemm and conv_layer: gemm.kernels = 2 on NVIDIA's
// platform, with the gpu kernels.
bool gemm_ptx(const OpenCLBackend& cl);

template <class T>
GemmShape gemm_shape(OpenCLBackend& cl, std::int64_t m, std::int64_t n, std::int64_t k);
// The build options of gemm.cl for T (its tuning values and panel widths).
template <class T>
const std::string& gemm_defines(OpenCLBackend& cl);
// gemm_ptx.cl's build options (conv_gather: B is a convolution's input, gathered; math: f32's
// MathMode, the TF32 tensor cores for tf32) and group size.
template <class T>
std::string gemm_ptx_defines(const OpenCLBackend& cl, bool conv_gather, MathMode math);
template <class T>
std::size_t gemm_ptx_threads();

// Packs op(src) (rows x k, rows along the panels, starting src_off elements into src) into dst,
// in A's panels (is_a) or B's, on q.
template <class T>
void gemm_pack(OpenCLBackend& cl, OpenClQueue& q, bool is_a, const void* src, std::int64_t src_off, std::int64_t ld,
               std::int64_t rows, std::int64_t k, bool src_rows_contiguous, const cl::Buffer& dst,
               std::int64_t padded_rows, std::int64_t kp);
// C (from c_offset, leading dimension ldc) = alpha * A B + beta * C from packed A and B. C's
// columns come in groups of group_cols, group g at g * group_stride (see gemm.cl).
template <class T>
void gemm_packed(OpenCLBackend& cl, OpenClQueue& q, const GemmShape& s, double alpha, const cl::Buffer& Ap, const cl::Buffer& Bp,
                 double beta, void* C, std::int64_t c_offset, std::int64_t ldc, std::int64_t group_cols,
                 std::int64_t group_stride, MathMode math = MathMode::exact);

}  // namespace tessera::opencl
