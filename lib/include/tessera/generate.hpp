/// \file
/// Generated sparse matrices for tests and benchmarks (the cases the vendor figures use).
#pragma once

#include <cstdint>

#include "tessera/csr_matrix.hpp"

namespace tessera {

/// 5-point Laplacian on an nx x ny grid: diagonal 4, neighbours -1 (symmetric positive definite).
template <class T>
HostCsr<T> laplacian_2d(std::int64_t nx, std::int64_t ny);

/// 7-point Laplacian on an nx x ny x nz grid: diagonal 6.5, neighbours -1 (as in the GPU figures).
template <class T>
HostCsr<T> laplacian_3d(std::int64_t nx, std::int64_t ny, std::int64_t nz);

/// Each row gets a uniformly random length in [min_per_row, max_per_row] and distinct uniformly
/// random columns (sorted), values uniform in [-1, -0.1] U [0.1, 1] (never zero). Deterministic in seed.
template <class T>
HostCsr<T> random_csr(std::int64_t rows, std::int64_t cols, int min_per_row, int max_per_row, std::uint64_t seed);

/// Square matrix with power-law row lengths min_len / (1 - u)^(1 / exponent), u uniform in [0, 1),
/// capped at max_len (and at cols); columns and values as random_csr.
template <class T>
HostCsr<T> power_law_csr(std::int64_t rows, double exponent, int min_len, int max_len, std::uint64_t seed);

}  // namespace tessera
