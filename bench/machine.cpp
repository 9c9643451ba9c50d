#include "machine.hpp"

#include <omp.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <thread>

#include "baselines/baselines.hpp"
#include "emulation.hpp"
#include "openblas_coretype.hpp"
#include "tessera/cpu_target.hpp"
#include "tessera/version.hpp"

namespace bench {

namespace {

// x86: "model name"; ARM: no model name line, so the implementer/part codes and any "Hardware".
std::string cpu_model() {
  std::ifstream f("/proc/cpuinfo");
  std::string line, implementer, part, hardware;
  while (std::getline(f, line)) {
    const auto colon = line.find(':');
    if (colon == std::string::npos) continue;
    std::string key = line.substr(0, colon);
    while (!key.empty() && (key.back() == ' ' || key.back() == '\t')) key.pop_back();
    std::string value = colon + 2 <= line.size() ? line.substr(colon + 2) : "";
    if (key == "model name") return value;
    if (key == "CPU implementer" && implementer.empty()) implementer = value;
    if (key == "CPU part" && part.empty()) part = value;
    if (key == "Hardware") hardware = value;
  }
  if (!hardware.empty()) return hardware;
  if (!implementer.empty()) return "implementer " + implementer + " part " + part;
  return "unknown";
}

std::string compiler() {
#if defined(__clang__)
  return std::string("clang ") + __clang_version__;
#elif defined(__GNUC__)
  return std::string("g++ ") + __VERSION__;
#else
  return "unknown";
#endif
}

std::string utc_now() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

}  // namespace

std::uint64_t last_level_cache_bytes() {
  int best_level = 0;
  std::uint64_t best = 0;
  for (int i = 0; i < 8; ++i) {
    const std::string dir = "/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(i) + "/";
    std::ifstream level_file(dir + "level"), size_file(dir + "size");
    int level = 0;
    std::string size;
    if (!(level_file >> level) || !(size_file >> size) || size.empty()) continue;
    std::uint64_t bytes = std::strtoull(size.c_str(), nullptr, 10);
    if (size.back() == 'K') bytes <<= 10;
    if (size.back() == 'M') bytes <<= 20;
    if (level > best_level || (level == best_level && bytes > best)) best_level = level, best = bytes;
  }
  if (best == 0) {
    const long l3 = sysconf(_SC_LEVEL3_CACHE_SIZE);
    const long l2 = sysconf(_SC_LEVEL2_CACHE_SIZE);
    best = static_cast<std::uint64_t>(l3 > 0 ? l3 : l2 > 0 ? l2 : 0);
  }
  return best;
}

RunInfo collect_run_info(const Options& o) {
  RunInfo i;
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  i.machine = host;
  utsname u{};
  if (uname(&u) == 0) i.os = std::string(u.sysname) + " " + u.release + " " + u.machine;
  i.cpu_model = cpu_model();
  i.cores = static_cast<int>(std::thread::hardware_concurrency());
  i.threads = omp_get_max_threads();
  i.llc_bytes = last_level_cache_bytes();
  i.memory_bytes = static_cast<std::uint64_t>(sysconf(_SC_PHYS_PAGES)) * static_cast<std::uint64_t>(sysconf(_SC_PAGESIZE));
  i.compiler = compiler();
  i.tessera_version = tessera::version();
  i.date = utc_now();
  i.command_line = o.command_line;
  try {
    i.cpu_simd_target = tessera::cpu_target();
    i.cpu_simd_targets = tessera::cpu_targets();
  } catch (const std::exception& e) {
    i.cpu_simd_target = std::string("? (") + e.what() + ")";
  }
  i.openblas_core = openblas_core_name();
  i.openblas_coretype_env = openblas_coretype_env();
  i.openblas_note = openblas_coretype_note();
  i.baselines = baseline_libraries();
  i.size = !o.explicit_cases.empty() ? "custom (--case)" : o.sweep ? "sweep up to " + o.size : o.size;
  i.min_time_s = o.min_time_s;
  i.min_reps = o.reps;
  if (const std::string emulated = emulation_note(); !emulated.empty()) i.notes.push_back(emulated);
  // Other work on the machine makes every number below noise: say so where it will be read.
  double load[1] = {0};
  if (getloadavg(load, 1) == 1 && load[0] > 1.0 + 0.25 * i.cores) {
    char buf[160];
    std::snprintf(buf, sizeof buf, "the machine was busy when the run started (load average %.1f on %d cores): timings "
                  "are unreliable", load[0], i.cores);
    i.notes.push_back(buf);
  }
  return i;
}

}  // namespace bench
