#include "emulation.hpp"

#include <cstdlib>

#include "host_machine.hpp"

namespace bench {

std::string emulation_note() {
  std::string how;
  if (const char* env = std::getenv("TESSERA_EMULATED"); env != nullptr && *env != '\0') {
    how = std::string("TESSERA_EMULATED=") + env;
  } else {
#if defined(__aarch64__) || defined(__arm__)
    // cpuinfo's vendor_id exists on x86 only: qemu-user passes the host's file through.
    if (!tessera::host::machine().vendor.empty()) how = "an ARM binary on an x86 host (/proc/cpuinfo)";
#endif
  }
  if (how.empty()) return "";
  return "running under emulation (" + how +
         "): timings measure the emulator, not an ARM CPU, and mean nothing; use this run to check results";
}

}  // namespace bench
