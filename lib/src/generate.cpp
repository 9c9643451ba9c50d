// placeholder: filled in by the Matrix Market / generators work
#include "tessera/generate.hpp"
#include "tessera/errors.hpp"
namespace tessera {
template <class T> HostCsr<T> laplacian_2d(std::int64_t, std::int64_t) { throw NotImplemented("laplacian_2d"); }
template <class T> HostCsr<T> laplacian_3d(std::int64_t, std::int64_t, std::int64_t) { throw NotImplemented("laplacian_3d"); }
template <class T> HostCsr<T> random_csr(std::int64_t, std::int64_t, int, int, std::uint64_t) { throw NotImplemented("random_csr"); }
template <class T> HostCsr<T> power_law_csr(std::int64_t, double, int, int, std::uint64_t) { throw NotImplemented("power_law_csr"); }
#define INST(T) template HostCsr<T> laplacian_2d<T>(std::int64_t, std::int64_t); \
  template HostCsr<T> laplacian_3d<T>(std::int64_t, std::int64_t, std::int64_t); \
  template HostCsr<T> random_csr<T>(std::int64_t, std::int64_t, int, int, std::uint64_t); \
  template HostCsr<T> power_law_csr<T>(std::int64_t, double, int, int, std::uint64_t);
INST(float)
INST(double)
}  // namespace tessera
