// The cpu SpMV kernel's entry point (exported by libtessera) on every SIMD target, with the
// paths the backend chooses by CPU and matrix forced: gathers on or off (off on AMD cores,
// where they are slower), the prefetch of x on or off (on only for an x bigger than the L2) and
// the branch-free short-row gather on or off (on for irregular short rows), so each is tested
// on every machine; each with int32 columns and with narrow int16 offsets from the row
// (plan/csr_columns.hpp, whose builder is tested here too). Bound as in
// test_cpu_targets.cpp's spmv test.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <utility>
#include <vector>

#include "../kernels/cpu/dispatch.hpp"
#include "../kernels/cpu/spmv.hpp"
#include "plan/csr_columns.hpp"
#include "support/compare.hpp"
#include "support/cpu_targets.hpp"
#include "support/random.hpp"
#include "support/sparse.hpp"
#include "tessera/tessera.hpp"

namespace {

template <class T>
void check_kernel_paths() {
  // Rows of 0..70 entries: scalar, one-vector and multi-vector gathers with tails.
  auto h = tessera_test::local_random_csr<T>(3001, 5003, 0, 70, 4, true, 0.05);
  // No row uses column 0 (a duplicate entry where one did), and x[0] is Inf: the idle lanes of
  // the short-row gather read x[0] and must drop it.
  for (auto& c : h.col_idx) c = c == 0 ? 1 : c;
  auto hx = tessera_test::random_vector<T>(static_cast<std::size_t>(h.cols), 9);
  hx[0] = std::numeric_limits<T>::infinity();
  const auto hy = tessera_test::random_vector<T>(static_cast<std::size_t>(h.rows), 10);
  const T alpha = T(0.75), beta = T(-1.25);
  const tessera::Device ref = tessera::Device::open("reference");
  auto ry = tessera::Vector<T>::from_host(ref, hy);
  tessera::spmv(alpha, tessera::CsrMatrix<T>::from_host(ref, h), tessera::Vector<T>::from_host(ref, hx), beta, ry);
  const auto want = ry.to_host();
  std::vector<double> bound(hy.size());
  for (std::size_t i = 0; i < bound.size(); ++i) {
    double m = std::abs(static_cast<double>(beta) * hy[i]);
    for (auto k = h.row_ptr[i]; k < h.row_ptr[i + 1]; ++k)
      m += std::abs(static_cast<double>(alpha) * h.values[static_cast<std::size_t>(k)] *
                    hx[static_cast<std::size_t>(h.col_idx[static_cast<std::size_t>(k)])]);
    bound[i] = tessera_test::gamma_bound<T>(h.row_ptr[i + 1] - h.row_ptr[i] + 2.0) * m;
  }
  const std::int64_t lanes =
      static_cast<std::int64_t>(std::is_same_v<T, float> ? tessera::cpu::lanes_f32() : tessera::cpu::lanes_f64());
  // Every column is within 5003 of its row: the narrow offsets fit.
  const tessera::plan::NarrowColumns offsets = tessera::plan::narrow_columns(h.row_ptr.data(), h.col_idx.data(), h.rows);
  REQUIRE(offsets);
  const std::int64_t scalar_only = std::numeric_limits<std::int64_t>::max();
  const std::int64_t vector_rows = tessera::cpu::spmv_target_has_gather() ? lanes : scalar_only;
  for (const std::int64_t gather_min : {scalar_only, vector_rows, std::int64_t{1}})
    for (const bool prefetch_x : {false, true})
      for (const bool short_gather : {false, true})
        for (const bool prefetch_streams : {false, true})
          for (const bool narrow : {false, true}) {
            if (narrow && prefetch_x) continue;  // the narrow kernel never prefetches x
            INFO("gather_min_len " << gather_min << ", prefetch_x " << prefetch_x << ", short_gather "
                                   << short_gather << ", prefetch_streams " << prefetch_streams << ", narrow "
                                   << narrow);
            std::vector<T> y = hy;
            // Two row ranges, as two threads run them: the prefetch stops at each range's end.
            for (const auto& [r0, r1] : {std::pair<std::int64_t, std::int64_t>{0, 1234}, {1234, h.rows}}) {
              const std::int32_t* rp = h.row_ptr.data();
              if constexpr (std::is_same_v<T, float>) {
                if (narrow)
                  tessera::cpu::spmv_narrow_f32(rp, offsets.get(), h.values.data(), hx.data(), alpha, beta, y.data(),
                                                r0, r1, gather_min, short_gather, prefetch_streams);
                else
                  tessera::cpu::spmv_f32(rp, h.col_idx.data(), h.values.data(), hx.data(), alpha, beta, y.data(), r0,
                                         r1, gather_min, prefetch_x, short_gather, prefetch_streams);
              } else {
                if (narrow)
                  tessera::cpu::spmv_narrow_f64(rp, offsets.get(), h.values.data(), hx.data(), alpha, beta, y.data(),
                                                r0, r1, gather_min, short_gather, prefetch_streams);
                else
                  tessera::cpu::spmv_f64(rp, h.col_idx.data(), h.values.data(), hx.data(), alpha, beta, y.data(), r0,
                                         r1, gather_min, prefetch_x, short_gather, prefetch_streams);
              }
            }
            tessera_test::check_close(y, want, bound, "spmv kernel");
          }
}

// Short rows (1..8 entries) each followed by a row whose only entry is on column 0, where x
// is Inf: the short-row paths that read a whole vector of entries from the row's start (the
// gather's idle lanes, f64's eight-entry quads where gathers do not pay) see the next row's
// column and must drop its product. The even rows must come out finite and right, the odd
// ones Inf.
void check_short_rows_drop_next_entries() {
  tessera::HostCsr<double> h;
  h.rows = 2 * 400;
  h.cols = 97;
  h.row_ptr.assign(1, 0);
  auto vals = tessera_test::random_vector<double>(8 * 400, 31);
  std::size_t v = 0;
  for (std::int64_t i = 0; i < 400; ++i) {
    for (std::int64_t k = 0; k <= i % 8; ++k) {
      h.col_idx.push_back(static_cast<std::int32_t>(1 + (i * 13 + k * 7) % 96));
      h.values.push_back(vals[v++]);
    }
    h.row_ptr.push_back(static_cast<std::int32_t>(h.col_idx.size()));
    h.col_idx.push_back(0);
    h.values.push_back(1.0);
    h.row_ptr.push_back(static_cast<std::int32_t>(h.col_idx.size()));
  }
  auto x = tessera_test::random_vector<double>(97, 32);
  x[0] = std::numeric_limits<double>::infinity();
  const std::int64_t lanes = static_cast<std::int64_t>(tessera::cpu::lanes_f64());
  for (const bool short_gather : {false, true})
    for (const std::int64_t gather_min : {std::numeric_limits<std::int64_t>::max(), lanes}) {
      INFO("short_gather " << short_gather << ", gather_min_len " << gather_min);
      std::vector<double> y(static_cast<std::size_t>(h.rows), -1.0);
      tessera::cpu::spmv_f64(h.row_ptr.data(), h.col_idx.data(), h.values.data(), x.data(), 1.0, 0.0, y.data(), 0,
                             h.rows, gather_min, false, short_gather, false);
      std::size_t wrong = 0;
      for (std::int64_t i = 0; i < h.rows; ++i) {
        const auto r = static_cast<std::size_t>(i);
        if (i % 2 == 1) {
          wrong += std::isinf(y[r]) ? 0 : 1;
          continue;
        }
        double want = 0, mag = 0;
        for (auto k = h.row_ptr[r]; k < h.row_ptr[r + 1]; ++k) {
          want += h.values[static_cast<std::size_t>(k)] * x[static_cast<std::size_t>(h.col_idx[static_cast<std::size_t>(k)])];
          mag += std::abs(h.values[static_cast<std::size_t>(k)] * x[static_cast<std::size_t>(h.col_idx[static_cast<std::size_t>(k)])]);
        }
        wrong += std::abs(y[r] - want) <= tessera_test::gamma_bound<double>(10) * mag ? 0 : 1;
      }
      CHECK_MESSAGE(wrong == 0, wrong << " rows wrong");
    }
}

}  // namespace

