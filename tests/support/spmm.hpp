// spmm on every device against the reference, for one matrix, k and layout (shared by
// test_ops_spmm.cpp and test_real_matrices.cpp).
//
// Bound per entry (i, j) with k_i stored entries in row i: the sum has k_i products plus the
// alpha and beta terms, so |Y_ij - Yref_ij| <= gamma_{k_i + 2} (|alpha| sum_p |a_ip X_pj| +
// |beta Y_ij|); the magnitudes come from the reference run on |alpha|, |A|, |X|, |beta|, |Y|.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "support/compare.hpp"
#include "support/devices.hpp"
#include "support/random.hpp"
#include "support/sparse.hpp"
#include "tessera/tessera.hpp"

namespace tessera_test {

// Where X and Y sit: blocks at (row_off, col_off) of larger matrices with `pad` spare columns.
struct SpmmLayout {
  std::int64_t row_off = 0, col_off = 0, pad = 0;
};

template <class T>
void spmm_case(const tessera::HostCsr<T>& h, const std::string& name, std::int64_t k, double alpha, double beta,
               bool nan_y, const SpmmLayout& lay, std::uint32_t seed) {
  using namespace tessera;
  const std::int64_t xr = h.cols + lay.row_off, yr = h.rows + lay.row_off, wc = k + lay.col_off + lay.pad;
  // The whole storage of X and Y, random everywhere (the parts outside the blocks must not change).
  const auto hx = random_vector<T>(static_cast<std::size_t>(xr * wc), seed);
  auto hy = random_vector<T>(static_cast<std::size_t>(yr * wc), seed + 1);
  if (nan_y)
    for (std::int64_t i = lay.row_off; i < yr; ++i)
      for (std::int64_t j = lay.col_off; j < lay.col_off + k; ++j)
        hy[static_cast<std::size_t>(i * wc + j)] = std::numeric_limits<T>::quiet_NaN();
  std::ostringstream w;
  w << "spmm " << name << " (" << h.rows << " x " << h.cols << ", nnz " << h.nnz() << ") k=" << k << " alpha=" << alpha
    << " beta=" << beta << (nan_y ? " Y=NaN" : "") << " offset (" << lay.row_off << ", " << lay.col_off << ") ld " << wc;
  const std::string what = w.str();
  const T a = static_cast<T>(alpha), b = static_cast<T>(beta);
  auto run = [&](const Device& d, const HostCsr<T>& m, const std::vector<T>& x, const std::vector<T>& y, T aa, T bb) {
    const CsrMatrix<T> A = CsrMatrix<T>::from_host(d, m);
    const auto X = DenseMatrix<T>::from_host(d, xr, wc, x);
    auto Y = DenseMatrix<T>::from_host(d, yr, wc, y);
    auto Yb = Y.block(lay.row_off, lay.col_off, h.rows, k);
    spmm(aa, A, X.block(lay.row_off, lay.col_off, h.cols, k), bb, Yb);
    return Y.to_host();
  };
  std::vector<T> expected, magnitude;
  if (!on_reference(what.c_str(), [&] {
        expected = run(reference_device(), h, hx, hy, a, b);
        std::vector<T> ay = abs_of(hy);
        if (nan_y) ay.assign(ay.size(), T(0));
        magnitude = run(reference_device(), abs_values(h), abs_of(hx), ay, static_cast<T>(std::abs(alpha)),
                        static_cast<T>(std::abs(beta)));
      }))
    return;
  std::vector<double> bound(expected.size(), 0.0);
  for (std::int64_t i = 0; i < h.rows; ++i)
    for (std::int64_t j = 0; j < k; ++j) {
      const auto at = static_cast<std::size_t>((i + lay.row_off) * wc + j + lay.col_off);
      const double terms = static_cast<double>(h.row_ptr[static_cast<std::size_t>(i + 1)] - h.row_ptr[static_cast<std::size_t>(i)]) + 2.0;
      bound[at] = gamma_bound<T>(terms) * static_cast<double>(magnitude[at]);
    }
  if (nan_y) CHECK_MESSAGE(all_finite(expected), what << ": the reference propagated NaN from Y");
  for_each_device<T>(Op::spmm, [&](const Device& d) {
    const auto got = run(d, h, hx, hy, a, b);
    check_close(got, expected, bound, what);
    check_bitwise_where(got, hy, [&](std::size_t e) {
      const auto i = static_cast<std::int64_t>(e) / wc, j = static_cast<std::int64_t>(e) % wc;
      return i < lay.row_off || j < lay.col_off || j >= lay.col_off + k;
    }, what + ": Y outside the block written");
    if (nan_y) {
      bool finite = true;
      for (std::int64_t i = lay.row_off; i < yr; ++i)
        for (std::int64_t j = lay.col_off; j < lay.col_off + k; ++j)
          finite = finite && std::isfinite(static_cast<double>(got[static_cast<std::size_t>(i * wc + j)]));
      CHECK_MESSAGE(finite, what << ": NaN in Y propagated although beta == 0");
    }
  });
}

}  // namespace tessera_test
