// libtessera-testthrow.so: reports one device, then cannot open it (as a GPU held by another
// process in exclusive mode would): create_backend throws BackendUnavailable.
#include "test_plugin.hpp"

namespace {

int device_count(char*, std::size_t) { return 1; }

tessera::Backend* create_backend(int index) {
  throw tessera::BackendUnavailable("testthrow: device " + std::to_string(index) + " is busy (test plugin)");
}

const TesseraPluginV1 plugin = {TESSERA_PLUGIN_ABI_VERSION, "testthrow", device_count, create_backend};

}  // namespace

extern "C" const TesseraPluginV1* tessera_plugin_entry() { return &plugin; }
