// The OpenCL C sources of kernels/opencl/, embedded at build time by cmake/EmbedOpenCL.cmake
// (the definition is generated into the build tree).
#pragma once

#include <cstddef>
#include <vector>

namespace tessera::opencl {

struct EmbeddedSource {
  const char* name;  // file name, e.g. "gemm.cl"
  const char* text;
  std::size_t size;
};

const std::vector<EmbeddedSource>& embedded_sources();

}  // namespace tessera::opencl
