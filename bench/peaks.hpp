// Device peaks measured by the bench itself, once per device per run, so every result can be
// shown as a percentage of what that machine can really do (not of a datasheet number).
//   CPU (the host, shared by the reference and cpu devices and CPU OpenCL devices):
//     STREAM-style read (sum over 512 MiB), copy and triad over arrays of 128 MiB (>> any LLC),
//     all OpenMP threads, best of several passes, STREAM byte conventions (copy 16, triad 24
//     bytes per element; write-allocate traffic not counted, as in STREAM);
//     FLOP/s: 12 independent FMA chains per thread at the widest SIMD target, f32 and f64.
//   Other devices (GPUs): device-to-device copy bandwidth (bytes read + written) through the
//     backend's copy; FLOP/s from the vendor GEMM where the bench has one (cuBLAS on cuda:0,
//     n = 8192 or what fits), else not measured (n/a).
//   OpenCL devices (opencl:N, when the OpenCL plugin is built): FLOP/s from the bench's own FMA
//     loop (peaks_opencl.cpp), f32 and f64 (f64 with cl_khr_fp64); a CPU OpenCL device (PoCL)
//     shares the host's bandwidths, a GPU gets its device copy.
#pragma once

#include <cmath>
#include <string>

#include "tessera/device.hpp"
#include "tessera/types.hpp"
#include "workload.hpp"

namespace bench {

struct Peaks {
  std::string scope;  // "host" or the device spec
  double read_gbs = NAN, copy_gbs = NAN, triad_gbs = NAN;
  double gflops_f32 = NAN, gflops_f64 = NAN;
  std::string flops_kind;    // "fma" (an FMA loop) or "gemm" (the vendor GEMM); empty when not measured
  bool host_memory = false;  // the bandwidths are the host's STREAM figures (host, CPU OpenCL devices)
  std::string method;  // one line: how it was measured
};

Peaks measure_host_peaks();
Peaks measure_device_copy_peak(const tessera::Device& device);
// Whether `device` gets a FLOP/s peak of its own even when it runs on the host (opencl:N).
bool has_own_flops_peak(const tessera::Device& device);
// A CPU device with its own FLOP/s peak: the host's bandwidths, the device's FMA loop.
Peaks measure_host_device_peaks(const tessera::Device& device, const Peaks& host);

// The peak a result of `bound` is compared with, and its name for the report
// ("stream read", "stream triad", "fma f32", "gemm f64", "copy"); NaN when not measured.
double peak_for(const Peaks& p, Bound bound, tessera::DType dtype, std::string* name);

}  // namespace bench
