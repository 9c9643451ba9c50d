// The plan layer (lib/src/plan/): CSR row statistics computed once when a matrix is built, the
// one SpMV kernel policy, and the one level-schedule analysis. Pure host logic.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "plan/level_schedule.hpp"
#include "plan/split_layout.hpp"
#include "plan/spmv_policy.hpp"
#include "tessera/tessera.hpp"

using namespace tessera;

namespace {

// A view that carries only what the policy reads.
CsrView view_of(const HostCsr<double>& h) {
  CsrView v;
  v.rows = h.rows;
  v.cols = h.cols;
  v.nnz = h.nnz();
  v.stats = csr_stats(h.row_ptr.data(), h.rows);
  return v;
}

HostCsr<double> rows_of_lengths(const std::vector<int>& lengths, std::int64_t cols) {
  HostCsr<double> h;
  h.rows = static_cast<std::int64_t>(lengths.size());
  h.cols = cols;
  for (const int len : lengths) {
    for (int j = 0; j < len; ++j) {
      h.col_idx.push_back(j % static_cast<int>(cols));
      h.values.push_back(1.0);
    }
    h.row_ptr.push_back(static_cast<std::int32_t>(h.col_idx.size()));
  }
  return h;
}

}  // namespace

TEST_CASE("plan: CSR statistics are computed once at from_host and carried in the view") {
  const auto h = rows_of_lengths({3, 0, 5, 1, 0, 7}, 8);
  const CsrStats s = csr_stats(h.row_ptr.data(), h.rows);
  CHECK(s.min_row == 0);
  CHECK(s.max_row == 7);
  CHECK(s.empty_rows == 2);
  CHECK(s.mean_row == doctest::Approx(16.0 / 6.0));
  CHECK(s.stddev_row > 0.0);
  const auto A = CsrMatrix<double>::from_host(Device::open("reference"), h);
  CHECK(A.view().stats.max_row == 7);
  CHECK(A.view().stats.empty_rows == 2);
  CHECK(csr_stats(h.row_ptr.data(), 0).max_row == 0);
  // Consecutive pairs with a short row (<= 8): all five; lengths differ in each.
  CHECK(s.short_pairs == 5);
  CHECK(s.short_pair_changes == 5);
  const auto even = rows_of_lengths({7, 7, 7, 20, 20, 7}, 32);
  const CsrStats e = csr_stats(even.row_ptr.data(), even.rows);
  CHECK(e.short_pairs == 4);         // (7,7) (7,7) (7,20) (20,7); (20,20) has no short row
  CHECK(e.short_pair_changes == 2);  // (7,20) and (20,7)
}

