// SpMM on OpenCL: kernels/opencl/spmm.cl, one work-item per (row, column), the group spanning
// min(k, 32) columns (rounded up to a power of two) and spmm.wg / that rows (tuning/spmm.cpp).
#include <algorithm>

#include "opencl_backend.hpp"

namespace tessera::opencl {

template <class T>
void OpenCLBackend::spmm(QueueImpl& qi, double alpha, const CsrView& A, const MatView& X, double beta,
                         const MatView& Y) {
  OpenClQueue& q = cl_queue(qi);
  const tuning::Tuning& t = tuning_;
  const std::int64_t k = Y.cols, wg = t["spmm.wg"];
  std::int64_t lx = 1;
  while (lx < k && lx < 32) lx *= 2;
  lx = std::min(lx, wg);
  const std::int64_t ly = wg / lx;
  const int read_y = beta != 0.0 ? 1 : 0;  // beta == 0: Y is not read
  cl::Kernel& kern = kernel("spmm.cl", dtype_v<T>, t.defines("spmm"), "spmm_csr");
  const cl::NDRange global(static_cast<std::size_t>((k + lx - 1) / lx * lx),
                           static_cast<std::size_t>((A.rows + ly - 1) / ly * ly));
  launch<T>(q, kern, global, cl::NDRange(static_cast<std::size_t>(lx), static_cast<std::size_t>(ly)), A.row_ptr,
            A.col_idx, A.values, A.rows, k, X.data, X.offset, X.ld, Y.data, Y.offset, Y.ld, Real{alpha}, Real{beta},
            read_y);
}

TESSERA_INSTANTIATE_TYPED_OP(OpenCLBackend, spmm)

}  // namespace tessera::opencl
