// One parallel region of the cpu device: `parts` pieces of work, one per OpenMP thread, and
// the team that runs them. For the backend's files only (compiled with OpenMP).
#pragma once

#include <omp.h>

#include <algorithm>
#include <cstdlib>
#include <string_view>

#include "kernels/cpu/dispatch.hpp"

namespace tessera::cpu {

// The thread team of a parallel region that has `parts` pieces of work. Sized (the default):
// `parts` threads. Full (TESSERA_CPU_TEAM=full): every thread of the device, those past `parts`
// idle in the region, so that consecutive regions of different sizes reuse one team instead of
// resizing OpenMP's (libgomp re-docks threads when a team's size changes).
inline int team_for(int parts) {
  static const bool full = [] {
    const char* env = std::getenv("TESSERA_CPU_TEAM");
    return env != nullptr && std::string_view(env) == "full";
  }();
  return full ? std::max(parts, num_threads()) : parts;
}

// f(t) for t in [0, parts), one part per OpenMP thread; inline for one part (no region).
template <class F>
void parallel_parts(int parts, F&& f) {
  if (parts <= 1) {
    f(0);
    return;
  }
  const int team = team_for(parts);
#pragma omp parallel num_threads(team)
  {
    const int t = omp_get_thread_num();
    if (t < parts) f(t);
  }
}

}  // namespace tessera::cpu
