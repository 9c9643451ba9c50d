// RowPartition: the blocks are known on every rank (an allgather at construction), so every
// check against them (equal partitions, sizes) gives the same verdict everywhere.
#include "tessera/mpi/partition.hpp"

#include <algorithm>
#include <string>

#include "collective.hpp"
#include "partition_access.hpp"
#include "tessera/errors.hpp"

namespace tessera::mpi {

struct RowPartition::State {
  MPI_Comm comm = MPI_COMM_NULL;
  int ranks = 0, rank = 0;
  std::vector<std::int64_t> offsets;
  // Filled by the operations (the transport); the partition is shared, so copies see it.
  mutable detail::PartitionSlots slots;
  ~State() {
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (!finalized && comm != MPI_COMM_NULL) MPI_Comm_free(&comm);
  }
};

RowPartition RowPartition::make(MPI_Comm comm, std::vector<std::int64_t> offsets) {
  auto st = std::make_shared<State>();
  MPI_Comm_dup(comm, &st->comm);
  MPI_Comm_size(st->comm, &st->ranks);
  MPI_Comm_rank(st->comm, &st->rank);
  st->offsets = std::move(offsets);
  RowPartition p;
  p.st_ = std::move(st);
  return p;
}

namespace {
// Every rank's arguments summed into an order-sensitive fingerprint, to tell ranks that were
// given different lists apart (exact for lists of integers below 2^53 / length).
double fingerprint(const std::vector<std::int64_t>& v) {
  double h = static_cast<double>(v.size());
  for (std::size_t i = 0; i < v.size(); ++i) h += static_cast<double>(v[i]) * static_cast<double>(i + 1);
  return h;
}
}  // namespace

RowPartition RowPartition::from_local_size(MPI_Comm comm, std::int64_t local_rows) {
  const auto all = detail::exchange(comm, {"RowPartition::from_local_size", 0}, [&](detail::Contribution& c) {
    if (local_rows < 0)
      throw InvalidArgument("RowPartition::from_local_size: local_rows is " + std::to_string(local_rows) +
                            ", expected >= 0");
    c.values[0] = static_cast<double>(local_rows);
  });
  std::vector<std::int64_t> offsets(all.size() + 1, 0);
  for (std::size_t r = 0; r < all.size(); ++r) offsets[r + 1] = offsets[r] + static_cast<std::int64_t>(all[r].values[0]);
  return make(comm, std::move(offsets));
}

RowPartition RowPartition::from_sizes(MPI_Comm comm, const std::vector<std::int64_t>& sizes, std::int64_t global_rows) {
  int ranks = 0;
  MPI_Comm_size(comm, &ranks);
  const auto all = detail::exchange(comm, {"RowPartition::from_sizes", 0}, [&](detail::Contribution& c) {
    if (static_cast<int>(sizes.size()) != ranks)
      throw DimensionMismatch("RowPartition::from_sizes: " + std::to_string(sizes.size()) + " sizes for " +
                              std::to_string(ranks) + " ranks, expected one per rank");
    std::int64_t sum = 0;
    for (std::size_t r = 0; r < sizes.size(); ++r) {
      if (sizes[r] < 0)
        throw InvalidArgument("RowPartition::from_sizes: the size of rank " + std::to_string(r) + " is " +
                              std::to_string(sizes[r]) + ", expected >= 0");
      sum += sizes[r];
    }
    if (sum != global_rows)
      throw DimensionMismatch("RowPartition::from_sizes: the sizes add up to " + std::to_string(sum) + ", expected " +
                              std::to_string(global_rows) + " rows");
    c.values[0] = fingerprint(sizes);
    c.values[1] = static_cast<double>(global_rows);
  });
  detail::agree(comm, {"RowPartition::from_sizes (lists agree)", 0}, [&] {
    for (std::size_t r = 1; r < all.size(); ++r)
      if (all[r].values != all[0].values)
        throw InvalidArgument("RowPartition::from_sizes: rank " + std::to_string(r) +
                              " gave other sizes (or another global size) than rank 0; every rank must give the "
                              "same list");
  });
  std::vector<std::int64_t> offsets(sizes.size() + 1, 0);
  for (std::size_t r = 0; r < sizes.size(); ++r) offsets[r + 1] = offsets[r] + sizes[r];
  return make(comm, std::move(offsets));
}

RowPartition RowPartition::uniform(MPI_Comm comm, std::int64_t global_rows) {
  int ranks = 0;
  MPI_Comm_size(comm, &ranks);
  std::vector<std::int64_t> sizes(static_cast<std::size_t>(ranks));
  for (int r = 0; r < ranks; ++r)
    sizes[static_cast<std::size_t>(r)] = global_rows / ranks + (r < global_rows % ranks ? 1 : 0);
  if (global_rows < 0) sizes.assign(sizes.size(), 0);  // from_sizes refuses the sum, on every rank
  return from_sizes(comm, sizes, global_rows);
}

RowPartition RowPartition::by_nonzeros(MPI_Comm comm, const std::vector<std::int32_t>& row_ptr) {
  int ranks = 0;
  MPI_Comm_size(comm, &ranks);
  std::vector<std::int64_t> sizes(static_cast<std::size_t>(ranks), 0);
  std::int64_t rows = 0;
  detail::agree(comm, {"RowPartition::by_nonzeros", 0}, [&] {
    if (row_ptr.empty() || row_ptr[0] != 0)
      throw InvalidArgument("RowPartition::by_nonzeros: row_ptr must start with 0 (rows + 1 entries)");
    for (std::size_t i = 1; i < row_ptr.size(); ++i)
      if (row_ptr[i] < row_ptr[i - 1])
        throw InvalidArgument("RowPartition::by_nonzeros: row_ptr decreases at row " + std::to_string(i - 1));
    rows = static_cast<std::int64_t>(row_ptr.size()) - 1;
    const double nnz = row_ptr.back();
    std::int64_t start = 0;
    for (int r = 0; r < ranks; ++r) {
      // The first row whose prefix count reaches the share of ranks 0..r.
      const double target = nnz * (r + 1) / ranks;
      std::int64_t stop = r + 1 == ranks ? rows
                                         : std::lower_bound(row_ptr.begin() + start, row_ptr.end() - 1, target,
                                                            [](std::int32_t a, double t) { return a < t; }) -
                                               row_ptr.begin();
      stop = std::clamp(stop, start, rows);
      sizes[static_cast<std::size_t>(r)] = stop - start;
      start = stop;
    }
  });
  return from_sizes(comm, sizes, rows);
}

detail::PartitionSlots& detail::partition_slots(const RowPartition& p) {
  if (!p.st_) throw InvalidArgument("tessera::mpi: the partition is empty (default-constructed)");
  return p.st_->slots;
}

MPI_Comm RowPartition::comm() const { return st_ ? st_->comm : MPI_COMM_NULL; }
int RowPartition::ranks() const { return st_ ? st_->ranks : 0; }
int RowPartition::rank() const { return st_ ? st_->rank : 0; }
std::int64_t RowPartition::size() const { return st_ ? st_->offsets.back() : 0; }
const std::vector<std::int64_t>& RowPartition::offsets() const {
  static const std::vector<std::int64_t> none{0};
  return st_ ? st_->offsets : none;
}
std::int64_t RowPartition::begin(int r) const {
  if (r < 0 || r >= ranks())
    throw InvalidArgument("RowPartition::begin: rank " + std::to_string(r) + " outside [0, " +
                          std::to_string(ranks()) + ")");
  return st_->offsets[static_cast<std::size_t>(r)];
}
std::int64_t RowPartition::end(int r) const { return begin(r) + (st_->offsets[static_cast<std::size_t>(r) + 1] - st_->offsets[static_cast<std::size_t>(r)]); }
int RowPartition::owner(std::int64_t row) const {
  if (row < 0 || row >= size())
    throw InvalidArgument("RowPartition::owner: row " + std::to_string(row) + " outside [0, " +
                          std::to_string(size()) + ")");
  const auto& o = st_->offsets;
  return static_cast<int>(std::upper_bound(o.begin(), o.end(), row) - o.begin()) - 1;
}

}  // namespace tessera::mpi
