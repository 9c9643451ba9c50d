// libtessera-testabort.so: a well-formed shared object that kills the process the moment it is
// loaded (a stand-in for a damaged plugin that crashes inside dlopen). A program that never
// lists or opens its backend must never load it: the registry probes plugins lazily.
#include <cstdlib>

#include "test_plugin.hpp"

namespace {

__attribute__((constructor)) void die_on_load() { std::abort(); }

int device_count(char*, std::size_t) { return 1; }
tessera::Backend* create_backend(int index) { return new tessera_test::TestBackend("testabort", index); }
const TesseraPluginV1 plugin = {TESSERA_PLUGIN_ABI_VERSION, "testabort", device_count, create_backend};

}  // namespace

extern "C" const TesseraPluginV1* tessera_plugin_entry() { return &plugin; }
