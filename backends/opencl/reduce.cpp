// reduce and dot: two passes (kernels/opencl/reduce.cl), or one where the gpu kernels' last
// group does pass 2 (reduce.single_pass: the additive reductions). Pass 1: gpu kernels = a bounded
// number of groups (reduce.groups_per_cu per compute unit), grid-stride Kahan sums and a
// local-memory tree per group; cpu kernels = one work-item per `reduce.chunk` consecutive
// elements, vector accumulators, no local memory. Pass 2 = one work-group's tree over the
// partials, writing the T result into `out` on the device (norm2: its square root there): no
// host round trip. The partials are per-queue scratch (ReduceScratch).
#include "reduce.hpp"

#include <algorithm>
#include <string>
#include <type_traits>

namespace tessera::opencl {

namespace {

// Pass 2 combines partials, whose terms are already formed: squares and products are summed
// (in the accumulator type: reduce_sum_final), absolute values are maximised.
bool additive(const std::string& op) { return op == "sum" || op == "sum_squares" || op == "dot"; }


std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

// The two passes of reduce (y null) and dot; `op` names the kernels; root: out = sqrt(result).
template <class T>
void reduce_passes(OpenCLBackend& cl, OpenClQueue& q, const std::string& op, const VecView& x, const VecView* y,
                   const VecView& out, bool root) {
  const tuning::Tuning& t = cl.tuning();
  const std::int64_t n = x.n;
  const std::int64_t wg = t["reduce.wg"];
  const std::string defines = reduce_defines<T>(cl);
  const std::size_t part_bytes = additive(op) ? reduce_partial_bytes<T>(cl) : sizeof(T);
  void* ydata = y ? y->data : x.data;  // unread by the single-operand kernels
  const std::int64_t yoff = y ? y->offset : x.offset;

  std::int64_t partials = 0;
  const std::string base = "reduce_" + op;
  ReduceScratch& scratch = q.state<ReduceScratch>();
  if (cl.cpu_kernels()) {
    partials = ceil_div(n, t["reduce.chunk"]);
    cl::Buffer& part = cl.grow(scratch.partials, static_cast<std::size_t>(partials) * part_bytes);
    cl::Kernel& k = cl.kernel("reduce.cl", dtype_v<T>, defines, (base + "_chunks").c_str());
    cl.launch<T>(q, k, cl::NDRange(static_cast<std::size_t>(ceil_div(partials, wg) * wg)),
                 cl::NDRange(static_cast<std::size_t>(wg)), x.data, x.offset, ydata, yoff, n, part);
  } else {
    partials = std::max<std::int64_t>(
        1, std::min<std::int64_t>(ceil_div(n, wg), static_cast<std::int64_t>(cl.compute_units()) *
                                                       t["reduce.groups_per_cu"]));
    cl::Buffer& part = cl.grow(scratch.partials, static_cast<std::size_t>(partials) * part_bytes);
    cl::Kernel& k = cl.kernel("reduce.cl", dtype_v<T>, defines, (base + "_tree").c_str());
    const cl::NDRange global(static_cast<std::size_t>(partials * wg)), local(static_cast<std::size_t>(wg));
    if (!additive(op)) {
      cl.launch<T>(q, k, global, local, x.data, x.offset, ydata, yoff, n, part, std::int64_t{0}, 0);
    } else {
      cl.launch<T>(q, k, global, local, x.data, x.offset, ydata, yoff, n, part, reduce_ticket(cl, q), out.data,
                   out.offset, root ? 1 : 0);
      if (single_pass(cl)) return;  // the last group wrote out
    }
  }
  // Pass 2 runs even over one partial: it converts the accumulator to T into `out`.
  const cl::Buffer& part = scratch.partials.buffer;
  if (additive(op)) return reduce_sum_final<T>(cl, q, part, 0, partials, out, root);
  cl::Kernel& k2 = cl.kernel("reduce.cl", dtype_v<T>, defines, op == "min" ? "reduce_min_tree" : "reduce_max_tree");
  cl.launch<T>(q, k2, cl::NDRange(static_cast<std::size_t>(wg)), cl::NDRange(static_cast<std::size_t>(wg)), part,
               std::int64_t{0}, part, std::int64_t{0}, partials, out.data, out.offset, 0);
}

}  // namespace

template <class T>
bool reduce_wide(const OpenCLBackend& cl) {
  return std::is_same_v<T, float> && cl.support(Op::reduce, DType::f64).ok;
}

template <class T>
std::string reduce_defines(const OpenCLBackend& cl) {
  return cl.tuning().defines("reduce") + (reduce_wide<T>(cl) ? " -DTESSERA_ACC_FP64" : "");
}

template <class T>
std::size_t reduce_partial_bytes(const OpenCLBackend& cl) {
  return reduce_wide<T>(cl) ? sizeof(double) : sizeof(T);
}

template <class T>
void reduce_sum_final(OpenCLBackend& cl, OpenClQueue& q, const cl::Buffer& partials, std::int64_t first,
                      std::int64_t count, const VecView& out, bool root) {
  const std::int64_t wg = cl.tuning()["reduce.wg"];
  cl::Kernel& k = cl.kernel("reduce.cl", dtype_v<T>, reduce_defines<T>(cl), "reduce_sum_final");
  cl.launch<T>(q, k, cl::NDRange(static_cast<std::size_t>(wg)), cl::NDRange(static_cast<std::size_t>(wg)), partials,
               first, count, out.data, out.offset, root ? 1 : 0);
}

bool single_pass(const OpenCLBackend& cl) { return cl.tuning()["reduce.single_pass"] != 0; }

cl::Buffer& reduce_ticket(OpenCLBackend& cl, OpenClQueue& q) {
  ReduceScratch& scratch = q.state<ReduceScratch>();
  if (scratch.ticket() == nullptr) {
    scratch.ticket = cl::Buffer(cl.context(), CL_MEM_READ_WRITE, sizeof(cl_int));
    q.queue().enqueueFillBuffer(scratch.ticket, cl_int{0}, 0, sizeof(cl_int));  // before any kernel on q
  }
  return scratch.ticket;
}

template <class T>
void OpenCLBackend::reduce(QueueImpl& q, ReduceOp op, const VecView& x, const VecView& out) {
  const bool norm2 = op == ReduceOp::norm2;  // sum_squares' passes, the square root in pass 2
  reduce_passes<T>(*this, cl_queue(q), norm2 ? "sum_squares" : to_string(op), x, nullptr, out, norm2);
}

template <class T>
void OpenCLBackend::dot(QueueImpl& q, const VecView& x, const VecView& y, const VecView& out) {
  reduce_passes<T>(*this, cl_queue(q), "dot", x, &y, out, false);
}

#define TESSERA_REDUCE_HELPERS_(T)                                                                        \
  template bool reduce_wide<T>(const OpenCLBackend&);                                                    \
  template std::string reduce_defines<T>(const OpenCLBackend&);                                          \
  template std::size_t reduce_partial_bytes<T>(const OpenCLBackend&);                                    \
  template void reduce_sum_final<T>(OpenCLBackend&, OpenClQueue&, const cl::Buffer&, std::int64_t, std::int64_t, \
                                    const VecView&, bool);
TESSERA_REDUCE_HELPERS_(float)
TESSERA_REDUCE_HELPERS_(double)
#undef TESSERA_REDUCE_HELPERS_

TESSERA_INSTANTIATE_TYPED_OP(OpenCLBackend, reduce)
TESSERA_INSTANTIATE_TYPED_OP(OpenCLBackend, dot)

}  // namespace tessera::opencl
