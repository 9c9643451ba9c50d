// Winograd's minimal filtering F(m x m, 3 x 3) (Lavin and Gray, "Fast Algorithms for
// Convolutional Neural Networks", 2016): the transforms a backend may use for conv_layer on 3 x 3
// filters with stride 1, and the error bound that costs (conv_layer's contract, ops.hpp).
//
// One output tile Y (m x m) of one filter g (3 x 3) over one input tile d (a x a, a = m + 2, the
// tiles overlapping by 2):
//   Y = A^T [ sum_c (G g_c G^T) (.) (B^T d_c B) ] A        ((.) = elementwise)
// Backends compute U = G g G^T per (filter, channel), V = B^T d B per (tile, channel), the a^2
// independent channel sums M = sum_c U (.) V as a batched GEMM, and Y = A^T M A; every step in
// the layer's precision (the GEMM in the call's math mode).
//
// Error bound (first order in u, the unit roundoff; Higham's gamma analysis applied to each step,
// as Barabasz et al., "Error analysis and improving the accuracy of Winograd convolution", 2020):
// per output y,
//   |y_computed - y| <= (n_T + k_mode) u E,
//   E = |A^T| [ sum_c (|G| |g_c| |G^T|) (.) (|B^T| |d_c| |B|) ] |A|      (absolute values everywhere)
// where n_T = transform_roundings(m) counts the roundings of the three 2D transforms (each 1D
// pass of a row with t nonzero coefficients: t products, one of them possibly by an inexact
// coefficient such as 1/6, and t - 1 additions: at most t + 1 roundings on any path), and
// k_mode u is the GEMM's bound for its C-term sums (MathMode, types.hpp: C for exact arithmetic;
// the tf32 modes' terms with S replaced by E). E >= sum_c sum_rs |g| |d|, the direct sum's
// magnitude, by a factor that grows with m: F(2 x 2) stays within a few times the direct
// algorithm's error, F(4 x 4) within a few tens of times (tests/test_ops_conv_winograd.cpp).
//
// Plain constexpr functions (no tables), so device code can call them with constant indices and
// the compiler folds every coefficient (CUDA: --expt-relaxed-constexpr).
#pragma once

namespace tessera::winograd {

/// Output tile sides with transforms here.
constexpr bool supported(int m) { return m == 2 || m == 4; }
/// Input tile side a = m + 2 (the filter is 3 x 3).
constexpr int tile(int m) { return m + 2; }

/// B^T (a x a): V = B^T d B. F(2, 3) interpolates at 0, 1, -1 and infinity; F(4, 3) at 0, 1,
/// -1, 2, -2 and infinity.
constexpr double bt(int m, int i, int j) {
  if (m == 2) {
    constexpr double t[4][4] = {{1, 0, -1, 0}, {0, 1, 1, 0}, {0, -1, 1, 0}, {0, 1, 0, -1}};
    return t[i][j];
  }
  constexpr double t[6][6] = {{4, 0, -5, 0, 1, 0},  {0, -4, -4, 1, 1, 0}, {0, 4, -4, -1, 1, 0},
                              {0, -2, -1, 2, 1, 0}, {0, 2, -1, -2, 1, 0}, {0, 4, 0, -5, 0, 1}};
  return t[i][j];
}

/// G (a x 3): U = G g G^T.
constexpr double g(int m, int i, int j) {
  if (m == 2) {
    constexpr double t[4][3] = {{1, 0, 0}, {0.5, 0.5, 0.5}, {0.5, -0.5, 0.5}, {0, 0, 1}};
    return t[i][j];
  }
  constexpr double t[6][3] = {{1.0 / 4, 0, 0},
                              {-1.0 / 6, -1.0 / 6, -1.0 / 6},
                              {-1.0 / 6, 1.0 / 6, -1.0 / 6},
                              {1.0 / 24, 1.0 / 12, 1.0 / 6},
                              {1.0 / 24, -1.0 / 12, 1.0 / 6},
                              {0, 0, 1}};
  return t[i][j];
}

/// A^T (m x a): Y = A^T M A.
constexpr double at(int m, int i, int j) {
  if (m == 2) {
    constexpr double t[2][4] = {{1, 1, 1, 0}, {0, 1, -1, -1}};
    return t[i][j];
  }
  constexpr double t[4][6] = {{1, 1, 1, 1, 1, 0}, {0, 1, -1, 2, -2, 0}, {0, 1, 1, 4, 4, 0}, {0, 1, -1, 8, -8, 1}};
  return t[i][j];
}

namespace detail {
constexpr int max_row_nonzeros(double (*coef)(int, int, int), int m, int rows, int cols) {
  int most = 0;
  for (int i = 0; i < rows; ++i) {
    int nz = 0;
    for (int j = 0; j < cols; ++j) nz += coef(m, i, j) != 0.0;
    most = nz > most ? nz : most;
  }
  return most;
}
}  // namespace detail

/// n_T of the bound: two 1D passes per transform, each at most (row nonzeros + 1) roundings.
constexpr int transform_roundings(int m) {
  const int a = tile(m);
  return 2 * (detail::max_row_nonzeros(g, m, a, 3) + 1) + 2 * (detail::max_row_nonzeros(bt, m, a, a) + 1) +
         2 * (detail::max_row_nonzeros(at, m, m, a) + 1);
}

}  // namespace tessera::winograd
