// Running a test body once per SIMD target of the cpu device (forced with set_cpu_target), and
// putting the uncapped target back however the body ends.
#pragma once

#include <doctest/doctest.h>

#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

#include "tessera/tessera.hpp"

namespace tessera_test {

// Restores the uncapped target in its destructor.
struct CpuTargetGuard {
  ~CpuTargetGuard() { tessera::set_cpu_target("best"); }
};

// The targets the per-target tests loop over: every target compiled in and supported here, best
// first; or, where TESSERA_TEST_CPU_TARGETS names some (space separated), only those of them
// this CPU runs. scripts/cross-arm.sh names them for its runs after the first: that one
// already looped over every target at 512-bit SVE, a later one adds only the targets its own
// vector length brings (SVE_256 at 256 bits, SVE2_128 at 128).
inline std::vector<std::string> cpu_targets_under_test() {
  const std::vector<std::string> all = tessera::cpu_targets();
  const char* env = std::getenv("TESSERA_TEST_CPU_TARGETS");
  if (env == nullptr || *env == '\0') return all;
  std::vector<std::string> chosen;
  std::istringstream names(env);
  for (std::string name; names >> name;)
    for (const std::string& t : all)
      if (t == name) chosen.push_back(t);
  // A list that matches nothing would make every per-target test pass having run nothing.
  REQUIRE_MESSAGE(!chosen.empty(), "TESSERA_TEST_CPU_TARGETS=\"" << env << "\" names no target this CPU runs");
  return chosen;
}

// body(target name) once per target under test.
template <class F>
void for_each_cpu_target(F&& body) {
  CpuTargetGuard guard;
  for (const std::string& t : cpu_targets_under_test()) {
    tessera::set_cpu_target(t);
    REQUIRE(tessera::cpu_target() == t);
    INFO("cpu target " << t);
    body(t);
  }
}

}  // namespace tessera_test
