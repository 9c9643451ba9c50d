// The staging of halo messages, shared by the distributed matrix and grid: a send and a receive
// buffer, each seen by the device as a Vector and by MPI as a pointer. Which memory MPI reads
// and writes is the one decision here (transport() in timing.cpp names it):
//   host devices (cpu, reference): the Vectors wrap host memory MPI uses directly — no copy;
//   cuda with CUDA-aware MPI: MPI gets the device pointers (after the queue has passed the pack);
//   otherwise: page-locked host copies (HostBuffer), downloaded before sending and uploaded
//   after receiving.
#pragma once

#include <mpi.h>

#include <vector>

#include "tessera/host_buffer.hpp"
#include "tessera/queue.hpp"
#include "tessera/vector.hpp"

namespace tessera::mpi {

bool cuda_aware_mpi();  // timing.cpp

namespace detail {

template <class T>
MPI_Datatype mpi_type() {
  return sizeof(T) == 4 ? MPI_FLOAT : MPI_DOUBLE;
}

template <class T>
class HaloBuffers {
 public:
  HaloBuffers() = default;
  HaloBuffers(const Device& device, std::int64_t n_send, std::int64_t n_recv) {
    const std::string& b = device.info().backend;
    mode_ = (b == "cpu" || b == "reference") ? Mode::host
            : (b == "cuda" && cuda_aware_mpi()) ? Mode::device
                                                : Mode::staged;
    make(device, n_send, host_send_, staged_send_, send_);
    make(device, n_recv, host_recv_, staged_recv_, recv_);
  }
  Vector<T>& send() { return send_; }  // what the pack writes
  Vector<T>& recv() { return recv_; }  // what the off-diagonal product reads
  // The pointers MPI is given.
  T* send_mpi() { return pointer(host_send_, staged_send_, send_); }
  T* recv_mpi() { return pointer(host_recv_, staged_recv_, recv_); }
  // After the pack is enqueued on q: makes the send buffer readable by MPI (a host wait).
  void send_ready(const Queue& q) {
    if (send_.size() == 0 || mode_ == Mode::host) return;
    if (mode_ == Mode::device) return q.synchronize();
    tessera::copy(q, send_, staged_send_);
    q.synchronize();
  }
  // Before MPI writes into the receive buffer: the previous upload of it must have finished.
  void recv_writable() {
    if (uploaded_) uploaded_.synchronize();
    uploaded_ = Event();
  }
  // After MPI received: makes the ghosts visible to the device, in q's order (no host wait).
  void recv_done(const Queue& q) {
    if (recv_.size() == 0 || mode_ != Mode::staged) return;
    tessera::copy(q, staged_recv_, recv_);
    uploaded_ = q.record();
  }

 private:
  enum class Mode { host, device, staged };
  void make(const Device& device, std::int64_t n, std::vector<T>& host, HostBuffer<T>& staged, Vector<T>& v) {
    if (mode_ == Mode::host) {
      host.resize(static_cast<std::size_t>(n));
      v = n > 0 ? Vector<T>::wrap(device, host.data(), n) : Vector<T>(device, 0);
      return;
    }
    v = Vector<T>(device, n);
    if (mode_ == Mode::staged) staged = HostBuffer<T>(device, n);
  }
  T* pointer(std::vector<T>& host, HostBuffer<T>& staged, Vector<T>& v) {
    if (mode_ == Mode::host) return host.data();
    if (mode_ == Mode::staged) return staged.data();
    return static_cast<T*>(v.native_handle()) + v.offset();
  }
  Mode mode_ = Mode::host;
  std::vector<T> host_send_, host_recv_;
  HostBuffer<T> staged_send_, staged_recv_;
  Vector<T> send_, recv_;
  Event uploaded_;
};

}  // namespace detail
}  // namespace tessera::mpi
