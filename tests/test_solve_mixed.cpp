// Mixed precision: Ilu0 and Ic0 with their factors stored in f32 for a double solve
// (solve.hpp, "Storage precision"), on every device, against the same preconditioner with f64
// factors: CG + IC(0) on SPD matrices and BiCGSTAB + ILU(0) on unsymmetric ones, generated and
// from the shared collection. The f32 factors must not cost convergence: the solve reaches the
// same tolerance (recurrence and true residual) in iterations within 10% of the f64 factors'
// for CG and 35% for BiCGSTAB (see compare; at least one or two iterations of slack, for the
// short solves). check_every = 1, so the counts are
// the iterations themselves, not the check that saw convergence.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "support/devices.hpp"
#include "support/random.hpp"
#include "support/solve.hpp"
#include "tessera/tessera.hpp"

using namespace tessera;
using namespace tessera_test;

namespace {

SolveResult solve_with(const Device& d, const HostCsr<double>& h, SolverKind kind, bool ic, DType storage,
                       std::string& name) {
  const auto A = CsrMatrix<double>::from_host(d, h);
  Vector<double> ones = Vector<double>::from_host(d, std::vector<double>(static_cast<std::size_t>(h.rows), 1.0));
  Vector<double> b(d, h.rows), x(d, h.rows);
  spmv(1.0, A, ones, 0.0, b);
  fill(0.0, x);
  std::unique_ptr<Preconditioner<double>> M;
  if (ic) M = std::make_unique<Ic0<double>>(A, storage);
  else M = std::make_unique<Ilu0<double>>(A, storage);
  name = M->name();
  SolveOptions o;
  o.rel_tol = 1e-8;
  o.max_iterations = 3000;
  o.check_every = 1;
  return solve(kind, d.queue(), A, b, x, M.get(), o);
}

void compare(const std::string& what, const HostCsr<double>& h, bool spd) {
  const SolverKind kind = spd ? SolverKind::cg : SolverKind::bicgstab;
  for (const Device& d : all_devices()) {
    run_on_device<double>(d, Op::sptrsv, [&](const Device& dev) {
      INFO(what << " " << std::string(to_string(kind)) << " on " << dev.spec());
      std::string n64, n32;
      const SolveResult r64 = solve_with(dev, h, kind, spd, DType::f64, n64);
      const SolveResult r32 = solve_with(dev, h, kind, spd, DType::f32, n32);
      CHECK(n64 == (spd ? "ic0" : "ilu0"));
      CHECK(n32 == (spd ? "ic0(f32)" : "ilu0(f32)"));
      REQUIRE_MESSAGE(r64.converged, r64.reason);
      CHECK_MESSAGE(r32.converged, r32.reason);
      CHECK(r32.residual <= r32.tolerance);
      CHECK(r32.true_residual <= 10 * r32.tolerance);
      // CG: within 10%. BiCGSTAB's count on an unsymmetric matrix moves with rounding-level
      // changes alone (sherman5 with f64 factors: 23 on the reference, 24 on cuda:0; with f32
      // factors 22 and 31 there): 35%, as its comparison with Eigen allows 25%.
      const double share = spd ? 0.1 : 0.35;
      const double slack = std::max(spd ? 1.0 : 2.0, share * static_cast<double>(r64.iterations));
      CHECK_MESSAGE(std::fabs(static_cast<double>(r32.iterations - r64.iterations)) <= slack,
                    n32 << ": " << r32.iterations << " iterations, " << n64 << ": " << r64.iterations);
      note_once(what + " " + to_string(kind) + " on " + dev.spec() + ": " + n64 + " " +
                std::to_string(r64.iterations) + " iterations, " + n32 + " " + std::to_string(r32.iterations));
    });
  }
}

}  // namespace

TEST_CASE("solve: ILU(0) and IC(0) with f32 factors in a double solve converge as with f64 factors") {
  compare("laplacian_2d 40x36", laplacian_2d<double>(40, 36), true);
  // Convection-diffusion, central differences (cell Peclet number 1.2): east -1.6, west -0.4, an
  // unsymmetric M-matrix. Not test_solve.cpp's matrix (only east changed, which makes it
  // indefinite): there BiCGSTAB + ILU(0) needs ~240 iterations with f64 factors and twice that
  // with f32 ones (solve.hpp says so).
  HostCsr<double> cd = laplacian_2d<double>(30, 30);
  for (std::int32_t i = 0; i < cd.rows; ++i)
    for (auto k = cd.row_ptr[i]; k < cd.row_ptr[i + 1]; ++k) {
      if (cd.col_idx[k] == i + 1) cd.values[k] -= 0.6;
      if (cd.col_idx[k] == i - 1) cd.values[k] += 0.6;
    }
  compare("convection-diffusion 30x30", cd, false);
  // MANIFEST.md: nos6 (condition ~ 8e6) and Chem97ZtZ SPD; sherman5 and add32 unsymmetric.
  for (const auto& [file, spd] : {std::pair{"nos6.mtx", true}, std::pair{"Chem97ZtZ.mtx", true},
                                  std::pair{"sherman5.mtx", false}, std::pair{"add32.mtx", false}}) {
    const auto h = shared_matrix(file);
    if (!h) {
      note_once(std::string("SKIPPED mixed-precision solve on ") + file + ": the shared matrix folder is absent");
      continue;
    }
    compare(file, *h, spd);
  }
}

TEST_CASE("solve: the factors' storage precision: names, and bad storage rejected before any work") {
  const auto h = laplacian_2d<double>(5, 4);
  for (const Device& d : all_devices()) {
    run_on_device<double>(d, Op::sptrsv, [&](const Device& dev) {
      const auto A = CsrMatrix<double>::from_host(dev, h);
      const auto A32 = CsrMatrix<float>::from_host(dev, convert<float>(h));
      CHECK(Ic0<double>(A, DType::f32).storage() == DType::f32);
      CHECK(Ilu0<double>(A).storage() == DType::f64);
      CHECK(Ilu0<float>(A32).name() == "ilu0");  // f32 factors of an f32 solve: the plain name
      CHECK(Ic0<float>(A32, DType::f32).name() == "ic0");
      // f64 factors for a float solve, and a value that is no DType.
      CHECK_THROWS_AS(Ilu0<float>(A32, DType::f64), InvalidArgument);
      CHECK_THROWS_AS(Ic0<float>(A32, DType::f64), InvalidArgument);
      CHECK_THROWS_AS(Ilu0<double>(A, static_cast<DType>(7)), InvalidArgument);
      CHECK_THROWS_AS(Ic0<double>(A, static_cast<DType>(7)), InvalidArgument);
      // A device mismatch is still found first, as for f64 storage.
      if (dev != reference_device())
        CHECK_THROWS_AS(Ic0<double>(reference_device().queue(), A, DType::f32), DeviceMismatch);
      // One preconditioner, solves one after another (the scratch vector is reused): the same result.
      const Ic0<double> M(A, DType::f32);
      Vector<double> r = Vector<double>::from_host(dev, random_vector<double>(20, 1900));
      Vector<double> z1(dev, 20), z2(dev, 20);
      M.apply(dev.queue(), r, z1);
      M.apply(dev.queue(), r, z2);
      CHECK(z1.to_host() == z2.to_host());
    });
  }
}
