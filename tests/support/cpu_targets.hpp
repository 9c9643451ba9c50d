// Running a test body once per SIMD target of the cpu device (forced with set_cpu_target), and
// putting the uncapped target back however the body ends.
#pragma once

#include <doctest/doctest.h>

#include <string>

#include "tessera/tessera.hpp"

namespace tessera_test {

// Restores the uncapped target in its destructor.
struct CpuTargetGuard {
  ~CpuTargetGuard() { tessera::set_cpu_target("best"); }
};

// body(target name) once per target compiled in and supported here, best first.
template <class F>
void for_each_cpu_target(F&& body) {
  CpuTargetGuard guard;
  for (const std::string& t : tessera::cpu_targets()) {
    tessera::set_cpu_target(t);
    REQUIRE(tessera::cpu_target() == t);
    INFO("cpu target " << t);
    body(t);
  }
}

}  // namespace tessera_test
