// What the library keeps per partition besides its blocks: the transport chosen for it (NCCL
// communicator or none), decided at the first operation that needs it.
#pragma once

#include "tessera/mpi/partition.hpp"

namespace tessera::mpi::detail {

struct PartitionSlots {
  bool nccl_decided = false;
  void* nccl = nullptr;  // a detail::Nccl owned by the communicator cache, or null for the MPI path
};

// The slots of p's shared state (one per partition, shared by its copies).
PartitionSlots& partition_slots(const RowPartition& p);

}  // namespace tessera::mpi::detail
