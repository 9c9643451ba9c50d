// lib/src/plugin_loader: every path of probe_plugin, each shown by one of the test plugins in
// tests/plugins (built into TESSERA_TEST_PLUGIN_DIR, away from libtessera), and the search
// folders. The registry's use of the loader is tested in tests/plugins/registry_test.cpp.
#include <doctest/doctest.h>

#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "plugin_loader.hpp"
#include "tessera/tessera.hpp"

namespace {

using tessera::detail::PluginProbe;
using tessera::detail::probe_plugin;

const std::string plugin_dir = TESSERA_TEST_PLUGIN_DIR;

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

PluginProbe probe(const std::string& name) { return probe_plugin(name, {plugin_dir}); }

// Sets an environment variable for one test and puts the old value back, so later tests in
// the same process (the registry reads TESSERA_PLUGIN_PATH at first use) see what was there.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    if (value != nullptr) ::setenv(name, value, 1);
    else ::unsetenv(name);
  }
  ~ScopedEnv() {
    if (old_) ::setenv(name_, old_->c_str(), 1);
    else ::unsetenv(name_);
  }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  const char* name_;
  std::optional<std::string> old_;
};

bool same_folder(const std::string& a, const std::string& b) {
  std::error_code ec;
  return std::filesystem::equivalent(a, b, ec);
}

}  // namespace

TEST_CASE("plugin loader: a good plugin loads with its devices, and its backend works across the boundary") {
  const PluginProbe p = probe("testgood");
  CHECK(p.reason == "");
  REQUIRE(p.api != nullptr);
  CHECK(p.device_count == 2);
  CHECK(p.path == plugin_dir + "/libtessera-testgood.so");
  CHECK(p.api->abi_version == TESSERA_PLUGIN_ABI_VERSION);
  CHECK(std::string(p.api->backend_name) == "testgood");

  // A backend made inside the plugin, used and destroyed from here: vtable, DeviceInfo,
  // memory and the plugin's exceptions all cross the shared-object boundary.
  std::unique_ptr<tessera::Backend> b(p.api->create_backend(1));
  REQUIRE(b != nullptr);
  CHECK(b->info().name == "test device 1");
  const double in[3] = {1.0, -2.5, 4.0};
  double out[3] = {};
  void* mem = b->allocate(sizeof in);
  const std::shared_ptr<tessera::QueueImpl> q = b->create_queue();
  REQUIRE(q != nullptr);
  b->upload(*q, mem, 0, in, sizeof in, true);
  b->download(*q, out, mem, 0, sizeof out, true);
  b->deallocate(mem);
  CHECK(out[1] == -2.5);
  try {
    b->reduce(tessera::DType::f32, *q, tessera::ReduceOp::sum, {}, {});
    FAIL("reduce did not throw");
  } catch (const tessera::NotImplemented& e) {
    CHECK(contains(e.what(), "testgood"));
    CHECK(contains(e.what(), "reduce"));
  }

  // Probing again finds the same, already loaded, plugin.
  CHECK(probe("testgood").api == p.api);
}

TEST_CASE("plugin loader: the first folder that has the file wins") {
  const PluginProbe p = probe_plugin("testgood", {plugin_dir + "/no-such-folder", plugin_dir, "/nonexistent"});
  CHECK(p.path == plugin_dir + "/libtessera-testgood.so");
  CHECK(p.device_count == 2);
}

TEST_CASE("plugin loader: a missing file names the file, the folders searched and TESSERA_PLUGIN_PATH") {
  const PluginProbe p = probe_plugin("testabsent", {plugin_dir, "/nonexistent/tessera"});
  CHECK(p.api == nullptr);
  CHECK(p.device_count == 0);
  CHECK(p.path.empty());
  CAPTURE(p.reason);
  CHECK(contains(p.reason, "libtessera-testabsent.so"));
  CHECK(contains(p.reason, plugin_dir));
  CHECK(contains(p.reason, "/nonexistent/tessera"));
  CHECK(contains(p.reason, "TESSERA_PLUGIN_PATH"));

  // With no folder at all, it still says so rather than printing an empty list.
  CHECK(contains(probe_plugin("testgood", {}).reason, "searched: nothing"));
}

TEST_CASE("plugin loader: a file dlopen refuses gives dlopen's own error") {
  // testnolib needs libtessera-test-absent.so, which no search path holds, as the CUDA
  // plugin needs libcuda.so.1 on a machine without the driver.
  const PluginProbe p = probe("testnolib");
  CHECK(p.api == nullptr);
  CHECK(p.device_count == 0);
  CHECK(p.path == plugin_dir + "/libtessera-testnolib.so");
  CAPTURE(p.reason);
  CHECK(contains(p.reason, "cannot load " + p.path));
  CHECK(contains(p.reason, "libtessera-test-absent.so"));
}

TEST_CASE("plugin loader: a library without the entry point is not a plugin") {
  const PluginProbe p = probe("testnosym");
  CHECK(p.api == nullptr);
  CHECK(p.device_count == 0);
  CAPTURE(p.reason);
  CHECK(contains(p.reason, p.path));
  CHECK(contains(p.reason, TESSERA_PLUGIN_ENTRY_SYMBOL));
  CHECK(contains(p.reason, "not a Tessera plugin"));
}

TEST_CASE("plugin loader: an entry point that returns nothing is refused") {
  const PluginProbe p = probe("testnull");
  CHECK(p.api == nullptr);
  CHECK(contains(p.reason, "entry point returned nothing"));
}

