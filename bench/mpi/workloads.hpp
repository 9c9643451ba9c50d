// The measured workloads of tessera-bench-mpi and the row each gives.
#pragma once

#include <algorithm>
#include <string>
#include <vector>

#include "tessera/generate.hpp"
#include "tessera/mpi.hpp"

namespace tessera_bench_mpi {

struct Config {
  std::string device = "cpu";
  std::int64_t n = 128;   // the Laplacian / grid is n x n x nz
  std::int64_t nz = 0;    // 0: n
  bool weak = false;      // nz per rank (fixed rows per rank): nz * ranks in all
  int repeat = 20;        // SpMVs timed
  int iterations = 50;    // CG iterations timed
  int steps = 20;         // stencil steps timed
  int exchange_every = 1;  // stencil steps per halo exchange (DistGrid's deeper halos)
  int samples = 1;        // timed runs of each workload; the median is reported
  std::vector<std::string> workloads{"spmv", "stencil", "cg"};
};

// One measured line: seconds per operation (the slowest rank's), and its split (the slowest
// rank's per phase), and a check value to compare implementations.
struct Row {
  std::string workload, impl;
  int ranks = 1;
  std::int64_t rows = 0;
  double seconds = 0, local = 0, halo = 0, allreduce = 0;
  std::string check;
};

std::int64_t global_nz(const Config& c, int ranks);

// One row per row of a round (every round has the same rows in the same order), each time the
// median over the rounds (the check and the split from the median round of that row).
std::vector<Row> median_rows(const std::vector<std::vector<Row>>& rounds);
// For each workload both implementations ran: "workload: PETSc / Tessera per round r1 r2 ...,
// median m" (a ratio > 1: Tessera faster), the ratios of one round measured minutes apart at most.
std::vector<std::string> round_ratios(const std::vector<std::vector<Row>>& rounds);
// The median of `samples` runs of `timed` (each returns the slowest rank's seconds; the same on
// every rank): on a shared machine one run can be hit by another process's burst, the median of
// several is what both implementations are compared by.
template <class F>
double median_seconds(int samples, F timed) {
  std::vector<double> s;
  for (int i = 0; i < std::max(samples, 1); ++i) s.push_back(timed());
  std::sort(s.begin(), s.end());
  const std::size_t m = s.size() / 2;
  return s.size() % 2 == 1 ? s[m] : 0.5 * (s[m - 1] + s[m]);
}
// Rows [begin, end) of tessera::laplacian_3d(nx, ny, nz) (diagonal 6.5, neighbours -1, columns
// ascending), global column indices: each rank builds only its rows, so 256^3 and larger fit.
// For small grids it is checked against laplacian_3d (std::runtime_error on a difference).
tessera::HostCsr<double> laplacian_rows(std::int64_t nx, std::int64_t ny, std::int64_t nz, std::int64_t begin,
                                        std::int64_t end);
std::vector<Row> run_tessera(const Config& c);
#ifdef TESSERA_BENCH_PETSC
std::vector<Row> run_petsc(const Config& c);
#endif

}  // namespace tessera_bench_mpi
