// Finds and opens backend plugins (libtessera-<name>.so). Every failure becomes a reason string;
// nothing here throws for a missing or broken plugin.
#pragma once

#include <string>
#include <vector>

#include "tessera/plugin_abi.hpp"

namespace tessera::detail {

struct PluginProbe {
  const TesseraPluginV1* api = nullptr;  // non-null when the plugin loaded and its ABI matches
  int device_count = 0;
  std::string path;    // the file that was tried (empty when none was found)
  std::string reason;  // why it is unavailable; empty when device_count > 0
};

// Where plugins are looked for, in order: each folder of TESSERA_PLUGIN_PATH (':'-separated),
// then the folder libtessera itself was loaded from, then <that folder>/tessera.
std::vector<std::string> plugin_search_dirs();

// Loads libtessera-<name>.so from the first folder of `dirs` that has it, checks the entry
// point and ABI version, and asks for the device count. Loaded plugins stay loaded.
PluginProbe probe_plugin(const std::string& name, const std::vector<std::string>& dirs);

}  // namespace tessera::detail
