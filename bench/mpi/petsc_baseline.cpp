// The PETSc baseline: the same 7-point Laplacian assembled as an MPIAIJ matrix with the same row
// blocks, MatMult for the SpMV row, KSPCG + PCJACOBI for a fixed number of iterations (tolerances
// 0) for the CG row, standard (MPI) vectors. PETSc's own split is not taken apart: its total only.
#include <petscksp.h>

#include <chrono>
#include <cstdio>

#include "workloads.hpp"

namespace tessera_bench_mpi {
namespace {
using Clock = std::chrono::steady_clock;
double slowest(double s) {
  MPI_Allreduce(MPI_IN_PLACE, &s, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return s;
}
#define CHECK_PETSC(call)                                                          \
  do {                                                                             \
    const PetscErrorCode e_ = (call);                                              \
    if (e_ != 0) {                                                                 \
      std::fprintf(stderr, "PETSc error %d in %s\n", static_cast<int>(e_), #call); \
      MPI_Abort(MPI_COMM_WORLD, 1);                                                \
    }                                                                              \
  } while (0)
}  // namespace

std::vector<Row> run_petsc(const Config& c) {
  std::vector<Row> rows;
  int ranks = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  CHECK_PETSC(PetscOptionsSetValue(nullptr, "-vec_type", "standard"));
  CHECK_PETSC(PetscInitializeNoArguments());
  const std::int64_t nz = global_nz(c, ranks);
  const auto part = tessera::mpi::RowPartition::uniform(MPI_COMM_WORLD, c.n * c.n * nz);
  const PetscInt b0 = static_cast<PetscInt>(part.local_begin()), m = static_cast<PetscInt>(part.local_size());
  // The same rows as Tessera's (laplacian_rows), row_ptr local, columns global.
  const auto h = [&] {
    auto l = laplacian_rows(c.n, c.n, nz, b0, b0 + m);
    l.rows = part.size();
    return l;
  }();
  Mat A;
  CHECK_PETSC(MatCreateAIJ(PETSC_COMM_WORLD, m, m, static_cast<PetscInt>(h.rows), static_cast<PetscInt>(h.rows), 7,
                           nullptr, 6, nullptr, &A));
  for (PetscInt i = 0; i < m; ++i) {
    const PetscInt r = b0 + i, len = h.row_ptr[i + 1] - h.row_ptr[i];
    std::vector<PetscInt> cols(h.col_idx.begin() + h.row_ptr[i], h.col_idx.begin() + h.row_ptr[i + 1]);
    CHECK_PETSC(MatSetValues(A, 1, &r, len, cols.data(), h.values.data() + h.row_ptr[i], INSERT_VALUES));
  }
  CHECK_PETSC(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
  CHECK_PETSC(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  Vec x, y, b;
  CHECK_PETSC(MatCreateVecs(A, &x, &y));
  CHECK_PETSC(VecDuplicate(x, &b));
  CHECK_PETSC(VecSet(x, 1.0));
  auto row = [&](const char* workload) {
    Row r;
    r.workload = workload;
    r.impl = "petsc";
    r.ranks = ranks;
    r.rows = h.rows;
    return r;
  };
  for (const auto& w : c.workloads) {
    if (w == "spmv") {
      Row r = row("spmv");
      CHECK_PETSC(MatMult(A, x, y));  // warm-up (scatter set-up)
      r.seconds = median_seconds(c.samples, [&] {
                    MPI_Barrier(MPI_COMM_WORLD);
                    const auto t0 = Clock::now();
                    for (int i = 0; i < c.repeat; ++i) CHECK_PETSC(MatMult(A, x, y));
                    return slowest(std::chrono::duration<double>(Clock::now() - t0).count());
                  }) /
                  c.repeat;
      PetscReal nrm;
      CHECK_PETSC(VecNorm(y, NORM_2, &nrm));
      char buf[64];
      std::snprintf(buf, sizeof buf, "norm2(Ax) %.10g", static_cast<double>(nrm));
      r.check = buf;
      rows.push_back(r);
    } else if (w == "cg") {
      Row r = row("cg+jacobi iteration");
      CHECK_PETSC(MatMult(A, x, b));
      KSP ksp;
      PC pc;
      CHECK_PETSC(KSPCreate(PETSC_COMM_WORLD, &ksp));
      CHECK_PETSC(KSPSetOperators(ksp, A, A));
      CHECK_PETSC(KSPSetType(ksp, KSPCG));
      CHECK_PETSC(KSPGetPC(ksp, &pc));
      CHECK_PETSC(PCSetType(pc, PCJACOBI));
      CHECK_PETSC(KSPSetTolerances(ksp, 0.0, 0.0, 1e30, c.iterations));
      CHECK_PETSC(KSPSetUp(ksp));
      CHECK_PETSC(VecSet(y, 0.0));
      CHECK_PETSC(KSPSolve(ksp, b, y));  // warm-up
      const double s = median_seconds(c.samples, [&] {
        CHECK_PETSC(VecSet(y, 0.0));
        MPI_Barrier(MPI_COMM_WORLD);
        const auto t0 = Clock::now();
        CHECK_PETSC(KSPSolve(ksp, b, y));
        return slowest(std::chrono::duration<double>(Clock::now() - t0).count());
      });
      PetscInt its;
      CHECK_PETSC(KSPGetIterationNumber(ksp, &its));
      r.seconds = s / static_cast<double>(its > 0 ? its : 1);
      // The true residual ||b - A y||, comparable with Tessera's recurrence residual.
      Vec res;
      CHECK_PETSC(VecDuplicate(b, &res));
      CHECK_PETSC(MatMult(A, y, res));
      CHECK_PETSC(VecAYPX(res, -1.0, b));
      PetscReal nrm;
      CHECK_PETSC(VecNorm(res, NORM_2, &nrm));
      char buf[64];
      std::snprintf(buf, sizeof buf, "norm2(r) after %d: %.6g", static_cast<int>(its), static_cast<double>(nrm));
      r.check = buf;
      CHECK_PETSC(VecDestroy(&res));
      CHECK_PETSC(KSPDestroy(&ksp));
      rows.push_back(r);
    }
  }
  CHECK_PETSC(VecDestroy(&x));
  CHECK_PETSC(VecDestroy(&y));
  CHECK_PETSC(VecDestroy(&b));
  CHECK_PETSC(MatDestroy(&A));
  CHECK_PETSC(PetscFinalize());
  return rows;
}

}  // namespace tessera_bench_mpi
