// libtessera-testgood.so: a well-formed plugin with two devices, the path that loads.
#include "test_plugin.hpp"

namespace {

int device_count(char*, std::size_t) { return 2; }

tessera::Backend* create_backend(int index) { return new tessera_test::TestBackend("testgood", index); }

const TesseraPluginV1 plugin = {TESSERA_PLUGIN_ABI_VERSION, "testgood", device_count, create_backend};

}  // namespace

extern "C" const TesseraPluginV1* tessera_plugin_entry() { return &plugin; }
