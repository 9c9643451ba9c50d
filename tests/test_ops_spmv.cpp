// spmv: y = alpha * A * x + beta * y on every device against the reference.
//
// Bound per row i with k_i stored entries: the row sum has k_i products plus the alpha and beta
// terms, so |y_i - y_ref_i| <= gamma_{k_i + 2} (|alpha| sum_j |a_ij x_j| + |beta y_i|). The
// magnitudes are computed by the reference itself on |alpha|, |A|, |x|, |beta|, |y| (a sum of
// non-negative terms in double, whose own rounding is negligible next to the bound).
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "support/compare.hpp"
#include "support/devices.hpp"
#include "support/random.hpp"
#include "support/sparse.hpp"
#include "tessera/tessera.hpp"

using namespace tessera;
using namespace tessera_test;

namespace {

struct AlphaBeta {
  double alpha, beta;
  bool nan_y;  // y holds NaN on entry (with beta == 0 it must not propagate)
};

const AlphaBeta alpha_betas[] = {
    {1.0, 0.0, false}, {1.0, 1.0, false}, {-0.5, 2.0, false}, {0.75, 0.0, true}, {0.0, 1.5, false}, {2.0, -1.0, false},
};

template <class T>
void spmv_case(const HostCsr<T>& h, const std::string& name, std::uint32_t seed) {
  const Device ref = reference_device();
  const auto hx = random_vector<T>(static_cast<std::size_t>(h.cols), seed);
  const auto hy0 = random_vector<T>(static_cast<std::size_t>(h.rows), seed + 1);
  CsrMatrix<T> A_ref, absA_ref;
  if (!on_reference("building the matrix", [&] {
        A_ref = CsrMatrix<T>::from_host(ref, h);
        absA_ref = CsrMatrix<T>::from_host(ref, abs_values(h));
      }))
    return;
  std::vector<double> row_terms(static_cast<std::size_t>(h.rows));
  for (std::size_t i = 0; i < row_terms.size(); ++i)
    row_terms[i] = static_cast<double>(h.row_ptr[i + 1] - h.row_ptr[i]) + 2.0;

  for (const AlphaBeta& ab : alpha_betas) {
    std::ostringstream what;
    what << "spmv " << name << " (" << h.rows << " x " << h.cols << ", nnz " << h.nnz() << ") alpha=" << ab.alpha
         << " beta=" << ab.beta << (ab.nan_y ? " y=NaN" : "");
    const T alpha = static_cast<T>(ab.alpha), beta = static_cast<T>(ab.beta);
    std::vector<T> hy = hy0;
    if (ab.nan_y) hy.assign(hy.size(), std::numeric_limits<T>::quiet_NaN());

    std::vector<T> expected, magnitude;
    if (!on_reference(what.str().c_str(), [&] {
          const Vector<T> x = Vector<T>::from_host(ref, hx);
          Vector<T> y = Vector<T>::from_host(ref, hy);
          spmv(alpha, A_ref, x, beta, y);
          expected = y.to_host();
          const Vector<T> ax = Vector<T>::from_host(ref, abs_of(hx));
          Vector<T> ay = Vector<T>::from_host(ref, ab.nan_y ? std::vector<T>(hy.size(), T(0)) : abs_of(hy));
          spmv(static_cast<T>(std::abs(ab.alpha)), absA_ref, ax, static_cast<T>(std::abs(ab.beta)), ay);
          magnitude = ay.to_host();
        }))
      continue;
    if (ab.nan_y) CHECK_MESSAGE(all_finite(expected), what.str() << ": the reference propagated NaN from y");
    std::vector<double> bound(expected.size());
    for (std::size_t i = 0; i < bound.size(); ++i)
      bound[i] = gamma_bound<T>(row_terms[i]) * static_cast<double>(magnitude[i]);

    for_each_device<T>(Op::spmv, [&](const Device& d) {
      const CsrMatrix<T> A = CsrMatrix<T>::from_host(d, h);
      const Vector<T> x = Vector<T>::from_host(d, hx);
      Vector<T> y = Vector<T>::from_host(d, hy);
      spmv(alpha, A, x, beta, y);
      const auto got = y.to_host();
      if (ab.nan_y) CHECK_MESSAGE(all_finite(got), what.str() << ": NaN in y propagated although beta == 0");
      check_close(got, expected, bound, what.str());
      check_bitwise(x.to_host(), hx, what.str() + ": x modified");
      // The same matrix again (a backend may cache a per-matrix plan keyed by its generation).
      Vector<T> y2 = Vector<T>::from_host(d, hy);
      spmv(alpha, A, x, beta, y2);
      check_close(y2.to_host(), expected, bound, what.str() + " (second call, same matrix)");
    });
  }
}

// Runs a generator from tessera/generate.hpp; a generator that throws fails the test case.
template <class T>
bool generated(const char* name, const std::function<HostCsr<T>()>& make, HostCsr<T>& out) {
  try {
    out = make();
    return true;
  } catch (const std::exception& e) {
    FAIL_CHECK("generator " << std::string(name) << " threw: " << std::string(e.what()));
  }
  return false;
}

// `base` with some rows replaced by rows of the given lengths (distinct random columns).
template <class T>
HostCsr<T> with_long_rows(const HostCsr<T>& base, const std::vector<std::pair<std::int64_t, int>>& long_rows,
                          std::uint32_t seed) {
  HostCsr<T> m;
  m.rows = base.rows;
  m.cols = base.cols;
  m.row_ptr.assign(1, 0);
  for (std::int64_t i = 0; i < base.rows; ++i) {
    HostCsr<T> replacement;
    const HostCsr<T>* src = &base;
    std::int64_t r = i;
    for (const auto& [row, len] : long_rows)
      if (row == i) {
        replacement = local_random_csr<T>(1, base.cols, len, len, seed + static_cast<std::uint32_t>(i));
        src = &replacement;
        r = 0;
      }
    for (auto p = src->row_ptr[static_cast<std::size_t>(r)]; p < src->row_ptr[static_cast<std::size_t>(r + 1)]; ++p) {
      m.col_idx.push_back(src->col_idx[static_cast<std::size_t>(p)]);
      m.values.push_back(src->values[static_cast<std::size_t>(p)]);
    }
    m.row_ptr.push_back(static_cast<std::int32_t>(m.col_idx.size()));
  }
  return m;
}

}  // namespace

