// The phase times (one set per process: MPI ranks are processes) and the transport's name.
#include "timing.hpp"

#include <cstdlib>

#include "nccl.hpp"

#include <mpi.h>
#if __has_include(<mpi-ext.h>)
#include <mpi-ext.h>
#endif

namespace tessera::mpi {
namespace detail {
namespace {
bool g_on = false;
PhaseTimes g_times;
}  // namespace
bool timing_on() { return g_on; }
PhaseTimes& times() { return g_times; }
}  // namespace detail

void set_phase_timing(bool on) { detail::g_on = on; }
PhaseTimes phase_times() { return detail::g_times; }
void reset_phase_times() { detail::g_times = PhaseTimes{}; }

bool cuda_aware_mpi() {
#if defined(MPIX_CUDA_AWARE_SUPPORT) && MPIX_CUDA_AWARE_SUPPORT
  // Built with CUDA support: ask the library that runs (it may have been swapped).
  return MPIX_Query_cuda_support() == 1;
#else
  return false;
#endif
}

std::string transport(const Device& device) {
  const std::string& b = device.info().backend;
  if (b == "cpu" || b == "reference") return "host memory (no staging)";
  const char* env = std::getenv("TESSERA_MPI_TRANSPORT");
  std::string nccl;
  if (b == "cuda" && !(env != nullptr && std::string(env) == "mpi") && detail::nccl_loadable(&nccl))
    return "NCCL when every rank is on cuda (" + nccl + "), else " +
           (cuda_aware_mpi() ? "CUDA-aware MPI (device pointers)" : "host-staged (MPI is not CUDA-aware)");
  if (b == "cuda") return cuda_aware_mpi() ? "CUDA-aware MPI (device pointers)" : "host-staged (MPI is not CUDA-aware)";
  return "host-staged";
}

}  // namespace tessera::mpi
