// Shared by the MPI tests: this rank's device, uneven partitions, one-device references.
#pragma once

#include <doctest/doctest.h>
#include <mpi.h>

#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

#include "support/compare.hpp"
#include "support/random.hpp"
#include "tessera/mpi.hpp"
#include "tessera/tessera.hpp"

namespace tessera_mpi_test {

inline int world_rank() {
  int r = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}
inline int world_size() {
  int p = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &p);
  return p;
}

// TESSERA_MPI_TEST_DEVICES: a comma-separated list; rank r opens entry r % length (so
// "cpu,opencl:0" puts neighbouring ranks on different kinds of device). Default "cpu".
inline tessera::Device rank_device() {
  const char* env = std::getenv("TESSERA_MPI_TEST_DEVICES");
  std::vector<std::string> specs;
  std::stringstream ss(env != nullptr && *env != '\0' ? env : "cpu");
  for (std::string s; std::getline(ss, s, ',');) specs.push_back(s);
  return tessera::Device::open(specs[static_cast<std::size_t>(world_rank()) % specs.size()]);
}

// The one-device reference: the same operation on the whole data, on this rank's device.
inline tessera::Device single_device() { return rank_device(); }

// Block sizes summing to n, deliberately uneven: with 2 ranks or more, rank 1 is empty and the
// others get weights 1..4 in a fixed pattern.
inline std::vector<std::int64_t> uneven_sizes(std::int64_t n, int ranks) {
  std::vector<std::int64_t> w(static_cast<std::size_t>(ranks));
  std::int64_t total = 0;
  for (int r = 0; r < ranks; ++r) {
    w[static_cast<std::size_t>(r)] = r == 1 ? 0 : 1 + (r * 5 + 2) % 4;
    total += w[static_cast<std::size_t>(r)];
  }
  std::vector<std::int64_t> sizes(static_cast<std::size_t>(ranks));
  std::int64_t given = 0;
  for (int r = 0; r < ranks; ++r) {
    sizes[static_cast<std::size_t>(r)] = n * w[static_cast<std::size_t>(r)] / total;
    given += sizes[static_cast<std::size_t>(r)];
  }
  sizes[0] += n - given;  // rank 0 is never empty
  return sizes;
}

// The partitions every distributed test runs on: uniform, and uneven with an empty rank.
inline std::vector<std::pair<std::string, tessera::mpi::RowPartition>> partitions(std::int64_t n) {
  return {{"uniform", tessera::mpi::RowPartition::uniform(MPI_COMM_WORLD, n)},
          {"uneven", tessera::mpi::RowPartition::from_sizes(MPI_COMM_WORLD, uneven_sizes(n, world_size()), n)}};
}

// Where the matrices of the shared collection are (empty when absent: the tests skip).
inline std::string matrix_path(const std::string& name) {
  const char* env = std::getenv("TESSERA_MATRIX_DIR");
  const std::string dir = env != nullptr && *env != '\0' ? env : TESSERA_DEFAULT_MATRIX_DIR;
  const std::string p = dir + "/" + name;
  FILE* f = std::fopen(p.c_str(), "rb");
  if (f == nullptr) return "";
  std::fclose(f);
  return p;
}

}  // namespace tessera_mpi_test
