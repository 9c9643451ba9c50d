/// \file
/// DistGrid<T>: a structured grid split into slabs along its slowest axis (z in 3D, y in 2D),
/// each rank's slab extended by halo planes of the stencil's radius; and the distributed stencil.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "tessera/grid.hpp"
#include "tessera/mpi/partition.hpp"

namespace tessera::mpi {

/// Stencil steps per halo exchange, for DistGrid's constructors (a type of its own, so that it
/// never binds where a 2D grid's radius or a 3D grid's nz is meant).
struct ExchangeEvery {
  int steps = 1;  ///< 1..64: halos steps x radius planes deep, exchanged once per `steps` steps
};

/// A 2D (ny x nx) or 3D (nz x ny x nx) grid, x fastest, whose planes along the slowest axis are
/// spread over the ranks by a RowPartition of planes. Each rank holds a local Grid of its own
/// planes plus halo planes on each side that has a neighbouring (non-empty) rank: `radius`
/// planes (what one step of a stencil of that radius reads from the neighbours) times
/// `exchange_every`. With exchange_every = k > 1 the halos are k times deeper and the stencil
/// exchanges them once per k steps, recomputing the overlap in between (ghost-zone expansion):
/// a k-th of the messages, and the k steps run as one multi-step tessera::stencil call (no
/// per-step copy back from the scratch grid; on GPUs the temporally blocked kernel), for
/// 2 (k - 1) radius planes of extra work per rank. Every non-empty rank must own at least
/// radius * exchange_every planes (so each halo comes from one neighbour). A handle: copies share
/// the cells. Construction is collective (errors on every rank).
template <class T>
class DistGrid {
 public:
  DistGrid() = default;
  /// A 3D grid nz x ny x nx; planes.size() must be nz. Contents unspecified.
  DistGrid(const Device& device, RowPartition planes, std::int64_t nx, std::int64_t ny, std::int64_t nz, int radius,
           ExchangeEvery exchange_every = {});
  /// A 2D grid ny x nx; planes.size() must be ny. Contents unspecified.
  DistGrid(const Device& device, RowPartition planes, std::int64_t nx, std::int64_t ny, int radius,
           ExchangeEvery exchange_every = {});
  /// Each rank's slab (halos included) of `global` (all cells, x fastest, on every rank).
  void upload_global(const std::vector<T>& global);
  /// Every rank's own planes gathered on every rank, x fastest (collective; a host wait).
  std::vector<T> to_global() const;
  /// Refreshes the halo planes from the neighbours (collective: non-blocking point-to-point
  /// between neighbours, staged as for the SpMV's halo).
  void exchange_halos(const Queue& q);

  int ndim() const;                    ///< 2 or 3
  int radius() const;                  ///< the largest stencil radius it serves
  int exchange_every() const;          ///< stencil steps of radius() between halo exchanges
  int halo_depth() const;              ///< radius() * exchange_every(): planes per halo
  std::int64_t nx() const;             ///< global cells along x
  std::int64_t ny() const;             ///< global cells along y
  std::int64_t nz() const;             ///< global cells along z (1 in 2D)
  const RowPartition& planes() const;  ///< which planes each rank owns
  /// This rank's slab with its halos (planes [first_plane() - halo_below(), first_plane() +
  /// own planes + halo_above())).
  Grid<T>& local();
  std::int64_t halo_below() const;  ///< halo planes below the own ones (0 or radius)
  std::int64_t halo_above() const;  ///< halo planes above
  const Device& device() const;     ///< this rank's device

  struct State;  ///< the slab, the neighbours and the staging buffers (mpi/src)

 private:
  std::shared_ptr<State> st_;
};

/// `steps` time steps of tessera::stencil (ops.hpp: coefficients c[0..r], fixed boundary cells
/// within r of a global face) on a distributed grid: the halos are exchanged, then up to
/// halo_depth() / r steps run on the local slab before the next exchange. r must not exceed the
/// grid's radius (InvalidArgument on every rank). The own planes are exact (bit-identical to
/// the whole grid on one device); the halo planes hold partly updated values afterwards.
template <class T>
void stencil(const Queue& q, const std::vector<T>& coeffs, DistGrid<T>& u, int steps);

}  // namespace tessera::mpi
