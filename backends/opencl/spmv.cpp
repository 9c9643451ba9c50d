// y = alpha * A * x + beta * y for CSR (kernels/opencl/spmv.cl). cpu family: one work-item per
// `rows_per_item` consecutive rows. gpu family, chosen per matrix from its row-length statistics
// (the mean, and the longest row, found once per matrix and cached by CsrView::generation):
//  - skewed rows (spmv.merge_skew > 0, the longest row above 64 and above merge_skew x the mean;
//    as the CUDA backend): the merge-path kernel, its partition of rows + nonzeros into equal
//    tiles computed once per matrix, then a fix-up pass for the rows that span tiles;
//  - short, even rows (spmv.stream_mean > 0, mean <= stream_mean, the longest row at most 64 or
//    8x the mean): the stream kernel, a group's rows read as one coalesced run of nonzeros;
//  - otherwise the vector kernel: `lanes` work-items per row, lanes the power of two at or above
//    the mean row length (capped by the profile's max_lanes, the subgroup width), so short rows
//    do not leave most of a warp idle and long rows are read coalesced.
#include <algorithm>
#include <climits>
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

cl::Buffer OpenCLBackend::spmv_merge_coords(DType dt, const CsrView& A, const std::string& gpu_defines, int tiles) {
  const bool cached = A.generation != 0;
  if (cached)
    if (auto it = spmv_merge_coords_.find(A.generation); it != spmv_merge_coords_.end()) return it->second;
  const std::size_t bytes = static_cast<std::size_t>(tiles + 1) * 2 * sizeof(cl_int);
  cl::Buffer coords =
      cached ? cl::Buffer(context_, CL_MEM_READ_WRITE, bytes) : scratch(Scratch::spmv_merge_coords, bytes);
  cl::Kernel& k = kernel("spmv.cl", dt, gpu_defines, "spmv_merge_partition");
  set_args(k, dt, A.row_ptr, static_cast<int>(A.rows), static_cast<int>(A.nnz), tiles, coords);
  const std::int64_t wg = profile_.spmv_wg;
  launch(k, cl::NDRange(static_cast<std::size_t>((tiles + 1 + wg - 1) / wg * wg)),
         cl::NDRange(static_cast<std::size_t>(wg)));
  if (cached) {
    if (spmv_merge_coords_.size() >= 32) spmv_merge_coords_.clear();  // a bound, as for spmv_longest_
    spmv_merge_coords_[A.generation] = coords;
  }
  return coords;
}

void OpenCLBackend::spmv_merge(DType dt, double alpha, const CsrView& A, const VecView& x, double beta,
                               const VecView& y, const std::string& gpu_defines) {
  const std::int64_t wg = profile_.spmv_wg;
  const std::int64_t tile = wg * profile_.spmv_merge_items;
  const int tiles = static_cast<int>((A.rows + A.nnz + tile - 1) / tile);
  const cl::Buffer coords = spmv_merge_coords(dt, A, gpu_defines, tiles);
  cl::Buffer& carry_rows = scratch(Scratch::spmv_carry_rows, static_cast<std::size_t>(tiles) * sizeof(cl_int));
  cl::Buffer& carry_vals = scratch(Scratch::spmv_carry_vals, static_cast<std::size_t>(tiles) * dtype_size(dt));
  const int read_y = beta != 0.0 ? 1 : 0;
  cl::Kernel& k = kernel("spmv.cl", dt, gpu_defines, "spmv_merge");
  set_args(k, dt, A.row_ptr, A.col_idx, A.values, x.data, y.data, static_cast<int>(A.rows), Real{alpha}, Real{beta},
           read_y, coords, carry_rows, carry_vals);
  launch(k, cl::NDRange(static_cast<std::size_t>(tiles * wg)), cl::NDRange(static_cast<std::size_t>(wg)));
  cl::Kernel& fix = kernel("spmv.cl", dt, gpu_defines, "spmv_merge_fixup");
  set_args(fix, dt, carry_rows, carry_vals, tiles, static_cast<int>(A.rows), Real{alpha}, y.data);
  launch(fix, cl::NDRange(static_cast<std::size_t>((tiles + wg - 1) / wg * wg)),
         cl::NDRange(static_cast<std::size_t>(wg)));
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
    const std::string gpu_defines =
        "-DWG_SIZE=" + std::to_string(p.spmv_wg) + " -DMERGE_ITEMS=" + std::to_string(p.spmv_merge_items);
    const bool may_stream = mean <= p.spmv_stream_mean;
    const bool may_merge = p.spmv_merge_skew > 0 && A.rows + A.nnz < INT_MAX - p.spmv_wg * p.spmv_merge_items;
    if ((may_stream || may_merge) && A.nnz > 0) {
      const int longest = spmv_max_row(dt, A, gpu_defines);
      if (may_merge && longest > 64 && longest > p.spmv_merge_skew * mean) {
        spmv_merge(dt, alpha, A, x, beta, y, gpu_defines);
        return;
      }
      if (may_stream && (longest <= 64 || longest <= 8 * mean)) {
        cl::Kernel& k = kernel("spmv.cl", dt, gpu_defines, "spmv_stream");
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
    cl::Kernel& k = kernel("spmv.cl", dt, gpu_defines, "spmv_vector");
    set_args(k, dt, A.row_ptr, A.col_idx, A.values, x.data, y.data, A.rows, Real{alpha}, Real{beta}, read_y, lanes);
    launch(k, cl::NDRange(static_cast<std::size_t>(groups * wg)), cl::NDRange(static_cast<std::size_t>(wg)));
  });
}

}  // namespace tessera::opencl
