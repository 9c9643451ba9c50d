#include "peaks.hpp"

#include <omp.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <vector>

#include "machine.hpp"
#include "measure.hpp"
#include "baselines/libs.hpp"
#include "emulation.hpp"
#include "peaks_kernels.hpp"
#if TESSERA_BENCH_WITH_OPENCL
#include "peaks_opencl.hpp"
#endif
#include "tessera/buffer.hpp"

namespace bench {

namespace {

// Doubles per array: 128 MiB, or 2x the last-level cache where that is larger (servers with
// hundreds of MiB of L3), at most 1/16 of the memory for the four arrays together. Under
// emulation 16 MiB: the figures mean nothing there (emulation.hpp), and qemu-user reports the
// build machine's cache, whose 260 MiB of L3 on a session-43 development VM would make these
// arrays 375 MiB each for the emulator to stream eight times a kernel.
std::size_t stream_elems() {
  if (!emulation_note().empty()) return (std::size_t(16) << 20) / sizeof(double);
  std::size_t bytes = std::size_t(128) << 20;
  bytes = std::max<std::size_t>(bytes, 2 * static_cast<std::size_t>(last_level_cache_bytes()));
  const auto mem = static_cast<std::size_t>(sysconf(_SC_PHYS_PAGES)) * static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
  if (mem > 0) bytes = std::min(bytes, std::max<std::size_t>(std::size_t(16) << 20, mem / 64));
  return bytes / sizeof(double) / 64 * 64;
}
constexpr int kStreamPasses = 8;

// Thread t's contiguous chunk, aligned to 64 elements so SIMD loops have no split vectors.
void chunk(std::size_t n, int t, int threads, std::size_t* begin, std::size_t* len) {
  const std::size_t per = (n / static_cast<std::size_t>(threads) + 63) / 64 * 64;
  *begin = std::min(n, per * static_cast<std::size_t>(t));
  *len = std::min(n, *begin + per) - *begin;
}

// Best (shortest) time of `passes` runs of body(t, threads) on all threads at once.
template <class F>
double best_parallel_seconds(int passes, F body) {
  double best = 1e30;
  for (int p = 0; p < passes; ++p) {
    double t0 = 0, t1 = 0;
#pragma omp parallel
    {
#pragma omp barrier
#pragma omp master
      t0 = now_s();
      body(omp_get_thread_num(), omp_get_num_threads());
#pragma omp barrier
#pragma omp master
      t1 = now_s();
    }
    best = std::min(best, t1 - t0);
  }
  return best;
}

// Four arrays in one allocation (new double[] without value-initialisation: pages are first
// touched by the threads that use them, in the init loop below, as the kernels will). Copy and
// triad use three of them; the read test sums all four as one contiguous 512 MiB range, so each
// timed pass is long (milliseconds even at hundreds of GB/s) against the cost of starting and
// joining the threads.
struct Arrays {
  explicit Arrays(std::size_t n) : elems(n), p(new double[4 * n]) {}
  std::size_t elems;
  std::unique_ptr<double[]> p;
  double* a() const { return p.get(); }
  double* b() const { return p.get() + elems; }
  double* c() const { return p.get() + 2 * elems; }
  double* all() const { return p.get(); }
};

#if TESSERA_BENCH_WITH_OPENCL
// The FLOP/s half of an OpenCL device's peaks: the bench's FMA loop (peaks_opencl.cpp).
void add_opencl_fma_peak(Peaks& pk, const tessera::Device& device) {
  const opencl_peak::FmaPeak f = opencl_peak::measure_fma_peak(device.spec());
  pk.gflops_f32 = f.gflops_f32;
  pk.gflops_f64 = f.gflops_f64;
  pk.flops_kind = "fma";
  pk.method += "; FLOP/s: " + f.method;
}
#endif

}  // namespace

Peaks measure_host_peaks() {
  Peaks pk;
  pk.scope = "host";
  const int threads = omp_get_max_threads();
  peak_kernels::lanes_f64();  // picks the Highway target once, before threads race to it

  const std::size_t kStreamElems = stream_elems();
  Arrays arr(kStreamElems);
  {
    double* p = arr.all();
#pragma omp parallel
    {
      std::size_t beg, len;
      chunk(4 * kStreamElems, omp_get_thread_num(), omp_get_num_threads(), &beg, &len);
      for (std::size_t i = beg; i < beg + len; ++i) p[i] = 1.0 + static_cast<double>(i % 7);
    }
  }
  std::vector<double> sink(static_cast<std::size_t>(threads) * 8, 0.0);  // one cache line each
  const double bytes = static_cast<double>(kStreamElems) * sizeof(double);

  const double t_read = best_parallel_seconds(kStreamPasses, [&](int t, int nt) {
    std::size_t beg, len;
    chunk(4 * kStreamElems, t, nt, &beg, &len);
    sink[static_cast<std::size_t>(t) * 8] += peak_kernels::read_sum(arr.all() + beg, len);
  });
  const double t_copy = best_parallel_seconds(kStreamPasses, [&](int t, int nt) {
    std::size_t beg, len;
    chunk(kStreamElems, t, nt, &beg, &len);
    peak_kernels::copy(arr.c() + beg, arr.a() + beg, len);
  });
  const double t_triad = best_parallel_seconds(kStreamPasses, [&](int t, int nt) {
    std::size_t beg, len;
    chunk(kStreamElems, t, nt, &beg, &len);
    peak_kernels::triad(arr.a() + beg, arr.b() + beg, arr.c() + beg, 3.0, len);
  });
  pk.read_gbs = 4 * bytes / t_read * 1e-9;
  pk.copy_gbs = 2 * bytes / t_copy * 1e-9;
  pk.triad_gbs = 3 * bytes / t_triad * 1e-9;

  // FMA loop: ~50 ms per pass at a few GHz.
  const std::int64_t iters = 4 << 20;
  auto fma_gflops = [&](bool f32) {
    const double t = best_parallel_seconds(3, [&](int t, int) {
      sink[static_cast<std::size_t>(t) * 8] += f32 ? peak_kernels::fma_loop_f32(iters) : peak_kernels::fma_loop_f64(iters);
    });
    const double lanes = static_cast<double>(f32 ? peak_kernels::lanes_f32() : peak_kernels::lanes_f64());
    return static_cast<double>(threads) * static_cast<double>(iters) * 12 * lanes * 2 / t * 1e-9;
  };
  pk.gflops_f32 = fma_gflops(true);
  pk.gflops_f64 = fma_gflops(false);
  pk.flops_kind = "fma";
  pk.host_memory = true;
  pk.method = "STREAM-style read of " + std::to_string(4 * (kStreamElems * sizeof(double) >> 20)) +
              " MiB, copy and triad over " + std::to_string(kStreamElems * sizeof(double) >> 20) + " MiB arrays, " +
              std::to_string(threads) +
              " threads, best of " +
              std::to_string(kStreamPasses) + "; FMA: 12 chains x " + peak_kernels::target_name();
  if (sink[0] == 12345.678) pk.method += " ";  // keeps the sums observable
  return pk;
}

Peaks measure_device_copy_peak(const tessera::Device& device) {
  Peaks pk;
  pk.scope = device.spec();
  const std::uint64_t mem = device.info().memory_bytes;
  std::size_t bytes = std::size_t(256) << 20;
  if (mem > 0) bytes = std::min<std::size_t>(bytes, static_cast<std::size_t>(mem / 8));
  tessera::Buffer src(device, bytes), dst(device, bytes);
  std::vector<unsigned char> init(bytes, 1);
  src.upload(init.data(), bytes);
  const tessera::Queue q = device.queue();
  auto copy = [&] { dst.copy_from(q, 0, src, 0, bytes); };
  copy();  // warm-up
  device.synchronize();
  // The device's own clock where it has one (CUDA events), as the measurements use.
  const std::unique_ptr<tessera::DeviceTimer> timer = device.backend().device_timer(q.backend_queue());
  double best = 1e30;
  for (int p = 0; p < 10; ++p) {
    if (timer) {
      timer->start();
      copy();
      timer->stop();
      best = std::min(best, timer->elapsed_ms() * 1e-3);
      continue;
    }
    const double t0 = now_s();
    copy();
    device.synchronize();
    best = std::min(best, now_s() - t0);
  }
  pk.read_gbs = pk.copy_gbs = pk.triad_gbs = 2.0 * static_cast<double>(bytes) / best * 1e-9;
  pk.method = "device copy of " + std::to_string(bytes >> 20) + " MiB (read + write), best of 10" +
              (timer ? ", " + timer->clock() + " clock" : std::string());
#if TESSERA_BENCH_WITH_CUDA_LIBS
  if (device.spec() == "cuda:0") {  // the GPU cuBLAS runs on
    pk.gflops_f32 = cudalibs::gemm_peak_gflops(true, mem);
    pk.gflops_f64 = cudalibs::gemm_peak_gflops(false, mem);
    pk.flops_kind = "gemm";
    pk.method += "; FLOP/s: cuBLAS sgemm/dgemm, best of 5";
  }
#endif
#if TESSERA_BENCH_WITH_OPENCL
  if (has_own_flops_peak(device)) {
    try {  // the copy peak stands on its own
      add_opencl_fma_peak(pk, device);
    } catch (const std::exception& e) {
      pk.method += std::string("; FLOP/s not measured: ") + e.what();
    }
  }
#endif
  return pk;
}

bool has_own_flops_peak(const tessera::Device& device) {
#if TESSERA_BENCH_WITH_OPENCL
  return device.spec().rfind("opencl:", 0) == 0;
#else
  (void)device;
  return false;
#endif
}

Peaks measure_host_device_peaks(const tessera::Device& device, const Peaks& host) {
  Peaks pk = host;
  pk.scope = device.spec();
  pk.gflops_f32 = pk.gflops_f64 = NAN;
  pk.flops_kind.clear();
  pk.method = "bandwidth: the host's";
#if TESSERA_BENCH_WITH_OPENCL
  if (has_own_flops_peak(device)) {
    add_opencl_fma_peak(pk, device);
  }
#endif
  return pk;
}

double peak_for(const Peaks& p, Bound bound, tessera::DType dtype, std::string* name) {
  switch (bound) {
    case Bound::read_bandwidth:
      *name = p.host_memory ? "stream read" : "copy";
      return p.read_gbs;
    case Bound::copy_bandwidth:
      *name = p.host_memory ? "stream copy" : "copy";
      return p.copy_gbs;
    case Bound::latency: return NAN;
    case Bound::triad_bandwidth:
      *name = p.host_memory ? "stream triad" : "copy";
      return p.triad_gbs;
    case Bound::flops:
      if (!p.flops_kind.empty()) *name = p.flops_kind + (dtype == tessera::DType::f32 ? " f32" : " f64");
      return dtype == tessera::DType::f32 ? p.gflops_f32 : p.gflops_f64;
  }
  return NAN;
}

}  // namespace bench
