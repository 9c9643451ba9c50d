/// \file
/// RowPartition: which contiguous block of a distributed vector's or matrix's rows each rank
/// of an MPI communicator owns.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <memory>
#include <vector>

namespace tessera::mpi {

class RowPartition;
namespace detail {
struct PartitionSlots;
PartitionSlots& partition_slots(const RowPartition& p);
}  // namespace detail

/// Contiguous row blocks over the ranks of a communicator: rank r owns rows [begin(r), end(r)).
/// Every constructor is collective (every rank of the communicator calls it, with the arguments
/// its documentation names) and checks its arguments on every rank: a bad one throws the same
/// typed error (tessera/errors.hpp) on every rank, naming the rank that gave it, and nothing
/// hangs. The partition keeps a duplicate of the communicator (its own tag space, so its halo
/// messages never meet the application's), freed with the last handle unless MPI is finalised
/// by then. A handle: copies share the same partition; two partitions are equal when their
/// blocks are (whatever communicator they were built on: compare only partitions of one).
class RowPartition {
 public:
  RowPartition() = default;  ///< an empty handle (no communicator)

  /// Each rank gives the number of rows it owns (>= 0); the blocks follow in rank order.
  /// Throws InvalidArgument on every rank if any gives a negative count.
  static RowPartition from_local_size(MPI_Comm comm, std::int64_t local_rows);
  /// Every rank gives the same list of one block size per rank, summing to global_rows. Throws
  /// DimensionMismatch (the list's length or sum is wrong) or InvalidArgument (a negative size,
  /// ranks giving different lists) on every rank.
  static RowPartition from_sizes(MPI_Comm comm, const std::vector<std::int64_t>& sizes, std::int64_t global_rows);
  /// global_rows split as evenly as possible (the first global_rows % ranks blocks one longer).
  static RowPartition uniform(MPI_Comm comm, std::int64_t global_rows);
  /// Blocks of about equal nonzeros: row_ptr is the global CSR row pointer (rows + 1 entries,
  /// the same on every rank); rank r starts at the first row whose prefix count reaches
  /// r * nnz / ranks. Throws InvalidArgument on every rank for a decreasing row_ptr or ranks
  /// giving different ones.
  static RowPartition by_nonzeros(MPI_Comm comm, const std::vector<std::int32_t>& row_ptr);

  explicit operator bool() const { return st_ != nullptr; }  ///< false for an empty handle
  MPI_Comm comm() const;                                      ///< the partition's own communicator
  int ranks() const;                                          ///< ranks in the communicator
  int rank() const;                                           ///< this process's rank
  std::int64_t size() const;                                  ///< global rows
  std::int64_t begin(int r) const;                            ///< first row of rank r
  std::int64_t end(int r) const;                              ///< one past the last row of rank r
  std::int64_t local_begin() const { return begin(rank()); }  ///< first row of this rank
  std::int64_t local_size() const { return end(rank()) - begin(rank()); }  ///< rows of this rank
  /// The rank owning `row` (0 <= row < size(); InvalidArgument otherwise).
  int owner(std::int64_t row) const;
  /// begin(0), ..., begin(ranks - 1), size().
  const std::vector<std::int64_t>& offsets() const;

  /// Equal blocks (every rank reaches the same verdict: the blocks are known everywhere).
  friend bool operator==(const RowPartition& a, const RowPartition& b) {
    return a.st_ == b.st_ || (a.st_ && b.st_ && a.offsets() == b.offsets());
  }
  friend bool operator!=(const RowPartition& a, const RowPartition& b) { return !(a == b); }  ///< not ==

 private:
  struct State;
  friend detail::PartitionSlots& detail::partition_slots(const RowPartition& p);
  static RowPartition make(MPI_Comm comm, std::vector<std::int64_t> offsets);
  std::shared_ptr<const State> st_;
};

}  // namespace tessera::mpi
