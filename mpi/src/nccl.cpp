// See nccl.hpp. Built with nccl.h (TESSERA_MPI_WITH_NCCL); without it, every partition takes the
// MPI path and nccl_loadable says why.
#include "nccl.hpp"

#include <dlfcn.h>

#include <cstdlib>
#include <memory>
#include <mutex>

#include "collective.hpp"
#include "comm_cache.hpp"
#include "partition_access.hpp"
#include "tessera/errors.hpp"

#ifdef TESSERA_MPI_WITH_NCCL
#include <nccl.h>
#endif

namespace tessera::mpi::detail {

#ifdef TESSERA_MPI_WITH_NCCL
namespace {

// The NCCL entry points used here, resolved from the library at run time.
struct Api {
  void* lib = nullptr;
  std::string where;
  decltype(&ncclGetUniqueId) get_unique_id = nullptr;
  decltype(&ncclCommInitRank) comm_init_rank = nullptr;
  decltype(&ncclCommDestroy) comm_destroy = nullptr;
  decltype(&ncclCommFinalize) comm_finalize = nullptr;  // NCCL >= 2.14; optional
  decltype(&ncclAllReduce) all_reduce = nullptr;
  decltype(&ncclSend) send = nullptr;
  decltype(&ncclRecv) recv = nullptr;
  decltype(&ncclGroupStart) group_start = nullptr;
  decltype(&ncclGroupEnd) group_end = nullptr;
  decltype(&ncclGetErrorString) error_string = nullptr;
};

// The CUDA driver calls that make the rank's device current before the communicator is made
// (NCCL binds a communicator to the current device).
struct Driver {
  int (*init)(unsigned) = nullptr;
  int (*device_get)(int*, int) = nullptr;
  int (*primary_ctx_retain)(void**, int) = nullptr;
  int (*ctx_set_current)(void*) = nullptr;
};

template <class F>
bool resolve(void* lib, const char* name, F& f) {
  f = reinterpret_cast<F>(dlsym(lib, name));
  return f != nullptr;
}

const Api* api(std::string* why) {
  static std::once_flag once;
  static Api a;
  static std::string reason;
  std::call_once(once, [] {
    const char* env = std::getenv("TESSERA_NCCL_LIBRARY");
    const std::string path = env != nullptr && *env != '\0' ? env : "libnccl.so.2";
    a.lib = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (a.lib == nullptr) {
      reason = "cannot open " + path + ": " + dlerror();
      return;
    }
    a.where = path;
    const bool ok = resolve(a.lib, "ncclGetUniqueId", a.get_unique_id) &&
                    resolve(a.lib, "ncclCommInitRank", a.comm_init_rank) &&
                    resolve(a.lib, "ncclCommDestroy", a.comm_destroy) && resolve(a.lib, "ncclAllReduce", a.all_reduce) &&
                    resolve(a.lib, "ncclSend", a.send) && resolve(a.lib, "ncclRecv", a.recv) &&
                    resolve(a.lib, "ncclGroupStart", a.group_start) && resolve(a.lib, "ncclGroupEnd", a.group_end) &&
                    resolve(a.lib, "ncclGetErrorString", a.error_string);
    if (!ok) {
      reason = path + " lacks an NCCL entry point (NCCL >= 2.7 needed for send/recv)";
      a.lib = nullptr;
    }
    if (a.lib != nullptr) resolve(a.lib, "ncclCommFinalize", a.comm_finalize);
  });
  if (a.lib == nullptr && why != nullptr) *why = reason;
  return a.lib != nullptr ? &a : nullptr;
}

void check(ncclResult_t r, const char* what) {
  if (r != ncclSuccess)
    throw BackendUnavailable(std::string("tessera::mpi: NCCL ") + what + " failed: " + api(nullptr)->error_string(r));
}

ncclDataType_t type_of(int bytes) { return bytes == 4 ? ncclFloat32 : ncclFloat64; }
cudaStream_t stream_of(const Queue& q) { return static_cast<cudaStream_t>(q.native()); }

void make_device_current(int index) {
  static Driver d;
  static void* lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (lib == nullptr) throw BackendUnavailable("tessera::mpi: NCCL needs the CUDA driver (libcuda.so.1)");
  if (d.init == nullptr && !(resolve(lib, "cuInit", d.init) && resolve(lib, "cuDeviceGet", d.device_get) &&
                             resolve(lib, "cuDevicePrimaryCtxRetain", d.primary_ctx_retain) &&
                             resolve(lib, "cuCtxSetCurrent", d.ctx_set_current)))
    throw BackendUnavailable("tessera::mpi: the CUDA driver lacks cuDevicePrimaryCtxRetain / cuCtxSetCurrent");
  int dev = 0;
  void* ctx = nullptr;
  if (d.init(0) != 0 || d.device_get(&dev, index) != 0 || d.primary_ctx_retain(&ctx, dev) != 0 ||
      d.ctx_set_current(ctx) != 0)
    throw BackendUnavailable("tessera::mpi: cannot make cuda:" + std::to_string(index) + " current for NCCL");
}

}  // namespace

// One NCCL communicator, made over the cache's duplicate of the ranks' MPI communicator
// (comm_cache.hpp: one per group of ranks and device, destroyed at MPI_Finalize).
class Nccl {
 public:
  Nccl(MPI_Comm comm, int device_index) {
    const Api* a = api(nullptr);
    int rank = 0, ranks = 0;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &ranks);
    // NVLink SHARP stays off on every machine Tessera runs on (it needs a fabric manager
    // setup the shared GPU machines do not have, and hangs communicator creation without it).
    setenv("NCCL_NVLS_ENABLE", "0", 1);
    // Each step that can fail on one rank is agreed before the next collective one.
    ncclUniqueId id{};
    agree(comm, {"ncclGetUniqueId", 0}, [&] {
      if (rank == 0) check(a->get_unique_id(&id), "ncclGetUniqueId");
    });
    MPI_Bcast(&id, sizeof id, MPI_BYTE, 0, comm);
    agree(comm, {"NCCL device", 0}, [&] { make_device_current(device_index); });
    // A rank whose creation fails after the others have passed NCCL's bootstrap tells them here
    // (where it fails before, NCCL itself leaves the others waiting: nothing to agree then).
    // A communicator made on some ranks of a failed creation is left alone: destroying it is
    // collective.
    agree(comm, {"ncclCommInitRank", 0}, [&] { check(a->comm_init_rank(&comm_, ranks, id, rank), "ncclCommInitRank"); });
  }
  // Runs at MPI_Finalize on every rank, in the order the communicators were made.
  ~Nccl() {
    const Api* a = api(nullptr);
    if (a->comm_finalize != nullptr) a->comm_finalize(comm_);
    a->comm_destroy(comm_);
  }
  Nccl(const Nccl&) = delete;
  Nccl& operator=(const Nccl&) = delete;
  ncclComm_t comm() const { return comm_; }

