#pragma once

#define TESSERA_VERSION_MAJOR 0
#define TESSERA_VERSION_MINOR 1
#define TESSERA_VERSION_PATCH 0
#define TESSERA_VERSION_STRING "0.1.0"

namespace tessera {
inline const char* version() { return TESSERA_VERSION_STRING; }
}  // namespace tessera
