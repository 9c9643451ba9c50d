// Device communicators (NCCL's) shared by every partition over the same ranks and device.
//
// Why: making a device communicator is slow (ncclCommInitRank: hundreds of ms), collective, and
// so is destroying one (ncclCommDestroy is an intra-node collective in current NCCL). One per
// partition made every test and application that builds partitions in a loop pay that per
// object, and tied each destruction to when each rank dropped its last handle. Here a
// communicator is made once per (group of ranks in the same order, device index), kept for the
// life of MPI, and destroyed at MPI_Finalize on every rank in the order they were made (the
// order in which they were made collectively, so no rank waits in one destruction while
// another waits in a different one).
//
// Whether the cached one serves is agreed by every rank (one exchange, once per partition): a
// rank that lacks the entry for its device (another device than the one it used before, say)
// would otherwise make one alone and wait forever, and two ranks holding entries from different
// creations would talk over different communicators. So each creation gets an id all its ranks
// agree on, above every id any of them has seen (a Lamport clock: two creations sharing a rank
// never share an id), and a cached entry serves only when every rank holds one with the same
// id. The same exchange carries each rank's "usable" verdict (the transport opens here, the
// rank is on the right kind of device), so the transport is taken by every rank or by none.
//
// Ranks in the same order share one communicator whatever MPI communicator they came from
// (groups are compared with MPI_Comm_compare: identical or congruent). The device operations of
// one process on those ranks must therefore be issued in one order on every rank, which a
// single thread calling the collective operations in program order gives (two threads running
// distributed operations of the same ranks side by side are not supported on this path).
#pragma once

#include <mpi.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <vector>

namespace tessera::mpi::detail {

class CommCache {
 public:
  // A device communicator, type-erased (the NCCL one, or a test's stand-in); its deleter is
  // the collective destruction.
  using Handle = std::shared_ptr<void>;
  // Makes a handle over `own` (the cache's private duplicate of the communicator, kept for the
  // handle's life). Collective over own; throws on every rank or on none.
  using Make = std::function<Handle(MPI_Comm own)>;

  CommCache() = default;
  CommCache(const CommCache&) = delete;
  CommCache& operator=(const CommCache&) = delete;
  // Destroys what is left (collective: every rank of every cached group must reach it).
  ~CommCache() { clear(); }

  // Collective over comm. Null when any rank's `usable` is false; otherwise the handle cached for
  // comm's ranks and `device`, made with `make` first when any rank lacks it (then every rank
  // makes a new one, so all hold the same). Thread safe (the lookup; the collective part needs
  // one call at a time per group, as any MPI collective does).
  void* acquire(MPI_Comm comm, int device, bool usable, const Make& make);

  // Handles made so far (what a test counts).
  int made() const;
  // Destroys every handle in the order they were made, then frees the duplicates. Collective
  // over every group held.
  void clear();

  // Clears `cache` at MPI_Finalize (an attribute of MPI_COMM_SELF, whose deletion MPI_Finalize
  // runs first, while MPI still works). Once per cache, after MPI_Init; the cache must outlive
  // MPI_Finalize (the process-wide one is never deleted).
  static void clear_at_finalize(CommCache& cache);

 private:
  struct Entry {
    MPI_Comm comm;  // a duplicate of the communicator it was made for
    int device;
    std::int64_t id;  // agreed by the ranks that made it together
    Handle handle;
  };
  struct Found {
    void* handle;
    std::int64_t id;  // 0: none
  };
  Found find(MPI_Comm comm, int device) const;  // the newest match

  mutable std::mutex mutex_;
  std::vector<Entry> entries_;
  std::int64_t clock_ = 0;  // the highest creation id seen
  int made_ = 0;
};

}  // namespace tessera::mpi::detail
