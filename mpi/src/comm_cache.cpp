// See comm_cache.hpp.
#include "comm_cache.hpp"

#include <algorithm>

#include "collective.hpp"

namespace tessera::mpi::detail {

CommCache::Found CommCache::find(MPI_Comm comm, int device) const {
  std::lock_guard<std::mutex> lock(mutex_);
  for (auto e = entries_.rbegin(); e != entries_.rend(); ++e) {
    if (e->device != device) continue;
    int same = MPI_UNEQUAL;
    MPI_Comm_compare(e->comm, comm, &same);
    if (same == MPI_IDENT || same == MPI_CONGRUENT) return {e->handle.get(), e->id};
  }
  return {nullptr, 0};
}

void* CommCache::acquire(MPI_Comm comm, int device, bool usable, const Make& make) {
  void* mine = nullptr;
  const auto all = exchange(comm, {"tessera::mpi transport choice", 0}, [&](Contribution& c) {
    const Found f = usable ? find(comm, device) : Found{nullptr, 0};
    mine = f.handle;
    c.values[0] = usable ? 1.0 : 0.0;
    c.values[1] = static_cast<double>(f.id);
    std::lock_guard<std::mutex> lock(mutex_);
    c.values[2] = static_cast<double>(clock_);
  });
  bool all_usable = true, same = true;
  std::int64_t next = 0;
  for (const auto& c : all) {
    all_usable = all_usable && c.values[0] == 1.0;
    same = same && c.values[1] != 0.0 && c.values[1] == all[0].values[1];
    next = std::max(next, static_cast<std::int64_t>(c.values[2]) + 1);
  }
  if (!all_usable) return nullptr;
  // Every rank holds the one made together (ids are equal only for the same creation).
  if (same) return mine;
  // Some rank lacks it, or holds one made in another creation (with its device at the time):
  // every rank makes a new one together (a rank that had one keeps both; the newer serves from
  // now on).
  MPI_Comm own = MPI_COMM_NULL;
  MPI_Comm_dup(comm, &own);
  Handle h;
  try {
    h = make(own);
  } catch (...) {
    MPI_Comm_free(&own);
    throw;
  }
  std::lock_guard<std::mutex> lock(mutex_);
  entries_.push_back({own, device, next, h});
  clock_ = std::max(clock_, next);
  ++made_;
  return h.get();
}

int CommCache::made() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return made_;
}

void CommCache::clear() {
  std::vector<Entry> gone;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    gone.swap(entries_);
  }
  for (Entry& e : gone) e.handle.reset();  // in the order they were made
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (finalized) return;
  for (Entry& e : gone) MPI_Comm_free(&e.comm);
}

namespace {
int clear_cache(MPI_Comm, int, void* cache, void*) {
  static_cast<CommCache*>(cache)->clear();
  return MPI_SUCCESS;
}
}  // namespace

void CommCache::clear_at_finalize(CommCache& cache) {
  int key = MPI_KEYVAL_INVALID;
  MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, clear_cache, &key, nullptr);
  MPI_Comm_set_attr(MPI_COMM_SELF, key, &cache);
}

}  // namespace tessera::mpi::detail
