// libtessera-testabi.so: a plugin from a future Tessera (ABI version 999). Its function
// pointers are null on purpose: a layout of another version is unknown, so the loader must
// refuse it after reading abi_version alone; touching anything else would crash the test.
#include "test_plugin.hpp"

namespace {

const TesseraPluginV1 plugin = {999u, "testabi", nullptr, nullptr};

}  // namespace

extern "C" const TesseraPluginV1* tessera_plugin_entry() { return &plugin; }
