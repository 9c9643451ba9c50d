// libtessera-testnodev.so: loads fine but finds no device, and says why, as the CUDA plugin
// does on a machine without a GPU.
#include "test_plugin.hpp"

namespace {

int device_count(char* reason, std::size_t reason_size) {
  tessera_test::write_reason(reason, reason_size, "no test device here");
  return 0;
}

tessera::Backend* create_backend(int) {
  throw tessera::BackendUnavailable("testnodev: create_backend called although there is no device");
}

const TesseraPluginV1 plugin = {TESSERA_PLUGIN_ABI_VERSION, "testnodev", device_count, create_backend};

}  // namespace

extern "C" const TesseraPluginV1* tessera_plugin_entry() { return &plugin; }
