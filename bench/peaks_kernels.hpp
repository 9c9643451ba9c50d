// SIMD inner loops of the peak measurements (Highway, dispatched at run time to the best target
// of the running CPU, like Tessera's own kernels). Each works on one thread's chunk; peaks.cpp
// runs them on every OpenMP thread at once.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace bench::peak_kernels {

double read_sum(const double* a, std::size_t n);                                   // sum of a
void copy(double* c, const double* a, std::size_t n);                             // c = a
void triad(double* a, const double* b, const double* c, double s, std::size_t n);  // a = b + s*c
// `iters` rounds of 12 independent vector FMA chains; returns a value depending on all of
// them so the loop is not removed. FLOPs = iters * 12 * lanes * 2.
double fma_loop_f32(std::int64_t iters);
double fma_loop_f64(std::int64_t iters);
std::size_t lanes_f32();
std::size_t lanes_f64();
std::string target_name();  // the Highway target these loops run with

}  // namespace bench::peak_kernels
