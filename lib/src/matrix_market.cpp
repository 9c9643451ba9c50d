#include "tessera/matrix_market.hpp"

namespace tessera {
template <class T>
HostCsr<T> read_matrix_market(const std::string& path) {
  throw NotImplemented("read_matrix_market(" + path + "): not implemented yet");
}
template <class T>
void write_matrix_market(const std::string& path, const HostCsr<T>&) {
  throw NotImplemented("write_matrix_market(" + path + "): not implemented yet");
}
template HostCsr<float> read_matrix_market<float>(const std::string&);
template HostCsr<double> read_matrix_market<double>(const std::string&);
template void write_matrix_market<float>(const std::string&, const HostCsr<float>&);
template void write_matrix_market<double>(const std::string&, const HostCsr<double>&);
}  // namespace tessera
