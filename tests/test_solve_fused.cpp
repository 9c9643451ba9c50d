// CG's fused iterations (Backend::cg_steps, SolveOptions::fused): where a backend runs the
// iterations between two checks in one call, the solve must reach what the separate operations
// reach: the same iteration count within rounding (the dots' sums are grouped differently), a
// true residual below the tolerance and, on a well-conditioned matrix, the same x. Every device, both dtypes, no
// preconditioner and Jacobi, a Laplacian with odd sides and the collection's smallest SPD
// matrices; the flag SolveResult::fused says which path ran, and must follow the device's
// tuning value cg.fused_max_nnz (ctest cg.fused_forced takes every system through it).
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "support/devices.hpp"
#include "support/solve.hpp"
#include "tessera/tessera.hpp"

using namespace tessera;
using namespace tessera_test;

namespace {

// The device's cg.fused_max_nnz, or 0 where it has none (no fused kernel).
std::int64_t fused_max_nnz(const Device& d) {
  for (const auto& [key, value] : d.info().tuning)
    if (key == "cg.fused_max_nnz") return value;
  return 0;
}

template <class T>
void fused_matches_separate(const std::string& what, const HostCsr<double>& h, bool well_conditioned) {
  // Unpreconditioned CG on an ill-conditioned matrix (nos6: cond ~ 1e7) loses orthogonality,
  // and rounding then moves its iteration count by far more than 10%: Jacobi only there.
  const std::vector<Precond> preconds =
      well_conditioned ? std::vector<Precond>{Precond::none, Precond::jacobi} : std::vector<Precond>{Precond::jacobi};
  const double tol = std::is_same_v<T, float> ? 1e-4 : 1e-8;
  for (const Device& d : all_devices()) {
    for (const Precond p : preconds) {
      INFO(what << " cg + " << std::string(name(p)) << " on " << d.spec() << " <" << (std::is_same_v<T, float> ? "f32" : "f64")
                << ">");
      SolveOptions o;
      o.rel_tol = tol;
      o.max_iterations = 5000;
      o.fused = false;
      const auto separate = solve_ones<T>(d, h, SolverKind::cg, p, o);
      o.fused = true;
      const auto fused = solve_ones<T>(d, h, SolverKind::cg, p, o);
      const bool expected = d.spec() != "reference" && h.nnz() <= fused_max_nnz(d) && fused_max_nnz(d) > 0;
      CHECK_FALSE(separate.result.fused);
      CHECK(fused.result.fused == expected);
      REQUIRE_MESSAGE(separate.result.converged, separate.result.reason);
      REQUIRE_MESSAGE(fused.result.converged, fused.result.reason);
      CHECK(fused.result.true_residual <= 10 * fused.result.tolerance);
      // Rounding moves the iteration at which the tolerance is met by a few; the automatic
      // check interval adds up to 5% past it on either side.
      const auto a = separate.result.iterations, b = fused.result.iterations;
      CHECK(std::abs(a - b) <= std::max<std::int64_t>(3, std::max(a, b) / 10));
      if (!well_conditioned) continue;  // ill-conditioned: x agrees only to ~cond(A) tol
      double diff = 0, scale = 0;
      for (std::size_t i = 0; i < fused.x.size(); ++i) {
        diff = std::max(diff, std::fabs(static_cast<double>(fused.x[i]) - static_cast<double>(separate.x[i])));
        scale = std::max(scale, std::fabs(static_cast<double>(separate.x[i])));
      }
      CHECK(diff <= (std::is_same_v<T, float> ? 1e-2 : 1e-5) * scale);
    }
  }
}

}  // namespace

TEST_CASE("cg fused: iterations in one call match the separate operations on a Laplacian") {
  const auto h = laplacian_2d<double>(23, 29);
  fused_matches_separate<float>("laplacian 23x29", h, true);
  fused_matches_separate<double>("laplacian 23x29", h, true);
}

TEST_CASE("cg fused: iterations in one call match the separate operations on real SPD matrices") {
  for (const char* m : {"494_bus.mtx", "nos6.mtx", "Chem97ZtZ.mtx"}) {
    const auto h = shared_matrix(m);
    if (!h) {
      note_once(std::string("SKIPPED cg fused on ") + m + ": the shared matrix folder is absent");
      continue;
    }
    fused_matches_separate<double>(m, *h, false);
    fused_matches_separate<float>(m, *h, false);
  }
}

TEST_CASE("cg fused: other preconditioners and solvers run the separate operations") {
  const auto h = laplacian_2d<double>(17, 19);
  for (const Device& d : all_devices()) {
    INFO(d.spec());
    SolveOptions o;
    o.rel_tol = 1e-8;
    const auto ic = solve_ones<double>(d, h, SolverKind::cg, Precond::ic0, o);
    CHECK(ic.result.converged);
    CHECK_FALSE(ic.result.fused);
    const auto bicg = solve_ones<double>(d, h, SolverKind::bicgstab, Precond::jacobi, o);
    CHECK(bicg.result.converged);
    CHECK_FALSE(bicg.result.fused);
  }
}
