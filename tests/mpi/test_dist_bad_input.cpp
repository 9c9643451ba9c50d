// Bad input to a collective call, on one rank or all: the same typed error on every rank, nothing
// written, no rank left waiting (ctest's TIMEOUT would catch a hang), and the next collective
// call works.
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "support.hpp"

using namespace tessera;
using namespace tessera_mpi_test;
namespace dm = tessera::mpi;

namespace {
// Rank 0's process id on every rank: names a temporary file only rank 0 writes.
long getpid_of_rank0() {
  long pid = static_cast<long>(getpid());
  MPI_Bcast(&pid, 1, MPI_LONG, 0, MPI_COMM_WORLD);
  return pid;
}
// After an error the ranks are still in step: a dot of ones gives the global size everywhere.
void still_in_step(const Device& dev) {
  const auto part = dm::RowPartition::uniform(MPI_COMM_WORLD, 37);
  dm::DistVector<double> v(dev, part);
  dm::fill(dev.queue(), 1.0, v);
  Scalar<double> s(dev);
  dm::dot(dev.queue(), v, v, s);
  CHECK(s.get() == 37.0);
}
}  // namespace

TEST_CASE("mpi bad input: partitions whose sizes do not add up, or differ between ranks") {
  const Device dev = rank_device();
  const int p = world_size(), me = world_rank();
  std::vector<std::int64_t> sizes(static_cast<std::size_t>(p), 5);
  CHECK_THROWS_AS(dm::RowPartition::from_sizes(MPI_COMM_WORLD, sizes, 5 * p + 1), DimensionMismatch);
  CHECK_THROWS_AS(dm::RowPartition::from_sizes(MPI_COMM_WORLD, std::vector<std::int64_t>(p + 1, 1), p + 1),
                  DimensionMismatch);
  // One rank alone gives a negative size: every rank throws, naming it.
  try {
    dm::RowPartition::from_local_size(MPI_COMM_WORLD, me == p - 1 ? -3 : 4);
    FAIL("no error");
  } catch (const InvalidArgument& e) {
    CHECK(std::string(e.what()).find("rank " + std::to_string(p - 1)) != std::string::npos);
  }
  if (p >= 2) {
    // Ranks disagree about the list: each list adds up, but they differ.
    std::vector<std::int64_t> mine(static_cast<std::size_t>(p), 2);
    if (me == 0) mine[0] = 3, mine[1] = 1;
    CHECK_THROWS_AS(dm::RowPartition::from_sizes(MPI_COMM_WORLD, mine, 2 * p), InvalidArgument);
  }
  CHECK_THROWS_AS(dm::RowPartition::uniform(MPI_COMM_WORLD, -1), DimensionMismatch);
  still_in_step(dev);
}

TEST_CASE("mpi bad input: ranks on mismatched dtypes or sizes") {
  const Device dev = rank_device();
  const Queue q = dev.queue();
  const int p = world_size(), me = world_rank();
  const auto part = dm::RowPartition::uniform(MPI_COMM_WORLD, 50);
  dm::DistVector<float> xf(dev, part);
  dm::DistVector<double> xd(dev, part);
  dm::fill(q, 1.0f, xf);
  dm::fill(q, 1.0, xd);
  Scalar<float> sf(dev, 7.0f);
  Scalar<double> sd(dev, 7.0);
  if (p >= 2) {
    // Odd ranks call dot<double>, even ranks dot<float>: every rank is told.
    try {
      if (me % 2 == 0)
        dm::dot(q, xf, xf, sf);
      else
        dm::dot(q, xd, xd, sd);
      FAIL("no error");
    } catch (const InvalidArgument& e) {
      CHECK(std::string(e.what()).find("dot<float>") != std::string::npos);
      CHECK(std::string(e.what()).find("dot<double>") != std::string::npos);
    }
    CHECK(sf.get() == 7.0f);  // nothing written
    CHECK(sd.get() == 7.0);
    // One rank calls spmv, another a dot: also told, not hung.
    const auto A = dm::DistCsrMatrix<double>::from_global(dev, part, laplacian_2d<double>(10, 5));
    dm::DistVector<double> y(dev, part);
    CHECK_THROWS_AS(me == 0 ? dm::spmv(q, 1.0, A, xd, 0.0, y) : dm::dot(q, xd, xd, sd), InvalidArgument);
  }
  // A local vector of the wrong size on one rank.
  Vector<double> local(dev, part.local_size() + (me == p - 1 ? 1 : 0));
  CHECK_THROWS_AS(dm::DistVector<double>(part, local), DimensionMismatch);
  // Vectors of different partitions.
  const auto other = dm::RowPartition::from_sizes(MPI_COMM_WORLD, uneven_sizes(50, p), 50);
  dm::DistVector<double> z(dev, other);
  if (p >= 2) CHECK_THROWS_AS(dm::dot(q, xd, z, sd), DimensionMismatch);
  // spmv_dot with w on a partition that only rank 0 uses, for the first time there: the checks
  // run on A's communicator and are agreed before anything else, the NCCL path's included
  // (choosing a transport on a partition's first use is collective: a hang otherwise). (The
  // first operand of a reduction carries the communicator of its agreement: one that differs
  // between ranks is a collective on different communicators, which no check can detect.)
  if (p >= 2) {
    const auto fresh = dm::RowPartition::from_sizes(MPI_COMM_WORLD, uneven_sizes(50, p), 50);
    const dm::DistVector<double> w1 = me == 0 ? dm::DistVector<double>(dev, fresh) : xd;
    const auto A = dm::DistCsrMatrix<double>::from_global(dev, part, laplacian_2d<double>(10, 5));
    dm::DistVector<double> y(dev, part);
    dm::fill(q, 3.0, y);
    CHECK_THROWS_AS(dm::spmv_dot(q, 1.0, A, xd, 0.0, y, w1, sd), DimensionMismatch);
    CHECK(sd.get() == 7.0);
    Scalar<double> ysum(dev);
    dm::reduce(q, ReduceOp::sum, y, ysum);
    CHECK(ysum.get() == 3.0 * 50);  // y untouched
  }
  dm::DistVector<double> longer(dev, dm::RowPartition::uniform(MPI_COMM_WORLD, 51));
  CHECK_THROWS_AS(dm::axpy(q, 1.0, xd, longer), DimensionMismatch);
  // A global array of the wrong size on one rank.
  std::vector<double> g(static_cast<std::size_t>(50 + (me == 0 ? 1 : 0)), 1.0);
  CHECK_THROWS_AS(dm::DistVector<double>::from_global(dev, part, g), DimensionMismatch);
  still_in_step(dev);
}

