// spmm: Y = alpha * A * X + beta * Y on every device against the reference (bound in
// support/spmm.hpp): k = 1, 3, 8, 17, 32, 33, 64 (one column, the tails of every vector width,
// two passes on CUDA), irregular matrices (random with empty rows, power law, one dense row,
// unsorted columns, an empty matrix; rows of 20 011 entries, cut into chunks on CUDA), blocks at offsets with padded leading dimensions, alpha and
// beta including beta = 0 over a NaN-filled Y. Real matrices: test_real_matrices.cpp.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <iterator>
#include <string>
#include <vector>

#include "support/devices.hpp"
#include "support/sparse.hpp"
#include "support/spmm.hpp"
#include "tessera/tessera.hpp"

using namespace tessera;
using namespace tessera_test;

namespace {

// `base` with row `row` made dense (every column).
template <class T>
HostCsr<T> with_dense_row(const HostCsr<T>& base, std::int64_t row) {
  HostCsr<T> m;
  m.rows = base.rows;
  m.cols = base.cols;
  m.row_ptr.assign(1, 0);
  for (std::int64_t i = 0; i < base.rows; ++i) {
    if (i == row) {
      for (std::int64_t j = 0; j < base.cols; ++j) {
        m.col_idx.push_back(static_cast<std::int32_t>(j));
        m.values.push_back(static_cast<T>(0.5 + 0.25 * static_cast<double>(j % 3)) * (j % 2 ? T(-1) : T(1)));
      }
    } else {
      for (auto p = base.row_ptr[static_cast<std::size_t>(i)]; p < base.row_ptr[static_cast<std::size_t>(i + 1)]; ++p) {
        m.col_idx.push_back(base.col_idx[static_cast<std::size_t>(p)]);
        m.values.push_back(base.values[static_cast<std::size_t>(p)]);
      }
    }
    m.row_ptr.push_back(static_cast<std::int32_t>(m.col_idx.size()));
  }
  return m;
}

struct AlphaBeta {
  double alpha, beta;
  bool nan_y;
};
const AlphaBeta alpha_betas[] = {{1.0, 0.0, false}, {-0.5, 2.0, false}, {0.75, 0.0, true}, {0.0, 1.5, false}};
const std::int64_t ks[] = {1, 3, 8, 17, 32, 33, 64};

}  // namespace

TEST_CASE_TEMPLATE("spmm: known answer on every device", T, float, double) {
  // A = [[1, 0, 2], [0, 0, 0], [0, 3, 0]], X = [[1, 2], [3, 4], [5, 6]], Y = 1: Y = 2 A X - Y.
  HostCsr<T> h;
  h.rows = h.cols = 3;
  h.row_ptr = {0, 2, 2, 3};
  h.col_idx = {2, 0, 1};  // unsorted
  h.values = {T(2), T(1), T(3)};
  const std::vector<T> want = {21, 27, -1, -1, 17, 23};
  for (const Device& d : all_devices())
    run_on_device<T>(d, Op::spmm, [&](const Device& dev) {
      const auto A = CsrMatrix<T>::from_host(dev, h);
      const auto X = DenseMatrix<T>::from_host(dev, 3, 2, {1, 2, 3, 4, 5, 6});
      auto Y = DenseMatrix<T>::from_host(dev, 3, 2, std::vector<T>(6, T(1)));
      spmm(T(2), A, X, T(-1), Y);
      check_bitwise(Y.to_host(), want, "spmm known answer on " + dev.spec());
    });
}

TEST_CASE_TEMPLATE("spmm: k = 1..64, irregular matrices, alpha and beta", T, float, double) {
  std::uint32_t seed = 10;
  const std::vector<std::pair<std::string, HostCsr<T>>> matrices = {
      {"random with empty rows", local_random_csr<T>(301, 257, 0, 12, 5, false, 0.2)},
      {"unsorted columns, rows 1..40", local_random_csr<T>(97, 203, 1, 40, 6, true)},
      {"power law", power_law_csr<T>(400, 2.0, 1, 300, 7)},
      {"one dense row", with_dense_row(local_random_csr<T>(150, 180, 0, 6, 8), 77)},
  };
  for (const auto& [name, h] : matrices)
    for (const std::int64_t k : ks)
      for (const AlphaBeta& ab : alpha_betas) {
        seed += 2;
        spmm_case<T>(h, name, k, ab.alpha, ab.beta, ab.nan_y, {}, seed);
      }
}

