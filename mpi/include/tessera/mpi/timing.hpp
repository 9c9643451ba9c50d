/// \file
/// Where a distributed computation spends its time, and which transport moves its halos.
#pragma once

#include <cstdint>
#include <string>

#include "tessera/device.hpp"

namespace tessera::mpi {

/// Seconds spent in each phase by this process since the last reset_phase_times(), counted only
/// while phase timing is on (set_phase_timing): local compute (the local products, the local
/// reductions, packing), the halo exchange (posting, waiting, staging copies), and the
/// collective exchange of reductions.
struct PhaseTimes {
  double local = 0.0;      ///< local products and reductions on the device
  double halo = 0.0;       ///< halo exchange: MPI point-to-point and the host staging copies
  double allreduce = 0.0;  ///< gathering the reductions' partial values
  std::int64_t spmvs = 0;       ///< distributed SpMVs
  std::int64_t reductions = 0;  ///< distributed reductions
  std::int64_t halo_bytes = 0;  ///< bytes this process sent in halo exchanges
};

/// Turns phase timing on or off (off by default). While on, each phase waits for its device
/// work before its clock stops (so on a GPU it removes the overlap it measures).
void set_phase_timing(bool on);
/// The times so far.
PhaseTimes phase_times();
/// Zeroes them.
void reset_phase_times();

/// How halos and reductions of vectors on `device` travel, in words: "host memory (no
/// staging)" for host devices, "host-staged (MPI is not CUDA-aware)" or "CUDA-aware MPI
/// (device pointers)" for cuda (MPIX_Query_cuda_support decides where the MPI library has it),
/// "host-staged" for opencl.
std::string transport(const Device& device);

}  // namespace tessera::mpi