TEST_CASE("cpu spmv kernel: short rows drop the next row's entries (Inf in x there), every target") {
  (void)tessera::Device::open("cpu");
  tessera_test::for_each_cpu_target([](const std::string&) { check_short_rows_drop_next_entries(); });
}

TEST_CASE_TEMPLATE("cpu spmv kernel: gathers and prefetches forced on and off, every target", T, float, double) {
  (void)tessera::Device::open("cpu");  // the backend applies TESSERA_CPU_TARGET first
  tessera_test::for_each_cpu_target([](const std::string&) { check_kernel_paths<T>(); });
}

TEST_CASE("cpu spmv kernel: the column pass, its bandwidth and narrow offsets (within +-32767 of the row only)") {
  // Row i of `rows` holds the columns i + d for each d given (those inside [0, cols)).
  const auto banded = [](std::int64_t rows, std::int64_t cols, const std::vector<std::int64_t>& ds) {
    std::vector<std::int32_t> row_ptr{0}, col;
    for (std::int64_t i = 0; i < rows; ++i) {
      for (const std::int64_t d : ds)
        if (i + d >= 0 && i + d < cols) col.push_back(static_cast<std::int32_t>(i + d));
      row_ptr.push_back(static_cast<std::int32_t>(col.size()));
    }
    return std::make_pair(row_ptr, col);
  };
  const std::int64_t n = 70000;
  {  // the extremes of int16 on both sides
    const auto [rp, col] = banded(n, n, {-32768, -1, 0, 5, 32767});
    const auto off = tessera::plan::narrow_columns(rp.data(), col.data(), n);
    REQUIRE(off);
    CHECK(tessera::plan::csr_bandwidth(rp.data(), col.data(), n) == 32768);
    for (std::int64_t i = 0; i < n; i += 997)
      for (auto k = rp[static_cast<std::size_t>(i)]; k < rp[static_cast<std::size_t>(i) + 1]; ++k)
        CHECK(off[static_cast<std::size_t>(k)] == col[static_cast<std::size_t>(k)] - i);
  }
  for (const std::int64_t far : {std::int64_t{32768}, std::int64_t{-32769}}) {
    INFO("one column " << far << " from its row");
    const auto [rp, col] = banded(n, n, {-3, 0, 3, far});
    CHECK_FALSE(tessera::plan::narrow_columns(rp.data(), col.data(), n));
    CHECK(tessera::plan::csr_bandwidth(rp.data(), col.data(), n) == (far < 0 ? -far : far));
  }
  {  // a wide matrix: row 0's last column decides
    auto [rp, col] = banded(2000, 50000, {0, 32767});
    CHECK(tessera::plan::narrow_columns(rp.data(), col.data(), 2000));
    col[1] = 40000;  // row 0 reads column 40000
    CHECK_FALSE(tessera::plan::narrow_columns(rp.data(), col.data(), 2000));
  }
  {  // no rows, no nonzeros
    const std::vector<std::int32_t> rp{0, 0, 0};
    CHECK(tessera::plan::narrow_columns(rp.data(), nullptr, 2));
    CHECK(tessera::plan::csr_bandwidth(rp.data(), nullptr, 2) == 0);
  }
}
