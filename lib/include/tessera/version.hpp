/// \file
/// The version of the headers (macros) and of the library they belong to (version()).
#pragma once

#define TESSERA_VERSION_MAJOR 0  ///< incompatible API changes
#define TESSERA_VERSION_MINOR 1  ///< compatible additions
#define TESSERA_VERSION_PATCH 0  ///< fixes
#define TESSERA_VERSION_STRING "0.1.0"  ///< "MAJOR.MINOR.PATCH"

namespace tessera {
inline const char* version() { return TESSERA_VERSION_STRING; }  ///< TESSERA_VERSION_STRING
}  // namespace tessera