 private:
  ncclComm_t comm_ = nullptr;
};

bool nccl_loadable(std::string* what) {
  const Api* a = api(what);
  if (a != nullptr && what != nullptr) *what = "NCCL from " + a->where;
  return a != nullptr;
}

namespace {
// The process's NCCL communicators; never deleted (cleared at MPI_Finalize: destroying them at
// static destruction, after MPI, could wait for ranks that are gone).
CommCache& nccl_cache() {
  static CommCache* cache = [] {
    auto* c = new CommCache;
    CommCache::clear_at_finalize(*c);
    return c;
  }();
  return *cache;
}
}  // namespace

Nccl* nccl_for(const RowPartition& p, const Device& d) {
  PartitionSlots& slots = partition_slots(p);
  if (slots.nccl_decided) return static_cast<Nccl*>(slots.nccl);
  // The first call on this partition: every rank says whether it can take the NCCL path and
  // whether it holds the communicator for these ranks and its device (comm_cache.hpp).
  const char* env = std::getenv("TESSERA_MPI_TRANSPORT");
  const bool wanted = !(env != nullptr && std::string(env) == "mpi");
  const bool usable = wanted && d.info().backend == "cuda" && nccl_loadable(nullptr);
  const int index = d.info().index;
  slots.nccl = nccl_cache().acquire(p.comm(), index, usable, [&](MPI_Comm own) {
    return CommCache::Handle(std::make_shared<Nccl>(own, index));
  });
  slots.nccl_decided = true;
  return static_cast<Nccl*>(slots.nccl);
}

int nccl_communicators_made() { return nccl_cache().made(); }

void nccl_allreduce_sum(Nccl* n, const void* in, void* out, std::size_t count, int bytes, const Queue& q) {
  check(api(nullptr)->all_reduce(in, out, count, type_of(bytes), ncclSum, n->comm(), stream_of(q)), "ncclAllReduce");
}
void nccl_group_start(Nccl*) { check(api(nullptr)->group_start(), "ncclGroupStart"); }
void nccl_group_end(Nccl*) { check(api(nullptr)->group_end(), "ncclGroupEnd"); }
void nccl_send(Nccl* n, const void* buf, std::size_t count, int bytes, int peer, const Queue& q) {
  check(api(nullptr)->send(buf, count, type_of(bytes), peer, n->comm(), stream_of(q)), "ncclSend");
}
void nccl_recv(Nccl* n, void* buf, std::size_t count, int bytes, int peer, const Queue& q) {
  check(api(nullptr)->recv(buf, count, type_of(bytes), peer, n->comm(), stream_of(q)), "ncclRecv");
}

#else  // built without nccl.h: the MPI path everywhere

class Nccl {};
bool nccl_loadable(std::string* what) {
  if (what != nullptr) *what = "libtessera-mpi was built without NCCL (nccl.h not found: see TESSERA_NCCL_ROOT)";
  return false;
}
Nccl* nccl_for(const RowPartition&, const Device&) { return nullptr; }
int nccl_communicators_made() { return 0; }
void nccl_allreduce_sum(Nccl*, const void*, void*, std::size_t, int, const Queue&) {}
void nccl_group_start(Nccl*) {}
void nccl_group_end(Nccl*) {}
void nccl_send(Nccl*, const void*, std::size_t, int, int, const Queue&) {}
void nccl_recv(Nccl*, void*, std::size_t, int, int, const Queue&) {}

#endif

}  // namespace tessera::mpi::detail
