// The element-wise passes of the vector algebra on one contiguous chunk, on the calling thread;
// backends/cpu/vector.cpp cuts a vector among threads and adds the fused dots (reduce.hpp).
#pragma once

#include <cstdint>

#include "tessera/types.hpp"

namespace tessera::cpu {

// How y's old value enters y = a x + b y: not read (b = 0, so a NaN in y does not propagate),
// added (b = 1), or scaled.
enum class AxpbyMode : std::uint8_t { overwrite, add, scale };

// y[i] = a x[i] + b y[i] (mode as above). x may be y itself.
void axpby_f32(float a, const float* x, float b, AxpbyMode mode, float* y, std::int64_t n);
void axpby_f64(double a, const double* x, double b, AxpbyMode mode, double* y, std::int64_t n);

// z[i] = x[i] op y[i] (reciprocal: 1 / x[i], y unused). z may be x or y itself.
void elementwise_f32(ElementwiseOp op, const float* x, const float* y, float* z, std::int64_t n);
void elementwise_f64(ElementwiseOp op, const double* x, const double* y, double* z, std::int64_t n);

// The fused passes, their sums in double (pairwise over blocks, as dot_f32/f64 in reduce.hpp).
// y = a x + b y, returns y . w (w may be y: the new y is read).
double axpby_dot_f32(float a, const float* x, float b, AxpbyMode mode, float* y, const float* w, std::int64_t n);
double axpby_dot_f64(double a, const double* x, double b, AxpbyMode mode, double* y, const double* w,
                     std::int64_t n);
// *xy = x . y, *xz = x . z.
void dot2_f32(const float* x, const float* y, const float* z, std::int64_t n, double* xy, double* xz);
void dot2_f64(const double* x, const double* y, const double* z, std::int64_t n, double* xy, double* xz);
// z = d .* r, *rz = r . z, *rr = r . r.
void multiply_dot2_f32(const float* d, const float* r, float* z, std::int64_t n, double* rz, double* rr);
void multiply_dot2_f64(const double* d, const double* r, double* z, std::int64_t n, double* rz, double* rr);

}  // namespace tessera::cpu
