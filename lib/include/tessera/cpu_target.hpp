/// \file
/// The SIMD target of the cpu device. Kernels are compiled for every Highway target the build
/// machine's compiler offers; the best one the running CPU supports runs, unless capped here
/// or by the environment variable TESSERA_CPU_TARGET (read once, at first use).
#pragma once

#include <string>
#include <vector>

namespace tessera {

/// Targets compiled in and supported by this CPU, best first, by Highway's names
/// (e.g. "AVX3_DL", "AVX3", "AVX2", "SSE4", "EMU128" on x86; "SVE2", "SVE", "NEON" on aarch64).
std::vector<std::string> cpu_targets();

/// The target the cpu device's kernels run with now.
std::string cpu_target();

/// Caps dispatch at `name` (case-insensitive; "avx512" is accepted for "AVX3", "scalar" for the
/// portable fallback) for all later calls. Throws InvalidArgument naming the available targets
/// when `name` is unknown or not supported here. "best" removes the cap.
void set_cpu_target(const std::string& name);

}  // namespace tessera
