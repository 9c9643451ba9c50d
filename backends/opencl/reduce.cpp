// reduce and dot: two passes (kernels/opencl/reduce.cl). Pass 1: gpu kernels = a bounded
// number of groups (reduce.groups_per_cu per compute unit), grid-stride Kahan sums and a
// local-memory tree per group; cpu kernels = one work-item per `reduce.chunk` consecutive
// elements, vector accumulators, no local memory. Pass 2 = one work-group's tree over the
// partials, then one value is read back (blocking).
#include <algorithm>
#include <string>
#include <type_traits>

#include "opencl_backend.hpp"

namespace tessera::opencl {

namespace {

bool additive(const std::string& op) { return op == "sum" || op == "sum_squares" || op == "dot"; }

// Pass 2 combines partials, whose terms are already formed: squares and products are summed
// (in the accumulator type), absolute values are maximised.
const char* final_kernel(const std::string& op) {
  if (op == "min") return "reduce_min_tree";
  if (op == "max" || op == "max_abs") return "reduce_max_tree";
  return "reduce_sum_final";
}

std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

// The two passes of reduce (y null) and dot; `op` names the kernels.
template <class T>
double reduce_passes(OpenCLBackend& cl, const char* op, const VecView& x, const VecView* y) {
  using Scratch = OpenCLBackend::Scratch;
  const tuning::Tuning& t = cl.tuning();
  const std::int64_t n = x.n;
  const std::int64_t wg = t["reduce.wg"];
  // Additive reductions of float data accumulate in double where the device has it (the contract
  // every device keeps: reduce.cl); their partials and result are then doubles.
  const bool wide = std::is_same_v<T, float> && cl.support(Op::reduce, DType::f64).ok;
  const std::string defines = t.defines("reduce") + (wide ? " -DTESSERA_ACC_FP64" : "");
  const std::size_t part_bytes = additive(op) && wide ? sizeof(double) : sizeof(T);
  void* ydata = y ? y->data : x.data;  // unread by the single-operand kernels

  std::int64_t partials = 0;
  const std::string base = std::string("reduce_") + op;
  if (cl.cpu_kernels()) {
    partials = ceil_div(n, t["reduce.chunk"]);
    cl::Buffer& part = cl.scratch(Scratch::reduce_partial, static_cast<std::size_t>(partials) * part_bytes);
    cl::Kernel& k = cl.kernel("reduce.cl", dtype_v<T>, defines, (base + "_chunks").c_str());
    cl.set_args<T>(k, x.data, ydata, n, part);
    cl.launch(k, cl::NDRange(static_cast<std::size_t>(ceil_div(partials, wg) * wg)),
              cl::NDRange(static_cast<std::size_t>(wg)));
  } else {
    partials = std::max<std::int64_t>(
        1, std::min<std::int64_t>(ceil_div(n, wg), static_cast<std::int64_t>(cl.compute_units()) *
                                                       t["reduce.groups_per_cu"]));
    cl::Buffer& part = cl.scratch(Scratch::reduce_partial, static_cast<std::size_t>(partials) * part_bytes);
    cl::Kernel& k = cl.kernel("reduce.cl", dtype_v<T>, defines, (base + "_tree").c_str());
    cl.set_args<T>(k, x.data, ydata, n, part);
    cl.launch(k, cl::NDRange(static_cast<std::size_t>(partials * wg)), cl::NDRange(static_cast<std::size_t>(wg)));
  }

  cl::Buffer* result = &cl.scratch(Scratch::reduce_partial, 0);
  if (partials > 1) {
    result = &cl.scratch(Scratch::reduce_result, part_bytes);
    cl::Kernel& k2 = cl.kernel("reduce.cl", dtype_v<T>, defines, final_kernel(op));
    cl.set_args<T>(k2, cl.scratch(Scratch::reduce_partial, 0), cl.scratch(Scratch::reduce_partial, 0), partials,
                   *result);
    cl.launch(k2, cl::NDRange(static_cast<std::size_t>(wg)), cl::NDRange(static_cast<std::size_t>(wg)));
  }
  if (part_bytes == sizeof(double)) {
    double v = 0;
    cl.queue().enqueueReadBuffer(*result, CL_TRUE, 0, sizeof v, &v);
    return v;
  }
  T v = 0;
  cl.queue().enqueueReadBuffer(*result, CL_TRUE, 0, sizeof v, &v);
  return static_cast<double>(v);
}

}  // namespace

template <class T>
double OpenCLBackend::reduce(ReduceOp op, const VecView& x) {
  return reduce_passes<T>(*this, to_string(op), x, nullptr);
}

template <class T>
double OpenCLBackend::dot(const VecView& x, const VecView& y) {
  return reduce_passes<T>(*this, "dot", x, &y);
}

TESSERA_INSTANTIATE_TYPED_OP(OpenCLBackend, reduce)
TESSERA_INSTANTIATE_TYPED_OP(OpenCLBackend, dot)

}  // namespace tessera::opencl
