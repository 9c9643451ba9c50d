// Solves a 3D Laplacian with distributed CG on every rank's cpu device; prints on rank 0 and
// exits non-zero unless it converged.
#include <cstdio>

#include "tessera/mpi.hpp"
#include "tessera/tessera.hpp"

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int failed = 0;
  {
    namespace dm = tessera::mpi;
    const tessera::Device dev = tessera::Device::open("cpu");
    const auto h = tessera::laplacian_3d<double>(16, 16, 16);
    const auto part = dm::RowPartition::uniform(MPI_COMM_WORLD, h.rows);
    const auto A = dm::DistCsrMatrix<double>::from_global(dev, part, h);
    dm::DistVector<double> b(dev, part), x(dev, part);
    dm::fill(dev.queue(), 1.0, b);
    dm::fill(dev.queue(), 0.0, x);
    const auto r = dm::cg(dev.queue(), A, b, x);
    if (part.rank() == 0) std::printf("mpi consumer: %s in %lld iterations\n", r.reason.c_str(), static_cast<long long>(r.iterations));
    failed = r.converged ? 0 : 1;
  }
  MPI_Finalize();
  return failed;
}
