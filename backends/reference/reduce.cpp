#include "reference/reference_backend.hpp"
#include "tessera/errors.hpp"

namespace tessera {
double ReferenceBackend::reduce(DType, ReduceOp, const VecView&) {
  throw NotImplemented("reference: reduce is not implemented yet");
}
double ReferenceBackend::dot(DType, const VecView&, const VecView&) {
  throw NotImplemented("reference: dot is not implemented yet");
}
}  // namespace tessera
