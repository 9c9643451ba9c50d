// tessera-bench-mpi: run under mpirun; every rank opens --device (cuda:N by local rank when
// --device cuda). Prints one Markdown table on rank 0: seconds per operation (the slowest
// rank's), the split into local compute / halo exchange / allreduce (Tessera), and a check value
// that should agree between implementations.
#include <mpi.h>

#include <cstdio>
#include <cstdlib>

#include "command_line.hpp"
#include "workloads.hpp"

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  tessera_bench_mpi::Config c;
  tessera::tools::CommandLine cli{"tessera-bench-mpi: distributed SpMV, stencil step and CG iteration beside PETSc"};
  cli.option("--device", c.device, "device every rank opens (cpu, opencl:0; cuda: cuda:<local rank>)");
  cli.option("--n", c.n, "the problem is the 7-point Laplacian / grid of n x n x nz");
  cli.option("--nz", c.nz, "the slowest axis (split over the ranks); default n");
  cli.flag("--weak", c.weak, "weak scaling: nz per rank (n x n x nz rows per rank), nz * ranks in all");
  cli.option("--repeat", c.repeat, "SpMVs timed");
  cli.option("--iterations", c.iterations, "CG iterations timed");
  cli.option("--steps", c.steps, "stencil steps timed");
  cli.option("--exchange-every", c.exchange_every,
             "stencil steps per halo exchange: halos that many steps deep, the steps between exchanges in one "
             "multi-step call (DistGrid's exchange_every)")
      .range(1, 64);
  cli.option("--samples", c.samples, "timed runs of each workload (Tessera and PETSc alike); the median is reported");
  cli.option("--workloads", c.workloads, "spmv, stencil, cg (comma-separated)").split_on(',');
  bool no_petsc = false;
  cli.flag("--no-petsc", no_petsc, "leave the PETSc baseline out");
  int rounds = 1;
  cli.option("--rounds", rounds,
             "run Tessera then PETSc this many times in turn; each row is the median over the rounds, and "
             "the PETSc / Tessera ratio of every round is printed (both see the same moment of a shared "
             "machine)")
      .positive();
  if (int rc = 0; !cli.parse(argc, argv, rc)) {
    MPI_Finalize();
    return rc;
  }
  int ranks = 1, rank = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (c.device == "cuda") {
    const char* local = std::getenv("OMPI_COMM_WORLD_LOCAL_RANK");
    c.device = "cuda:" + std::string(local != nullptr ? local : "0");
  }
  // rounds x (Tessera's rows, then PETSc's): the same rows in the same order every round.
  std::vector<std::vector<tessera_bench_mpi::Row>> per_round;
  try {
    for (int round = 0; round < rounds; ++round) {
      auto rows = tessera_bench_mpi::run_tessera(c);
#ifdef TESSERA_BENCH_PETSC
      if (!no_petsc) {
        const auto p = tessera_bench_mpi::run_petsc(c);
        rows.insert(rows.end(), p.begin(), p.end());
      }
#endif
      per_round.push_back(std::move(rows));
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "rank %d: %s\n", rank, e.what());
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  const std::vector<tessera_bench_mpi::Row> rows = tessera_bench_mpi::median_rows(per_round);
  if (rank == 0) {
    const tessera::Device dev = tessera::Device::open(c.device);
    std::printf("ranks %d, device %s (%s), halo transport: %s, Laplacian %lld x %lld x %lld (%s), OMP_NUM_THREADS=%s\n\n",
                ranks, dev.spec().c_str(), dev.info().name.c_str(), tessera::mpi::transport(dev).c_str(),
                static_cast<long long>(c.n), static_cast<long long>(c.n),
                static_cast<long long>(tessera_bench_mpi::global_nz(c, ranks)), c.weak ? "weak" : "strong",
                std::getenv("OMP_NUM_THREADS") ? std::getenv("OMP_NUM_THREADS") : "unset");
    std::printf("| workload | impl | ranks | rows | ms/op | local ms | halo ms | allreduce ms | check |\n");
    std::printf("|---|---|---:|---:|---:|---:|---:|---:|---|\n");
    for (const auto& r : rows) {
      auto ms = [&](double s) { return r.impl == "petsc" ? std::string("-") : std::to_string(s * 1e3).substr(0, 6); };
      std::printf("| %s | %s | %d | %lld | %.3f | %s | %s | %s | %s |\n", r.workload.c_str(), r.impl.c_str(), r.ranks,
                  static_cast<long long>(r.rows), r.seconds * 1e3, ms(r.local).c_str(), ms(r.halo).c_str(),
                  ms(r.allreduce).c_str(), r.check.c_str());
    }
    for (const auto& line : tessera_bench_mpi::round_ratios(per_round)) std::printf("\n%s", line.c_str());
    std::printf("\n");
  }
  MPI_Finalize();
  return 0;
}