TEST_CASE("plan: the SpMV policy picks merge for skewed rows, stream for short even rows, else vector lanes") {
  const auto cuda = tuning::Tuning::for_device("cuda/sm90", "cuda:0", "");
  const auto ocl = tuning::Tuning::for_device("opencl/nvidia", "opencl:0", "");
  const auto gcn = tuning::Tuning::for_device("opencl/amd-gcn", "opencl:0", "");
  std::vector<int> skewed(1000, 4);
  skewed[17] = 900;  // max 900 > 64 and > 8 x mean (~4.9)
  const auto short_rows = rows_of_lengths(std::vector<int>(500, 7), 64);
  const auto long_rows = rows_of_lengths(std::vector<int>(50, 40), 64);
  for (const auto* t : {&cuda, &ocl}) {
    CHECK(plan::choose_spmv(view_of(rows_of_lengths(skewed, 1000)), *t, false, 1024).kernel == plan::SpmvKernel::merge);
    CHECK(plan::choose_spmv(view_of(short_rows), *t, false, 1024).kernel == plan::SpmvKernel::stream);
    CHECK(plan::choose_spmv(view_of(long_rows), *t, false, 1024).kernel == plan::SpmvKernel::vector);
  }
  // Lanes: CUDA halves the power of two at or above the mean (64 -> 32, but at least 2);
  // OpenCL keeps it, capped by max_lanes.
  CHECK(plan::choose_spmv(view_of(long_rows), cuda, false, 1024).lanes == 32);
  CHECK(plan::choose_spmv(view_of(long_rows), ocl, false, 1024).lanes == 32);
  const auto mid_rows = rows_of_lengths(std::vector<int>(50, 20), 64);
  CHECK(plan::choose_spmv(view_of(mid_rows), cuda, false, 1024).lanes == 16);
  CHECK(plan::choose_spmv(view_of(mid_rows), ocl, false, 1024).lanes == 32);
  // amd-gcn: no stream kernel, merge on, wavefront-wide rows at most.
  CHECK(plan::choose_spmv(view_of(short_rows), gcn, false, 1024).kernel == plan::SpmvKernel::vector);
  CHECK(plan::choose_spmv(view_of(short_rows), gcn, false, 1024).lanes == 8);
  // spmv_dot: CUDA runs the stream kernel's rows on the vector kernel with spmv.dot_lanes (2)
  // lanes; NVIDIA OpenCL keeps the stream kernel; other rows choose as spmv does.
  CHECK(plan::choose_spmv(view_of(short_rows), cuda, false, 1024, true).kernel == plan::SpmvKernel::vector);
  CHECK(plan::choose_spmv(view_of(short_rows), cuda, false, 1024, true).lanes == 2);
  CHECK(plan::choose_spmv(view_of(short_rows), ocl, false, 1024, true).kernel == plan::SpmvKernel::stream);
  CHECK(plan::choose_spmv(view_of(mid_rows), cuda, false, 1024, true).lanes == 16);
  CHECK(plan::choose_spmv(view_of(rows_of_lengths(skewed, 1000)), cuda, false, 1024, true).kernel ==
        plan::SpmvKernel::merge);
  // CPU-family OpenCL devices: the rows kernel, whatever the matrix.
  CHECK(plan::choose_spmv(view_of(rows_of_lengths(skewed, 1000)), ocl, true, 1024).kernel == plan::SpmvKernel::rows);
  // merge_skew = 0: nothing counts as skewed, so short rows stream whatever their longest.
  const auto nomerge = tuning::Tuning::for_device("cuda/sm90", "cuda:0", "spmv.merge_skew=0");
  CHECK(plan::choose_spmv(view_of(rows_of_lengths(skewed, 1000)), nomerge, false, 1024).kernel ==
        plan::SpmvKernel::stream);
  // Skewed, but the longest row no longer than spmv.merge_long_row (CUDA 256): the vector kernel
  // with lanes from the mean (8 >> 1), for spmv_dot too; OpenCL (0) still merges.
  std::vector<int> mild(1000, 4);
  mild[17] = 200;  // > 64 and > 8 x the mean, <= 256
  const auto mild_rows = rows_of_lengths(mild, 1000);
  const auto mild_view = view_of(mild_rows);
  CHECK(plan::choose_spmv(mild_view, cuda, false, 1024).kernel == plan::SpmvKernel::vector);
  CHECK(plan::choose_spmv(mild_view, cuda, false, 1024).lanes == 4);
  CHECK(plan::choose_spmv(mild_view, cuda, false, 1024, true).kernel == plan::SpmvKernel::vector);
  CHECK(plan::choose_spmv(mild_view, ocl, false, 1024).kernel == plan::SpmvKernel::merge);
  const auto merge_all = tuning::Tuning::for_device("cuda/sm90", "cuda:0", "spmv.merge_long_row=0");
  CHECK(plan::choose_spmv(mild_view, merge_all, false, 1024).kernel == plan::SpmvKernel::merge);
}

