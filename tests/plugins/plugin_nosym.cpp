// libtessera-testnosym.so: a shared library that is not a Tessera plugin. Its one export has a
// name close to the entry point's, so the test shows the loader looks up the exact name.
#include "test_plugin.hpp"

namespace {

int device_count(char*, std::size_t) { return 1; }

tessera::Backend* create_backend(int index) { return new tessera_test::TestBackend("testnosym", index); }

const TesseraPluginV1 plugin = {TESSERA_PLUGIN_ABI_VERSION, "testnosym", device_count, create_backend};

}  // namespace

extern "C" const TesseraPluginV1* tessera_plugin_entry_point() { return &plugin; }