TEST_CASE("plugin loader: an ABI mismatch names both versions") {
  // testabi's function pointers are null: reaching them would crash, so passing this test
  // also shows the loader reads nothing past abi_version of a foreign version.
  const PluginProbe p = probe("testabi");
  CHECK(p.api == nullptr);
  CHECK(p.device_count == 0);
  CAPTURE(p.reason);
  CHECK(contains(p.reason, "ABI version 999"));
  CHECK(contains(p.reason, "expects " + std::to_string(TESSERA_PLUGIN_ABI_VERSION)));
  CHECK(contains(p.reason, "rebuild the plugin"));
}

TEST_CASE("plugin loader: a plugin without devices passes its own reason through") {
  const PluginProbe nodev = probe("testnodev");
  CHECK(nodev.api != nullptr);  // loaded and well-formed, just nothing to run on
  CHECK(nodev.device_count == 0);
  CHECK(nodev.reason == "no test device here");

  // A negative count with no reason: the loader supplies both the 0 and a reason.
  const PluginProbe silent = probe("testsilent");
  CHECK(silent.api != nullptr);
  CHECK(silent.device_count == 0);
  CHECK(silent.reason == "the plugin found no device");
}

TEST_CASE("plugin loader: a device_count that throws becomes a reason") {
  const PluginProbe p = probe("testbadcount");
  CHECK(p.api == nullptr);
  CHECK(p.device_count == 0);
  CAPTURE(p.reason);
  CHECK(contains(p.reason, "device_count threw"));
  CHECK(contains(p.reason, "testbadcount: device query failed"));
}

TEST_CASE("plugin loader: a plugin whose create_backend throws loads, and the error is typed") {
  const PluginProbe p = probe("testthrow");
  REQUIRE(p.api != nullptr);
  CHECK(p.device_count == 1);
  CHECK_THROWS_WITH_AS(p.api->create_backend(0), "testthrow: device 0 is busy (test plugin)",
                       tessera::BackendUnavailable);
}

TEST_CASE("plugin loader: search folders are TESSERA_PLUGIN_PATH's, then libtessera's own") {
  SUBCASE("without TESSERA_PLUGIN_PATH") {
    ScopedEnv env("TESSERA_PLUGIN_PATH", nullptr);
    const auto dirs = tessera::detail::plugin_search_dirs();
    REQUIRE(dirs.size() == 2);
    CHECK(same_folder(dirs[0], TESSERA_LIB_DIR));
    CHECK(dirs[1] == dirs[0] + "/tessera");
  }
  SUBCASE("':'-separated, empty entries skipped, in order, before libtessera's folder") {
    ScopedEnv env("TESSERA_PLUGIN_PATH", ":/opt/a::/opt/b:");
    const auto dirs = tessera::detail::plugin_search_dirs();
    REQUIRE(dirs.size() == 4);
    CHECK(dirs[0] == "/opt/a");
    CHECK(dirs[1] == "/opt/b");
    CHECK(same_folder(dirs[2], TESSERA_LIB_DIR));
  }
  SUBCASE("the test plugins are found through it, and not without it") {
    {
      ScopedEnv env("TESSERA_PLUGIN_PATH", plugin_dir.c_str());
      CHECK(probe_plugin("testgood", tessera::detail::plugin_search_dirs()).device_count == 2);
    }
    ScopedEnv env("TESSERA_PLUGIN_PATH", nullptr);
    const PluginProbe p = probe_plugin("testgood", tessera::detail::plugin_search_dirs());
    CHECK(p.device_count == 0);
    CHECK(contains(p.reason, "not found"));
  }
}

TEST_CASE("plugin loader: a damaged plugin file is refused before dlopen, with the reason") {
  // Copies of a good plugin, cut short or with a broken header, under names of their own.
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / ("tessera-damaged-plugins-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const fs::path good = plugin_dir + "/libtessera-testgood.so";
  const auto size = fs::file_size(good);
  auto make = [&](const std::string& name, std::uintmax_t keep, bool scramble_machine) {
    const fs::path p = dir / ("libtessera-" + name + ".so");
    fs::copy_file(good, p, fs::copy_options::overwrite_existing);
    fs::resize_file(p, keep);
    if (scramble_machine) {  // e_machine sits at byte 18 of the ELF header
      std::fstream f(p, std::ios::in | std::ios::out | std::ios::binary);
      f.seekp(18);
      f.put(static_cast<char>(0x7e));
    }
  };
  make("half", size / 2, false);
  make("header", 40, false);
  make("empty", 0, false);
  make("machine", size, true);
  const std::pair<const char*, const char*> cases[] = {
      {"half", "truncated"}, {"header", "shorter than an ELF header"}, {"empty", "shorter than an ELF header"},
      {"machine", "another machine"}};
  for (const auto& [name, why] : cases) {
    const PluginProbe p = probe_plugin(name, {dir.string()});
    CAPTURE(p.reason);
    CHECK(p.api == nullptr);
    CHECK(p.device_count == 0);
    CHECK(contains(p.reason, "cannot load"));
    CHECK(contains(p.reason, why));
  }
  // A file that is not ELF at all.
  { std::ofstream(dir / "libtessera-text.so") << "not a shared object\n"; }
  CHECK(contains(probe_plugin("text", {dir.string()}).reason, "not an ELF file"));
  fs::remove_all(dir);
}

TEST_CASE("registry: a program that only opens cpu never loads a plugin") {
  // Run by ctest registry.lazy_plugins with TESSERA_EXTRA_PLUGINS naming a plugin that aborts
  // when loaded: reaching the end shows it was never opened.
  const tessera::Device cpu = tessera::Device::open("cpu");
  auto x = tessera::Vector<double>::from_host(cpu, std::vector<double>{1.0, 2.0, 3.5});
  CHECK(tessera::sum(x) == 6.5);
}
