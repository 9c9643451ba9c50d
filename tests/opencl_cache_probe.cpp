// A process that opens opencl:0 and runs one reduction: the OpenCL disk-cache test
// (test_opencl_cache.cpp) starts it against cache folders it has damaged, since a device reads
// its cache folder once, when it opens. Prints "sum=<value>"; exit 77 without an OpenCL device.
#include <cstdio>
#include <vector>

#include "tessera/tessera.hpp"

int main() {
  tessera::Device d;
  try {
    d = tessera::Device::open("opencl:0");
  } catch (const tessera::Error& e) {
    std::printf("no opencl device: %s\n", e.what());
    return 77;
  }
  const auto x = tessera::Vector<float>::from_host(d, std::vector<float>(1000, 1.0f));
  std::printf("sum=%g\n", static_cast<double>(tessera::sum(x)));
  return 0;
}
