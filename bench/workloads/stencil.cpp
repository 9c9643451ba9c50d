// Star stencils, `steps` time steps in one call, fixed boundary, in place.
//   flops = steps * interior cells * (r * (2 * ndim + 1) + 1)
//           (per distance d: 2*ndim - 1 adds for the neighbour sum, a multiply by c[d] and an add;
//            plus c[0] * u: 8 for the 3D 7-point stencil, 6 for the 2D 5-point one)
//   bytes = steps * 2 * cells * sizeof(T) (the grid read and written once per step)
// Bound by bandwidth (the triad peak: one read and one write stream). The coefficients are
// positive and sum to 1 over the star (c[0] = 0.4, the rest 0.6 shared equally), a heat
// equation step: values stay bounded, no overflow or denormals however many steps run.
// The grid is restored before every call.
// faces=1 (Neumann) or 2 (periodic) on every face, or aniso=1 (the axes' coefficients in the
// ratio 3 : 2 : 1, spacings hx < hy < hz), take the general stencil (tessera/stencil.hpp) with
// the same total weight; flops then count an add and a multiply-add per axis pair and distance,
// and the cells a step updates follow the faces.
#include <algorithm>

#include "op_data.hpp"
#include "tessera/grid.hpp"
#include "tessera/ops.hpp"
#include "workloads/common.hpp"

namespace bench {

namespace {

template <class T>
class TesseraStencil : public Runner {
 public:
  TesseraStencil(const tessera::Device& dev, const StencilData<T>& d)
      : dev_(dev), d_(d), u_(d.ndim == 2 ? tessera::Grid<T>(dev, d.nx, d.ny) : tessera::Grid<T>(dev, d.nx, d.ny, d.nz)) {}
  void reset() override { u_.upload(d_.u0); }
  void run() override {
    if (d_.general)
      tessera::stencil(*d_.general, u_, d_.steps);
    else
      tessera::stencil(d_.coeffs, u_, d_.steps);
  }
  void sync() override { dev_.synchronize(); }
  std::vector<double> result() override { return widen(u_.to_host()); }

 private:
  tessera::Device dev_;
  const StencilData<T>& d_;
  tessera::Grid<T> u_;
};

template <class T>
class StencilWorkload : public Workload {
 public:
  using Workload::Workload;

  void generate() override {
    const auto n = spec().get("n");
    const int r = static_cast<int>(spec().get("radius", 1));
    d_.ndim = spec().kind == "2d" ? 2 : 3;
    d_.nx = d_.ny = n;
    d_.nz = d_.ndim == 2 ? 1 : n;
    d_.steps = static_cast<int>(spec().get("steps", 1));
    d_.coeffs.assign(static_cast<std::size_t>(r + 1), T(0.6 / (2.0 * d_.ndim * r)));
    d_.coeffs[0] = T(0.4);
    const auto faces = spec().get("faces", 0);
    if (faces != 0 || spec().get("aniso", 0) != 0) {
      // Weight 0.6 shared by distance equally, within a distance by axis in 3 : 2 : 1 (aniso).
      const double share[3] = {3, 2, 1};
      double total = 0;
      for (int a = 0; a < d_.ndim; ++a) total += spec().get("aniso", 0) != 0 ? share[a] : 1.0;
      std::vector<T> axis[3];
      for (int a = 0; a < d_.ndim; ++a)
        for (int k = 1; k <= r; ++k)
          axis[a].push_back(T(0.6 / (2.0 * r) * (spec().get("aniso", 0) != 0 ? share[a] : 1.0) / total));
      tessera::StarStencil<T> st(T(0.4), axis[0], axis[1], axis[2]);
      const auto b = faces == 1 ? tessera::StencilBoundary::neumann
                     : faces == 2 ? tessera::StencilBoundary::periodic
                                  : tessera::StencilBoundary::dirichlet;
      for (int a = 0; a < d_.ndim; ++a) st.boundary(a, b);
      d_.general = st;
    }
    d_.u0 = random_vector<T>(d_.nx * d_.ny * d_.nz, 0x5eed0501);
  }
  void release() override { d_ = {}; }

  double cells() const { return static_cast<double>(d_.nx) * static_cast<double>(d_.ny) * static_cast<double>(d_.nz); }
  double flops() const override {
    const std::int64_t r = static_cast<std::int64_t>(d_.coeffs.size()) - 1;
    const bool fixed = !d_.general || d_.general->faces[0] == tessera::StencilBoundary::dirichlet;
    auto inner = [&](std::int64_t e) { return static_cast<double>(std::max<std::int64_t>(0, fixed ? e - 2 * r : e)); };
    const double updated = inner(d_.nx) * inner(d_.ny) * (d_.ndim == 3 ? inner(d_.nz) : 1.0);
    const std::int64_t per_cell = d_.general ? 1 + 3 * d_.ndim * r : r * (2 * d_.ndim + 1) + 1;
    return d_.steps * updated * static_cast<double>(per_cell);
  }
  double bytes() const override { return d_.steps * 2.0 * cells() * static_cast<double>(sizeof(T)); }
  Bound bound() const override { return Bound::triad_bandwidth; }
  double footprint_bytes() const override { return cells() * static_cast<double>(sizeof(T)); }

  std::unique_ptr<Runner> tessera_runner(const tessera::Device& dev) override {
    return std::make_unique<TesseraStencil<T>>(dev, d_);
  }

 private:
  StencilData<T> d_;
};

}  // namespace

std::unique_ptr<Workload> make_stencil_workload(const CaseSpec& spec, tessera::DType dtype) {
  return make_typed<StencilWorkload>(spec, dtype);
}

}  // namespace bench
