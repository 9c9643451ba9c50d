// Which OpenCL tuning class the devices under test run. With TESSERA_EXPECT_OPENCL_CLASS set (the
// ctest entry opencl.amd_gcn_profile sets it together with TESSERA_TUNE=opencl:class=amd-gcn and
// TESSERA_TEST_DEVICES=opencl:0), every OpenCL device under test must report that class and its
// values, so the op suite of the same run is known to have exercised it; without the variable,
// every OpenCL device must report some OpenCL class and its tuning values.
#include <doctest/doctest.h>

#include <cstdint>
#include <cstdlib>
#include <string>

#include "support/devices.hpp"

namespace {

std::string detail(const tessera::DeviceInfo& info, const std::string& key) {
  for (const auto& [k, v] : info.details)
    if (k == key) return v;
  return {};
}

// The value of a tuning key, or -1 when the device does not report it.
std::int64_t tuning_value(const tessera::DeviceInfo& info, const std::string& key) {
  for (const auto& [k, v] : info.tuning)
    if (k == key) return v;
  return -1;
}

}  // namespace

TEST_CASE("opencl: every device under test reports the tuning class it runs") {
  const char* env = std::getenv("TESSERA_EXPECT_OPENCL_CLASS");
  const std::string expected = env ? env : "";
  int opencl_devices = 0;
  for (const auto& d : tessera_test::devices_under_test()) {
    if (d.info().backend != "opencl") continue;
    ++opencl_devices;
    const tessera::DeviceInfo info = d.info();
    INFO("device " << d.spec() << " (" << info.name << "), class " << info.tuning_class);
    CHECK(info.tuning_class.rfind("opencl/", 0) == 0);
    CHECK_FALSE(info.tuning.empty());
    if (expected.empty()) continue;
    CHECK(info.tuning_class == "opencl/" + expected);
    if (expected == "amd-gcn") {
      // The hardware facts the GCN kernels are specialised with (lib/src/tuning/*.cpp).
      CHECK(detail(info, "kernels").rfind("gpu", 0) == 0);
      CHECK(tuning_value(info, "device.cpu_kernels") == 0);
      CHECK(tuning_value(info, "device.subgroup") == 64);
      CHECK(tuning_value(info, "device.max_wg") == 256);
      CHECK(tuning_value(info, "device.local_mem_kb") == 32);
      CHECK(tuning_value(info, "spmv.max_lanes") == 64);
      CHECK(tuning_value(info, "trsv.block") == 64);
    }
  }
  if (!expected.empty() && opencl_devices == 0)
    FAIL("TESSERA_EXPECT_OPENCL_CLASS=" << expected
                                        << " but no OpenCL device is under test (is an ICD such as PoCL installed?)");
}
