/// \file
/// Enumerations and small parameter structs shared by the public API and the Backend interface.
#pragma once

#include <array>
#include <cstdint>
#include <type_traits>
#include <string>

namespace tessera {

/// The element type of an operation: float or double.
enum class DType : std::uint8_t { f32, f64 };

/// The DType of T (float or double) as `value`.
template <class T>
struct dtype_of;
/// float is DType::f32.
template <>
struct dtype_of<float> {
  static constexpr DType value = DType::f32;  ///< DType::f32
};
/// double is DType::f64.
template <>
struct dtype_of<double> {
  static constexpr DType value = DType::f64;  ///< DType::f64
};
/// The DType of T: dtype_of<T>::value.
template <class T>
inline constexpr DType dtype_v = dtype_of<T>::value;

/// The other floating-point type: double for float, float for double (the source of
/// Backend::convert, whose dtype names the destination).
template <class T>
using other_float_t = std::conditional_t<std::is_same_v<T, float>, double, float>;

inline std::size_t dtype_size(DType t) { return t == DType::f32 ? 4 : 8; }  ///< bytes of one element
inline const char* to_string(DType t) { return t == DType::f32 ? "f32" : "f64"; }  ///< "f32" or "f64"

/// What reduce computes: the sum, minimum, maximum, sum of squares, largest absolute value, or
/// Euclidean norm (the square root of the sum of squares).
enum class ReduceOp : std::uint8_t { sum, min, max, sum_squares, max_abs, norm2 };
/// The enumerator's name, e.g. "sum_squares".
inline const char* to_string(ReduceOp op) {
  switch (op) {
    case ReduceOp::sum: return "sum";
    case ReduceOp::min: return "min";
    case ReduceOp::max: return "max";
    case ReduceOp::sum_squares: return "sum_squares";
    case ReduceOp::max_abs: return "max_abs";
    case ReduceOp::norm2: return "norm2";
  }
  return "?";
}

/// op(A) for gemm / triangular solves: A itself or its transpose.
enum class Trans : std::uint8_t { N, T };
/// The triangle of a matrix that a triangular solve uses.
enum class Uplo : std::uint8_t { lower, upper };
/// Whether a triangular solve reads the diagonal (non_unit) or takes it as 1 (unit).
enum class Diag : std::uint8_t { non_unit, unit };

/// The output size of conv2d. 'valid': output (H-K+1) x (W-K+1). 'same': output H x W, zero
/// padding of (K-1)/2 before and K/2 after each axis (the usual convention, also for even K).
enum class ConvMode : std::uint8_t { valid, same };

/// How an f32 gemm or conv_layer may multiply (as cuBLAS's math mode): a permission to trade
/// accuracy for the tensor cores' speed, never a request for less accuracy. Chosen per queue
/// (Queue::set_math_mode) or per call (the overloads taking a MathMode); f64 operations always
/// compute exactly. Bounds per element of a k-term product before alpha and beta, with
/// S = sum_p |a_p| |b_p| and u = 2^-24 (FP32's unit roundoff):
///  - exact: FP32 arithmetic on the FP32 inputs: |err| <= k u S (one rounding per FMA).
///  - tf32: each input may be rounded to TF32 (10 explicit mantissa bits: round to nearest, ties
///    away from zero; FP32's exponent range), the exact products accumulated in FP32. Rounding
///    costs |tf32(a) tf32(b) - a b| <= (2^-10 + 2^-22) |a b|; the tensor cores' additions may
///    truncate (2u each): |err| <= (2^-10 + 2^-22 + 2 k u (1 + 2^-9)) S. The reference backend
///    computes exactly that rounding, then sums the rounded products in double: the mode's oracle.
///  - tf32x3: each input a is split into hi = tf32(a) and lo = tf32(a - hi) (a - hi is exact),
///    and a b is taken as hi*hi + hi*lo + lo*hi (the 3xTF32 method). The dropped lo*lo and the
///    splits' remainders (|a - hi - lo| <= 2^-22 |a|) cost at most 12 u (1 + 2^-9) |a b| per
///    product; the 3k products reach the FP32 accumulator at 2u per addition:
///    |err| <= (12 + 6 k) u (1 + 2^-9) S. Typical errors are FP32's (the terms are of random
///    sign). The reference computes the exact product (within that bound). Inputs must be finite
///    and below 2^128 (1 - 2^-12) in magnitude (larger ones round to infinity in TF32).
/// Backends without TF32 units (cpu, OpenCL on CPUs and AMD GPUs) compute tf32 and tf32x3 in
/// exact FP32, which meets both bounds; CUDA runs both on the TF32 tensor cores (gemm and
/// conv_layer); NVIDIA's OpenCL runs tf32 on them and tf32x3 in exact FP32 (as fast there). CUDA
/// gemm's tf32x3 adds each slice of products (32 k on compute capability 9.0's wgmma kernel, 8 k
/// on mma.sync) into round-to-nearest FP32 accumulators, so its typical error is FP32
/// arithmetic's or below and does not drift with k (the bound still holds). Values outside the
/// enumeration throw InvalidArgument.
enum class MathMode : std::uint8_t { exact, tf32, tf32x3 };
/// The enumerator's name: "exact", "tf32" or "tf32x3".
inline const char* to_string(MathMode m) {
  switch (m) {
    case MathMode::exact: return "exact";
    case MathMode::tf32: return "tf32";
    case MathMode::tf32x3: return "tf32x3";
  }
  return "?";
}

/// What elementwise computes: z = x * y, z = x / y, or z = 1 / x.
enum class ElementwiseOp : std::uint8_t { multiply, divide, reciprocal };

/// Every operation of the Backend interface; used by the feature matrix and NotImplemented.
/// `vector` is the vector algebra (fill, axpby, elementwise, axpby_dot, dot2).
enum class Op : std::uint8_t { reduce, dot, spmv, spmm, trsv, trsm, sptrsv, gemm, stencil, conv2d, conv_layer, vector };
/// Every Op, in declaration order.
inline constexpr std::array<Op, 12> all_ops = {Op::reduce, Op::dot,  Op::spmv, Op::spmm,   Op::trsv,   Op::trsm,  Op::sptrsv,
                                               Op::gemm,   Op::stencil, Op::conv2d, Op::conv_layer, Op::vector};
/// The operation's name, e.g. "conv_layer".
inline const char* to_string(Op op) {
  switch (op) {
    case Op::reduce: return "reduce";
    case Op::dot: return "dot";
    case Op::spmv: return "spmv";
    case Op::spmm: return "spmm";
    case Op::trsv: return "trsv";
    case Op::trsm: return "trsm";
    case Op::sptrsv: return "sptrsv";
    case Op::gemm: return "gemm";
    case Op::stencil: return "stencil";
    case Op::conv2d: return "conv2d";
    case Op::conv_layer: return "conv_layer";
    case Op::vector: return "vector";
  }
  return "?";
}

/// What a face of the grid holds in a stencil (see StarStencil in stencil.hpp for the exact
/// rules): fixed values (dirichlet), a zero normal derivative by mirrored ghost cells (neumann),
/// or the opposite face's cells (periodic; both faces of an axis).
enum class StencilBoundary : std::uint8_t { dirichlet, neumann, periodic };
/// The enumerator's name, e.g. "neumann".
inline const char* to_string(StencilBoundary b) {
  switch (b) {
    case StencilBoundary::dirichlet: return "dirichlet";
    case StencilBoundary::neumann: return "neumann";
    case StencilBoundary::periodic: return "periodic";
  }
  return "?";
}

/// What a backend receives for a star stencil of radius r (1..4), checked by the front end
/// (semantics: StarStencil in stencil.hpp). u'(i) = centre * u(i) + sum over d = 1..r and the
/// grid's axes a of axis[a][d] * (u(i - d e_a) + u(i + d e_a)) [+ source]; the faces say what
/// the neighbours beyond the grid are and which cells are fixed.
struct StencilSpec {
  static constexpr int max_radius = 4;  ///< the largest radius supported
  int radius = 1;                       ///< r, 1..max_radius
  double centre = 0;                    ///< the coefficient of the cell itself
  /// axis[a][d]: the coefficient of the two neighbours at distance d along axis a (0 = x, 1 = y,
  /// 2 = z; unused in 2D), d = 1..radius; axis[a][0] and entries past the radius are unused.
  std::array<std::array<double, max_radius + 1>, 3> axis{};
  /// The faces x low, x high, y low, y high, z low, z high (the z faces are unused in 2D).
  std::array<StencilBoundary, 6> faces{};
  double source = 0;  ///< added to every updated cell after the neighbour sum (0: not added)