// Rows of thousands of entries beside short ones: on CUDA the long rows are cut into chunks
// (8 192 entries at k = 1, 1 024 at k = 8, 256 from k = 32 on), summed per chunk and then per row,
// in passes of 64 columns past k = 64.
TEST_CASE_TEMPLATE("spmm: rows of thousands of entries (chunks, passes)", T, float, double) {
  const HostCsr<T> base = local_random_csr<T>(90, 20011, 0, 7, 61, true, 0.1);
  const HostCsr<T> h = with_dense_row(with_dense_row(with_dense_row(base, 3), 40), 89);
  std::uint32_t seed = 200;
  for (const std::int64_t k : {std::int64_t{1}, std::int64_t{8}, std::int64_t{33}, std::int64_t{100}}) {
    seed += 2;
    spmm_case<T>(h, "three dense rows of 20011", k, 0.5, -1.5, false, {}, seed);
    spmm_case<T>(h, "three dense rows of 20011", k, -1.0, 0.0, true, {1, 2, 3}, seed + 1);
  }
}

// A backend may keep per-matrix work (CUDA lists a matrix's long rows and their chunks once per
// matrix and chunk size, with per-row counters the kernels reset): one matrix called again and
// again with k changing (the chunk size with it), beside other long-row matrices rebuilt each
// round, and after update_values, must give the reference's result every time.
TEST_CASE_TEMPLATE("spmm: one long-row matrix, many calls, k changing, interleaved with others", T, float, double) {
  const HostCsr<T> h1 = with_dense_row(with_dense_row(local_random_csr<T>(70, 9001, 0, 5, 301, true, 0.1), 5), 60);
  HostCsr<T> h1b = h1;  // the same structure, other values (update_values)
  for (std::size_t p = 0; p < h1b.values.size(); ++p) h1b.values[p] = static_cast<T>(0.5 - 0.125 * static_cast<double>(p % 9));
  const HostCsr<T> h2 = with_dense_row(local_random_csr<T>(50, 9001, 0, 3, 302, true, 0.1), 17);
  const std::int64_t k_order[] = {8, 1, 8, 100, 33, 8};
  const T alpha = T(1.5), beta = T(-0.5);
  struct Want {
    std::vector<T> y;
    std::vector<double> bound;
  };
  // Y = alpha A X + beta Y0 for each k, with the bound of spmm_case (the reference on |.|).
  const auto want_for = [&](const HostCsr<T>& h, std::int64_t k, std::uint32_t seed, Want& w) {
    const Device ref = reference_device();
    const auto hx = random_vector<T>(static_cast<std::size_t>(h.cols * k), seed);
    const auto hy = random_vector<T>(static_cast<std::size_t>(h.rows * k), seed + 1);
    const auto run = [&](const HostCsr<T>& m, const std::vector<T>& x, const std::vector<T>& y, T a, T b) {
      auto Y = DenseMatrix<T>::from_host(ref, h.rows, k, y);
      spmm(a, CsrMatrix<T>::from_host(ref, m), DenseMatrix<T>::from_host(ref, h.cols, k, x), b, Y);
      return Y.to_host();
    };
    w.y = run(h, hx, hy, alpha, beta);
    const auto mag = run(abs_values(h), abs_of(hx), abs_of(hy), std::abs(alpha), std::abs(beta));
    w.bound.resize(mag.size());
    for (std::size_t e = 0; e < mag.size(); ++e) {
      const auto i = static_cast<std::size_t>(static_cast<std::int64_t>(e) / k);
      w.bound[e] = gamma_bound<T>(static_cast<double>(h.row_ptr[i + 1] - h.row_ptr[i]) + 2.0) *
                   static_cast<double>(mag[e]);
    }
  };
  std::vector<Want> w1(std::size(k_order)), w1b(std::size(k_order)), w2(std::size(k_order));
  if (!on_reference("spmm many calls", [&] {
        for (std::size_t c = 0; c < std::size(k_order); ++c) {
          const auto seed = static_cast<std::uint32_t>(310 + 4 * c);
          want_for(h1, k_order[c], seed, w1[c]);
          want_for(h1b, k_order[c], seed, w1b[c]);
          want_for(h2, k_order[c], seed + 2, w2[c]);
        }
      }))
    return;
  for_each_device<T>(Op::spmm, [&](const Device& d) {
    auto A1 = CsrMatrix<T>::from_host(d, h1);
    for (int round = 0; round < 2; ++round) {
      if (round == 1) A1.update_values(h1b.values);
      for (std::size_t c = 0; c < std::size(k_order); ++c) {
        const std::int64_t k = k_order[c];
        const auto seed = static_cast<std::uint32_t>(310 + 4 * c);
        const auto run = [&](const CsrMatrix<T>& A, const HostCsr<T>& h, std::uint32_t sd) {
          auto Y = DenseMatrix<T>::from_host(d, h.rows, k, random_vector<T>(static_cast<std::size_t>(h.rows * k), sd + 1));
          spmm(alpha, A, DenseMatrix<T>::from_host(d, h.cols, k, random_vector<T>(static_cast<std::size_t>(h.cols * k), sd)),
               beta, Y);
          return Y.to_host();
        };
        const Want& want = round == 0 ? w1[c] : w1b[c];
        const std::string at = " on " + d.spec() + ", round " + std::to_string(round) + ", k = " + std::to_string(k);
        check_close(run(A1, h1, seed), want.y, want.bound, "A1" + at);
        const auto A2 = CsrMatrix<T>::from_host(d, h2);  // rebuilt each call
        check_close(run(A2, h2, seed + 2), w2[c].y, w2[c].bound, "A2" + at);
      }
    }
  });
}

