// Sparse triangular solve (sptrsv_analyze + sptrsv_solve) on every device against the reference.
//
// Matrices (tests/support/sparse.hpp): a random strict triangle scaled so each row's magnitude
// sum is below 1, |diagonal| in [2, 3], so ||T^{-1}||_inf <= 1 (Varah); entries of the other
// triangle are NaN (the analysis and the solve must ignore them); with Diag::unit a stored
// diagonal of 1000 must be ignored too.
//
// Checks for each device:
//  - componentwise backward error: |b_i - (T x)_i| <= gamma_{k_i + 1} (|b_i| + sum_j |t_ij x_j|),
//    k_i the row's term count (substitution in any order, level-scheduled or not, meets it);
//  - agreement with the reference: ||x - x_ref||_inf <= ||T^{-1}||_inf * (the two backward-error
//    bounds' sum), since T (x - x_ref) = r_ref - r.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include "support/compare.hpp"
#include "support/devices.hpp"
#include "support/random.hpp"
#include "support/sparse.hpp"
#include "tessera/tessera.hpp"

using namespace tessera;
using namespace tessera_test;

namespace {

const char* name(Uplo u) { return u == Uplo::lower ? "lower" : "upper"; }
const char* name(Diag d) { return d == Diag::unit ? "unit" : "non_unit"; }

// Backward-error check; returns max_i of the allowed residual (for the forward bound).
template <class T>
double check_backward(const HostCsr<T>& h, Uplo uplo, Diag diag, const std::vector<T>& x, const std::vector<T>& b,
                      const std::string& what) {
  const TriangularResidual res = triangular_residual(h, uplo, diag, x, b);
  std::size_t bad = 0, worst = 0;
  double worst_ratio = 0, max_allowed = 0;
  for (std::size_t i = 0; i < res.r.size(); ++i) {
    const double allowed = gamma_bound<T>(res.k[i] + 1) * static_cast<double>(res.m[i]) + std::numeric_limits<T>::min();
    max_allowed = std::max(max_allowed, allowed);
    const double ratio = std::abs(static_cast<double>(res.r[i])) / allowed;
    if (!(ratio <= 1)) ++bad;
    if (!(ratio <= worst_ratio)) {
      worst_ratio = ratio;
      worst = i;
    }
  }
  CHECK_MESSAGE(bad == 0, what << ": backward error too large in " << bad << " rows; worst row " << worst
                               << ": |r| = " << (res.r.empty() ? 0.0 : static_cast<double>(std::abs(res.r[worst])))
                               << ", ratio to the bound " << worst_ratio);
  return max_allowed;
}

// Analyzes once, then solves for three right-hand sides (one of them in place: x is b).
template <class T>
void sptrsv_case(const HostCsr<T>& h, Uplo uplo, Diag diag, const std::string& label, std::uint32_t seed) {
  const Device ref = reference_device();
  const auto n = static_cast<std::size_t>(h.rows);
  std::ostringstream w;
  w << "sptrsv " << label << " n=" << h.rows << " nnz=" << h.nnz() << " " << name(uplo) << " " << name(diag);
  const std::string what = w.str();
  const std::vector<std::vector<T>> rhs = {random_vector<T>(n, seed), random_vector<T>(n, seed + 1, -100.0, 100.0),
                                           random_vector<T>(n, seed + 2, 0.5, 1.0)};
  const double inv_bound = inverse_norm_bound(h, uplo, diag);
  REQUIRE(std::isfinite(inv_bound));

  // solve_all(device): every solution, solving rhs[0], rhs[1] into a separate x and rhs[2] in place.
  auto solve_all = [&](const Device& d) {
    const auto A = CsrMatrix<T>::from_host(d, h);
    const SptrsvPlan<T> plan = sptrsv_analyze(uplo, diag, A);
    CHECK(static_cast<bool>(plan));
    CHECK(plan.uplo() == uplo);
    CHECK(plan.diag() == diag);
    std::vector<std::vector<T>> out;
    Vector<T> x(d, h.rows);
    for (std::size_t r = 0; r < 2; ++r) {
      const auto b = Vector<T>::from_host(d, rhs[r]);
      sptrsv_solve(plan, b, x);
      out.push_back(x.to_host());
      CHECK_MESSAGE(b.to_host() == rhs[r], what << ": b modified");
    }
    auto xb = Vector<T>::from_host(d, rhs[2]);
    sptrsv_solve(plan, xb, xb);  // aliasing: x is b
    out.push_back(xb.to_host());
    return out;
  };

  std::vector<std::vector<T>> x_ref;
  if (!on_reference(what.c_str(), [&] { x_ref = solve_all(ref); })) return;
  std::vector<double> ref_allowed;
  for (std::size_t r = 0; r < rhs.size(); ++r)
    ref_allowed.push_back(check_backward(h, uplo, diag, x_ref[r], rhs[r], what + " (reference), rhs " + std::to_string(r)));

  for_each_device<T>(Op::sptrsv, [&](const Device& d) {
    const auto xs = solve_all(d);
    for (std::size_t r = 0; r < rhs.size(); ++r) {
      const std::string wr = what + ", rhs " + std::to_string(r) + (r == 2 ? " (in place)" : "");
      const double allowed = check_backward(h, uplo, diag, xs[r], rhs[r], wr);
      check_close(xs[r], x_ref[r], inv_bound * (allowed + ref_allowed[r]), wr + ": vs reference");
    }
  });
}

// The lower or upper triangle of a square matrix (diagonal included), as a new CSR.
template <class T>
HostCsr<T> triangle_of(const HostCsr<T>& a, Uplo uplo) {
  HostCsr<T> t;
  t.rows = a.rows;
  t.cols = a.cols;
  t.row_ptr.assign(1, 0);
  for (std::int64_t i = 0; i < a.rows; ++i) {
    for (auto p = a.row_ptr[static_cast<std::size_t>(i)]; p < a.row_ptr[static_cast<std::size_t>(i + 1)]; ++p) {
      const std::int64_t j = a.col_idx[static_cast<std::size_t>(p)];
      if (uplo == Uplo::lower ? j <= i : j >= i) {
        t.col_idx.push_back(static_cast<std::int32_t>(j));
        t.values.push_back(a.values[static_cast<std::size_t>(p)]);
      }
    }
    t.row_ptr.push_back(static_cast<std::int32_t>(t.col_idx.size()));
  }
  return t;
}

}  // namespace

