// The reference's TF32 rounding (MathMode::tf32, types.hpp): the value of a float rounded to 10
// explicit mantissa bits, to nearest with ties away from zero, as the CUDA kernels' PTX
// `cvt.rna.tf32.f32` rounds (kernels/cuda/gemm_tf32.cuh): the oracle of what tf32 means.
#pragma once

#include <cstdint>
#include <cstring>

namespace tessera {

inline float round_to_tf32(float x) {
  std::uint32_t u;
  std::memcpy(&u, &x, sizeof u);
  if ((u & 0x7f800000u) == 0x7f800000u) return x;  // Inf and NaN stay as they are
  // Half of the last kept bit (bit 13) added to the magnitude, then the 13 low bits dropped:
  // round half away from zero (the sign bit is not touched; a carry into the exponent is the
  // correct next binade, or Inf past the largest TF32 value).
  u = (u + 0x1000u) & 0xffffe000u;
  float r;
  std::memcpy(&r, &u, sizeof r);
  return r;
}

// An input of an f32 product as the reference reads it under `math`: rounded for tf32; exact
// for exact and tf32x3 (whose error is FP32-level; the reference computes the exact product).
template <class T>
double product_input(T v, MathMode math) {
  if constexpr (sizeof(T) == 4)
    if (math == MathMode::tf32) return static_cast<double>(round_to_tf32(v));
  return static_cast<double>(v);
}

}  // namespace tessera
