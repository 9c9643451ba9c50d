// CG's iterations for a small system in one launch (kernels/opencl/cg.cl): one work-group of
// cg.wg work-items loops over the iterations the solver runs between two checks. Taken for
// matrices of at most cg.fused_max_nnz nonzeros (0 on devices where it was not measured to
// win: the group reads the matrix with one compute unit's bandwidth); declined otherwise, and
// where the kernel's local memory does not fit, so the solver runs the separate operations.
#include <algorithm>
#include <limits>

#include "reduce.hpp"

namespace tessera::opencl {

namespace {

// Local memory of cg.cl for REAL = T: the group's pairs of accumulators and their leaves.
template <class T>
std::size_t cg_local_bytes(const OpenCLBackend& cl, std::int64_t wg) {
  const std::size_t acc = reduce_wide<T>(cl) ? sizeof(double) : sizeof(T);
  return static_cast<std::size_t>(wg) * 2 * acc + static_cast<std::size_t>(wg / 32) * 2 * acc;
}

template <class T>
bool cg_steps_typed(OpenCLBackend& cl, QueueImpl& qi, std::int64_t steps, const CsrView& A, const VecView& d,
                    const VecView& x, const VecView& r, const VecView& p, const VecView& ap, const VecView& z,
                    const VecView& rz, const VecView& rr) {
  const std::int64_t max_nnz = cl.tuning()["cg.fused_max_nnz"], wg = cl.tuning()["cg.wg"];
  if (max_nnz <= 0 || A.nnz > max_nnz || cg_local_bytes<T>(cl, wg) > cl.local_mem_limit()) return false;
  OpenClQueue& q = cl_queue(qi);
  const std::string defines = reduce_defines<T>(cl) + " " + cl.tuning().defines("cg");
  cl::Kernel& k = cl.kernel("cg.cl", dtype_v<T>, defines, "cg_steps");
  const cl::NDRange group(static_cast<std::size_t>(wg));
  for (std::int64_t done = 0; done < steps;) {
    const int now = static_cast<int>(std::min<std::int64_t>(steps - done, std::numeric_limits<int>::max()));
    cl.launch<T>(q, k, group, group, A.row_ptr, A.col_idx, A.values, d.data, d.offset, x.data, x.offset, r.data,
                 r.offset, p.data, p.offset, ap.data, ap.offset, z.data, z.offset, rz.data, rz.offset, rr.data,
                 rr.offset, A.rows, now);
    done += now;
  }
  return true;
}

}  // namespace

bool OpenCLBackend::cg_steps(DType dtype, QueueImpl& q, std::int64_t steps, const CsrView& A, const VecView& d,
                             const VecView& x, const VecView& r, const VecView& p, const VecView& ap, const VecView& z,
                             const VecView& rz, const VecView& rr) {
  if (!support(Op::vector, dtype).ok) return false;  // the separate operations report it
  return run(Op::vector, [&] {
    return dtype == DType::f32 ? cg_steps_typed<float>(*this, q, steps, A, d, x, r, p, ap, z, rz, rr)
                               : cg_steps_typed<double>(*this, q, steps, A, d, x, r, p, ap, z, rz, rr);
  });
}

}  // namespace tessera::opencl