TEST_CASE_TEMPLATE("sptrsv: known answer on every device, the reference included", T, float, double) {
  // T = [ 2  .  9 ]   lower solve of [2, 5, 7] (the 9 is in the upper triangle: ignored)
  //     [ 1  4  . ]   x = [1, 1, 1]; unit lower: x = [2, 3, 7 - 2 * 2 - 1 * 3] = [2, 3, 0]
  //     [ 2  1  4 ]   upper non-unit of b = [11, 4, 4]: x3 = 1, x2 = 1, x1 = (11 - 9) / 2 = 1
  const std::vector<std::int32_t> rp = {0, 2, 4, 7}, ci = {2, 0, 0, 1, 0, 1, 2};
  const std::vector<T> v = {T(9), T(2), T(1), T(4), T(2), T(1), T(4)};
  for (const Device& d : all_devices()) {
    run_on_device<T>(d, Op::sptrsv, [&](const Device& dev) {
      const auto A = CsrMatrix<T>::from_host(dev, 3, 3, rp, ci, v);
      Vector<T> x(dev, 3);
      sptrsv_solve(sptrsv_analyze(Uplo::lower, Diag::non_unit, A), Vector<T>::from_host(dev, {T(2), T(5), T(7)}), x);
      CHECK(x.to_host() == std::vector<T>{T(1), T(1), T(1)});
      sptrsv_solve(sptrsv_analyze(Uplo::lower, Diag::unit, A), Vector<T>::from_host(dev, {T(2), T(5), T(7)}), x);
      CHECK(x.to_host() == std::vector<T>{T(2), T(3), T(0)});
      sptrsv_solve(sptrsv_analyze(Uplo::upper, Diag::non_unit, A), Vector<T>::from_host(dev, {T(11), T(4), T(4)}), x);
      CHECK(x.to_host() == std::vector<T>{T(1), T(1), T(1)});
    });
  }
}

