// Whether tessera-bench runs under user-mode emulation (qemu-aarch64 / qemu-arm), where every
// timing measures the emulator on the build machine and says nothing about an ARM board.
#pragma once

#include <string>

namespace bench {

// "" on real hardware; else a note for the report that names how the emulation was detected:
//  - TESSERA_EMULATED set (scripts/cross-arm.sh sets it to the QEMU command line), or
//  - an ARM binary that reads an x86 /proc/cpuinfo: qemu-user passes the host's file through,
//    while an ARM kernel never writes "vendor_id" or a "flags" line. (AT_PLATFORM and HWCAP in
//    the auxiliary vector are emulated, so they cannot tell.)
std::string emulation_note();

}  // namespace bench
