// libtessera-testnull.so: has the entry point, but it returns no plugin description.
#include "test_plugin.hpp"

extern "C" const TesseraPluginV1* tessera_plugin_entry() { return nullptr; }
