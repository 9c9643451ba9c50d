// make_workload: the one switch from an operation to its workload implementation.
#include "workload.hpp"

namespace bench {

std::unique_ptr<Workload> make_workload(const CaseSpec& spec, tessera::DType dtype) {
  switch (spec.op) {
    case Op::reduce:
    case Op::dot: return make_reduce_workload(spec, dtype);
    case Op::spmv: return make_spmv_workload(spec, dtype);
    case Op::spmm: return make_spmm_workload(spec, dtype);
    case Op::trsv:
    case Op::trsm: return make_trsv_workload(spec, dtype);
    case Op::sptrsv: return make_sptrsv_workload(spec, dtype);
    case Op::gemm: return make_gemm_workload(spec, dtype);
    case Op::stencil: return make_stencil_workload(spec, dtype);
    case Op::conv2d:
    case Op::conv_layer: return make_conv_workload(spec, dtype);
    case Op::axpy:
    case Op::copy:
    case Op::norm2:
    case Op::axpby_dot:
    case Op::dot2: return make_vector_workload(spec, dtype);
    case Op::launch: return make_launch_workload(spec, dtype);
    case Op::cg: return make_cg_workload(spec, dtype);
    case Op::bicgstab: return make_bicgstab_workload(spec, dtype);
  }
  return nullptr;
}

}  // namespace bench
