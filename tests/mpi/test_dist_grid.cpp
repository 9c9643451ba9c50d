// The distributed stencil against tessera::stencil on the whole grid on this rank's device: the
// same arithmetic per cell (the halos hold exactly the neighbours' cells of the previous step), so
// each rank's own planes are bit-identical. With ranks on different kinds of device the
// neighbours' cells are rounded by another device from the second step on: there one step is
// compared (its halos are the exact initial cells).
#include "support.hpp"

using namespace tessera;
using namespace tessera_mpi_test;
namespace dm = tessera::mpi;

namespace {

template <class T>
std::vector<T> coefficients(int r) {
  std::vector<T> c{T(0.4)};
  for (int d = 1; d <= r; ++d) c.push_back(T(0.1) / T(d * 1.5));
  return c;
}

template <class T>
// A stencil of radius r on a grid made for radius grid_r (0: r) whose halos are exchanged every
// `every` steps of radius grid_r.
void check_stencil(const Device& dev, const dm::RowPartition& planes, std::int64_t nx, std::int64_t ny,
                   std::int64_t nz, int r, int steps, int grid_r = 0, int every = 1) {
  if (grid_r == 0) grid_r = r;
  CAPTURE(nx);
  CAPTURE(ny);
  CAPTURE(nz);
  CAPTURE(r);
  CAPTURE(grid_r);
  CAPTURE(every);
  const Queue q = dev.queue();
  const char* env = std::getenv("TESSERA_MPI_TEST_DEVICES");
  const bool mixed = env != nullptr && std::string(env).find(',') != std::string::npos;
  if (mixed) steps = 1;
  const bool three = nz > 0;
  const std::int64_t cells = nx * ny * (three ? nz : 1);
  const auto g = tessera_test::random_vector<T>(static_cast<std::size_t>(cells), 77);
  dm::DistGrid<T> u = three ? dm::DistGrid<T>(dev, planes, nx, ny, nz, grid_r, dm::ExchangeEvery{every})
                            : dm::DistGrid<T>(dev, planes, nx, ny, grid_r, dm::ExchangeEvery{every});
  CHECK(u.halo_depth() == grid_r * every);
  u.upload_global(g);
  dm::stencil(q, coefficients<T>(r), u, steps);
  Grid<T> whole = three ? Grid<T>::from_host(dev, nx, ny, nz, g) : Grid<T>::from_host(dev, nx, ny, g);
  // One step per call as the distributed stencil does, and all steps in one call: the same.
  stencil(q, coefficients<T>(r), whole, steps);
  const auto ref = whole.to_host();
  const std::int64_t plane = three ? nx * ny : nx;
  const std::vector<T> slab = u.local().to_host();
  const auto b = ref.begin() + planes.local_begin() * plane;
  CHECK(tessera_test::check_bitwise(
      std::vector<T>(slab.begin() + u.halo_below() * plane, slab.end() - u.halo_above() * plane),
      std::vector<T>(b, b + planes.local_size() * plane), "own planes"));
  const auto gathered = u.to_global();  // collective: every rank calls it
  if (!mixed) CHECK(tessera_test::check_bitwise(gathered, ref, "gathered"));
}

}  // namespace

TEST_CASE_TEMPLATE("mpi stencil: 2D and 3D, radius 1 to 4, uniform and uneven slabs, bit-identical to one device",
                   T, float, double) {
  const Device dev = rank_device();
  const int p = world_size();
  for (int r : {1, 2, 4}) {
    // Enough planes that every non-empty rank of the uneven split owns >= r.
    const std::int64_t nz = 12 * p + 5, ny2 = 12 * p + 3;
    for (const auto& [name, part] : partitions(nz)) {
      CAPTURE(name);
      check_stencil<T>(dev, part, 13, 11, nz, r, 3);
    }
    for (const auto& [name, part] : partitions(ny2)) {
      CAPTURE(name);
      check_stencil<T>(dev, part, 37, ny2, 0, r, 4);
    }
  }
}

// Deeper halos exchanged once per several steps (ghost-zone expansion): step counts that are and
// are not multiples of the steps per exchange, a stencil narrower than the grid's radius (more
// steps per exchange), 2D and 3D.
TEST_CASE_TEMPLATE("mpi stencil: halos exchanged every few steps, bit-identical to one device", T, float, double) {
  const Device dev = rank_device();
  const int p = world_size();
  const std::int64_t nz = 12 * p + 5, ny2 = 12 * p + 3;
  struct Case {
    int r, grid_r, every, steps;
  };
  for (const Case c : {Case{1, 1, 2, 7}, Case{1, 1, 3, 6}, Case{2, 2, 2, 5}, Case{1, 2, 2, 9}}) {
    for (const auto& [name, part] : partitions(nz)) {
      CAPTURE(name);
      check_stencil<T>(dev, part, 13, 11, nz, c.r, c.steps, c.grid_r, c.every);
    }
    for (const auto& [name, part] : partitions(ny2)) {
      CAPTURE(name);
      check_stencil<T>(dev, part, 37, ny2, 0, c.r, c.steps, c.grid_r, c.every);
    }
  }
}

TEST_CASE("mpi stencil: bad input on every rank") {
  const Device dev = rank_device();
  const int p = world_size();
  const auto part = dm::RowPartition::uniform(MPI_COMM_WORLD, 3 * p);
  CHECK_THROWS_AS(dm::DistGrid<double>(dev, part, 5, 5, 3 * p + 1, 1), DimensionMismatch);
  CHECK_THROWS_AS(dm::DistGrid<double>(dev, part, 5, 5, 3 * p, 0), InvalidArgument);
  if (p >= 2) CHECK_THROWS_AS(dm::DistGrid<double>(dev, part, 5, 5, 3 * p, 4), InvalidArgument);  // 3 planes < radius 4
  if (p >= 2) CHECK_THROWS_AS(dm::DistGrid<double>(dev, part, 5, 5, 3 * p, 2, dm::ExchangeEvery{2}), InvalidArgument);  // 3 < depth 4
  CHECK_THROWS_AS(dm::DistGrid<double>(dev, part, 5, 5, 3 * p, 1, dm::ExchangeEvery{0}), InvalidArgument);
  CHECK_THROWS_AS(dm::DistGrid<double>(dev, part, 5, 5, 3 * p, 1, dm::ExchangeEvery{65}), InvalidArgument);
  dm::DistGrid<double> u(dev, part, 5, 5, 3 * p, 2);
  CHECK_THROWS_AS(dm::stencil(dev.queue(), coefficients<double>(3), u, 1), InvalidArgument);
  CHECK_THROWS_AS(dm::stencil(dev.queue(), coefficients<double>(1), u, -1), InvalidArgument);
}
