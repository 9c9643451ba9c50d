// The registry with plugins, end to end: TESSERA_PLUGIN_PATH + TESSERA_EXTRA_PLUGINS name the
// test plugins, and the public API (backends(), devices(), Device::open, the ops) must show
// each one as available or unavailable-with-its-reason. The registry reads the environment
// once, at first use, so this is a binary of its own, and ctest runs each case in a fresh
// process (run by hand, the cases share one registry, which they do not mind).
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

#include "tessera/tessera.hpp"

namespace {

// By value: backends() returns a fresh vector each call, and a pointer into it would dangle.
std::optional<tessera::BackendStatus> find_backend(const std::vector<tessera::BackendStatus>& all,
                                                   const std::string& name) {
  for (const auto& b : all)
    if (b.name == name) return b;
  return std::nullopt;
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// The message of what `f` throws as E, or a note saying it did not throw that.
template <class E, class F>
std::string message_of(F&& f) {
  try {
    f();
  } catch (const E& e) {
    return e.what();
  }
  return "<did not throw>";
}

}  // namespace

TEST_CASE("registry: every backend is listed, each unavailable one with its reason") {
  const auto all = tessera::backends();
  for (const char* name : {"reference", "cpu", "cuda", "opencl", "testgood", "testnodev", "testabi", "testnosym",
                           "testnolib", "testabsent", "testthrow"}) {
    CAPTURE(name);
    CHECK(find_backend(all, name).has_value());
  }
  for (const auto& b : all) {
    CAPTURE(b.name);
    CAPTURE(b.reason);
    if (b.available) {
      CHECK(b.device_count > 0);
    } else {
      CHECK(!b.reason.empty());
      CHECK(b.device_count == 0);
    }
  }
  // The order is part of the contract: built-in backends, then cuda, opencl, then extras.
  REQUIRE(all.size() >= 4);
  CHECK(all[0].name == "reference");
  CHECK(all[1].name == "cpu");
  CHECK(all[2].name == "cuda");
  CHECK(all[3].name == "opencl");
}

TEST_CASE("registry: each failing plugin's reason reaches backends()") {
  const auto all = tessera::backends();
  const std::string dir = TESSERA_TEST_PLUGIN_DIR;
  const auto nodev = find_backend(all, "testnodev");
  const auto abi = find_backend(all, "testabi");
  const auto nosym = find_backend(all, "testnosym");
  const auto nolib = find_backend(all, "testnolib");
  const auto absent = find_backend(all, "testabsent");
  REQUIRE((nodev && abi && nosym && nolib && absent));

  CHECK(!nodev->available);
  CHECK(nodev->reason == "no test device here");
  CHECK(nodev->location == dir + "/libtessera-testnodev.so");

  CHECK(!abi->available);
  CHECK(contains(abi->reason, "ABI version 999"));
  CHECK(!nosym->available);
  CHECK(contains(nosym->reason, "no entry point"));
  CHECK(!nolib->available);
  CHECK(contains(nolib->reason, "libtessera-test-absent.so"));

  CHECK(!absent->available);
  CHECK(absent->location.empty());
  CHECK(contains(absent->reason, "libtessera-testabsent.so not found"));
  CHECK(contains(absent->reason, dir));
}

TEST_CASE("registry: a plugin's devices are listed and open by spec") {
  const auto good = find_backend(tessera::backends(), "testgood");
  REQUIRE(good.has_value());
  CHECK(good->available);
  CHECK(good->device_count == 2);
  CHECK(good->reason.empty());
  CHECK(good->location == std::string(TESSERA_TEST_PLUGIN_DIR) + "/libtessera-testgood.so");

  std::vector<std::string> specs;
  for (const auto& d : tessera::devices())
    if (d.backend == "testgood") {
      specs.push_back(d.spec);
      CHECK(d.name == "test device " + std::to_string(d.index));
    }
  CHECK(specs == std::vector<std::string>{"testgood:0", "testgood:1"});

  const tessera::Device d1 = tessera::Device::open("testgood:1");
  CHECK(d1.spec() == "testgood:1");
  CHECK(d1.info().name == "test device 1");
  CHECK(d1.info().vendor == "Tessera tests");
  CHECK(d1 == tessera::Device::open("testgood:1"));
  CHECK(d1 != tessera::Device::open("testgood:0"));
  CHECK(tessera::Device::open("testgood") == tessera::Device::open("testgood:0"));

  CHECK(contains(message_of<tessera::BackendUnavailable>([] { tessera::Device::open("testgood:2"); }),
                 "2 device(s)"));
}

TEST_CASE("registry: a plugin's backend holds data and its operations throw NotImplemented") {
  const tessera::Device d = tessera::Device::open("testgood:1");
  // Memory goes through the plugin's allocate/upload/download.
  const std::vector<float> host = {1.5f, -2.0f, 3.25f};
  const auto x = tessera::Vector<float>::from_host(d, host);
  CHECK(x.to_host() == host);

  // Through lib/ (validation, then the plugin's virtual reduce) ...
  const std::string via_lib = message_of<tessera::NotImplemented>([&] { tessera::sum(x); });
  CHECK(contains(via_lib, "testgood"));
  CHECK(contains(via_lib, "reduce"));
  // ... and straight to the backend, for an op whose public wrapper may not exist yet.
  const std::string direct = message_of<tessera::NotImplemented>([&] {
    d.backend().gemm(tessera::DType::f64, d.queue().backend_queue(), tessera::Trans::N, tessera::Trans::N, 1.0, {}, {},
                     0.0, {}, tessera::MathMode::exact);
  });
  CHECK(contains(direct, "testgood"));
  CHECK(contains(direct, "gemm"));

  const tessera::Support s = d.backend().support(tessera::Op::gemm, tessera::DType::f32);
  CHECK(!s.ok);
  CHECK(!s.reason.empty());
}

TEST_CASE("registry: an unavailable plugin backend refuses to open, with its reason") {
  const std::string nodev = message_of<tessera::BackendUnavailable>([] { tessera::Device::open("testnodev"); });
  CHECK(contains(nodev, "testnodev"));
  CHECK(contains(nodev, "no test device here"));
  CHECK(contains(message_of<tessera::BackendUnavailable>([] { tessera::Device::open("testabi:0"); }),
                 "ABI version 999"));
  CHECK(contains(message_of<tessera::BackendUnavailable>([] { tessera::Device::open("testabsent"); }),
                 "not found"));
  // A name nobody registered is a different error: the spec itself is wrong.
  CHECK(contains(message_of<tessera::InvalidArgument>([] { tessera::Device::open("testunlisted"); }),
                 "testgood[:N]"));
}

TEST_CASE("registry: a device that cannot be created fails its open, not the whole listing") {
  // testthrow reports one device, then create_backend throws BackendUnavailable.
  CHECK(contains(message_of<tessera::BackendUnavailable>([] { tessera::Device::open("testthrow"); }), "is busy"));
  std::vector<tessera::DeviceInfo> devs;
  REQUIRE_NOTHROW(devs = tessera::devices());
  for (const auto& d : devs) CHECK(d.backend != "testthrow");
  CHECK(devs.size() >= 4);  // reference, cpu, testgood:0, testgood:1 are still there

  // It is left out, not silently: backends() now says why.
  const auto t = find_backend(tessera::backends(), "testthrow");
  REQUIRE(t.has_value());
  CHECK(!t->available);
  CHECK(contains(t->reason, "testthrow:0"));
  CHECK(contains(t->reason, "is busy"));
}

TEST_CASE("registry: extra plugins leave the real backends and auto alone") {
  const auto all = tessera::backends();
  for (const char* name : {"cuda", "opencl"}) {
    const auto b = find_backend(all, name);
    REQUIRE(b.has_value());
    CAPTURE(b->reason);
    if (b->available) {
      for (int i = 0; i < b->device_count; ++i)
        CHECK_NOTHROW(tessera::Device::open(std::string(name) + ":" + std::to_string(i)));
    } else {
      CHECK(!b->reason.empty());
      CHECK_THROWS_AS(tessera::Device::open(name), tessera::BackendUnavailable);
    }
  }
  // A test plugin is never chosen by "auto", which only looks at cuda, opencl and cpu.
  if (std::getenv("TESSERA_DEVICE") == nullptr) CHECK(!contains(tessera::Device::open("auto").spec(), "test"));
}

int main(int argc, char** argv) {
  // Before any test touches the registry. Overwritten, not merged: this binary tests one fixed
  // configuration, whatever the calling shell has set.
  ::setenv("TESSERA_PLUGIN_PATH", TESSERA_TEST_PLUGIN_DIR, 1);
  ::setenv("TESSERA_EXTRA_PLUGINS", "testgood,testnodev,testabi,testnosym,testnolib,testabsent,testthrow", 1);
  doctest::Context context(argc, argv);
  return context.run();
}
