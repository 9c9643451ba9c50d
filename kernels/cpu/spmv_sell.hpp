// SELL-C-sigma SpMV over a range of slices on the calling thread (plan/sell_layout.hpp has the
// layout); backends/cpu/spmv.cpp splits the slices among threads.
#pragma once

#include <cstdint>

namespace tessera::cpu {

// The slices' layout and arrays, as plan::SellLayout holds them.
template <class T>
struct SellArrays {
  int c = 0;                              // rows per slice
  std::int64_t rows = 0;                  // slots >= rows are padding
  const std::int32_t* slice_ptr = nullptr;
  const std::int32_t* row_len = nullptr;  // per slot
  const std::int32_t* perm = nullptr;     // original row per slot; null: the identity
  const std::int32_t* col = nullptr;
  const T* val = nullptr;
};

// y[row] = alpha * (A x)[row] + beta * y[row] for the rows of slices [s0, s1); beta == 0: y not
// read. Padding lanes gather x[0] (column 0 is stored there) and are masked off, so Inf or NaN
// in x[0] does not leak into other rows.
void spmv_sell_f32(const SellArrays<float>& a, const float* x, float alpha, float beta, float* y, std::int64_t s0,
                   std::int64_t s1);
void spmv_sell_f64(const SellArrays<double>& a, const double* x, double alpha, double beta, double* y,
                   std::int64_t s0, std::int64_t s1);

// C for this dtype on the running target: two SIMD vectors of it (two independent chains of
// FMAs per slice; the kernel is written for exactly that).
int sell_c_f32();
int sell_c_f64();

}  // namespace tessera::cpu
