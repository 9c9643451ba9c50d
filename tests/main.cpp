// The test binary's entry point: doctest's runner, except that a run narrowed by
// TESSERA_TEST_DEVICES to devices this machine does not have (the cuda.* ctests on a machine
// without a GPU) has nothing to test and exits 77, which the ctests report as skipped
// (SKIP_RETURN_CODE, tests/CMakeLists.txt), rather than computing every case's host-side data
// for no device and passing vacuously.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <cstdio>
#include <cstdlib>

#include "support/devices.hpp"

int main(int argc, char** argv) {
  const char* only = std::getenv("TESSERA_TEST_DEVICES");
  if (only != nullptr && *only != '\0' && tessera_test::devices_under_test().empty()) {
    std::printf("TESSERA_TEST_DEVICES=%s: none of these devices is on this machine; skipped\n", only);
    return 77;
  }
  doctest::Context context(argc, argv);
  return context.run();
}