TEST_CASE_TEMPLATE("spmv: known answer on every device, the reference included", T, float, double) {
  // A = [ 1  0  2  0 ]      x = [1, 2, 3, 4]
  //     [ 0  0  0  0 ]      A x = [7, 0, 14]  (row 2 stored in unsorted column order)
  //     [ 0 -1  0  4 ]
  const std::vector<std::int32_t> rp = {0, 2, 2, 4}, ci = {0, 2, 3, 1};
  const std::vector<T> v = {T(1), T(2), T(4), T(-1)};
  for (const Device& d : all_devices()) {
    run_on_device<T>(d, Op::spmv, [&](const Device& dev) {
      const auto A = CsrMatrix<T>::from_host(dev, 3, 4, rp, ci, v);
      const auto x = Vector<T>::from_host(dev, {T(1), T(2), T(3), T(4)});
      auto y = Vector<T>::from_host(dev, {T(1), T(1), T(1)});
      spmv(T(2), A, x, T(-0.5), y);
      CHECK(y.to_host() == std::vector<T>{T(13.5), T(-0.5), T(27.5)});
      spmv(T(1), A, x, T(0), y);
      CHECK(y.to_host() == std::vector<T>{T(7), T(0), T(14)});
    });
  }
}

TEST_CASE_TEMPLATE("spmv: small and edge-case matrices (local generator)", T, float, double) {
  spmv_case(local_random_csr<T>(0, 0, 0, 0, 1), "0 x 0", 10);
  spmv_case(local_random_csr<T>(0, 5, 0, 0, 1), "0 rows", 11);
  spmv_case(local_random_csr<T>(5, 0, 0, 0, 1), "0 cols (every row empty)", 12);
  spmv_case(local_random_csr<T>(1, 1, 1, 1, 2), "1 x 1", 13);
  spmv_case(local_random_csr<T>(7, 13, 0, 5, 3, false, 0.3), "7 x 13 with empty rows", 14);
  spmv_case(local_random_csr<T>(13, 7, 0, 7, 4), "13 x 7", 15);
  spmv_case(local_random_csr<T>(31, 31, 1, 31, 5), "31 x 31", 16);
  spmv_case(local_random_csr<T>(64, 64, 0, 0, 5), "64 x 64, no entries", 17);
  spmv_case(local_random_csr<T>(129, 257, 0, 40, 6, false, 0.2), "129 x 257", 18);
  spmv_case(local_random_csr<T>(257, 129, 5, 129, 7), "257 x 129, some dense rows", 19);
  spmv_case(local_random_csr<T>(257, 257, 0, 20, 8, true, 0.1), "257 x 257, unsorted columns", 20);
  spmv_case(reverse_rows(local_random_csr<T>(65, 65, 0, 65, 9)), "65 x 65, columns in descending order", 21);
  spmv_case(local_random_csr<T>(3, 4000, 1000, 4000, 10), "3 x 4000, long rows", 22);
  spmv_case(local_random_csr<T>(4001, 3, 0, 3, 11), "4001 x 3", 23);
  // Duplicate column entries within a row are legal CSR (validation allows them); every stored
  // entry contributes its product, as the reference and the Matrix Market reader's summing do.
  {
    auto h = local_random_csr<T>(40, 30, 1, 8, 14);
    HostCsr<T> m;
    m.rows = h.rows;
    m.cols = h.cols;
    m.row_ptr.assign(1, 0);
    for (std::int64_t i = 0; i < h.rows; ++i) {
      for (auto p = h.row_ptr[static_cast<std::size_t>(i)]; p < h.row_ptr[static_cast<std::size_t>(i + 1)]; ++p) {
        const auto q = static_cast<std::size_t>(p);
        m.col_idx.push_back(h.col_idx[q]);
        m.values.push_back(h.values[q]);
        if (p % 3 == 0) {  // the same column again, with another value
          m.col_idx.push_back(h.col_idx[q]);
          m.values.push_back(static_cast<T>(-0.5) * h.values[q] + static_cast<T>(0.25));
        }
      }
      m.row_ptr.push_back(static_cast<std::int32_t>(m.col_idx.size()));
    }
    spmv_case(m, "40 x 30 with duplicate entries", 25);
  }
  // One long row among short ones (load imbalance for row-per-thread kernels).
  {
    auto h = local_random_csr<T>(300, 2000, 0, 3, 12);
    auto dense_row = local_random_csr<T>(1, 2000, 2000, 2000, 13);
    HostCsr<T> m;
    m.rows = 301;
    m.cols = 2000;
    m.row_ptr.assign(1, 0);
    for (std::int64_t i = 0; i < 301; ++i) {
      const HostCsr<T>& src = i == 150 ? dense_row : h;
      const std::int64_t r = i == 150 ? 0 : (i < 150 ? i : i - 1);
      for (auto p = src.row_ptr[static_cast<std::size_t>(r)]; p < src.row_ptr[static_cast<std::size_t>(r + 1)]; ++p) {
        m.col_idx.push_back(src.col_idx[static_cast<std::size_t>(p)]);
        m.values.push_back(src.values[static_cast<std::size_t>(p)]);
      }
      m.row_ptr.push_back(static_cast<std::int32_t>(m.col_idx.size()));
    }
    spmv_case(m, "301 x 2000, one dense row", 24);
  }
}

