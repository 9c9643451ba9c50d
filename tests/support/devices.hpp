// The device loop every cross-device test uses: one test body runs on every available device
// except the reference (the oracle), and the test says which devices ran and which it skipped.
//
// Skips, not failures:
//  - support(op, dtype) says !ok (the device's own statement, e.g. an OpenCL device without
//    cl_khr_fp64 for f64);
//  - NotImplemented for f64 from a GPU plugin (opencl/cuda) that lacks fp64.
// Everything else that escapes the body — NotImplemented from reference/cpu or for f32, any other
// exception — is a failure naming the device.
#pragma once

#include <doctest/doctest.h>

#include <algorithm>
#include <cstdlib>
#include <mutex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "tessera/tessera.hpp"

namespace tessera_test {

inline tessera::Device reference_device() { return tessera::Device::open("reference"); }

// Every available device but the reference, in tessera::devices() order (cpu, cuda:N, opencl:N).
// The environment variable TESSERA_TEST_DEVICES (a comma-separated list of specs, e.g.
// "cuda:0,opencl:1") narrows the list, for running one device's tests alone.
inline const std::vector<tessera::Device>& devices_under_test() {
  static const std::vector<tessera::Device> list = [] {
    std::vector<std::string> only;
    if (const char* env = std::getenv("TESSERA_TEST_DEVICES"); env != nullptr && *env != '\0') {
      std::stringstream ss(env);
      for (std::string spec; std::getline(ss, spec, ',');)
        if (!spec.empty()) only.push_back(spec);
    }
    std::vector<tessera::Device> out;
    for (const auto& info : tessera::devices()) {
      if (info.backend == "reference") continue;
      if (!only.empty() && std::find(only.begin(), only.end(), info.spec) == only.end()) continue;
      out.push_back(tessera::Device::open(info.spec));
    }
    return out;
  }();
  return list;
}

// Every available device, the reference first (for tests that hold on all of them alike, such
// as the bad-input tests and known-answer tests that also check the oracle).
inline std::vector<tessera::Device> all_devices() {
  std::vector<tessera::Device> out{reference_device()};
  for (const auto& d : devices_under_test()) out.push_back(d);
  return out;
}

// Prints a line once per binary run (the same skip is reported once, not once per size).
inline void note_once(const std::string& line) {
  static std::mutex mutex;
  static std::set<std::string> seen;
  std::lock_guard<std::mutex> lock(mutex);
  if (seen.insert(line).second) MESSAGE(line);
}

inline bool is_gpu_plugin(const tessera::Device& d) {
  return d.info().backend != "reference" && d.info().backend != "cpu";
}

// Runs body(device) on `device` for operation `op` in dtype T, applying the skip rules above.
// Returns true when the body ran to completion.
template <class T, class Body>
bool run_on_device(const tessera::Device& device, tessera::Op op, Body&& body) {
  const tessera::DType dt = tessera::dtype_v<T>;
  const std::string tag = std::string(tessera::to_string(op)) + "<" + tessera::to_string(dt) + "> on " + device.spec();
  const tessera::Support s = device.backend().support(op, dt);
  if (!s.ok) {
    if (device.info().backend == "reference" || device.info().backend == "cpu")
      FAIL_CHECK(tag << ": support() says not ok (" << s.reason << "); reference and cpu must run every op");
    else
      note_once("SKIPPED " + tag + ": " + s.reason);
    return false;
  }
  bool ran = false;
  std::string skip;
  {
    const std::string where = "device " + device.spec() + ", dtype " + tessera::to_string(dt);
    INFO(where);
    try {
      body(device);
      ran = true;
    } catch (const tessera::NotImplemented& e) {
      if (dt == tessera::DType::f64 && is_gpu_plugin(device))
        skip = std::string("NotImplemented: ") + e.what();
      else
        FAIL_CHECK(tag << ": NotImplemented: " << std::string(e.what()));
    } catch (const std::exception& e) {
      FAIL_CHECK(tag << ": unexpected exception: " << std::string(e.what()));
    }
  }
  if (ran) note_once("ran " + tag);
  if (!skip.empty()) note_once("SKIPPED " + tag + ": " + skip);
  return ran;
}

// The cross-device loop: body(device) on every device under test.
template <class T, class Body>
void for_each_device(tessera::Op op, Body&& body) {
  for (const auto& d : devices_under_test()) run_on_device<T>(d, op, body);
}

// Runs `f` (which computes the oracle's answer on the reference device); a failure there is a
// failure of the test, reported once, and the caller skips the comparison.
template <class F>
bool on_reference(const char* what, F&& f) {
  try {
    f();
    return true;
  } catch (const std::exception& e) {
    FAIL_CHECK("reference backend failed in " << std::string(what) << ": " << std::string(e.what()));
  }
  return false;
}

}  // namespace tessera_test
