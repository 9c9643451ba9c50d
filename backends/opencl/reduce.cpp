// reduce and dot: two passes (kernels/opencl/reduce.cl). Pass 1 by family: gpu = a bounded
// number of groups (groups_per_cu per compute unit), grid-stride Kahan sums and a local-memory
// tree per group; cpu = one work-item per `chunk` consecutive elements, vector accumulators,
// no local memory. Pass 2 = one work-group's tree over the partials, then one value is read
// back (blocking).
#include <algorithm>
#include <string>

#include "opencl_backend.hpp"

namespace tessera::opencl {

namespace {

const char* op_name(ReduceOp op) {
  switch (op) {
    case ReduceOp::sum:
      return "sum";
    case ReduceOp::min:
      return "min";
    case ReduceOp::max:
      return "max";
    case ReduceOp::sum_squares:
      return "sum_squares";
    case ReduceOp::max_abs:
      return "max_abs";
  }
  return "sum";
}

// Pass 2 combines partials, whose terms are already formed: squares and products are summed,
// absolute values are maximised.
const char* final_kernel(const std::string& op) {
  if (op == "min") return "reduce_min_tree";
  if (op == "max" || op == "max_abs") return "reduce_max_tree";
  return "reduce_sum_tree";
}

std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

}  // namespace

double OpenCLBackend::reduce(DType dt, ReduceOp op, const VecView& x) {
  require_dtype(Op::reduce, dt);
  return reduce_impl(dt, op_name(op), x, nullptr);
}

double OpenCLBackend::dot(DType dt, const VecView& x, const VecView& y) {
  require_dtype(Op::dot, dt);
  return reduce_impl(dt, "dot", x, &y);
}

double OpenCLBackend::reduce_impl(DType dt, const char* op, const VecView& x, const VecView* y) {
  std::lock_guard<std::mutex> lock(mutex_);
  return translate_errors(where(y ? "dot" : "reduce"), [&]() -> double {
    const DeviceProfile& p = profile_;
    const std::int64_t n = x.n;
    const std::int64_t wg = p.reduce_wg;
    const std::string defines = "-DWG_SIZE=" + std::to_string(p.reduce_wg) +
                                " -DREDUCE_CHUNK=" + std::to_string(p.reduce_chunk) +
                                " -DVW=" + std::to_string(p.reduce_vw);
    const std::size_t esize = dtype_size(dt);
    void* ydata = y ? y->data : x.data;  // unread by the single-operand kernels

    std::int64_t partials = 0;
    const std::string base = std::string("reduce_") + op;
    if (cpu_family()) {
      partials = ceil_div(n, p.reduce_chunk);
      cl::Buffer& part = scratch(Scratch::reduce_partial, static_cast<std::size_t>(partials) * esize);
      cl::Kernel& k = kernel("reduce.cl", dt, defines, (base + "_chunks").c_str());
      set_args(k, dt, x.data, ydata, n, part);
      launch(k, cl::NDRange(static_cast<std::size_t>(ceil_div(partials, wg) * wg)),
             cl::NDRange(static_cast<std::size_t>(wg)));
    } else {
      partials = std::max<std::int64_t>(
          1,
          std::min<std::int64_t>(ceil_div(n, wg), static_cast<std::int64_t>(compute_units_) * p.reduce_groups_per_cu));
      cl::Buffer& part = scratch(Scratch::reduce_partial, static_cast<std::size_t>(partials) * esize);
      cl::Kernel& k = kernel("reduce.cl", dt, defines, (base + "_tree").c_str());
      set_args(k, dt, x.data, ydata, n, part);
      launch(k, cl::NDRange(static_cast<std::size_t>(partials * wg)), cl::NDRange(static_cast<std::size_t>(wg)));
    }

    cl::Buffer* result = &scratch(Scratch::reduce_partial, 0);
    if (partials > 1) {
      result = &scratch(Scratch::reduce_result, esize);
      cl::Kernel& k2 = kernel("reduce.cl", dt, defines, final_kernel(op));
      set_args(k2, dt, scratch(Scratch::reduce_partial, 0), scratch(Scratch::reduce_partial, 0), partials, *result);
      launch(k2, cl::NDRange(static_cast<std::size_t>(wg)), cl::NDRange(static_cast<std::size_t>(wg)));
    }
    if (dt == DType::f32) {
      float v = 0;
      queue_.enqueueReadBuffer(*result, CL_TRUE, 0, sizeof v, &v);
      return static_cast<double>(v);
    }
    double v = 0;
    queue_.enqueueReadBuffer(*result, CL_TRUE, 0, sizeof v, &v);
    return v;
  });
}

}  // namespace tessera::opencl
