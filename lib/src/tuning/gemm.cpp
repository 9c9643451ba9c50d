// GEMM (and the conv layer, which runs on the gemm tiles). OpenCL: a work-group computes an
// mwg x nwg tile of C with mdimc x ndimc work-items, each an (mwg/mdimc) x (nwg/ndimc) register
// block; gpu: k-steps of kwg through local memory; cpu: no local memory, vw-wide vectors along n.
// CUDA's tile shapes are compile-time (kernels/cuda/launch.hpp); only the choice between them
// is a parameter.
#include "tuning/tuning.hpp"

namespace tessera::tuning {

const std::vector<ParamSpec>& gemm_params() {
  // nvidia: 128 x 128 tiles, 16 x 16 threads of 8 x 8: 64 accumulators per thread, 16 KB (f32)
  // of shared memory per k-step of 16, enough reuse to be bound by FMA. amd-gcn: 64 x 64 with
  // 16 x 16 work-items of 4 x 4, 256 work-items (the limit), 8 KB of LDS in f32. pocl: 8 x 32
  // of C per work-item in 16 AVX-512 registers, groups of 4 x 2 share the packed panels through
  // the caches; intel: 8 x 16 per work-item = 16 AVX2 registers.
  static const std::vector<ParamSpec> p = {
      {"gemm.mwg", "rows of C per work-group", 1, 1024, Shape::any,
       {{"opencl/nvidia", 128}, {"opencl/amd-gcn", 64}, {"opencl/*", 32}}},
      {"gemm.nwg", "columns of C per work-group", 1, 1024, Shape::any,
       {{"opencl/nvidia", 128}, {"opencl/generic", 32}, {"opencl/*", 64}}},
      {"gemm.kwg", "gpu kernels: k-step through local memory (unrolled: keep it small)", 1, 256, Shape::any,
       {{"opencl/generic", 8}, {"opencl/*", 16}}},
      {"gemm.mdimc", "work-items along m per group", 1, 1024, Shape::any,
       {{"opencl/nvidia", 16}, {"opencl/amd-gcn", 16}, {"opencl/generic", 8}, {"opencl/*", 4}}},
      {"gemm.ndimc", "work-items along n per group", 1, 1024, Shape::any,
       {{"opencl/nvidia", 16}, {"opencl/amd-gcn", 16}, {"opencl/pocl-cpu", 2}, {"opencl/intel-cpu", 4},
        {"opencl/generic", 8}}},
      {"gemm.vw", "cpu kernels: vector width along n", 1, 16, Shape::vector_width,
       {{"opencl/pocl-cpu", 16}, {"opencl/intel-cpu", 8}, {"opencl/*", 1}}},
      // The FP64 tensor cores (mma.sync m16n8k4) and cp.async are reachable only through inline
      // PTX; elsewhere 2 falls back to gemm.cl.
      {"gemm.kernels", "1: gemm.cl; 2: gemm_ptx.cl (inline PTX) where the platform is NVIDIA's", 1, 2, Shape::any,
       {{"opencl/nvidia", 2}, {"opencl/*", 1}}},
      {"gemm.tiles", "CUDA: -1 wide or narrow tiles by the wave model (plan/gemm_grid.hpp); 0 wide; 1 narrow", -1, 1,
       Shape::any, {{"cuda/*", -1}}},
      // Split-k and C^T's product (plan/gemm_grid.hpp's wave model): long k on few
      // tiles (16384 x 64 x 16384) leaves most SMs idle unsplit; a short, wide C (64 x 16384)
      // fills 128-row tiles no better than half unless its transpose is computed.
      {"gemm.splits", "CUDA: -1 (or 0) split-k where the wave model gains; 1 never; N >= 2 k in N parts (of 32 k)",
       -1, 64, Shape::any, {{"cuda/*", -1}}},
      // The f32 exact wide tiles' two kernels (kernels/cuda/launch.hpp GemmTile): 8 x 16 outputs a
      // thread gains 3 % at k = 4096 and 8192, ties at k = 2000 and loses 12-15 % on the Winograd
      // layers' batched products (k = 256, 384) against 8 x 8 (H200, bench/RESULTS.md, session 46).
      {"gemm.deep_k", "CUDA f32 exact, wide tiles: the inner dimension from which 8 x 16 outputs a thread run (else 8 x 8)",
       0, 1LL << 40, Shape::any, {{"cuda/*", 2048}}},
      {"gemm.c_trans", "CUDA f32: -1 C^T = op(B)^T op(A)^T where the wave model gains; 0 never; 1 always", -1, 1,
       Shape::any, {{"cuda/*", -1}}},
      // wgmma's tiles (128 x 256 tf32, 128 x 128 tf32x3, one block per SM) beat mma.sync's once
      // they fill the SMs; below that mma.sync's two blocks per SM spread better.
      {"gemm.tf32_kernel",
       "CUDA f32 under tf32/tf32x3: -1 wgmma where it applies and its tiles fill the SMs (compute capability 9.0), "
       "else mma.sync; 0 mma.sync; 1 wgmma wherever it applies",
       -1, 1, Shape::any, {{"cuda/*", -1}}},
      // tf32 / tf32x3 on wgmma round (tf32x3: and split) their shared-memory operand before the
      // products (a pass at copy speed) rather than in the kernel, where the pass takes the
      // shared-memory bandwidth or the load warps the products need (gemm_wgmma.cu): 64 MB holds a
      // 4096 x 4096 operand whole in tf32 (half of it split in tf32x3); larger ones go in chunks
      // of rows. 0: in the kernel.
      {"gemm.tf32_round_mb",
       "CUDA f32 tf32/tf32x3 on wgmma: MB of per-queue workspace for the operand rounded (and split) before "
       "the products, in chunks of its rows; 0 rounds it in the kernel",
       0, 1 << 20, Shape::any, {{"cuda/*", 64}}},
      // A fork/join costs a few microseconds, i.e. ~1 MFLOP of one core's FMA throughput. Also
      // the cpu device's trsm updates and conv_layer (a GEMM over im2col columns).
      {"gemm.min_flops_per_thread", "cpu: flops per thread below which fewer threads run", 1, 1LL << 40, Shape::any,
       {{"cpu/*", 1 << 21}}},
  };
  return p;
}

}  // namespace tessera::tuning
