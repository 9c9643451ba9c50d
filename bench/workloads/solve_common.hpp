// What the solver cases (cg, bicgstab) share: their inputs beside the matrix (b, the Jacobi
// inverse diagonal), the unsymmetric convection-diffusion matrix of bicgstab, and which Matrix
// Market files CG may run on.
#pragma once

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>

#include "tessera/csr_matrix.hpp"
#include "tessera/errors.hpp"
#include "tessera/generate.hpp"
#include "tessera/matrix_market.hpp"
#include "op_data.hpp"
#include "workload.hpp"
#include "workloads/common.hpp"

namespace bench {

// 1 / diag(A); throws Skipped naming the first row without a nonzero diagonal entry (Jacobi
// needs one in every row).
template <class T>
std::vector<T> inverse_diagonal(const tessera::HostCsr<T>& A) {
  std::vector<T> inv(static_cast<std::size_t>(A.rows), T(0));
  for (std::int64_t i = 0; i < A.rows; ++i) {
    for (auto k = A.row_ptr[static_cast<std::size_t>(i)]; k < A.row_ptr[static_cast<std::size_t>(i) + 1]; ++k)
      if (A.col_idx[static_cast<std::size_t>(k)] == i && A.values[static_cast<std::size_t>(k)] != T(0))
        inv[static_cast<std::size_t>(i)] = T(1) / A.values[static_cast<std::size_t>(k)];
    if (inv[static_cast<std::size_t>(i)] == T(0))
      throw Skipped("row " + std::to_string(i) + " has no nonzero diagonal entry (Jacobi needs one)");
  }
  return inv;
}

// The relative tolerance of the solves to the tolerance (||b - A x|| <= tol ||b||): 1e-8 in
// f64, as tessera-solve's default; 1e-5 in f32, which a float iteration reaches on these
// matrices (its rounding level is ~1e-7) where 1e-8 would stagnate.
inline double converged_rel_tol(tessera::DType dtype) { return dtype == tessera::DType::f32 ? 1e-5 : 1e-8; }
// Their iteration limit: past it the row reports the solve as not converging.
constexpr int kConvergedMaxIterations = 5000;

// The rest of a solver case once its matrix d.A is set: a random b (never zero:
// workloads/common.hpp) and, for a Jacobi case, the iteration count and 1 / diag(A); for a case
// to the tolerance, its preconditioner, tolerance and iteration limit.
template <class T>
void set_solver_inputs(CgData<T>& d, const CaseSpec& spec, tessera::DType dtype, std::uint64_t seed) {
  d.b = random_vector<T>(d.A.rows, seed);
  d.precond = spec.precond;
  d.precond_dtype = spec.precond_dtype;
  d.generated = spec.kind != "mtx";
  if (d.precond.empty()) {
    d.iters = static_cast<int>(spec.get("iters"));
    d.inv_diag = inverse_diagonal(d.A);
  } else {
    d.rel_tol = converged_rel_tol(dtype);
    d.max_iterations = kConvergedMaxIterations;
  }
}

// The 3D analogue of the test suite's convection-diffusion matrix (tests/test_solve.cpp adds
// -0.6 to the upper x-neighbour of the 2D Laplacian): the 7-point Laplacian (diagonal 6.5)
// plus a centred first-order convection term along x, -c on the upper x-neighbour and +c on the
// lower one (entries -1.3 and -0.7 for c = 0.3). Unsymmetric and still strictly diagonally
// dominant (6.5 > 6), so BiCGSTAB converges at every n. The one-sided -0.6 of the 2D test is
// not used: with diagonal 6.5 its x-factor, symmetrised, has off-diagonals sqrt(1.6), and the
// smallest eigenvalue 6.5 - (2 sqrt(1.6) + 4) cos(pi / (n + 1)) crosses zero near n = 32, so
// some sizes are (nearly) singular.
template <class T>
tessera::HostCsr<T> convection_diffusion_3d(std::int64_t n, double c = 0.3) {
  tessera::HostCsr<T> h = tessera::laplacian_3d<T>(n, n, n);
  for (std::int64_t i = 0; i < h.rows; ++i)
    for (auto k = h.row_ptr[static_cast<std::size_t>(i)]; k < h.row_ptr[static_cast<std::size_t>(i) + 1]; ++k) {
      const auto j = h.col_idx[static_cast<std::size_t>(k)];
      if (j == i + 1) h.values[static_cast<std::size_t>(k)] -= static_cast<T>(c);
      if (j == i - 1) h.values[static_cast<std::size_t>(k)] += static_cast<T>(c);
    }
  return h;
}

// Whether `path` is symmetric positive definite by the MANIFEST.md of its folder (the
// shared/data/matrices collection: its table's "kind of problem" column says "SPD"). Returns
// false with `why` set when the manifest says otherwise or the file is not in it; without a
// manifest, true with `why` saying that nothing vouches for it (the run then checks symmetry
// and a positive diagonal, the necessary conditions, in spd_matrix below).
inline bool spd_by_manifest(const std::string& path, std::string& why, bool& have_manifest) {
  namespace fs = std::filesystem;
  const fs::path p(path);
  const fs::path manifest = p.parent_path() / "MANIFEST.md";
  std::ifstream in(manifest);
  have_manifest = static_cast<bool>(in);
  if (!in) {
    why = "no MANIFEST.md beside it";
    return true;
  }
  const std::string row_start = "| " + p.filename().string() + " |";
  for (std::string line; std::getline(in, line);) {
    if (line.compare(0, row_start.size(), row_start) != 0) continue;
    // | file | collection name | kind of problem | ...
    std::size_t a = line.find('|', 1);
    a = line.find('|', a + 1);
    const std::size_t b = line.find('|', a + 1);
    const std::string kind = line.substr(a + 1, b - a - 1);
    if (kind.find("SPD") != std::string::npos) return true;
    why = "not SPD by MANIFEST.md (" + kind.substr(1, kind.size() > 1 ? kind.size() - 2 : 0) + ")";
    return false;
  }
  why = "not listed in " + manifest.string();
  return false;
}

// A square matrix from a Matrix Market file: Skipped (an n/a row with the reason) when it is not
// square or Tessera refuses the file by design (complex, ...); `op` names the case in the reason.
template <class T>
tessera::HostCsr<T> square_matrix(const std::string& path, const char* op) {
  tessera::HostCsr<T> A;
  try {
    A = tessera::read_matrix_market<T>(path);
  } catch (const tessera::ParseError&) {
    throw;
  } catch (const tessera::InvalidArgument& e) {
    if (!std::filesystem::is_regular_file(path)) throw;
    throw Skipped(e.what());
  }
  if (A.rows != A.cols) throw Skipped(std::string(op) + " skipped: not square");
  return A;
}

// The matrix of a cg case read from a Matrix Market file: Skipped (an n/a row with the reason)
// when it is not SPD by its folder's MANIFEST.md, or, without a manifest, not symmetric or
// without a positive diagonal; also as square_matrix.
template <class T>
tessera::HostCsr<T> spd_matrix(const std::string& path) {
  std::string why;
  bool have_manifest = false;
  if (std::filesystem::is_regular_file(path) && !spd_by_manifest(path, why, have_manifest))
    throw Skipped("cg skipped: " + why);
  tessera::HostCsr<T> A = square_matrix<T>(path, "cg");
  if (!have_manifest) {
    // Symmetric values and a positive diagonal: necessary for SPD (not sufficient).
    for (std::int64_t i = 0; i < A.rows; ++i)
      for (auto k = A.row_ptr[static_cast<std::size_t>(i)]; k < A.row_ptr[static_cast<std::size_t>(i) + 1]; ++k) {
        const auto j = A.col_idx[static_cast<std::size_t>(k)];
        const T v = A.values[static_cast<std::size_t>(k)];
        if (j == i && !(v > T(0))) throw Skipped("cg skipped: diagonal entry of row " + std::to_string(i) + " is not positive");
        bool mirrored = false;
        for (auto m = A.row_ptr[static_cast<std::size_t>(j)]; m < A.row_ptr[static_cast<std::size_t>(j) + 1]; ++m)
          if (A.col_idx[static_cast<std::size_t>(m)] == i) mirrored = A.values[static_cast<std::size_t>(m)] == v;
        if (!mirrored) throw Skipped("cg skipped: not symmetric (entry " + std::to_string(i) + "," + std::to_string(j) + ")");
      }
  }
  return A;
}

}  // namespace bench