TEST_CASE_TEMPLATE("sptrsv: lower/upper x unit/non-unit, random sparse triangles", T, float, double) {
  const std::int64_t sizes[] = {0, 1, 2, 17, 65, 257, 1000, 4099};
  std::uint32_t seed = 300;
  int index = 0;
  for (std::int64_t n : sizes)
    for (Uplo uplo : {Uplo::lower, Uplo::upper})
      for (Diag diag : {Diag::non_unit, Diag::unit}) {
        TriangularSpec spec;
        spec.uplo = uplo;
        spec.diag = diag;
        spec.max_per_row = n > 1000 ? 12 : 6;
        spec.shuffle = index % 3 == 1;               // unsorted columns in some cases
        spec.other_triangle = index % 4 != 3;        // most with NaN entries in the other triangle
        spec.store_unit_diagonal = index % 2 == 0;   // unit: stored diagonal (to ignore) or none
        ++index;
        std::ostringstream label;
        label << "random" << (spec.shuffle ? ", unsorted" : "") << (spec.other_triangle ? ", other triangle NaN" : "");
        seed += 7;
        sptrsv_case(triangular_system<T>(n, spec, seed), uplo, diag, label.str(), seed + 1);
      }
}

TEST_CASE_TEMPLATE("sptrsv: a chain (bidiagonal, n dependent levels) and a dense triangle", T, float, double) {
  for (Uplo uplo : {Uplo::lower, Uplo::upper})
    for (Diag diag : {Diag::non_unit, Diag::unit}) {
      TriangularSpec chain;
      chain.uplo = uplo;
      chain.diag = diag;
      chain.chain = true;
      sptrsv_case(triangular_system<T>(3001, chain, 900), uplo, diag, "chain", 901);
      TriangularSpec dense;
      dense.uplo = uplo;
      dense.diag = diag;
      dense.max_per_row = 300;  // close to a dense triangle: long rows
      dense.other_triangle = false;
      sptrsv_case(triangular_system<T>(300, dense, 902), uplo, diag, "nearly dense", 903);
    }
}

TEST_CASE_TEMPLATE("sptrsv: wide levels, rows of many dependencies (sync-free solve on gpu profiles)", T, float,
                   double) {
  // Random triangles have few levels of many rows: levels cut into several tasks, and up to 40
  // dependencies per row, polled in several batches.
  std::uint32_t seed = 700;
  for (Uplo uplo : {Uplo::lower, Uplo::upper})
    for (Diag diag : {Diag::non_unit, Diag::unit}) {
      TriangularSpec spec;
      spec.uplo = uplo;
      spec.diag = diag;
      spec.max_per_row = 40;
      spec.shuffle = diag == Diag::unit;
      seed += 5;
      sptrsv_case(triangular_system<T>(12007, spec, seed), uplo, diag, "random, up to 40 per row", seed + 1);
    }
}

TEST_CASE_TEMPLATE("sptrsv: a few wide levels of long rows (cuda: one launch, level by level)", T, float, double) {
  // Two or three levels of over a thousand rows, rows of up to 60 or 300 dependencies (past one
  // batch of every lane), as a mixed-model Z'Z (Chem97ZtZ) has: a schedule one launch solves level by level.
  std::uint32_t seed = 800;
  for (Uplo uplo : {Uplo::lower, Uplo::upper})
    for (Diag diag : {Diag::non_unit, Diag::unit})
      for (int bands : {2, 3}) {
        TriangularSpec spec;
        spec.uplo = uplo;
        spec.diag = diag;
        spec.bands = bands;
        spec.max_per_row = bands == 2 ? 300 : 60;
        spec.shuffle = diag == Diag::unit;
        seed += 5;
        std::ostringstream label;
        label << bands << " bands of rows, up to " << spec.max_per_row << " per row";
        sptrsv_case(triangular_system<T>(bands == 2 ? 2541 : 6001, spec, seed), uplo, diag, label.str(), seed + 1);
      }
}

