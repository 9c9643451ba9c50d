// Star stencil, Jacobi steps (kernels/opencl/stencil.cl): u and a scratch grid swap the roles
// of source and destination every step, so each step is one launch and no copy; the boundary
// cells, never written, must be equal in both. Ordered so that the last step writes u: with an
// even step count the first step reads u and only the boundary is copied to the scratch grid
// (z and y faces by clEnqueueCopyBufferRect, x faces by a kernel: with rectangle copies a few
// cells wide for them the H200's 256^3 f32 x10 call took 0.93 ms, with the kernel 0.83 ms); with
// an odd count the scratch grid starts as a full copy of u and the first step reads it. GPU
// kernels, 3D 7-point, steps > 1: several steps per pass (stencil_tblock, see below), the same
// ping-pong over passes. The radius and dimensionality are compile-time
// (one program per combination, built on first use) so the neighbour sum fully unrolls.
#include <algorithm>
#include <array>
#include <string>
#include <utility>

#include "opencl_backend.hpp"

namespace tessera::opencl {

namespace {

// Per-queue scratch: the second grid.
struct StencilScratch {
  ScratchBuffer grid;
};

// The general stencil (anything but StencilSpec::plain): stencil_step_general writes every
// cell, so the ping-pong needs no boundary copy; an odd step count starts from a full copy of u
// in the scratch grid so that the last step writes u.
template <class T>
void stencil_general(OpenCLBackend& b, OpenClQueue& q, const StencilSpec& spec, const GridView& u, int steps) {
  static_assert(static_cast<int>(StencilBoundary::dirichlet) == 0 && static_cast<int>(StencilBoundary::neumann) == 1 &&
                    static_cast<int>(StencilBoundary::periodic) == 2,
                "stencil_step_general reads the face kinds as 0/1/2");
  const bool is_3d = u.ndim == 3;
  const tuning::Tuning& t = b.tuning();
  const std::string defines =
      t.defines("stencil") + " -DRADIUS=" + std::to_string(spec.radius) + " -DDIM3=" + (is_3d ? "1" : "0");
  const std::int64_t nz = is_3d ? u.nz : 1;
  const std::size_t bytes = static_cast<std::size_t>(u.nx * u.ny * nz) * sizeof(T);
  cl::Buffer& tmp = b.grow(q.state<StencilScratch>().grid, bytes);
  if (steps % 2 == 1) q.queue().enqueueCopyBuffer(cl::Buffer(OpenCLBackend::mem(u.data), true), tmp, 0, 0, bytes);
  cl::Kernel& k = b.kernel("stencil.cl", dtype_v<T>, defines, "stencil_step_general");
  const auto lx = static_cast<std::size_t>(t["stencil.lx"]), ly = static_cast<std::size_t>(t["stencil.ly"]);
  const auto nx = static_cast<std::size_t>(u.nx), ny = static_cast<std::size_t>(u.ny);
  const cl::NDRange global((nx + lx - 1) / lx * lx, (ny + ly - 1) / ly * ly, static_cast<std::size_t>(nz));
  const cl::NDRange local(lx, ly, 1);
  auto a = [&](int axis, int d) { return Real{d <= spec.radius ? spec.axis[static_cast<std::size_t>(axis)][static_cast<std::size_t>(d)] : 0.0}; };
  auto f = [&](int face) { return static_cast<int>(spec.faces[static_cast<std::size_t>(face)]); };
  void* src = steps % 2 == 1 ? tmp() : u.data;
  void* dst = steps % 2 == 1 ? u.data : tmp();
  for (int step = 0; step < steps; ++step) {
    b.launch<T>(q, k, global, local, src, dst, u.nx, u.ny, nz, Real{spec.centre}, a(0, 1), a(0, 2), a(0, 3), a(0, 4),
              a(1, 1), a(1, 2), a(1, 3), a(1, 4), a(2, 1), a(2, 2), a(2, 3), a(2, 4), Real{spec.source}, f(0), f(1),
              f(2), f(3), f(4), f(5));
    std::swap(src, dst);
  }
}

}  // namespace

template <class T>
void OpenCLBackend::stencil(QueueImpl& qi, const StencilSpec& spec, const GridView& u, int steps) {
  OpenClQueue& q = cl_queue(qi);
  const int r = spec.radius;
  const bool is_3d = u.ndim == 3;
  const std::int64_t ix = u.nx - 2 * r, iy = u.ny - 2 * r, iz = is_3d ? u.nz - 2 * r : 1;
  if (!spec.plain(u.ndim)) {
    stencil_general<T>(*this, q, spec, u, steps);
    return;
  }
  if (ix <= 0 || iy <= 0 || iz <= 0 || steps <= 0) return;  // no interior: nothing changes
  const std::size_t esize = sizeof(T);
  const tuning::Tuning& t = tuning_;
  // One program per radius and dimensionality (the neighbour sum unrolls), every kernel in it.
  const std::string defines =
      t.defines("stencil") + " -DRADIUS=" + std::to_string(r) + " -DDIM3=" + (is_3d ? "1" : "0");
  const std::size_t bytes = static_cast<std::size_t>(u.nx * u.ny * u.nz) * esize;
  cl::Buffer& tmp = grow(q.state<StencilScratch>().grid, bytes);
  const cl::Buffer grid(mem(u.data), true);
  // GPU kernels, 3D 7-point, steps > 1, a grid beyond the L2: stencil_tblock computes up to
  // stencil.time_block steps per pass (the passes differ by at most one step; a pass of one step
  // is stencil_step). The ping-pong below then counts passes instead of steps. The general
  // stencils (and the cpu kernels, where the cpu backend does this) keep one step per pass.
  const int tb_max = static_cast<int>(t["stencil.time_block"]);
  const auto tb_lx = t["stencil.tb_lx"], tb_ly = t["stencil.tb_ly"];
  const bool tblock = !cpu_kernels_ && is_3d && r == 1 && steps > 1 && tb_max > 1 &&
                      static_cast<std::int64_t>(2 * bytes) > t["stencil.time_block_min_bytes"];
  const int tb = tblock ? static_cast<int>(std::min<std::int64_t>(
                              {tb_max, steps, (tb_lx - 1) / 2, (tb_ly - 1) / 2}))
                        : 1;
  const int passes = tb > 1 ? (steps + tb - 1) / tb : steps;
  if (passes % 2 == 1) {
    q.queue().enqueueCopyBuffer(grid, tmp, 0, 0, bytes);
  } else {
    // The cells within r of a face: the z and y faces as boxes of whole rows (y, z origin;
    // rows, planes), the x faces by a kernel (below).
    const std::size_t nx = static_cast<std::size_t>(u.nx), ny = static_cast<std::size_t>(u.ny),
                      nz = static_cast<std::size_t>(is_3d ? u.nz : 1), R = static_cast<std::size_t>(r);
    const std::size_t zr = is_3d ? R : 0, zi = nz - 2 * zr;  // face planes, interior planes
    const std::size_t boxes[][4] = {
        {0, 0, ny, zr}, {0, nz - zr, ny, zr},  // z faces
        {0, zr, R, zi}, {ny - R, zr, R, zi},   // y faces
    };
    for (const auto& b : boxes) {
      if (b[3] == 0) continue;
      const cl::array<cl::size_type, 3> origin{0, b[0], b[1]};
      const cl::array<cl::size_type, 3> region{nx * esize, b[2], b[3]};
      q.queue().enqueueCopyBufferRect(grid, tmp, origin, origin, region, nx * esize, nx * ny * esize,
                                   nx * esize, nx * ny * esize);
    }
  }

  if (passes % 2 == 0) {
    cl::Kernel& kf = kernel("stencil.cl", dtype_v<T>, defines, "stencil_copy_x_faces");
    launch<T>(q, kf, cl::NDRange(static_cast<std::size_t>((iy + 63) / 64 * 64), static_cast<std::size_t>(iz)),
              cl::NDRange(64, 1), u.data, tmp, u.nx, u.ny, iy, iz);
  }

  // cpu kernels: vw cells per work-item (explicit vectors); gpu: a run of vw cells per work-item
  // where the rows hold whole runs and the buffers are aligned to one (stencil_step_run), else
  // one cell per work-item.
  const int vw_setting = t.get("stencil.vw");
  const bool gpu_runs = !cpu_kernels_ && vw_setting > 1 && u.nx % vw_setting == 0 &&
                        base_align_bits_ >= static_cast<std::size_t>(vw_setting) * esize * 8;
  const int vw = cpu_kernels_ || gpu_runs ? vw_setting : 1;
  const int rows = cpu_kernels_ && vw > 1 ? t.get("stencil.rows") : 1;  // the gpu kernels do one row
  // cpu kernels, 3D, both grids beyond a 32 MiB cache (a last-level cache the OpenCL API does not
  // report), rows of whole vectors in vector-aligned buffers: the z sweep with streaming stores.
  const bool sweep = cpu_kernels_ && is_3d && vw > 1 && t["stencil.sweep_rows"] > 0 &&
                     base_align_bits_ >= static_cast<std::size_t>(vw) * esize * 8 && u.nx % vw == 0 &&
                     2 * bytes > (std::size_t{32} << 20);
  cl::Kernel* k = nullptr;
  cl::NDRange global, local;
  std::int64_t zc = 0;  // stencil_sweep: planes per work-item (its last argument)
  if (sweep) {
    const std::int64_t rows_per_item = t["stencil.sweep_rows"];
    const std::int64_t y_blocks = (iy + rows_per_item - 1) / rows_per_item;
    const std::int64_t want = 16 * static_cast<std::int64_t>(compute_units_);  // items: several per core
    const std::int64_t z_chunks =
        std::max<std::int64_t>(1, std::min<std::int64_t>(iz, (want + y_blocks - 1) / y_blocks));
    zc = (iz + z_chunks - 1) / z_chunks;
    k = &kernel("stencil.cl", dtype_v<T>, defines, "stencil_sweep");
    global = cl::NDRange(static_cast<std::size_t>(y_blocks), static_cast<std::size_t>((iz + zc - 1) / zc));
    local = cl::NDRange(1, 1);
  } else {
    k = &kernel("stencil.cl", dtype_v<T>, defines,
                gpu_runs ? "stencil_step_run" : (vw > 1 ? "stencil_step_vec" : "stencil_step"));
    const auto lx = static_cast<std::size_t>(t["stencil.lx"]), ly = static_cast<std::size_t>(t["stencil.ly"]);
    // Runs cover whole rows from x = 0; the other kernels the interior.
    const std::size_t items_x =
        gpu_runs ? static_cast<std::size_t>(u.nx / vw) : (static_cast<std::size_t>(ix) + vw - 1) / vw;
    const std::size_t items_y = (static_cast<std::size_t>(iy) + rows - 1) / rows;
    global = cl::NDRange((items_x + lx - 1) / lx * lx, (items_y + ly - 1) / ly * ly, static_cast<std::size_t>(iz));
    local = cl::NDRange(lx, ly, 1);
  }
  const std::array<double, 5> c = {spec.centre, spec.axis[0][1], spec.axis[0][2], spec.axis[0][3], spec.axis[0][4]};
  void* src = passes % 2 == 1 ? tmp() : u.data;
  void* dst = passes % 2 == 1 ? u.data : tmp();
  if (tb > 1) {
    for (int pass = 0; pass < passes; ++pass) {
      const int levels = steps / passes + (pass < steps % passes ? 1 : 0);
      if (levels == 1) {
        launch<T>(q, *k, global, local, src, dst, u.nx, u.ny, u.nz, Real{c[0]}, Real{c[1]}, Real{0.0}, Real{0.0},
                  Real{0.0});
      } else {
        cl::Kernel& kt = kernel("stencil.cl", dtype_v<T>, defines + " -DSTENCIL_TB_LEVELS=" + std::to_string(levels),
                                "stencil_tblock");
        const std::int64_t inner_x = tb_lx - 2 * levels, inner_y = tb_ly - 2 * levels;
        const auto gx = static_cast<std::size_t>((ix + inner_x - 1) / inner_x);
        const auto gy = static_cast<std::size_t>((iy + inner_y - 1) / inner_y);
        const auto lx = static_cast<std::size_t>(tb_lx), ly = static_cast<std::size_t>(tb_ly);
        launch<T>(q, kt, cl::NDRange(gx * lx, gy * ly), cl::NDRange(lx, ly), src, dst, u.nx, u.ny, u.nz, Real{c[0]},
                  Real{c[1]});
      }
      std::swap(src, dst);
    }
    return;
  }
  for (int step = 0; step < steps; ++step) {
    if (sweep)
      launch<T>(q, *k, global, local, src, dst, u.nx, u.ny, u.nz, Real{c[0]}, Real{c[1]}, Real{r >= 2 ? c[2] : 0.0},
                Real{r >= 3 ? c[3] : 0.0}, Real{r >= 4 ? c[4] : 0.0}, zc);
    else
      launch<T>(q, *k, global, local, src, dst, u.nx, u.ny, u.nz, Real{c[0]}, Real{c[1]}, Real{r >= 2 ? c[2] : 0.0},
                Real{r >= 3 ? c[3] : 0.0}, Real{r >= 4 ? c[4] : 0.0});
    std::swap(src, dst);
  }
}

TESSERA_INSTANTIATE_TYPED_OP(OpenCLBackend, stencil)

}  // namespace tessera::opencl
