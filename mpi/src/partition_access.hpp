// What the library keeps per partition besides its blocks: the transport chosen for it (NCCL
// communicator or none), made at the first operation that needs it.
#pragma once

#include <memory>

#include "tessera/mpi/partition.hpp"

namespace tessera::mpi::detail {

struct PartitionSlots {
  bool nccl_decided = false;
  std::shared_ptr<void> nccl;  // a detail::Nccl, or null for the MPI path
};

// The slots of p's shared state (one per partition, shared by its copies).
PartitionSlots& partition_slots(const RowPartition& p);

}  // namespace tessera::mpi::detail
