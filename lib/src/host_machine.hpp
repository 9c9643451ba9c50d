// Facts about the host machine, read once per process from Linux (/proc/cpuinfo, sysfs, sysconf):
// the one place the cpu device (info, kernel blocking, cache-size cut-offs), the reference device
// and the bench learn what the host is. Plain C++ (no Highway, no OpenMP), so the per-target
// kernel files may include it too.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace tessera::host {

// Data-cache capacities in bytes. l1d and l2 are per core; l3 is one instance (what a core
// shares with its neighbours).
struct CacheSizes {
  std::size_t l1d = 0, l2 = 0, l3 = 0;
};

struct Machine {
  // x86: cpuinfo's "model name"; ARM (no model name): "Hardware", else "CPU implementer 0x41
  // part 0xd0c"; empty when cpuinfo says nothing.
  std::string model;
  std::string vendor;         // "vendor_id" (x86), empty elsewhere
  int logical_cpus = 1;       // hardware threads (std::thread::hardware_concurrency, at least 1)
  int physical_cores = 0;     // distinct (physical id, core id) pairs of cpuinfo; 0 if not listed
  std::uint64_t memory_bytes = 0;  // physical memory; 0 if unknown
  // As the system reports them (sysfs for cpu0, then sysconf); 0 where it reports nothing.
  CacheSizes reported_caches;
  // reported_caches with conservative fallbacks (32 KiB, 256 KiB, max(2 MiB, l2)) where a size
  // is unknown, so code that derives blocking from them always has a value; a wrong guess only
  // costs speed.
  CacheSizes caches;

  // The largest reported cache (L3, else L2); 0 if none is reported.
  std::size_t last_level_cache() const {
    return reported_caches.l3 ? reported_caches.l3 : reported_caches.l2;
  }
};

// Read on first use, then fixed for the process.
const Machine& machine();

}  // namespace tessera::host
