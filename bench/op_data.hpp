// Host-side inputs of each workload: generated once per case and dtype, then uploaded to every
// device and handed to every baseline, so all implementations compute on the same data.
// Dense layouts are row-major with leading dimension = columns, as Tessera's containers.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "operation.hpp"
#include "tessera/csr_matrix.hpp"
#include "tessera/stencil.hpp"
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
struct SpmmData {  // Y = alpha * A * X + beta * Y0, X (cols x k) and Y (rows x k) row-major
  tessera::HostCsr<T> A;
  std::int64_t k = 0;
  std::vector<T> X, Y0;
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
  // Set: the general stencil (tessera/stencil.hpp) instead of the coefficient-vector call.
  std::optional<tessera::StarStencil<T>> general;
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

// The vector algebra (workloads/vector.cpp) and launch (workloads/launch.cpp):
//   axpy       y = alpha x + y                       copy   y = x
//   norm2      ||x||_2                               dot2   x . y and x . z
//   axpby_dot  y = alpha x + beta y, then y . y
//   launch     `calls` axpys on n elements (alpha = 2^-10: every product is exact, so every
//              implementation and summation order gives the same bits after any number of calls)
// Results are compared as vectors: the output vector (axpy, copy, axpby_dot), then each scalar
// divided by its `scale` (sum |terms| of its dot, so it is checked relative to that, as reduce
// is; 1 for norm2, whose terms do not cancel).
template <class T>
struct VectorData {
  Op op = Op::axpy;
  std::vector<T> x, y, z;  // z: dot2 only
  T alpha = T(0.75), beta = T(-0.5);
  int calls = 1;            // launch: axpys per timed run
  bool round_trip = false;  // launch: one call followed by a wait, instead of `calls` enqueues
  double scale1 = 1, scale2 = 1;
};

// The result every runner of a vector operation reports, from its output vector y (ignored
// for norm2 and dot2) and its scalar results s1, s2 (as computed, before the division).
template <class T>
std::vector<double> vector_result(const VectorData<T>& d, const std::vector<T>& y, double s1, double s2 = 0) {
  std::vector<double> out;
  if (d.op == Op::axpy || d.op == Op::copy || d.op == Op::axpby_dot) out.assign(y.begin(), y.end());
  if (d.op == Op::norm2 || d.op == Op::axpby_dot || d.op == Op::dot2) out.push_back(s1 / d.scale1);
  if (d.op == Op::dot2) out.push_back(s2 / d.scale2);
  return out;
}

// cg, bicgstab: with `precond` empty, `iters` iterations of the Jacobi-preconditioned method on
// A x = b from x = 0 (inv_diag = 1 / diag(A)); with `precond` "ic0" (cg) or "ilu0" (bicgstab),
// the method with that incomplete factorisation from x = 0 until ||b - A x|| <= rel_tol ||b||
// (at most max_iterations), each implementation taking its own number of iterations.
template <class T>
struct CgData {
  tessera::HostCsr<T> A;
  std::vector<T> b, inv_diag;
  int iters = 50;
  std::string precond;
  std::string precond_dtype;  // "f32": the factors stored in f32 (CaseSpec::precond_dtype)
  double rel_tol = 0;
  int max_iterations = 0;
  bool generated = true;  // a generated matrix: not converging is a fault (a real one: n/a)
};

}  // namespace bench
