// The NCCL transport for cuda ranks: reductions and halo messages on the device's streams,
// no host wait. NCCL is opened with dlopen at first use (libnccl.so.2: TESSERA_NCCL_LIBRARY,
// else the library search path), so libtessera-mpi loads and runs without it. Whether a
// partition uses it is agreed by every rank at its first distributed operation on cuda and
// kept: all ranks on cuda, NCCL opening on all, and TESSERA_MPI_TRANSPORT not "mpi". Every
// operation agrees its arguments on the host (collective.hpp) before its first NCCL call, so
// no rank enters an NCCL call the others skip.
// NVLink SHARP (NVLS) is always off (NCCL_NVLS_ENABLE=0 before the communicator is made).
#pragma once

#include <cstddef>
#include <string>

#include "tessera/mpi/partition.hpp"
#include "tessera/queue.hpp"

namespace tessera::mpi::detail {

class Nccl;

// The partition's NCCL communicator, or null for the MPI path (collective at its first call on
// p; shared by every partition over the same ranks and device: comm_cache.hpp).
Nccl* nccl_for(const RowPartition& p, const Device& d);
// How many NCCL communicators this process has made (each is kept until MPI_Finalize).
int nccl_communicators_made();
// Whether NCCL is compiled in and opens on this process, and which library (or why not).
bool nccl_loadable(std::string* what);

// On q's stream (a cudaStream_t); count elements of `bytes_per_element` (4 float, 8 double).
void nccl_allreduce_sum(Nccl* n, const void* in, void* out, std::size_t count, int bytes_per_element, const Queue& q);
void nccl_group_start(Nccl* n);
void nccl_group_end(Nccl* n);
void nccl_send(Nccl* n, const void* buf, std::size_t count, int bytes_per_element, int peer, const Queue& q);
void nccl_recv(Nccl* n, void* buf, std::size_t count, int bytes_per_element, int peer, const Queue& q);

// The device address of element 0 of a cuda vector.
template <class V>
auto device_pointer(const V& v) {
  return static_cast<typename V::value_type*>(v.native_handle()) + v.offset();
}

}  // namespace tessera::mpi::detail
