// SpMM (CSR times k dense columns): launch shapes and the cpu thread threshold.
#include "tuning/tuning.hpp"

namespace tessera::tuning {

const std::vector<ParamSpec>& spmm_params() {
  static const std::vector<ParamSpec> p = {
      // CUDA: a group of lanes per row (the k columns across them), this many threads a block.
      {"spmm.block", "CUDA threads per block of the spmm kernel", 32, 1024, Shape::pow2, {{"cuda/*", 256}}},
      // CUDA: rows longer than this are cut into chunks of a block each (kernels/cuda/spmm.cu);
      // taken only for matrices whose longest row exceeds it (CsrStats).
      {"spmm.long_row", "CUDA: rows of more entries than this are cut into chunks of a block each (0: never)", 0,
       1LL << 30, Shape::any,
       {{"cuda/*", 256}}},
      // The long-row path's rows and its chunks' first pass of columns in one launch
      // (kernels/cuda/spmm.cu) instead of two, where the chunks wait for the rows. H200, median
      // ms f32, two rounds (bench/RESULTS.md, session 36): vsp_model1 (0.38 M entries) k = 8
      // 0.0333 / 0.0325 against 0.0507 / 0.0499 (cuSPARSE 0.0444-0.0457), k = 32 0.0390 / 0.0396
      // against 0.0583 / 0.0556 (cuSPARSE 0.048); power-law 2M (30 M entries) k = 8 1.101 / 1.113
      // against 1.075 / 1.057, k = 32 2.459 / 2.464 against 2.366 / 2.360 (4 % slower: the fused
      // kernel's registers, the larger of its two halves', thin the rows' blocks). The same bound
      // as spmv.split_max_nnz.
      {"spmm.one_launch_max_nnz",
       "CUDA long-row path: the rows and the chunks in one launch for matrices of at most this many entries (0: "
       "never)",
       0, 1LL << 40, Shape::any, {{"cuda/*", 1 << 22}}},
      // OpenCL: work-items (row, column); the group covers min(k, 32) columns of wg / that rows.
      {"spmm.wg", "OpenCL work-group size of the spmm kernel", 1, 1024, Shape::pow2,
       {{"opencl/nvidia", 256}, {"opencl/amd-gcn", 256}, {"opencl/*", 64}}},
      {"spmm.prefetch_entries", "cpu, X beyond the caches: prefetch the row of X this many entries ahead (0: off)", 0, 1024,
       Shape::any, {{"cpu/*", 16}}},
      // As spmv's: a thread team costs a few microseconds.
      {"spmm.min_work_per_thread", "cpu: (nonzeros + rows) x k per thread below which fewer threads run", 1,
       1 << 30, Shape::any, {{"cpu/*", 1 << 15}}},
  };
  return p;
}

}  // namespace tessera::tuning