TEST_CASE_TEMPLATE("sptrsv: one plan, matrix destroyed by the caller, plan still valid", T, float, double) {
  // The plan keeps its matrix alive (ops.hpp): the caller's CsrMatrix may go away.
  TriangularSpec spec;
  const auto h = triangular_system<T>(129, spec, 55);
  const auto hb = random_vector<T>(129, 56);
  std::vector<T> x_ref;
  if (!on_reference("plan lifetime", [&] {
        const Device ref = reference_device();
        const auto plan = sptrsv_analyze(Uplo::lower, Diag::non_unit, CsrMatrix<T>::from_host(ref, h));
        Vector<T> x(ref, 129);
        sptrsv_solve(plan, Vector<T>::from_host(ref, hb), x);
        x_ref = x.to_host();
      }))
    return;
  for_each_device<T>(Op::sptrsv, [&](const Device& d) {
    SptrsvPlan<T> plan;
    {
      const auto A = CsrMatrix<T>::from_host(d, h);
      plan = sptrsv_analyze(Uplo::lower, Diag::non_unit, A);
    }
    // Another matrix built meanwhile (it may reuse the freed memory's address).
    const auto other = CsrMatrix<T>::from_host(d, triangular_system<T>(129, spec, 57));
    Vector<T> x(d, 129);
    sptrsv_solve(plan, Vector<T>::from_host(d, hb), x);
    const double allowed = check_backward(h, Uplo::lower, Diag::non_unit, x.to_host(), hb, "plan lifetime");
    check_close(x.to_host(), x_ref, 2 * allowed * inverse_norm_bound(h, Uplo::lower, Diag::non_unit), "plan lifetime");
  });
}

TEST_CASE_TEMPLATE("sptrsv: triangles of the 2D and 3D Laplacians (generators)", T, float, double) {
  struct Gen {
    const char* name;
    std::function<HostCsr<T>()> make;
  };
  const Gen gens[] = {{"laplacian_2d 65 x 33", [] { return laplacian_2d<T>(65, 33); }},
                      {"laplacian_3d 17 x 13 x 11", [] { return laplacian_3d<T>(17, 13, 11); }},
                      {"laplacian_3d 32^3", [] { return laplacian_3d<T>(32, 32, 32); }}};
  std::uint32_t seed = 4000;
  for (const Gen& g : gens) {
    HostCsr<T> full;
    try {
      full = g.make();
    } catch (const std::exception& e) {
      FAIL_CHECK("generator " << std::string(g.name) << " threw: " << std::string(e.what()));
      continue;
    }
    // Non-unit only: with a unit diagonal the Laplacian's triangle is not diagonally dominant and
    // the solution grows like the number of lattice paths (overflow in float).
    for (Uplo uplo : {Uplo::lower, Uplo::upper}) {
      // The full matrix (the other triangle must be ignored) and its extracted triangle.
      sptrsv_case(full, uplo, Diag::non_unit, std::string(g.name) + " (full matrix)", seed += 3);
      sptrsv_case(triangle_of(full, uplo), uplo, Diag::non_unit, std::string(g.name) + " (triangle only)", seed += 3);
    }
  }
}

