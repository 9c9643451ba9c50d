// Which OpenCL device profile the devices under test run. With TESSERA_EXPECT_OPENCL_PROFILE set
// (the ctest entry opencl.amd_gcn_profile sets it together with TESSERA_OPENCL_PROFILE=amd-gcn
// and TESSERA_TEST_DEVICES=opencl:0), every OpenCL device under test must report that profile
// and its parameters, so the op suite of the same run is known to have exercised it; without
// the variable, every OpenCL device must report some built-in profile.
#include <doctest/doctest.h>

#include <cstdlib>
#include <string>

#include "support/devices.hpp"

namespace {

std::string detail(const tessera::DeviceInfo& info, const std::string& key) {
  for (const auto& [k, v] : info.details)
    if (k == key) return v;
  return {};
}

}  // namespace

TEST_CASE("opencl: every device under test reports the profile it runs") {
  const char* env = std::getenv("TESSERA_EXPECT_OPENCL_PROFILE");
  const std::string expected = env ? env : "";
  int opencl_devices = 0;
  for (const auto& d : tessera_test::devices_under_test()) {
    if (d.info().backend != "opencl") continue;
    ++opencl_devices;
    INFO("device " << d.spec() << " (" << d.info().name << ")");
    const std::string profile = detail(d.info(), "profile");
    const std::string params = detail(d.info(), "profile parameters");
    CHECK_FALSE(profile.empty());
    CHECK_FALSE(params.empty());
    if (expected.empty()) continue;
    // "amd-gcn: AMD GCN GPU: ... (TESSERA_OPENCL_PROFILE is set)"
    CHECK(profile.rfind(expected + ":", 0) == 0);
    if (expected == "amd-gcn") {
      // The hardware facts the GCN kernels are specialised with (backends/opencl/device_profile.cpp).
      CHECK(detail(d.info(), "kernel family").rfind("gpu", 0) == 0);
      for (const char* p : {"subgroup=64 ", "max_wg=256 ", "local_mem_kb=32 ", "spmv.max_lanes=64 ", "trsv.block=64 "})
        CHECK_MESSAGE(params.find(p) != std::string::npos, "profile parameters lack '" << p << "': " << params);
    }
  }
  if (!expected.empty() && opencl_devices == 0)
    FAIL("TESSERA_EXPECT_OPENCL_PROFILE=" << expected
                                          << " but no OpenCL device is under test (is an ICD such as PoCL installed?)");
}