TEST_CASE("plan: CUDA's split choice (skewed rows past spmv.split_row, host offsets and identity) and its layout") {
  const auto cuda = tuning::Tuning::for_device("cuda/sm90", "cuda:0", "");
  const auto no_split = tuning::Tuning::for_device("cuda/sm90", "cuda:0", "spmv.split_max_nnz=0");
  const auto ocl = tuning::Tuning::for_device("opencl/nvidia", "opencl:0", "");
  std::vector<int> lengths(1000, 5);
  lengths[3] = 5000;  // 3 chunks of 2048
  lengths[4] = 257;   // 1 chunk
  lengths[5] = 256;   // the vector kernel's
  lengths[999] = 4096;  // 2 chunks
  const auto h = rows_of_lengths(lengths, 6000);
  CsrView v = view_of(h);
  // Without host offsets or identity: merge, as with spmv.split_max_nnz = 0, and on OpenCL.
  CHECK(plan::choose_spmv(v, cuda, false, 1024).kernel == plan::SpmvKernel::merge);
  v.host_row_ptr = h.row_ptr.data();
  CHECK(plan::choose_spmv(v, cuda, false, 1024).kernel == plan::SpmvKernel::merge);
  v.generation = 7;
  CHECK(plan::choose_spmv(v, cuda, false, 1024).kernel == plan::SpmvKernel::split);
  CHECK(plan::choose_spmv(v, cuda, false, 1024, true).kernel == plan::SpmvKernel::split);
  CHECK(plan::choose_spmv(v, no_split, false, 1024).kernel == plan::SpmvKernel::merge);
  CHECK(plan::choose_spmv(v, ocl, false, 1024).kernel == plan::SpmvKernel::merge);
  // Only where merge would run: skewed with the longest row at most spmv.merge_long_row (256)
  // stays on the vector kernel; a matrix of more than spmv.split_max_nnz entries takes merge.
  std::vector<int> mild(1000, 4);
  mild[17] = 200;
  const auto hm = rows_of_lengths(mild, 1000);
  CsrView vm = view_of(hm);
  vm.host_row_ptr = hm.row_ptr.data();
  vm.generation = 8;
  CHECK(plan::choose_spmv(vm, cuda, false, 1024).kernel == plan::SpmvKernel::vector);
  REQUIRE(v.nnz == 996 * 5 + 5000 + 257 + 256 + 4096);
  const auto at_most = tuning::Tuning::for_device("cuda/sm90", "cuda:0", "spmv.split_max_nnz=14589");
  CHECK(plan::choose_spmv(v, at_most, false, 1024).kernel == plan::SpmvKernel::split);
  const auto smaller = tuning::Tuning::for_device("cuda/sm90", "cuda:0", "spmv.split_max_nnz=14588");
  CHECK(plan::choose_spmv(v, smaller, false, 1024).kernel == plan::SpmvKernel::merge);
  const plan::SplitLayout l = plan::split_layout(h.row_ptr.data(), h.rows, 256, 2048, cuda);
  CHECK(l.long_rows == 3);
  CHECK(l.long_row == 256);
  REQUIRE(l.count() == 6);
  const std::vector<std::int32_t> want = {3, 0, 3, 0, 3, 1, 3, 0, 3, 2, 3, 0, 4, 0, 1, 1, 999, 0, 2, 2, 999, 1, 2, 2};
  CHECK(l.chunks == want);
  // The other rows' mean (996 x 5 + 256) / 997 = 5.25: 8 >> 1 = 4 lanes (the whole matrix's
  // mean, 16.6, would give 16).
  CHECK(l.lanes == 4);
  CHECK(plan::describe_split(l.lanes, l.long_rows, l.count()) == "csr/split(vector 4, 3 long rows in 6 chunks)");
  const plan::SplitLayout none = plan::split_layout(hm.row_ptr.data(), hm.rows, 256, 2048, cuda);
  CHECK(none.long_rows == 0);
  CHECK(none.count() == 0);
}

TEST_CASE("plan: level schedule of a lower and an upper triangle") {
  // L = [2 0 0 0; 1 3 0 0; 0 0 4 0; 1 0 1 5]: levels {0, 2}, {1}, {3}.
  const std::vector<std::int32_t> rp = {0, 1, 3, 4, 7}, ci = {0, 0, 1, 2, 0, 2, 3};
  const std::vector<double> v = {2, 1, 3, 4, 1, 1, 5};
  const auto s = plan::level_schedule(4, rp.data(), ci.data(), v.data(), DType::f64, Uplo::lower, Diag::non_unit);
  CHECK(s.levels == 2);
  CHECK(s.strict_nnz == 3);
  CHECK(s.order == std::vector<std::int32_t>{0, 2, 1, 3});
  CHECK(s.level_ptr == std::vector<std::int32_t>{0, 2, 4});
  CHECK(s.diagonal == std::vector<double>{2, 3, 4, 5});
  // Upper triangle of the same matrix: only the diagonal, one level; unit: no diagonal kept.
  const auto u = plan::level_schedule(4, rp.data(), ci.data(), nullptr, DType::f64, Uplo::upper, Diag::unit);
  CHECK(u.levels == 1);
  CHECK(u.diagonal.empty());
  CHECK(u.order == std::vector<std::int32_t>{0, 1, 2, 3});
}

TEST_CASE("plan: a missing or zero diagonal is InvalidArgument naming the row") {
  const std::vector<std::int32_t> rp = {0, 1, 2, 4}, ci = {0, 0, 1, 2};
  const std::vector<float> zero_diag = {1, 1, 0, 0};  // row 1 lacks (1,1); row 2's is 0
  try {
    (void)plan::level_schedule(3, rp.data(), ci.data(), zero_diag.data(), DType::f32, Uplo::lower, Diag::non_unit);
    FAIL("expected InvalidArgument");
  } catch (const InvalidArgument& e) {
    CHECK(std::string(e.what()).find("row 1") != std::string::npos);
    CHECK(std::string(e.what()).find("no diagonal entry") != std::string::npos);
  }
  const std::vector<std::int32_t> rp2 = {0, 1, 2}, ci2 = {0, 1};
  const std::vector<float> v2 = {1, 0};
  CHECK_THROWS_WITH_AS(
      (void)plan::level_schedule(2, rp2.data(), ci2.data(), v2.data(), DType::f32, Uplo::lower, Diag::non_unit),
      doctest::Contains("row 1 has a zero diagonal"), InvalidArgument);
}
