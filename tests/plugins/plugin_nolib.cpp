// libtessera-testnolib.so: a good plugin that needs a library the dynamic linker cannot find,
// which is how the CUDA plugin looks on a machine without the driver: dlopen itself fails.
#include "test_plugin.hpp"

int tessera_test_absent_value();  // from libtessera-test-absent.so, deliberately not on any path

namespace {

// Calling into the absent library keeps it in DT_NEEDED even under --as-needed.
int device_count(char*, std::size_t) { return tessera_test_absent_value(); }

tessera::Backend* create_backend(int index) { return new tessera_test::TestBackend("testnolib", index); }

const TesseraPluginV1 plugin = {TESSERA_PLUGIN_ABI_VERSION, "testnolib", device_count, create_backend};

}  // namespace

extern "C" const TesseraPluginV1* tessera_plugin_entry() { return &plugin; }
