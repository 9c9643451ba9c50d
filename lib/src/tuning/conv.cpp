// conv2d (and the conv layer's launch beside gemm's tiles).
#include "tuning/tuning.hpp"

namespace tessera::tuning {

const std::vector<ParamSpec>& conv_params() {
  // gpu: a group's tile is lx x (ly * rows) outputs staged in local memory (nvidia 32 x 32,
  // amd-gcn 64 x 16); cpu kernels: each work-item computes vw consecutive outputs of a row.
  static const std::vector<ParamSpec> p = {
      {"conv.lx", "conv2d: work-items along x per group", 1, 1024, Shape::any,
       {{"opencl/nvidia", 32}, {"opencl/amd-gcn", 64}, {"opencl/generic", 16}, {"opencl/*", 8}}},
      {"conv.ly", "conv2d: work-items along y per group", 1, 1024, Shape::any,
       {{"opencl/nvidia", 8}, {"opencl/*", 4}}},
      {"conv.vw", "conv2d cpu kernels: consecutive outputs per work-item", 1, 16, Shape::vector_width,
       {{"opencl/pocl-cpu", 16}, {"opencl/intel-cpu", 8}, {"opencl/*", 1}}},
      {"conv.rows", "conv2d gpu kernels: outputs per work-item along a column", 1, 64, Shape::any,
       {{"opencl/nvidia", 4}, {"opencl/amd-gcn", 4}, {"opencl/generic", 2}, {"opencl/*", 1}}},
      // Winograd's F(4 x 4, 3 x 3) does 4x fewer multiplies than the direct sum (2.25x for F(2 x 2))
      // for 2.25x (4x) the input's and output's traffic in transforms: the GEMM dominates once
      // C and K are a few tens (measured: bench/RESULTS.md, session 14).
      {"conv_layer.winograd",
       "CUDA conv_layer, 3 x 3 filters with stride 1: -1 Winograd where C and K are >= 16 (F(4 x 4, 3 x 3); "
       "F(2 x 2, 3 x 3) under tf32), else the implicit GEMM; 0 the implicit GEMM; 1 F(2 x 2, 3 x 3); 2 F(4 x 4, 3 x 3)",
       -1, 2, Shape::any, {{"cuda/*", -1}}},
      // Under tf32 / tf32x3 a 3 x 3 stride-1 layer can skip Winograd's passes through memory
      // (kernels/cuda/conv_direct_tc.cu); CudaBackend::conv_direct_tc holds the policy.
      {"conv_layer.direct_tc",
       "CUDA conv_layer, f32 3 x 3 stride-1 layers under tf32 / tf32x3: -1 the direct tensor-core kernel where "
       "the policy picks it (never while conv_layer.winograd is forced), 0 never, 1 wherever it applies",
       -1, 1, Shape::any, {{"cuda/*", -1}}},
      // Winograd's products of f32 layers with C <= 64 on a kernel that streams the tiles past
      // one product's filters (kernels/cuda/conv_winograd_products.cu); the policy: CudaBackend::conv_winograd.
      {"conv_layer.winograd_products",
       "CUDA conv_layer, Winograd on f32 layers with C <= 64: -1 the streaming products kernel, 0 gemm's tiles, "
       "n > 0 the streaming kernel on at most n blocks",
       -1, 1 << 20, Shape::any, {{"cuda/*", -1}}},
      // The transformed input and products of a chunk of images (the filters' once): larger
      // batches run in chunks of images, so the workspace stays bounded.
      {"conv_layer.winograd_mb", "CUDA conv_layer: MiB of Winograd workspace per chunk of images", 1, 1 << 20,
       Shape::any, {{"cuda/*", 256}}},
      // A thread is worth starting for this many multiply-adds (a fork/join costs microseconds).
      {"conv.min_macs_per_thread", "cpu: multiply-adds per thread below which fewer threads run", 1, 1LL << 40,
       Shape::any, {{"cpu/*", 1 << 20}}},
  };
  return p;
}

}  // namespace tessera::tuning
