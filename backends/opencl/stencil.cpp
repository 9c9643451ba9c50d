// Star stencil, Jacobi steps (kernels/opencl/stencil.cl): u and a scratch copy of it swap the
// roles of source and destination every step, so each step is one launch and no copy; the
// boundary cells, never written, are equal in both. An odd number of steps ends in the
// scratch buffer, which is then copied back. The radius and dimensionality are compile-time
// (one program per combination, built on first use) so the neighbour sum fully unrolls.
#include <string>
#include <utility>

#include "opencl_backend.hpp"

namespace tessera::opencl {

void OpenCLBackend::stencil(DType dt, const StencilSpec& spec, const GridView& u, int steps) {
  require_dtype(Op::stencil, dt);
  std::lock_guard<std::mutex> lock(mutex_);
  translate_errors(where("stencil"), [&] {
    const int r = spec.radius;
    const bool is_3d = u.ndim == 3;
    const std::int64_t ix = u.nx - 2 * r, iy = u.ny - 2 * r, iz = is_3d ? u.nz - 2 * r : 1;
    if (ix <= 0 || iy <= 0 || iz <= 0 || steps <= 0) return;  // no interior: nothing changes
    const std::size_t bytes = static_cast<std::size_t>(u.nx * u.ny * u.nz) * dtype_size(dt);
    cl::Buffer& tmp = scratch(Scratch::stencil, bytes);
    queue_.enqueueCopyBuffer(cl::Buffer(mem(u.data), true), tmp, 0, 0, bytes);

    // cpu family: vw cells per work-item (explicit vectors); gpu: one cell per work-item.
    const int vw = cpu_family() ? profile_.stencil_vw : 1;
    const int rows = vw > 1 ? profile_.stencil_rows : 1;  // stencil_step does one row
    cl::Kernel& k = kernel("stencil.cl", dt,
                           "-DRADIUS=" + std::to_string(r) + " -DDIM3=" + (is_3d ? "1" : "0") +
                               " -DVW=" + std::to_string(vw) + " -DROWS=" + std::to_string(rows),
                           vw > 1 ? "stencil_step_vec" : "stencil_step");
    const std::size_t lx = static_cast<std::size_t>(profile_.stencil_lx),
                      ly = static_cast<std::size_t>(profile_.stencil_ly);
    const std::size_t items_x = (static_cast<std::size_t>(ix) + vw - 1) / vw;
    const std::size_t items_y = (static_cast<std::size_t>(iy) + rows - 1) / rows;
    const cl::NDRange global((items_x + lx - 1) / lx * lx, (items_y + ly - 1) / ly * ly, static_cast<std::size_t>(iz));
    const cl::NDRange local(lx, ly, 1);
    const auto& c = spec.coeffs;
    void* src = u.data;
    void* dst = tmp();
    for (int step = 0; step < steps; ++step) {
      set_args(k, dt, src, dst, u.nx, u.ny, u.nz, Real{c[0]}, Real{c[1]}, Real{r >= 2 ? c[2] : 0.0},
               Real{r >= 3 ? c[3] : 0.0}, Real{r >= 4 ? c[4] : 0.0});
      launch(k, global, local);
      std::swap(src, dst);
    }
    if (src != u.data) queue_.enqueueCopyBuffer(tmp, cl::Buffer(mem(u.data), true), 0, 0, bytes);
  });
}

}  // namespace tessera::opencl
