#include "emulation.hpp"

#include <cstdlib>
#include <fstream>

namespace bench {

namespace {

[[maybe_unused]] bool cpuinfo_is_x86() {
  std::ifstream f("/proc/cpuinfo");
  for (std::string line; std::getline(f, line);)
    if (line.rfind("vendor_id", 0) == 0 || line.rfind("flags", 0) == 0) return true;
  return false;
}

}  // namespace

std::string emulation_note() {
  std::string how;
  if (const char* env = std::getenv("TESSERA_EMULATED"); env != nullptr && *env != '\0') {
    how = std::string("TESSERA_EMULATED=") + env;
  } else {
#if defined(__aarch64__) || defined(__arm__)
    if (cpuinfo_is_x86()) how = "an ARM binary on an x86 host (/proc/cpuinfo)";
#endif
  }
  if (how.empty()) return "";
  return "running under emulation (" + how +
         "): timings measure the emulator, not an ARM CPU, and mean nothing; use this run to check results";
}

}  // namespace bench