TEST_CASE_TEMPLATE("sptrsv: NaN in b, the all-ones NaN among them, reaches exactly the rows that depend on it",
                   T, float, double) {
  // A GPU solve may mark unsolved rows with a bit pattern (cuda f64: all ones, a NaN); a value
  // that has those bits must not read as "not yet" (the solve would never end). The 3D
  // Laplacian's lower triangle: levels wide enough for the parts walk on cuda; the NaNs sit
  // near the end of the dependency order, so they reach a small corner of the grid.
  const int g = 32;
  const auto h = triangle_of(laplacian_3d<T>(g, g, g), Uplo::lower);
  const auto n = static_cast<std::size_t>(h.rows);
  std::vector<T> hb = random_vector<T>(n, 4100);
  using Bits = std::conditional_t<sizeof(T) == 4, std::uint32_t, std::uint64_t>;
  const Bits ones = ~Bits(0);
  T all_ones_nan;
  std::memcpy(&all_ones_nan, &ones, sizeof(T));
  REQUIRE(std::isnan(all_ones_nan));
  auto at = [&](int i, int j, int k) { return static_cast<std::size_t>((k * g + j) * g + i); };
  hb[at(29, 30, 30)] = all_ones_nan;
  hb[at(30, 28, 31)] = std::numeric_limits<T>::quiet_NaN();
  std::vector<T> x_ref;
  if (!on_reference("sptrsv NaN in b", [&] {
        const Device ref = reference_device();
        Vector<T> x(ref, h.rows);
        sptrsv_solve(sptrsv_analyze(Uplo::lower, Diag::non_unit, CsrMatrix<T>::from_host(ref, h)),
                     Vector<T>::from_host(ref, hb), x);
        x_ref = x.to_host();
      }))
    return;
  std::size_t nan_rows = 0;
  for (T v : x_ref) nan_rows += std::isnan(v) ? 1 : 0;
  REQUIRE(nan_rows > 2);                    // the NaNs spread
  REQUIRE(nan_rows < n / 100);              // to a corner only
  const double tol = sizeof(T) == 4 ? 1e-4 : 1e-12;
  for_each_device<T>(Op::sptrsv, [&](const Device& d) {
    const auto plan = sptrsv_analyze(Uplo::lower, Diag::non_unit, CsrMatrix<T>::from_host(d, h));
    for (int round = 0; round < 2; ++round) {  // twice: the second solve reuses the first's words
      Vector<T> x(d, h.rows);
      sptrsv_solve(plan, Vector<T>::from_host(d, hb), x);
      const auto hx = x.to_host();
      std::size_t wrong_nan = 0, wrong_value = 0;
      for (std::size_t i = 0; i < n; ++i) {
        if (std::isnan(hx[i]) != std::isnan(x_ref[i]))
          ++wrong_nan;
        else if (!std::isnan(hx[i]) &&
                 !(std::abs(static_cast<double>(hx[i]) - x_ref[i]) <= tol * std::max(1.0, std::abs(double(x_ref[i])))))
          ++wrong_value;
      }
      CHECK_MESSAGE(wrong_nan == 0, d.spec() << " round " << round << ": NaN where the reference has none or back");
      CHECK_MESSAGE(wrong_value == 0, d.spec() << " round " << round << ": " << wrong_value << " values off");
    }
  });
}

TEST_CASE_TEMPLATE("sptrsv: a 9-point 2D stencil's triangles (cuda parts: tiles refused, fallback to contiguous)", T,
                   float, double) {
  // The 9-point stencil's band is a line plus one, and the entry a line back and one ahead lands
  // a period back in a later block of places: the analysis must find that dependency on a later
  // part and keep contiguous parts (forced through the parts walk on the GPU machine:
  // sptrsv.syncfree=1). Diagonally dominant: 9 on the diagonal, -1 around.
  const int g = 61;
  HostCsr<T> h;
  h.rows = h.cols = static_cast<std::int64_t>(g) * g;
  h.row_ptr.assign(1, 0);
  for (int j = 0; j < g; ++j)
    for (int i = 0; i < g; ++i) {
      for (int dj = -1; dj <= 1; ++dj)
        for (int di = -1; di <= 1; ++di) {
          const int ii = i + di, jj = j + dj;
          if (ii < 0 || ii >= g || jj < 0 || jj >= g) continue;
          h.col_idx.push_back(jj * g + ii);
          h.values.push_back(di == 0 && dj == 0 ? T(9) : T(-1));
        }
      h.row_ptr.push_back(static_cast<std::int32_t>(h.col_idx.size()));
    }
  std::uint32_t seed = 4200;
  for (Uplo uplo : {Uplo::lower, Uplo::upper}) sptrsv_case(h, uplo, Diag::non_unit, "9-point 61 x 61", seed += 3);
}
