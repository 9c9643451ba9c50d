// CG and BiCGSTAB on distributed types against the same solve on one device: the same method
// code, so the same iterations up to rounding (the reductions sum in another order).
#include "support.hpp"

using namespace tessera;
using namespace tessera_mpi_test;
namespace dm = tessera::mpi;

namespace {

// The distributed and the one-device solve of A x = b (x0 = 0), compared: both converge, both
// meet the tolerance in their true residual, their iteration counts differ by at most a few
// (rounding differences grow along the recurrence), and the solutions agree within what the
// tolerance allows: ||x_d - x_1|| <= ||A^-1|| (||r_d|| + ||r_1||), with ||A^-1|| bounded by
// 1 / (smallest Gershgorin lower bound) for the diagonally dominant test matrices.
template <class T>
void compare_solves(const Device& dev, const dm::RowPartition& part, const HostCsr<T>& h, SolverKind kind,
                    bool jacobi, double inverse_norm_bound) {
  const Queue q = dev.queue();
  const auto gb = tessera_test::random_vector<T>(static_cast<std::size_t>(h.rows), 41, 0.1, 1.0);
  SolveOptions o;
  o.rel_tol = sizeof(T) == 4 ? 1e-5 : 1e-10;
  o.max_iterations = 2000;
  o.check_every = 1;  // the same checks on both sides: iteration counts comparable

  const auto A = dm::DistCsrMatrix<T>::from_global(dev, part, h);
  auto b = dm::DistVector<T>::from_global(dev, part, gb);
  dm::DistVector<T> x(dev, part);
  dm::fill(q, T(0), x);
  std::unique_ptr<dm::DistJacobi<T>> M;
  if (jacobi) M = std::make_unique<dm::DistJacobi<T>>(q, A);
  const SolveResult rd = kind == SolverKind::cg ? dm::cg(q, A, b, x, M.get(), o) : dm::bicgstab(q, A, b, x, M.get(), o);

  const auto S = CsrMatrix<T>::from_host(dev, h);
  auto B = Vector<T>::from_host(dev, gb);
  Vector<T> X(dev, h.rows);
  fill(q, T(0), X);
  std::unique_ptr<Jacobi<T>> MS;
  if (jacobi) MS = std::make_unique<Jacobi<T>>(q, S);
  const SolveResult r1 = kind == SolverKind::cg ? cg(q, S, B, X, MS.get(), o) : bicgstab(q, S, B, X, MS.get(), o);

  CAPTURE(rd.reason);
  CAPTURE(r1.reason);
  CHECK(rd.converged);
  CHECK(r1.converged);
  CHECK(std::abs(rd.iterations - r1.iterations) <= 3);
  CHECK(rd.rhs_norm == doctest::Approx(r1.rhs_norm).epsilon(1e-5));
  // The recurrence residual and the true one part by rounding: allow a factor 10 (float) past the tolerance.
  CHECK(rd.true_residual <= (sizeof(T) == 4 ? 10 : 2) * rd.tolerance);
  const auto xd = x.to_global(), x1 = X.to_host();
  double diff = 0;
  for (std::size_t i = 0; i < xd.size(); ++i) diff += (double(xd[i]) - x1[i]) * (double(xd[i]) - x1[i]);
  CHECK(std::sqrt(diff) <= inverse_norm_bound * (rd.true_residual + r1.true_residual) * 1.01);
  // Every rank reports the same result.
  double it = static_cast<double>(rd.iterations), lo = it, hi = it;
  MPI_Allreduce(MPI_IN_PLACE, &lo, 1, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD);
  MPI_Allreduce(MPI_IN_PLACE, &hi, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  CHECK(lo == hi);
}

}  // namespace

TEST_CASE_TEMPLATE("mpi cg: 3D Laplacian, with and without Jacobi, uniform and uneven partitions", T, float, double) {
  const Device dev = rank_device();
  const auto h = laplacian_3d<T>(12, 11, 10);
  // Diagonal 6.5, six off-diagonal -1: every Gershgorin disc lies right of 0.5, ||A^-1|| <= 2.
  for (const auto& [name, part] : partitions(h.rows)) {
    CAPTURE(name);
    compare_solves<T>(dev, part, h, SolverKind::cg, false, 2.0);
    compare_solves<T>(dev, part, h, SolverKind::cg, true, 2.0);
  }
}

TEST_CASE("mpi cg: an SPD matrix of the shared collection (nos6, then 494_bus)") {
  const Device dev = rank_device();
  for (const char* name : {"nos6.mtx", "494_bus.mtx"}) {
    const std::string path = matrix_path(name);
    if (path.empty()) {
      if (world_rank() == 0) MESSAGE("skipped: " << name << " is not in the shared matrix folder");
      continue;
    }
    CAPTURE(name);
    const Queue q = dev.queue();
    const auto A = dm::DistCsrMatrix<double>::read_matrix_market(dev, MPI_COMM_WORLD, path);
    dm::DistVector<double> b(dev, A.partition()), x(dev, A.partition()), ones(dev, A.partition());
    dm::fill(q, 1.0, ones);
    dm::spmv(q, 1.0, A, ones, 0.0, b);
    dm::fill(q, 0.0, x);
    dm::DistJacobi<double> M(q, A);
    SolveOptions o;
    o.rel_tol = 1e-10;
    o.max_iterations = 20000;
    const auto r = dm::cg(q, A, b, x, &M, o);
    CAPTURE(r.reason);
    CHECK(r.converged);
    CHECK(r.true_residual <= 2 * r.tolerance);
    // And the same solve on one device takes about as many iterations.
    const auto h = read_matrix_market<double>(path);
    const auto S = CsrMatrix<double>::from_host(dev, h);
    const auto B = Vector<double>::from_host(dev, b.to_global());
    Vector<double> X(dev, h.rows);
    fill(q, 0.0, X);
    Jacobi<double> MS(q, S);
    const auto r1 = cg(q, S, B, X, &MS, o);
    CHECK(r1.converged);
    CHECK(std::abs(static_cast<double>(r.iterations - r1.iterations)) <= 0.05 * r1.iterations + r.check_every + r1.check_every);
  }
}

TEST_CASE_TEMPLATE("mpi bicgstab: a nonsymmetric diagonally dominant matrix", T, float, double) {
  const Device dev = rank_device();
  // random_csr rows (<= 9 entries of |v| <= 1) plus 10 on the diagonal: dominant by >= 1,
  // so ||A^-1||_inf <= 1 and ||A^-1||_2 <= sqrt(n) ||A^-1||_inf.
  auto h = random_csr<T>(401, 401, 1, 8, 19);
  for (std::int64_t r = 0; r < h.rows; ++r)
    for (std::int32_t k = h.row_ptr[r]; k < h.row_ptr[r + 1]; ++k)
      if (h.col_idx[k] == r) h.values[k] += T(10);
  // Add the diagonal where random_csr left it out.
  HostCsr<T> d;
  d.rows = d.cols = h.rows;
  for (std::int64_t r = 0; r < h.rows; ++r) {
    bool has = false;
    for (std::int32_t k = h.row_ptr[r]; k < h.row_ptr[r + 1]; ++k) {
      has |= h.col_idx[k] == r;
      if (!has && h.col_idx[k] > r) {
        d.col_idx.push_back(static_cast<std::int32_t>(r));
        d.values.push_back(T(10));
        has = true;
      }
      d.col_idx.push_back(h.col_idx[k]);
      d.values.push_back(h.values[k]);
    }
    if (!has) {
      d.col_idx.push_back(static_cast<std::int32_t>(r));
      d.values.push_back(T(10));
    }
    d.row_ptr.push_back(static_cast<std::int32_t>(d.col_idx.size()));
  }
  for (const auto& [name, part] : partitions(d.rows)) {
    CAPTURE(name);
    compare_solves<T>(dev, part, d, SolverKind::bicgstab, false, std::sqrt(401.0));
    compare_solves<T>(dev, part, d, SolverKind::bicgstab, true, std::sqrt(401.0));
  }
}
