// The cpu device itself: what it says about itself (info) and, at construction, the
// TESSERA_CPU_TARGET cap. Its operations are in the files named after them.
#include <unistd.h>

#include <hwy/highway.h>  // HWY_MAJOR etc.

#include <fstream>
#include <memory>
#include <string>

#include "builtin_backends.hpp"
#include "cpu/cpu_backend.hpp"
#include "kernels/cpu/dispatch.hpp"
#include "tessera/cpu_target.hpp"

namespace tessera {
namespace {

// First value of each wanted /proc/cpuinfo key (the first core speaks for all).
struct CpuInfoText {
  std::string model, vendor, implementer, part;
};

CpuInfoText read_cpuinfo() {
  CpuInfoText r;
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    const auto colon = line.find(':');
    if (colon == std::string::npos) continue;
    std::string key = line.substr(0, colon);
    while (!key.empty() && (key.back() == ' ' || key.back() == '\t')) key.pop_back();
    std::string value = line.substr(colon + 1);
    if (!value.empty() && value.front() == ' ') value.erase(0, 1);
    if (key == "model name" && r.model.empty())
      r.model = value;
    else if (key == "vendor_id" && r.vendor.empty())
      r.vendor = value;
    else if (key == "CPU implementer" && r.implementer.empty())
      r.implementer = value;
    else if (key == "CPU part" && r.part.empty())
      r.part = value;
  }
  return r;
}

std::string cache_size(long bytes) {
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

}  // namespace

CpuBackend::CpuBackend() { cpu::ensure_env_target(); }

DeviceInfo CpuBackend::info() const {
  DeviceInfo d;
  const CpuInfoText c = read_cpuinfo();
  if (!c.model.empty())
    d.name = c.model;
  else if (!c.implementer.empty())
    d.name = "CPU implementer " + c.implementer + " part " + c.part;
  else
    d.name = "aarch64 CPU";
  d.vendor = c.vendor;
  d.type = "cpu";
  d.compute_units = cpu::num_threads();
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  if (pages > 0 && page > 0) d.memory_bytes = static_cast<std::uint64_t>(pages) * static_cast<std::uint64_t>(page);
  d.simd_target = cpu_target();
  d.driver = openmp_version() + ", Highway " + std::to_string(HWY_MAJOR) + "." + std::to_string(HWY_MINOR) + "." +
             std::to_string(HWY_PATCH);

  std::string compiled;
  for (const auto& t : cpu_targets()) compiled += (compiled.empty() ? "" : ", ") + t;
  d.details.emplace_back("simd targets compiled", compiled);
  d.details.emplace_back("openmp threads", std::to_string(cpu::num_threads()));
  d.details.emplace_back("simd lanes f32", std::to_string(cpu::lanes_f32()));
#ifdef _SC_LEVEL1_DCACHE_SIZE  // glibc only
  const std::pair<const char*, int> caches[] = {
      {"L1d cache", _SC_LEVEL1_DCACHE_SIZE}, {"L2 cache", _SC_LEVEL2_CACHE_SIZE}, {"L3 cache", _SC_LEVEL3_CACHE_SIZE}};
  for (const auto& [label, key] : caches)
    if (const long v = sysconf(key); v > 0) d.details.emplace_back(label, cache_size(v));
#endif
  return d;
}

std::unique_ptr<Backend> make_cpu_backend() { return std::make_unique<CpuBackend>(); }

}  // namespace tessera
