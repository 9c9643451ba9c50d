// libtessera-testbadcount.so: breaks the ABI's rule that device_count must not throw. The
// loader still has to turn this into a reason rather than let the exception escape.
#include <stdexcept>

#include "test_plugin.hpp"

namespace {

int device_count(char*, std::size_t) { throw std::runtime_error("testbadcount: device query failed"); }

tessera::Backend* create_backend(int index) { return new tessera_test::TestBackend("testbadcount", index); }

const TesseraPluginV1 plugin = {TESSERA_PLUGIN_ABI_VERSION, "testbadcount", device_count, create_backend};

}  // namespace

extern "C" const TesseraPluginV1* tessera_plugin_entry() { return &plugin; }
