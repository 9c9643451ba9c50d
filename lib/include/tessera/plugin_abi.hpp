/// \file
/// The one C entry point a backend plugin (`libtessera-<name>.so`) exports. The loader reads
/// abi_version first and refuses a plugin whose version differs, so the layout below may change
/// only together with TESSERA_PLUGIN_ABI_VERSION. Plugins are built with the same compiler and
/// link libtessera, so C++ objects (the Backend, exceptions) may cross the boundary: the
/// Backend vtable is part of this ABI too (version 2: Backend::device_timer appended; a version-1
/// plugin lacks that slot, and calling it would jump past the end of its vtable. Version 3:
/// CsrView carries CsrStats, DeviceInfo the device's tuning values. Version 4: queues, offsets in
/// views, device scalars, the vector algebra and the host-wait counter. Version 5: StencilSpec
/// carries per-axis coefficients, face kinds and a source. Version 6: Backend::spmm and Op::spmm. Version 7:
/// CsrView carries the host row offsets and the values version, Backend::spmv_kernel appended.
/// Version 8: Backend::axpby_pair and Backend::axpy_multiply_dot2. Version 9: Backend::gemm and
/// Backend::conv_layer take a MathMode. Version 10: Backend::convert. Version 11: Backend::spmv_dot. Version 12: Backend::cg_steps).
#pragma once

#include <cstddef>
#include <cstdint>

#define TESSERA_PLUGIN_ABI_VERSION 12u  ///< the layout version a plugin and the loader must share
#define TESSERA_PLUGIN_ENTRY_SYMBOL "tessera_plugin_entry"  ///< the name of the exported TesseraPluginEntryFn

namespace tessera {
class Backend;
}

extern "C" {

/// What a plugin's entry point returns: its backend and how to open its devices.
struct TesseraPluginV1 {
  std::uint32_t abi_version;  ///< must be the first member, in every version
  const char* backend_name;   ///< "opencl", "cuda"
  /// Number of devices; 0 with a reason written to `reason` (NUL-terminated, truncated to
  /// reason_size) when there are none or the runtime is missing. Must not throw.
  int (*device_count)(char* reason, std::size_t reason_size);
  /// A new backend for device `index` (0 <= index < device_count), owned by the caller
  /// (deleted through Backend's virtual destructor). May throw tessera::Error.
  tessera::Backend* (*create_backend)(int index);
};

/// The type of the function a plugin exports as TESSERA_PLUGIN_ENTRY_SYMBOL.
typedef const TesseraPluginV1* (*TesseraPluginEntryFn)(void);
}
