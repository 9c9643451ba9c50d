// libtessera-testsilent.so: finds no device, returns a negative count and gives no reason, so
// the loader has to supply both the 0 and a reason of its own.
#include "test_plugin.hpp"

namespace {

int device_count(char*, std::size_t) { return -1; }

tessera::Backend* create_backend(int) {
  throw tessera::BackendUnavailable("testsilent: create_backend called although there is no device");
}

const TesseraPluginV1 plugin = {TESSERA_PLUGIN_ABI_VERSION, "testsilent", device_count, create_backend};

}  // namespace

extern "C" const TesseraPluginV1* tessera_plugin_entry() { return &plugin; }