TEST_CASE("mpi bad input: spmv and solves with an error on one rank leave every rank's data untouched") {
  const Device dev = rank_device();
  const Queue q = dev.queue();
  const int p = world_size(), me = world_rank();
  const auto h = laplacian_2d<double>(9, 8);
  const auto part = dm::RowPartition::uniform(MPI_COMM_WORLD, h.rows);
  const auto A = dm::DistCsrMatrix<double>::from_global(dev, part, h);
  const auto gx = tessera_test::random_vector<double>(static_cast<std::size_t>(h.rows), 3);
  auto x = dm::DistVector<double>::from_global(dev, part, gx);
  auto y = dm::DistVector<double>::from_global(dev, part, gx);
  // The last rank's y lives on another device (reference): DeviceMismatch on every rank.
  const Device other = Device::open(dev.info().backend == "reference" ? "cpu" : "reference");
  dm::DistVector<double> bad = me == p - 1 ? dm::DistVector<double>(other, part) : y;
  CHECK_THROWS_AS(dm::spmv(q, 1.0, A, x, 0.0, bad), DeviceMismatch);
  CHECK(tessera_test::check_bitwise(y.to_global(), gx, "y untouched"));
  // x and y the same vector.
  CHECK_THROWS_AS(dm::spmv(q, 1.0, A, x, 0.0, x), InvalidArgument);
  // A matrix with a bad structure on one rank.
  HostCsr<double> rows;
  rows.rows = part.local_size();
  rows.cols = h.rows;
  rows.row_ptr.assign(static_cast<std::size_t>(rows.rows) + 1, 0);
  if (me == 0 && rows.rows > 0) {
    rows.row_ptr.back() = 1;
    for (auto& e : rows.row_ptr) e = std::min(e, 1);
    rows.row_ptr[0] = 0;
    rows.col_idx = {static_cast<std::int32_t>(h.rows + 5)};  // a column out of range
    rows.values = {1.0};
  }
  CHECK_THROWS_AS(dm::DistCsrMatrix<double>::from_local_rows(dev, part, rows), InvalidArgument);
  // Solves: options that differ between ranks, b and x sharing storage, a zero diagonal for Jacobi.
  SolveOptions o;
  o.max_iterations = me == 0 ? 10 : 11;
  if (p >= 2) CHECK_THROWS_AS(dm::cg(q, A, x, y, nullptr, o), InvalidArgument);
  CHECK_THROWS_AS(dm::cg(q, A, x, x), InvalidArgument);
  CHECK(tessera_test::check_bitwise(x.to_global(), gx, "x untouched"));
  HostCsr<double> zero = h;
  for (std::int64_t r = 0; r < h.rows; ++r)
    for (std::int32_t k = h.row_ptr[r]; k < h.row_ptr[r + 1]; ++k)
      if (zero.col_idx[k] == r && r == h.rows - 1) zero.values[k] = 0.0;
  const auto Z = dm::DistCsrMatrix<double>::from_global(dev, part, zero);
  try {
    dm::DistJacobi<double> M(q, Z);
    FAIL("no error");
  } catch (const InvalidArgument& e) {
    CHECK(std::string(e.what()).find("row " + std::to_string(h.rows - 1)) != std::string::npos);
  }
  // A file that does not exist.
  CHECK_THROWS_AS(dm::DistCsrMatrix<double>::read_matrix_market(dev, MPI_COMM_WORLD, "/nonexistent/a.mtx"),
                  InvalidArgument);
  // Rank 0 alone reads the file: its parse error and a non-square matrix reach every rank.
  const std::string dir =
      (std::filesystem::temp_directory_path() / ("tessera-mpi-bad-" + std::to_string(getpid_of_rank0()))).string();
  const std::string bad_file = dir + "-bad.mtx", wide = dir + "-wide.mtx";
  if (world_rank() == 0) {
    std::ofstream(bad_file) << "%%MatrixMarket matrix coordinate real general\n3 3 2\n1 1 1.0\n4 1 2.0\n";
    std::ofstream(wide) << "%%MatrixMarket matrix coordinate real general\n3 4 1\n1 4 1.0\n";
  }
  try {
    dm::DistCsrMatrix<double>::read_matrix_market(dev, MPI_COMM_WORLD, bad_file);
    FAIL("no error");
  } catch (const ParseError& e) {
    CHECK(std::string(e.what()).find("rank 0") != std::string::npos);
    CHECK(std::string(e.what()).find("line 4") != std::string::npos);
  }
  CHECK_THROWS_AS(dm::DistCsrMatrix<double>::read_matrix_market(dev, MPI_COMM_WORLD, wide), DimensionMismatch);
  if (world_rank() == 0) {
    std::remove(bad_file.c_str());
    std::remove(wide.c_str());
  }
  still_in_step(dev);
}
