// Enumerations and small parameter structs shared by the public API and the Backend interface.
#pragma once

#include <array>
#include <cstdint>
#include <string>

namespace tessera {

enum class DType : std::uint8_t { f32, f64 };

template <class T>
struct dtype_of;
template <>
struct dtype_of<float> {
  static constexpr DType value = DType::f32;
};
template <>
struct dtype_of<double> {
  static constexpr DType value = DType::f64;
};
template <class T>
inline constexpr DType dtype_v = dtype_of<T>::value;

inline std::size_t dtype_size(DType t) { return t == DType::f32 ? 4 : 8; }
inline const char* to_string(DType t) { return t == DType::f32 ? "f32" : "f64"; }

enum class ReduceOp : std::uint8_t { sum, min, max, sum_squares, max_abs };
inline const char* to_string(ReduceOp op) {
  switch (op) {
    case ReduceOp::sum: return "sum";
    case ReduceOp::min: return "min";
    case ReduceOp::max: return "max";
    case ReduceOp::sum_squares: return "sum_squares";
    case ReduceOp::max_abs: return "max_abs";
  }
  return "?";
}

// op(A) for gemm / triangular solves: A itself or its transpose.
enum class Trans : std::uint8_t { N, T };
enum class Uplo : std::uint8_t { lower, upper };
enum class Diag : std::uint8_t { non_unit, unit };

// 'valid': output (H-K+1) x (W-K+1). 'same': output H x W, zero padding of (K-1)/2 before
// and K/2 after each axis (the usual convention, also for even K).
enum class ConvMode : std::uint8_t { valid, same };

// Every operation of the Backend interface; used by the feature matrix and NotImplemented.
enum class Op : std::uint8_t { reduce, dot, spmv, trsv, trsm, sptrsv, gemm, stencil, conv2d, conv_layer };
inline constexpr std::array<Op, 10> all_ops = {Op::reduce, Op::dot,  Op::spmv,    Op::trsv,   Op::trsm,
                                               Op::sptrsv, Op::gemm, Op::stencil, Op::conv2d, Op::conv_layer};
inline const char* to_string(Op op) {
  switch (op) {
    case Op::reduce: return "reduce";
    case Op::dot: return "dot";
    case Op::spmv: return "spmv";
    case Op::trsv: return "trsv";
    case Op::trsm: return "trsm";
    case Op::sptrsv: return "sptrsv";
    case Op::gemm: return "gemm";
    case Op::stencil: return "stencil";
    case Op::conv2d: return "conv2d";
    case Op::conv_layer: return "conv_layer";
  }
  return "?";
}

// Star stencil of radius r (1..4): u'(i) = c[0]*u(i) + sum_{d=1..r} c[d] * (sum of the 2*ndim
// neighbours at distance d along the axes). Cells closer than r to any face are fixed
// (Dirichlet boundary) and keep their values.
struct StencilSpec {
  static constexpr int max_radius = 4;
  int radius = 1;
  std::array<double, max_radius + 1> coeffs{};  // c[0..radius]; the rest unused
};

// CNN layer (cross-correlation, as cuDNN and oneDNN compute it). Output size
// P = (H + 2*pad_h - R) / stride_h + 1, Q likewise.
struct ConvParams {
  std::int64_t pad_h = 0, pad_w = 0;
  std::int64_t stride_h = 1, stride_w = 1;
};

}  // namespace tessera
