#include "machine.hpp"

#include <omp.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <ctime>

#include "baselines/baselines.hpp"
#include "emulation.hpp"
#include "host_machine.hpp"
#include "openblas_coretype.hpp"
#include "tessera/cpu_target.hpp"
#include "tessera/version.hpp"

namespace bench {

namespace {

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

// The host's facts come from the library's one reader of them (lib/src/host_machine.hpp).
std::uint64_t last_level_cache_bytes() { return tessera::host::machine().last_level_cache(); }

RunInfo collect_run_info(const Options& o) {
  RunInfo i;
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  i.machine = host;
  utsname u{};
  if (uname(&u) == 0) i.os = std::string(u.sysname) + " " + u.release + " " + u.machine;
  const tessera::host::Machine& m = tessera::host::machine();
  i.cpu_model = !m.model.empty() ? m.model : "unknown";
  i.cores = m.logical_cpus;
  i.threads = omp_get_max_threads();
  i.llc_bytes = last_level_cache_bytes();
  i.memory_bytes = m.memory_bytes;
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
