// What reduce.cpp shares with the fused dots of vector.cpp: the per-queue partials and the final
// pass (reduce.cl's reduce_sum_final), which turns a run of accumulator-typed partial sums into
// the T result in a one-element view on the device.
#pragma once

#include <cstdint>
#include <string>

#include "opencl_backend.hpp"

namespace tessera::opencl {

// Per-queue scratch of the reductions: the first pass's partials, and the single pass's ticket
// (one int, zero between kernels: the last group puts it back).
struct ReduceScratch {
  ScratchBuffer partials;
  cl::Buffer ticket;
};

// Whether the gpu first passes of the additive reductions (and the fused dots) end the
// reduction themselves, in their last group (tuning value reduce.single_pass; REDUCE_SINGLE_PASS
// in the kernels), so no reduce_sum_final launch follows them.
bool single_pass(const OpenCLBackend& cl);
// q's ticket for the single pass, made (and zeroed on q) at its first use.
cl::Buffer& reduce_ticket(OpenCLBackend& cl, OpenClQueue& q);

// Additive reductions of float data accumulate in double where the device has it (the contract
// every device keeps: reduce.cl). True: the partials are doubles and the kernels are built with
// -DTESSERA_ACC_FP64.
template <class T>
bool reduce_wide(const OpenCLBackend& cl);
// The build options of reduce.cl (and of vector.cl's fused dots) for additive reductions of T.
template <class T>
std::string reduce_defines(const OpenCLBackend& cl);
// Bytes of one additive partial.
template <class T>
std::size_t reduce_partial_bytes(const OpenCLBackend& cl);

// out = the sum of `count` additive partials starting at element `first` of `partials` (with
// root: its square root), converted to T; one work-group, on q.
template <class T>
void reduce_sum_final(OpenCLBackend& cl, OpenClQueue& q, const cl::Buffer& partials, std::int64_t first,
                      std::int64_t count, const VecView& out, bool root);

}  // namespace tessera::opencl