  /// Whether every used axis has the same coefficient at each distance.
  bool isotropic(int ndim) const {
    for (int d = 1; d <= radius; ++d)
      for (int a = 1; a < ndim; ++a)
        if (axis[static_cast<std::size_t>(a)][static_cast<std::size_t>(d)] != axis[0][static_cast<std::size_t>(d)])
          return false;
    return true;
  }
  /// Today's kernels' case: isotropic, every used face Dirichlet, no source. Backends keep their
  /// specialised kernels for it and take a general path otherwise.
  bool plain(int ndim) const {
    for (int f = 0; f < 2 * ndim; ++f)
      if (faces[static_cast<std::size_t>(f)] != StencilBoundary::dirichlet) return false;
    return source == 0 && isotropic(ndim);
  }
};

/// CNN layer (cross-correlation, as cuDNN and oneDNN compute it). Output size
/// P = (H + 2*pad_h - R) / stride_h + 1, Q likewise.
struct ConvParams {
  /// Zero padding before and after each row (pad_h) and column (pad_w).
  ///@{
  std::int64_t pad_h = 0, pad_w = 0;
  ///@}
  /// Strides along the rows (stride_h) and columns (stride_w).
  ///@{
  std::int64_t stride_h = 1, stride_w = 1;
  ///@}
};

}  // namespace tessera
