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
