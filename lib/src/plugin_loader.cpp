#include "plugin_loader.hpp"

#include <dlfcn.h>
#include <sys/stat.h>

#include <cstdlib>
#include <exception>
#include <sstream>

namespace tessera::detail {

namespace {

bool is_file(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

std::string own_folder() {
  Dl_info info{};
  if (::dladdr(reinterpret_cast<void*>(&plugin_search_dirs), &info) == 0 || info.dli_fname == nullptr) return {};
  std::string path = info.dli_fname;
  const auto slash = path.rfind('/');
  return slash == std::string::npos ? std::string(".") : path.substr(0, slash);
}

}  // namespace

std::vector<std::string> plugin_search_dirs() {
  std::vector<std::string> dirs;
  if (const char* env = std::getenv("TESSERA_PLUGIN_PATH")) {
    std::stringstream ss(env);
    for (std::string dir; std::getline(ss, dir, ':');)
      if (!dir.empty()) dirs.push_back(dir);
  }
  const std::string own = own_folder();
  if (!own.empty()) {
    dirs.push_back(own);
    dirs.push_back(own + "/tessera");
  }
  return dirs;
}

PluginProbe probe_plugin(const std::string& name, const std::vector<std::string>& dirs) {
  PluginProbe probe;
  const std::string file = "libtessera-" + name + ".so";
  for (const auto& dir : dirs) {
    if (is_file(dir + "/" + file)) {
      probe.path = dir + "/" + file;
      break;
    }
  }
  if (probe.path.empty()) {
    std::string searched;
    for (const auto& dir : dirs) searched += (searched.empty() ? "" : ", ") + dir;
    probe.reason = file + " not found (searched: " + (searched.empty() ? "nothing" : searched) +
                   "; set TESSERA_PLUGIN_PATH to the folder that holds it)";
    return probe;
  }
  void* handle = ::dlopen(probe.path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* err = ::dlerror();
    probe.reason = "cannot load " + probe.path + ": " + (err ? err : "unknown dlopen error");
    return probe;
  }
  // Never dlclose: backends created from it may live until exit, and the
  // plugin's runtime (CUDA, OpenCL ICD) does not like being unloaded.
  auto entry = reinterpret_cast<TesseraPluginEntryFn>(::dlsym(handle, TESSERA_PLUGIN_ENTRY_SYMBOL));
  if (entry == nullptr) {
    probe.reason = probe.path + " has no entry point " TESSERA_PLUGIN_ENTRY_SYMBOL ": not a Tessera plugin";
    return probe;
  }
  const TesseraPluginV1* api = entry();
  if (api == nullptr) {
    probe.reason = probe.path + ": entry point returned nothing";
    return probe;
  }
  if (api->abi_version != TESSERA_PLUGIN_ABI_VERSION) {
    probe.reason = probe.path + " has plugin ABI version " + std::to_string(api->abi_version) +
                   ", this libtessera expects " + std::to_string(TESSERA_PLUGIN_ABI_VERSION) +
                   ": rebuild the plugin with this version of Tessera";
    return probe;
  }
  char reason[1024] = {0};
  // device_count must not throw (plugin_abi.hpp), but it queries a driver, and a plugin that
  // lets an exception out anyway must cost only its own backend, not every program that lists
  // devices (this runs inside the registry's constructor).
  int count = 0;
  try {
    count = api->device_count(reason, sizeof reason);
  } catch (const std::exception& e) {
    probe.reason = probe.path + ": device_count threw (a plugin bug): " + e.what();
    return probe;
  } catch (...) {
    probe.reason = probe.path + ": device_count threw (a plugin bug)";
    return probe;
  }
  reason[sizeof reason - 1] = '\0';
  probe.api = api;
  probe.device_count = count > 0 ? count : 0;
  if (probe.device_count == 0) probe.reason = reason[0] ? reason : "the plugin found no device";
  return probe;
}

}  // namespace tessera::detail
