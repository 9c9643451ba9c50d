// The facts about the machine and the build that head every report.
#pragma once

#include <cstdint>

#include "options.hpp"
#include "result.hpp"

namespace bench {

// Everything but devices and peaks, which the run fills in.
RunInfo collect_run_info(const Options& options);

// Size of the host's last-level cache in bytes (the highest cache level sysfs lists for cpu0,
// else sysconf), 0 when unknown. Bandwidth peaks use arrays several times larger, and
// bandwidth-bound results whose data would fit are marked.
std::uint64_t last_level_cache_bytes();

}  // namespace bench
