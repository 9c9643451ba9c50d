// Host-side inputs of each workload: generated once per case and dtype, then uploaded to every
// device and handed to every baseline, so all implementations compute on the same data.
// Dense layouts are row-major with leading dimension = columns, as Tessera's containers.
#pragma once

#include <cstdint>
#include <vector>

#include "tessera/csr_matrix.hpp"
#include "tessera/types.hpp"

namespace bench {

template <class T>
struct ReduceData {  // sum of x
  std::vector<T> x;
};

template <class T>
struct DotData {
  std::vector<T> x, y;
};

template <class T>
struct SpmvData {  // y = alpha * A * x + beta * y0
  tessera::HostCsr<T> A;
  std::vector<T> x, y0;
  T alpha = T(1), beta = T(0.5);
};

template <class T>
struct TrsvData {  // lower, non-unit, no transpose: A x = b
  std::int64_t n = 0;
  std::vector<T> A, b;
};

template <class T>
struct TrsmData {  // lower, non-unit, no transpose, left side: A X = alpha * B (B: n x nrhs)
  std::int64_t n = 0, nrhs = 0;
  std::vector<T> A, B;
  T alpha = T(1);
};

template <class T>
struct SptrsvData {  // L x = b, L lower triangular with a nonzero diagonal in every row
  tessera::HostCsr<T> L;
  std::vector<T> b;
};

template <class T>
struct GemmData {  // C = alpha * A * B + beta * C, A m x k, B k x n; beta = 0 (C only written)
  std::int64_t m = 0, n = 0, k = 0;
  std::vector<T> A, B;
  T alpha = T(1), beta = T(0);
};

template <class T>
struct StencilData {  // `steps` steps of a star stencil of radius coeffs.size() - 1, in place
  int ndim = 3;
  std::int64_t nx = 0, ny = 0, nz = 1;
  std::vector<T> coeffs;
  int steps = 1;
  std::vector<T> u0;
};

template <class T>
struct Conv2dData {  // 'same' mode: out is H x W
  std::int64_t H = 0, W = 0, K = 0;
  tessera::ConvMode mode = tessera::ConvMode::same;
  std::vector<T> image, filter;
};

template <class T>
struct ConvLayerData {  // in N x C x H x W, filter K x C x R x S, out N x K x P x Q (NCHW)
  std::int64_t N = 0, C = 0, H = 0, W = 0, K = 0, R = 0, S = 0;
  tessera::ConvParams params;
  std::int64_t P = 0, Q = 0;
  std::vector<T> in, filter;
};

}  // namespace bench
