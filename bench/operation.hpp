// The operations tessera-bench measures: every Tessera operation of the Backend interface, the
// vector algebra one by one (axpy, copy, norm2 and the fused axpby_dot, dot2; dot is shared with
// the interface), and two application-level cases: `launch` (the cost of enqueueing one small
// operation, and of a call followed by a wait) `cg` (an iteration of Jacobi-preconditioned
// conjugate gradients written with the public API) and `bicgstab` (an iteration of the library's
// Jacobi-preconditioned BiCGSTAB, tessera::bicgstab). The bench has its own list because these
// last ones are not single Backend operations (tessera::Op::vector groups the vector algebra).
#pragma once

#include <array>

namespace bench {

enum class Op { reduce, dot, spmv, spmm, trsv, trsm, sptrsv, gemm, stencil, conv2d, conv_layer,
                axpy, copy, norm2, axpby_dot, dot2, launch, cg, bicgstab };

// Every Op, in the default run order.
inline constexpr std::array<Op, 19> all_ops = {Op::reduce, Op::dot,   Op::spmv,  Op::spmm,  Op::trsv,      Op::trsm, Op::sptrsv,
                                               Op::gemm,   Op::stencil, Op::conv2d, Op::conv_layer, Op::axpy, Op::copy,
                                               Op::norm2,  Op::axpby_dot, Op::dot2, Op::launch,  Op::cg,
                                               Op::bicgstab};

// The name --ops takes and the reports show, e.g. "axpby_dot".
inline const char* to_string(Op op) {
  switch (op) {
    case Op::reduce: return "reduce";
    case Op::dot: return "dot";
    case Op::spmv: return "spmv";
    case Op::spmm: return "spmm";
    case Op::trsv: return "trsv";
    case Op::trsm: return "trsm";
    case Op::sptrsv: return "sptrsv";
    case Op::gemm: return "gemm";
    case Op::stencil: return "stencil";
    case Op::conv2d: return "conv2d";
    case Op::conv_layer: return "conv_layer";
    case Op::axpy: return "axpy";
    case Op::copy: return "copy";
    case Op::norm2: return "norm2";
    case Op::axpby_dot: return "axpby_dot";
    case Op::dot2: return "dot2";
    case Op::launch: return "launch";
    case Op::cg: return "cg";
    case Op::bicgstab: return "bicgstab";
  }
  return "?";
}

}  // namespace bench
