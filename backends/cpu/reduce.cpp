#include "cpu/cpu_backend.hpp"
#include "tessera/errors.hpp"

namespace tessera {
double CpuBackend::reduce(DType, ReduceOp, const VecView&) {
  throw NotImplemented("cpu: reduce is not implemented yet");
}
double CpuBackend::dot(DType, const VecView&, const VecView&) {
  throw NotImplemented("cpu: dot is not implemented yet");
}
}  // namespace tessera
