#include "peaks_opencl.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <stdexcept>
#include <vector>

#include "baselines/opencl_device.hpp"
#include "measure.hpp"

namespace bench::opencl_peak {

namespace {

using opencl_baseline::ClBuffer;
using opencl_baseline::ClDevice;
using opencl_baseline::check;

constexpr int kChains = 16;  // independent accumulators per work-item: covers the FMA latency
constexpr int kSteps = 2;    // rounds of all chains per loop trip (amortises the loop counter)
// Vector widths tried (same register bytes for float and double); the fastest is the peak.
// GPUs are fast at any width (SIMT). PoCL on a CPU does not vectorise this loop across
// work-items, so only a vector type as wide as the SIMD registers reaches the FMA peak (float16 /
// double8 on AVX-512: measured here at 4x float4); wider ones spill registers.
constexpr int kWidthsF32[] = {1, 4, 8, 16};
constexpr int kWidthsF64[] = {1, 2, 4, 8};

// Starting value of lane l of every chain: distinct lanes, so no vector is a splat the compiler
// could shrink to a scalar.
template <class S>
S lane_offset(int l) {
  return static_cast<S>(0.001 * l);
}

template <class S>
std::string literal(S v) {
  char buf[40];
  std::snprintf(buf, sizeof buf, sizeof(S) == 4 ? "%.9ef" : "%.17e", static_cast<double>(v));
  return buf;
}

// x = fma(x, a, b) with 0 < a < 1: converges to b / (1 - a), so it never overflows or goes
// denormal. a, b and iters are kernel arguments, so the compiler cannot fold the loop; the sum
// of all chains is stored, so none is dead code.
template <class S>
std::string kernel_source(const char* scalar, int width) {
  const std::string vt = width == 1 ? scalar : scalar + std::to_string(width);
  const std::string s = scalar;
  std::string lanes = "(" + vt + ")(";
  for (int l = 0; l < width; ++l) lanes += (l ? ", " : "") + literal(lane_offset<S>(l));
  lanes += ")";
  std::string src = "__kernel void fma_" + s + "_" + std::to_string(width) + "(__global " + s +
                    "* out, const " + s + " a, const " + s + " b, const int iters) {\n" +
                    "  const " + s + " g = (" + s + ")get_global_id(0) * (" + s + ")1e-6f;\n" +
                    "  const " + vt + " av = (" + vt + ")(a), bv = (" + vt + ")(b);\n";
  for (int k = 0; k < kChains; ++k)
    src += "  " + vt + " x" + std::to_string(k) + " = " + lanes + " + (g + (" + s + ")" + std::to_string(k) +
           " * (" + s + ")0.01f);\n";
  src += "  for (int i = 0; i < iters; ++i) {\n";
  for (int r = 0; r < kSteps; ++r)
    for (int k = 0; k < kChains; ++k) src += "    x" + std::to_string(k) + " = fma(x" + std::to_string(k) + ", av, bv);\n";
  src += "  }\n  " + vt + " sum = x0";
  for (int k = 1; k < kChains; ++k) src += " + x" + std::to_string(k);
  src += ";\n";
  for (int l = 0; l < width; ++l) {
    const std::string lane = width == 1 ? "sum" : "sum.s" + std::string(1, "0123456789abcdef"[l]);
    src += "  out[get_global_id(0) * " + std::to_string(width) + " + " + std::to_string(l) + "] = " + lane + ";\n";
  }
  return src + "}\n";
}

struct Program {
  cl_program program = nullptr;
  ~Program() {
    if (program) clReleaseProgram(program);
  }
};
struct Kernel {
  cl_kernel kernel = nullptr;
  ~Kernel() {
    if (kernel) clReleaseKernel(kernel);
  }
};

void build(const ClDevice& d, Program& p) {
  std::string src;
  for (int w : kWidthsF32) src += kernel_source<float>("float", w);
  if (d.fp64) {
    src = "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n" + src;
    for (int w : kWidthsF64) src += kernel_source<double>("double", w);
  }
  cl_int err = CL_SUCCESS;
  const char* text = src.c_str();
  p.program = clCreateProgramWithSource(d.context, 1, &text, nullptr, &err);
  check(err, "clCreateProgramWithSource");
  if (clBuildProgram(p.program, 1, &d.device, "", nullptr, nullptr) != CL_SUCCESS) {
    std::size_t n = 0;
    clGetProgramBuildInfo(p.program, d.device, CL_PROGRAM_BUILD_LOG, 0, nullptr, &n);
    std::string log(n, '\0');
    clGetProgramBuildInfo(p.program, d.device, CL_PROGRAM_BUILD_LOG, n, log.data(), nullptr);
    throw std::runtime_error("FMA peak kernel did not build on " + d.spec + ": " + log.substr(0, 400));
  }
}

// The host's value of work-item `gid`'s stored lane sum, by the same recurrence in S.
template <class S>
double expected(std::size_t gid, S a, S b, int iters, int width) {
  const S g = static_cast<S>(gid) * static_cast<S>(1e-6f);
  double sum = 0;
  for (int l = 0; l < width; ++l) {
    S lane = 0;
    for (int k = 0; k < kChains; ++k) {
      S x = lane_offset<S>(l) + (g + static_cast<S>(k) * static_cast<S>(0.01f));
      for (int i = 0; i < iters * kSteps; ++i) x = std::fma(x, a, b);
      lane += x;
    }
    sum += static_cast<double>(lane);
  }
  return sum;
}

struct Launch {
  int width = 0;
  std::size_t local = 0, global = 0;
  double gflops = 0;
};

// Best-of-5 GFLOP/s of one kernel, each launch calibrated to ~50 ms and timed by clFinish.
template <class S>
Launch run(const ClDevice& d, cl_program program, const std::string& name, int width) {
  Kernel k;
  cl_int err = CL_SUCCESS;
  k.kernel = clCreateKernel(program, name.c_str(), &err);
  check(err, "clCreateKernel");
  cl_uint cus = 1;
  check(clGetDeviceInfo(d.device, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof cus, &cus, nullptr), "clGetDeviceInfo");
  std::size_t wg = 1;
  check(clGetKernelWorkGroupInfo(k.kernel, d.device, CL_KERNEL_WORK_GROUP_SIZE, sizeof wg, &wg, nullptr),
        "clGetKernelWorkGroupInfo");
  Launch L;
  L.width = width;
  L.local = std::min<std::size_t>(wg, 256);
  // Several work-groups per compute unit so every unit stays busy to the end.
  L.global = L.local * 8 * std::max<cl_uint>(cus, 1);
  ClBuffer out(d, L.global * static_cast<std::size_t>(width) * sizeof(S));
  const S a = static_cast<S>(0.9999), b = static_cast<S>(0.0001);
  const cl_mem mem = out.get();
  check(clSetKernelArg(k.kernel, 0, sizeof mem, &mem), "clSetKernelArg");
  check(clSetKernelArg(k.kernel, 1, sizeof a, &a), "clSetKernelArg");
  check(clSetKernelArg(k.kernel, 2, sizeof b, &b), "clSetKernelArg");
  auto launch = [&](int iters) {
    check(clSetKernelArg(k.kernel, 3, sizeof iters, &iters), "clSetKernelArg");
    check(clFinish(d.queue), "clFinish");
    const double t0 = now_s();
    check(clEnqueueNDRangeKernel(d.queue, k.kernel, 1, nullptr, &L.global, &L.local, 0, nullptr, nullptr),
          "clEnqueueNDRangeKernel");
    check(clFinish(d.queue), "clFinish");
    return now_s() - t0;
  };
  // Calibration (the first launch also pays for any lazy compilation): grow until >= 10 ms.
  int iters = 4;
  double t = launch(iters);
  while (t < 0.01 && iters < (1 << 24)) {
    iters *= 2;
    t = launch(iters);
  }
  iters = static_cast<int>(std::clamp(iters * 0.05 / t, 4.0, double(1 << 26)));
  double best = 1e30;
  for (int r = 0; r < 5; ++r) best = std::min(best, launch(iters));
  const double flops = static_cast<double>(L.global) * iters * kSteps * kChains * width * 2.0;
  L.gflops = flops / best * 1e-9;

  // The kernel really ran all its iterations: the first and last work-items' sums match the host.
  std::vector<S> host(L.global * static_cast<std::size_t>(width));
  out.download(host.data());
  for (std::size_t gid : {std::size_t(0), L.global - 1}) {
    double got = 0;
    for (int l = 0; l < width; ++l) got += static_cast<double>(host[gid * static_cast<std::size_t>(width) + l]);
    const double want = expected<S>(gid, a, b, iters, width);
    if (!(std::fabs(got - want) <= 1e-3 * std::fabs(want)))
      throw std::runtime_error("FMA peak kernel " + name + " on " + d.spec + " computed " + std::to_string(got) +
                               " where the host gets " + std::to_string(want));
  }
  return L;
}

template <class S, std::size_t N>
Launch best_width(const ClDevice& d, cl_program program, const char* scalar, const int (&widths)[N]) {
  Launch best;
  for (int w : widths) {
    const Launch l = run<S>(d, program, std::string("fma_") + scalar + "_" + std::to_string(w), w);
    if (l.gflops > best.gflops) best = l;
  }
  return best;
}

std::string describe(const char* scalar, const Launch& l) {
  return std::string(scalar) + (l.width == 1 ? "" : std::to_string(l.width)) + " " +
         std::to_string(l.global / l.local) + " x " + std::to_string(l.local);
}

}  // namespace

FmaPeak measure_fma_peak(const std::string& spec) {
  const ClDevice& d = opencl_baseline::device(spec);
  Program p;
  build(d, p);
  FmaPeak r;
  const Launch f32 = best_width<float>(d, p.program, "float", kWidthsF32);
  r.gflops_f32 = f32.gflops;
  r.gflops_f64 = NAN;
  r.method = "OpenCL FMA loop, " + std::to_string(kChains) + " chains per work-item, best vector width: " +
             describe("float", f32);
  if (d.fp64) {
    const Launch f64 = best_width<double>(d, p.program, "double", kWidthsF64);
    r.gflops_f64 = f64.gflops;
    r.method += ", " + describe("double", f64);
  }
  r.method += " work-items; best of 5 launches timed by clFinish";
  return r;
}

}  // namespace bench::opencl_peak
