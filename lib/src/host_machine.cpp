#include "host_machine.hpp"

#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <set>
#include <thread>
#include <utility>

namespace tessera::host {
namespace {

std::string read_word(const std::string& path) {
  std::ifstream f(path);
  std::string s;
  f >> s;
  return s;
}

// sysfs sizes: "48K" / "1024K" / "32M" -> bytes; 0 when empty or unreadable.
std::size_t parse_size(const std::string& s) {
  std::size_t v = 0, i = 0;
  for (; i < s.size() && s[i] >= '0' && s[i] <= '9'; ++i) v = v * 10 + std::size_t(s[i] - '0');
  const char unit = i < s.size() ? s[i] : ' ';
  return unit == 'K' ? v << 10 : unit == 'M' ? v << 20 : unit == 'G' ? v << 30 : v;
}

#ifdef _SC_LEVEL1_DCACHE_SIZE  // glibc only
std::size_t sysconf_bytes(int name) {
  const long v = sysconf(name);
  return v > 0 ? std::size_t(v) : 0;
}
#endif

// Linux sysfs describes cpu0's caches (level, type, size of one instance); sysconf (glibc) is
// the fallback.
CacheSizes read_caches() {
  CacheSizes c;
  constexpr int kMaxIndex = 8;
  for (int i = 0; i < kMaxIndex; ++i) {
    const std::string dir = "/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(i) + "/";
    const std::string level = read_word(dir + "level"), type = read_word(dir + "type");
    if (level.empty() || type == "Instruction") continue;
    const std::size_t bytes = parse_size(read_word(dir + "size"));
    if (level == "1") c.l1d = bytes;
    if (level == "2") c.l2 = bytes;
    if (level == "3") c.l3 = bytes;
  }
#ifdef _SC_LEVEL1_DCACHE_SIZE  // glibc only
  if (!c.l1d) c.l1d = sysconf_bytes(_SC_LEVEL1_DCACHE_SIZE);
  if (!c.l2) c.l2 = sysconf_bytes(_SC_LEVEL2_CACHE_SIZE);
  if (!c.l3) c.l3 = sysconf_bytes(_SC_LEVEL3_CACHE_SIZE);
#endif
  return c;
}

// The smallest common sizes: a wrong guess only costs speed.
CacheSizes with_fallbacks(CacheSizes c) {
  constexpr std::size_t kL1Fallback = 32 << 10, kL2Fallback = 256 << 10, kL3Fallback = 2 << 20;
  if (!c.l1d) c.l1d = kL1Fallback;
  if (!c.l2) c.l2 = kL2Fallback;
  if (!c.l3) c.l3 = std::max(kL3Fallback, c.l2);
  return c;
}

// The first value of each wanted /proc/cpuinfo key (the first core speaks for all), and the
// cores listed.
void read_cpuinfo(Machine& m) {
  std::ifstream in("/proc/cpuinfo");
  std::string line, implementer, part, hardware, physical_id;
  std::set<std::pair<std::string, std::string>> cores;
  while (std::getline(in, line)) {
    const auto colon = line.find(':');
    if (colon == std::string::npos) continue;
    std::string key = line.substr(0, colon);
    while (!key.empty() && (key.back() == ' ' || key.back() == '\t')) key.pop_back();
    std::string value = line.substr(colon + 1);
    if (!value.empty() && value.front() == ' ') value.erase(0, 1);
    if (key == "model name" && m.model.empty())
      m.model = value;
    else if (key == "vendor_id" && m.vendor.empty())
      m.vendor = value;
    else if (key == "CPU implementer" && implementer.empty())
      implementer = value;
    else if (key == "CPU part" && part.empty())
      part = value;
    else if (key == "Hardware")
      hardware = value;
    else if (key == "physical id")
      physical_id = value;
    else if (key == "core id")
      cores.emplace(physical_id, value);
  }
  if (m.model.empty()) m.model = !hardware.empty() ? hardware
                                 : !implementer.empty() ? "CPU implementer " + implementer + " part " + part
                                                        : "";
  m.physical_cores = static_cast<int>(cores.size());
}

std::uint64_t physical_memory_bytes() {
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  if (pages <= 0 || page <= 0) return 0;  // unknown on this system
  return static_cast<std::uint64_t>(pages) * static_cast<std::uint64_t>(page);
}

}  // namespace

const Machine& machine() {
  static const Machine m = [] {
    Machine r;
    read_cpuinfo(r);
    r.logical_cpus = std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
    r.memory_bytes = physical_memory_bytes();
    r.reported_caches = read_caches();
    r.caches = with_fallbacks(r.reported_caches);
    return r;
  }();
  return m;
}

}  // namespace tessera::host