TEST_CASE_TEMPLATE("spmv: generated matrices (tessera/generate.hpp)", T, float, double) {
  HostCsr<T> h;
  if (generated<T>("random_csr", [] { return random_csr<T>(1000, 1000, 0, 20, 42); }, h))
    spmv_case(h, "random_csr 1000 x 1000, 0..20 per row", 30);
  if (generated<T>("random_csr", [] { return random_csr<T>(257, 1031, 1, 64, 43); }, h))
    spmv_case(h, "random_csr 257 x 1031, 1..64 per row", 31);
  if (generated<T>("random_csr", [] { return random_csr<T>(2003, 17, 0, 17, 44); }, h))
    spmv_case(h, "random_csr 2003 x 17", 32);
  if (generated<T>("power_law_csr", [] { return power_law_csr<T>(3001, 1.5, 1, 1000, 45); }, h))
    spmv_case(h, "power_law_csr 3001, exponent 1.5, 1..1000", 33);
  if (generated<T>("laplacian_2d", [] { return laplacian_2d<T>(33, 17); }, h))
    spmv_case(h, "laplacian_2d 33 x 17", 34);
  if (generated<T>("laplacian_3d", [] { return laplacian_3d<T>(13, 11, 7); }, h))
    spmv_case(h, "laplacian_3d 13 x 11 x 7", 35);
  if (generated<T>("laplacian_3d", [] { return laplacian_3d<T>(40, 40, 40); }, h))
    spmv_case(h, "laplacian_3d 40^3", 36);
}