TEST_CASE_TEMPLATE("spmm: blocks at offsets with padded leading dimensions", T, float, double) {
  const HostCsr<T> h = local_random_csr<T>(123, 91, 0, 9, 21, true, 0.1);
  std::uint32_t seed = 100;
  for (const std::int64_t k : {std::int64_t{1}, std::int64_t{3}, std::int64_t{32}, std::int64_t{64}})
    for (const SpmmLayout lay : {SpmmLayout{3, 5, 7}, SpmmLayout{1, 0, 1}, SpmmLayout{0, 2, 0}}) {
      seed += 2;
      spmm_case<T>(h, "offset block", k, 1.25, -0.5, false, lay, seed);
      spmm_case<T>(h, "offset block", k, -1.0, 0.0, true, lay, seed + 1);
    }
}

// X above a quarter of a 32 MiB last-level cache: the cpu device prefetches rows of X ahead.
TEST_CASE_TEMPLATE("spmm: an X larger than the caches (prefetched rows)", T, float, double) {
  const HostCsr<T> h = local_random_csr<T>(3001, 300007, 0, 12, 51, true, 0.05);
  spmm_case<T>(h, "wide", 8, 1.0, 0.5, false, {}, 52);
  spmm_case<T>(h, "wide", 33, -1.0, 0.0, true, {0, 1, 2}, 54);
}

TEST_CASE_TEMPLATE("spmm: edge shapes (no rows, no columns, no entries, k beyond 64)", T, float, double) {
  spmm_case<T>(local_random_csr<T>(40, 30, 0, 0, 31), "no entries", 5, 1.0, 1.0, false, {}, 32);
  spmm_case<T>(local_random_csr<T>(1, 1, 1, 1, 33), "1 x 1", 64, 2.0, 0.0, true, {}, 34);
  spmm_case<T>(local_random_csr<T>(57, 41, 1, 9, 35), "k = 100", 100, 1.0, 0.5, false, {1, 3, 2}, 36);
  for (const Device& d : all_devices())
    run_on_device<T>(d, Op::spmm, [&](const Device& dev) {
      // A with no rows, and k = 0: nothing to compute, nothing written.
      const auto A0 = CsrMatrix<T>::from_host(dev, local_random_csr<T>(0, 5, 1, 2, 37));
      const auto X = DenseMatrix<T>::from_host(dev, 5, 2, random_vector<T>(10, 38));
      DenseMatrix<T> Y0(dev, 0, 2);
      spmm(T(1), A0, X, T(0), Y0);
      const auto A = CsrMatrix<T>::from_host(dev, local_random_csr<T>(4, 5, 1, 2, 39));
      const auto X0 = DenseMatrix<T>::from_host(dev, 5, 0, std::vector<T>{});
      auto Yk0 = DenseMatrix<T>::from_host(dev, 4, 0, std::vector<T>{});
      spmm(T(1), A, X0, T(0), Yk0);
    });
}
