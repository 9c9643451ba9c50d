// y = alpha * A * x + beta * y for CSR (kernels/opencl/spmv.cl). cpu family: one work-item per
// `rows_per_item` consecutive rows. gpu family: `lanes` work-items per row, lanes the power of
// two at or above the mean row length (capped by the profile's max_lanes, the subgroup width),
// so short rows do not leave most of a warp idle and long rows are read coalesced; or, where
// the profile has spmv.stream_mean and the rows are short (mean <= stream_mean) and even (the
// longest row at most 64 or 8x the mean; found once per matrix), the stream kernel: a group's
// rows read as one coalesced run of nonzeros (the CUDA backend's method).
#include <algorithm>
#include <string>

#include "opencl_backend.hpp"

namespace tessera::opencl {

int OpenCLBackend::spmv_max_row(DType dt, const CsrView& A, const std::string& wg_define) {
  if (A.generation != 0)
    if (auto it = spmv_longest_.find(A.generation); it != spmv_longest_.end()) return it->second;
  cl::Buffer& out = scratch(Scratch::spmv_stats, sizeof(cl_int));
  queue_.enqueueFillBuffer(out, cl_int{0}, 0, sizeof(cl_int));
  cl::Kernel& k = kernel("spmv.cl", dt, wg_define, "spmv_max_row");
  set_args(k, dt, A.row_ptr, A.rows, out);
  const std::int64_t wg = profile_.spmv_wg;
  launch(k, cl::NDRange(static_cast<std::size_t>((A.rows + wg - 1) / wg * wg)),
         cl::NDRange(static_cast<std::size_t>(wg)));
  cl_int longest = 0;
  queue_.enqueueReadBuffer(out, CL_TRUE, 0, sizeof(cl_int), &longest);
  if (A.generation != 0) {
    if (spmv_longest_.size() >= 32) spmv_longest_.clear();  // a bound, not an LRU: rebuilt on demand
    spmv_longest_[A.generation] = longest;
  }
  return longest;
}

void OpenCLBackend::spmv(DType dt, double alpha, const CsrView& A, const VecView& x, double beta, const VecView& y) {
  require_dtype(Op::spmv, dt);
  std::lock_guard<std::mutex> lock(mutex_);
  translate_errors(where("spmv"), [&] {
    const DeviceProfile& p = profile_;
    const int read_y = beta != 0.0 ? 1 : 0;  // beta == 0: y is not read
    const std::int64_t wg = p.spmv_wg;
    if (cpu_family()) {
      const std::int64_t items = (A.rows + p.spmv_rows_per_item - 1) / p.spmv_rows_per_item;
      cl::Kernel& k = kernel("spmv.cl", dt, "-DROWS_PER_ITEM=" + std::to_string(p.spmv_rows_per_item), "spmv_rows");
      set_args(k, dt, A.row_ptr, A.col_idx, A.values, x.data, y.data, A.rows, Real{alpha}, Real{beta}, read_y);
      launch(k, cl::NDRange(static_cast<std::size_t>((items + wg - 1) / wg * wg)),
             cl::NDRange(static_cast<std::size_t>(wg)));
      return;
    }
    const double mean = static_cast<double>(A.nnz) / static_cast<double>(A.rows);
    const std::string wg_define = "-DWG_SIZE=" + std::to_string(p.spmv_wg);
    if (mean <= p.spmv_stream_mean && A.nnz > 0) {
      const int longest = spmv_max_row(dt, A, wg_define);
      if (longest <= 64 || longest <= 8 * mean) {
        cl::Kernel& k = kernel("spmv.cl", dt, wg_define, "spmv_stream");
        set_args(k, dt, A.row_ptr, A.col_idx, A.values, x.data, y.data, A.rows, Real{alpha}, Real{beta}, read_y);
        launch(k, cl::NDRange(static_cast<std::size_t>((A.rows + wg - 1) / wg * wg)),
               cl::NDRange(static_cast<std::size_t>(wg)));
        return;
      }
    }
    int lanes = 1;
    while (lanes < p.spmv_max_lanes && lanes < mean) lanes *= 2;
    const std::int64_t rows_per_group = wg / lanes;
    const std::int64_t groups = (A.rows + rows_per_group - 1) / rows_per_group;
    cl::Kernel& k = kernel("spmv.cl", dt, wg_define, "spmv_vector");
    set_args(k, dt, A.row_ptr, A.col_idx, A.values, x.data, y.data, A.rows, Real{alpha}, Real{beta}, read_y, lanes);
    launch(k, cl::NDRange(static_cast<std::size_t>(groups * wg)), cl::NDRange(static_cast<std::size_t>(wg)));
  });
}

}  // namespace tessera::opencl