TEST_CASE_TEMPLATE("spmv: one matrix, many calls, interleaved with other matrices", T, float, double) {
  // A backend may cache analysis per matrix (CsrView::generation): results must stay right when
  // matrices of the same shape alternate, and after a matrix is destroyed and another is built.
  const Device ref = reference_device();
  const auto h1 = local_random_csr<T>(200, 200, 0, 30, 71);
  const auto h2 = local_random_csr<T>(200, 200, 0, 3, 72);
  // Skewed, rows up to 3000 (merge path or CUDA's split chunks; their per-matrix plans).
  const auto h3 = with_long_rows(local_random_csr<T>(200, 5000, 0, 3, 74), {{7, 3000}, {150, 2100}, {151, 300}}, 75);
  const auto hx = random_vector<T>(200, 73), hx3 = random_vector<T>(5000, 76);
  std::vector<T> e1, e2, e3;
  if (!on_reference("interleaved", [&] {
        const auto x = Vector<T>::from_host(ref, hx);
        Vector<T> y(ref, 200);
        spmv(T(1), CsrMatrix<T>::from_host(ref, h1), x, T(0), y);
        e1 = y.to_host();
        spmv(T(1), CsrMatrix<T>::from_host(ref, h2), x, T(0), y);
        e2 = y.to_host();
        spmv(T(1), CsrMatrix<T>::from_host(ref, h3), Vector<T>::from_host(ref, hx3), T(0), y);
        e3 = y.to_host();
      }))
    return;
  const double bound = gamma_bound<T>(32) * 30, bound3 = gamma_bound<T>(3002) * 3000;
  for_each_device<T>(Op::spmv, [&](const Device& d) {
    const auto x = Vector<T>::from_host(d, hx);
    Vector<T> y(d, 200);
    const auto x3 = Vector<T>::from_host(d, hx3);
    const auto A1 = CsrMatrix<T>::from_host(d, h1);
    const auto A3 = CsrMatrix<T>::from_host(d, h3);
    for (int round = 0; round < 3; ++round) {
      spmv(T(1), A3, x3, T(0), y);
      check_close(y.to_host(), e3, bound3, "A3, round " + std::to_string(round));
      spmv(T(1), A1, x, T(0), y);
      check_close(y.to_host(), e1, bound, "A1, round " + std::to_string(round));
      const auto A2 = CsrMatrix<T>::from_host(d, h2);  // rebuilt each round
      spmv(T(1), A2, x, T(0), y);
      check_close(y.to_host(), e2, bound, "A2, round " + std::to_string(round));
    }
  });
}

TEST_CASE_TEMPLATE("spmv: skewed rows, the longest far above the mean (merge path or split on gpu profiles)", T, float,
                   double) {
  // Rows much longer than the GPU kernels' tiles (1024 rows + nonzeros on NVIDIA and AMD), at
  // the first and last row and side by side, among short and empty rows: rows split across
  // many tiles and work-items, completed through the carries.
  const auto base = local_random_csr<T>(7919, 30011, 0, 6, 81, false, 0.2);
  spmv_case(with_long_rows(base, {{0, 25013}, {3001, 5003}, {3002, 4099}, {3003, 1}, {7918, 12007}}, 82),
            "7919 x 30011, rows of 25013, 5003, 4099 and 12007 among 0..6", 83);
  spmv_case(with_long_rows(local_random_csr<T>(7, 9001, 1, 3, 84), {{3, 5003}}, 85), "7 x 9001, one row of 5003", 86);
  spmv_case(with_long_rows(local_random_csr<T>(1031, 2053, 0, 2, 87, false, 0.5), {{1030, 2053}}, 88),
            "1031 x 2053, half empty, last row dense", 89);
  // CUDA's split kernel cuts rows longer than spmv.split_row (32) into chunks of 256 entries (a
  // warp each): rows at and around those edges, a chunk's edge at the matrix's last entry.
  spmv_case(with_long_rows(local_random_csr<T>(3001, 7001, 0, 4, 92),
                           {{0, 32}, {1, 33}, {2, 64}, {3, 256}, {4, 257}, {5, 511}, {6, 512}, {7, 513}, {1500, 4096},
                            {1501, 4097}, {3000, 6144}},
                           93),
            "3001 x 7001, rows of 32, 33, 64, 256, 257, 511, 512, 513, 4096, 4097 and 6144 (last)", 94);
  HostCsr<T> h;
  if (generated<T>("power_law_csr", [] { return power_law_csr<T>(20011, 1.2, 3, 20000, 90); }, h))
    spmv_case(h, "power_law_csr 20011, exponent 1.2, 3..20000", 91);
}
