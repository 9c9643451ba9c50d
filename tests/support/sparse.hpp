// Sparse test matrices built here, independent of tessera/generate.hpp (so the basic SpMV and
// sparse-triangular tests do not depend on the generators being right), and host-side checks
// for triangular solves.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>
#include <vector>

#include "support/random.hpp"
#include "tessera/tessera.hpp"

namespace tessera_test {

template <class To, class From>
tessera::HostCsr<To> convert(const tessera::HostCsr<From>& a) {
  tessera::HostCsr<To> b;
  b.rows = a.rows;
  b.cols = a.cols;
  b.row_ptr = a.row_ptr;
  b.col_idx = a.col_idx;
  b.values.assign(a.values.begin(), a.values.end());
  return b;
}

template <class T>
tessera::HostCsr<T> abs_values(tessera::HostCsr<T> a) {
  for (auto& v : a.values) v = std::abs(v);
  return a;
}

// rows x cols, each row with a uniformly random length in [min_len, max_len] (capped at cols) of
// distinct random columns, values in [-1, -0.1] U [0.1, 1]. A fraction `empty_rows` of the rows
// is left empty. Columns are sorted within each row unless `shuffle` is set.
template <class T>
tessera::HostCsr<T> local_random_csr(std::int64_t rows, std::int64_t cols, int min_len, int max_len,
                                     std::uint32_t seed, bool shuffle = false, double empty_rows = 0.0) {
  Rng rng(seed);
  tessera::HostCsr<T> a;
  a.rows = rows;
  a.cols = cols;
  a.row_ptr.assign(1, 0);
  // A permutation of the columns; each row takes a fresh random prefix (partial Fisher-Yates).
  std::vector<std::int32_t> perm(static_cast<std::size_t>(cols));
  std::iota(perm.begin(), perm.end(), 0);
  for (std::int64_t i = 0; i < rows; ++i) {
    std::int64_t len = min_len + rng.index(max_len - min_len + 1);
    if (rng.coin(empty_rows)) len = 0;
    len = std::min<std::int64_t>(len, cols);
    for (std::int64_t k = 0; k < len; ++k) {
      const std::int64_t j = k + rng.index(cols - k);
      std::swap(perm[static_cast<std::size_t>(k)], perm[static_cast<std::size_t>(j)]);
    }
    std::vector<std::int32_t> row(perm.begin(), perm.begin() + len);
    if (!shuffle) std::sort(row.begin(), row.end());
    for (std::int32_t c : row) {
      a.col_idx.push_back(c);
      a.values.push_back(static_cast<T>(rng.nonzero()));
    }
    a.row_ptr.push_back(static_cast<std::int32_t>(a.col_idx.size()));
  }
  return a;
}

// Reverses the column order within every row (same matrix, unsorted storage).
template <class T>
tessera::HostCsr<T> reverse_rows(tessera::HostCsr<T> a) {
  for (std::int64_t i = 0; i < a.rows; ++i) {
    const auto b = a.row_ptr[static_cast<std::size_t>(i)], e = a.row_ptr[static_cast<std::size_t>(i + 1)];
    std::reverse(a.col_idx.begin() + b, a.col_idx.begin() + e);
    std::reverse(a.values.begin() + b, a.values.begin() + e);
  }
  return a;
}

// The options of a generated sparse triangular system.
struct TriangularSpec {
  tessera::Uplo uplo = tessera::Uplo::lower;
  tessera::Diag diag = tessera::Diag::non_unit;
  int max_per_row = 6;            // strict-triangle entries per row, at most
  bool other_triangle = true;     // also store entries in the other triangle (value NaN: must be ignored)
  bool store_unit_diagonal = true;  // with Diag::unit, store a diagonal of 1000 (must be ignored)
  bool shuffle = false;           // unsorted columns within rows
  bool chain = false;             // one strict entry per row, on the neighbour: n dependent levels
  // > 0: the rows, in dependency order, cut into this many equal bands; a row of band b > 0 takes
  // 1..max_per_row entries from band b - 1 only: exactly `bands` levels, each as wide as a band.
  int bands = 0;
};

// n x n system whose named triangle is well conditioned: |diagonal| in [2, 3] with a random
// sign, strict-triangle entries uniform in [-1, 1] / (their count), so each row's off-diagonal
// magnitude sum is below 1 and ||T^{-1}||_inf <= 1 / (2 - 1) (Varah's bound for row-diagonally
// dominant matrices).
template <class T>
tessera::HostCsr<T> triangular_system(std::int64_t n, const TriangularSpec& spec, std::uint32_t seed) {
  Rng rng(seed);
  const bool lower = spec.uplo == tessera::Uplo::lower;
  tessera::HostCsr<T> a;
  a.rows = a.cols = n;
  a.row_ptr.assign(1, 0);
  for (std::int64_t i = 0; i < n; ++i) {
    std::vector<std::pair<std::int32_t, T>> row;
    const std::int64_t strict = lower ? i : n - 1 - i;  // candidates in the strict triangle
    std::vector<std::int64_t> picks;
    if (spec.chain) {
      if (strict > 0) picks.push_back(lower ? i - 1 : i + 1);
    } else if (spec.bands > 0) {
      const std::int64_t band_rows = (n + spec.bands - 1) / spec.bands;
      const std::int64_t pos = lower ? i : n - 1 - i, band = pos / band_rows;
      if (band > 0) {
        const std::int64_t want = 1 + rng.index(spec.max_per_row);
        for (std::int64_t t = 0; t < want; ++t) {
          const std::int64_t q = (band - 1) * band_rows + rng.index(band_rows);  // a position of the band before
          const std::int64_t j = lower ? q : n - 1 - q;
          if (std::find(picks.begin(), picks.end(), j) == picks.end()) picks.push_back(j);
        }
      }
    } else {
      const std::int64_t want = std::min<std::int64_t>(strict, rng.index(spec.max_per_row + 1));
      for (std::int64_t t = 0; t < want; ++t) {
        const std::int64_t j = lower ? rng.index(i) : i + 1 + rng.index(n - 1 - i);
        if (std::find(picks.begin(), picks.end(), j) == picks.end()) picks.push_back(j);
      }
    }
    for (std::int64_t j : picks)
      row.emplace_back(static_cast<std::int32_t>(j),
                       static_cast<T>(rng.signed_unit() / static_cast<double>(picks.size())));
    if (spec.diag == tessera::Diag::non_unit) {
      const double d = rng.uniform(2.0, 3.0);
      row.emplace_back(static_cast<std::int32_t>(i), static_cast<T>(rng.coin(0.5) ? d : -d));
    } else if (spec.store_unit_diagonal && rng.coin(0.7)) {
      row.emplace_back(static_cast<std::int32_t>(i), static_cast<T>(1000));
    }
    const std::int64_t other = lower ? n - 1 - i : i;
    if (spec.other_triangle && other > 0) {
      const int count = 1 + static_cast<int>(rng.index(3));
      for (int t = 0; t < count; ++t) {
        const std::int64_t j = lower ? i + 1 + rng.index(other) : rng.index(other);
        if (std::none_of(row.begin(), row.end(), [&](const auto& e) { return e.first == j; }))
          row.emplace_back(static_cast<std::int32_t>(j), std::numeric_limits<T>::quiet_NaN());
      }
    }
    std::sort(row.begin(), row.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
    if (spec.shuffle) std::reverse(row.begin(), row.end());
    for (const auto& e : row) {
      a.col_idx.push_back(e.first);
      a.values.push_back(e.second);
    }
    a.row_ptr.push_back(static_cast<std::int32_t>(a.col_idx.size()));
  }
  return a;
}

// Componentwise residual of a computed triangular solution, in long double:
//   r_i = b_i - sum_{j in triangle} t_ij x_j     (t_ii = 1 with Diag::unit; stored diagonal ignored)
//   m_i = |b_i| + sum |t_ij| |x_j|                (the magnitude the backward-error bound scales)
//   k_i = number of terms in row i.
// Substitution in any order is componentwise backward stable, |dT| <= gamma_k |T|, so a correct
// solver has |r_i| <= gamma_{k_i + 1} m_i.
struct TriangularResidual {
  std::vector<long double> r, m;
  std::vector<int> k;
};

template <class T>
TriangularResidual triangular_residual(const tessera::HostCsr<T>& a, tessera::Uplo uplo, tessera::Diag diag,
                                       const std::vector<T>& x, const std::vector<T>& b) {
  const bool lower = uplo == tessera::Uplo::lower;
  TriangularResidual res;
  const auto n = static_cast<std::size_t>(a.rows);
  res.r.resize(n);
  res.m.resize(n);
  res.k.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    long double s = 0, m = 0;
    int k = 0;
    if (diag == tessera::Diag::unit) {
      s = x[i];
      m = std::abs(static_cast<long double>(x[i]));
      k = 1;
    }
    for (auto p = a.row_ptr[i]; p < a.row_ptr[i + 1]; ++p) {
      const auto j = static_cast<std::size_t>(a.col_idx[static_cast<std::size_t>(p)]);
      const bool strict = lower ? j < i : j > i;
      const bool use = strict || (j == i && diag == tessera::Diag::non_unit);
      if (!use) continue;
      const long double t = static_cast<long double>(a.values[static_cast<std::size_t>(p)]) * x[j];
      s += t;
      m += std::abs(t);
      ++k;
    }
    res.r[i] = static_cast<long double>(b[i]) - s;
    res.m[i] = std::abs(static_cast<long double>(b[i])) + m;
    res.k[i] = k;
  }
  return res;
}

// Varah's bound: ||T^{-1}||_inf <= 1 / min_i (|t_ii| - sum_{j != i, in triangle} |t_ij|) when that
// minimum is positive; returns infinity otherwise.
template <class T>
double inverse_norm_bound(const tessera::HostCsr<T>& a, tessera::Uplo uplo, tessera::Diag diag) {
  const bool lower = uplo == tessera::Uplo::lower;
  double delta = std::numeric_limits<double>::infinity();
  for (std::int64_t i = 0; i < a.rows; ++i) {
    double d = diag == tessera::Diag::unit ? 1.0 : 0.0, off = 0.0;
    for (auto p = a.row_ptr[static_cast<std::size_t>(i)]; p < a.row_ptr[static_cast<std::size_t>(i + 1)]; ++p) {
      const std::int64_t j = a.col_idx[static_cast<std::size_t>(p)];
      const double v = static_cast<double>(a.values[static_cast<std::size_t>(p)]);
      if (j == i && diag == tessera::Diag::non_unit) d += v;
      if (lower ? j < i : j > i) off += std::abs(v);
    }
    delta = std::min(delta, std::abs(d) - off);
  }
  if (a.rows == 0) return 0.0;
  return delta > 0 ? 1.0 / delta : std::numeric_limits<double>::infinity();
}

}  // namespace tessera_test
