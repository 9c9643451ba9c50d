// The cpu device itself: what it says about itself (info) and, at construction, the
// TESSERA_CPU_TARGET cap and its tuning. Its operations are in the files named after them.
#include <hwy/highway.h>  // HWY_MAJOR etc.

#include <memory>
#include <string>

#include "builtin_backends.hpp"
#include "cpu/cpu_backend.hpp"
#include "host_machine.hpp"
#include "kernels/cpu/dispatch.hpp"
#include "kernels/cpu/spmv_sell.hpp"
#include "tessera/cpu_target.hpp"

namespace tessera {
namespace {

std::string cache_size(std::size_t bytes) {
  if (bytes % (1 << 20) == 0) return std::to_string(bytes >> 20) + " MiB";
  return std::to_string(bytes >> 10) + " KiB";
}

// _OPENMP is the date of the specification the compiler implements.
std::string openmp_version() {
  switch (_OPENMP) {
    case 201307: return "OpenMP 4.0";
    case 201511: return "OpenMP 4.5";
    case 201811: return "OpenMP 5.0";
    case 202011: return "OpenMP 5.1";
    case 202111: return "OpenMP 5.2";
    default: return "OpenMP " + std::to_string(_OPENMP);
  }
}

// The tuning class (lib/src/tuning/tuning.hpp) from the x86 vendor: what differs between them is
// measured per class there (spmv.gathers, spmv.sell_max_cv); ARM and the rest are cpu/host. Only
// an x86 build asks: under qemu-user an ARM build may read the x86 host's /proc/cpuinfo.
std::string tuning_class([[maybe_unused]] const host::Machine& m) {
#if defined(__x86_64__) || defined(__i386__)
  if (m.vendor == "GenuineIntel") return "cpu/intel";
  if (m.vendor == "AuthenticAMD") return "cpu/amd";
#endif
  return "cpu/host";
}

}  // namespace

CpuBackend::CpuBackend() : tune_(tuning::Tuning::for_device(tuning_class(host::machine()), "cpu")) {
  cpu::ensure_env_target();
}

DeviceInfo CpuBackend::info() const {
  const host::Machine& m = host::machine();
  DeviceInfo d;
  d.name = !m.model.empty() ? m.model : "aarch64 CPU";
  d.vendor = m.vendor;
  d.type = "cpu";
  d.compute_units = cpu::num_threads();
  d.memory_bytes = m.memory_bytes;
  d.simd_target = cpu_target();
  d.driver = openmp_version() + ", Highway " + std::to_string(HWY_MAJOR) + "." + std::to_string(HWY_MINOR) + "." +
             std::to_string(HWY_PATCH);

  std::string compiled;
  for (const auto& t : cpu_targets()) compiled += (compiled.empty() ? "" : ", ") + t;
  d.details.emplace_back("simd targets compiled", compiled);
  d.details.emplace_back("openmp threads", std::to_string(cpu::num_threads()));
  d.details.emplace_back("simd lanes f32", std::to_string(cpu::lanes_f32()));
  d.details.emplace_back("spmv sell C (f32, f64)",
                         std::to_string(cpu::sell_c_f32()) + ", " + std::to_string(cpu::sell_c_f64()));
  const std::pair<const char*, std::size_t> caches[] = {{"L1d cache", m.reported_caches.l1d},
                                                        {"L2 cache", m.reported_caches.l2},
                                                        {"L3 cache", m.reported_caches.l3}};
  for (const auto& [label, bytes] : caches)
    if (bytes > 0) d.details.emplace_back(label, cache_size(bytes));
  d.tuning_class = tune_.device_class();
  d.tuning = tune_.values();
  return d;
}

std::unique_ptr<Backend> make_cpu_backend() { return std::make_unique<CpuBackend>(); }

}  // namespace tessera
