// DistGrid: slabs along the slowest axis. The halo planes are contiguous in memory (the slowest
// axis is outermost), so a halo is one sub-vector of the local grid: packed with a device copy,
// moved by MPI through the staging of halo.hpp, copied back.
#include "tessera/mpi/dist_grid.hpp"

#include <algorithm>
#include <string>

#include "collective.hpp"
#include "halo.hpp"
#include "nccl.hpp"
#include "tessera/algebra.hpp"
#include "tessera/errors.hpp"
#include "tessera/ops.hpp"
#include "timing.hpp"

namespace tessera::mpi {

template <class T>
struct DistGrid<T>::State {
  RowPartition planes;
  int ndim = 3, radius = 1, every = 1;
  int depth = 1;  // halo planes: radius * every
  std::int64_t nx = 0, ny = 0, nz = 1;
  std::int64_t plane = 0;            // cells per plane
  std::int64_t below = 0, above = 0;  // halo planes
  int lower = -1, upper = -1;        // neighbouring non-empty ranks, -1 for none
  Grid<T> local;
  detail::HaloBuffers<T> halo;  // send: [to lower | to upper], recv: [from lower | from upper]
};

namespace {
constexpr int kGridTag = 0x6e1d;
// Deeper halos only add recomputed planes once a GPU's multi-step kernel (a few steps per pass)
// and the message count stop gaining; the bound keeps a typo from allocating a huge slab.
constexpr int kMaxExchangeEvery = 64;
}

template <class T>
DistGrid<T>::DistGrid(const Device& device, RowPartition planes, std::int64_t nx, std::int64_t ny, std::int64_t nz,
                      int radius, ExchangeEvery every) {
  const int exchange_every = every.steps;
  auto st = std::make_shared<State>();
  st->planes = planes;
  st->ndim = nz < 0 ? 2 : 3;
  st->nx = nx;
  st->ny = ny;
  st->nz = nz < 0 ? 1 : nz;
  st->radius = radius;
  st->every = exchange_every;
  st->depth = radius * exchange_every;
  const std::int64_t slow = st->ndim == 3 ? st->nz : ny;
  detail::agree(planes.comm(), {"DistGrid", detail::dtype_code<T>()}, [&] {
    if (radius < 1 || radius > 4)
      throw InvalidArgument("DistGrid: radius " + std::to_string(radius) + ", expected 1..4 (the stencil's)");
    if (exchange_every < 1 || exchange_every > kMaxExchangeEvery)
      throw InvalidArgument("DistGrid: exchange_every " + std::to_string(exchange_every) + ", expected 1.." +
                            std::to_string(kMaxExchangeEvery));
    if (nx < 0 || ny < 0 || slow < 0) throw InvalidArgument("DistGrid: negative extent");
    if (planes.size() != slow)
      throw DimensionMismatch("DistGrid: the partition has " + std::to_string(planes.size()) + " planes, the grid " +
                              std::to_string(slow) + " along its slowest axis");
    for (int r = 0; r < planes.ranks(); ++r) {
      const std::int64_t own = planes.end(r) - planes.begin(r);
      if (own > 0 && own < st->depth && slow > own)
        throw InvalidArgument("DistGrid: rank " + std::to_string(r) + " owns " + std::to_string(own) +
                              " planes, fewer than the halo depth " + std::to_string(st->depth) +
                              " (radius x exchange_every); give every non-empty rank at least that many planes");
    }
  });
  st->plane = st->ndim == 3 ? nx * ny : nx;
  const int me = planes.rank();
  const std::int64_t own = planes.local_size();
  if (own > 0) {
    for (int r = me - 1; r >= 0 && st->lower < 0; --r)
      if (planes.end(r) > planes.begin(r)) st->lower = r;
    for (int r = me + 1; r < planes.ranks() && st->upper < 0; ++r)
      if (planes.end(r) > planes.begin(r)) st->upper = r;
  }
  st->below = st->lower >= 0 ? st->depth : 0;
  st->above = st->upper >= 0 ? st->depth : 0;
  const std::int64_t local_planes = own + st->below + st->above;
  st->local = st->ndim == 3 ? Grid<T>(device, nx, ny, local_planes) : Grid<T>(device, nx, local_planes);
  const std::int64_t halo_cells = (st->below + st->above) * st->plane;
  st->halo = detail::HaloBuffers<T>(device, halo_cells, halo_cells);
  st_ = std::move(st);
}

template <class T>
DistGrid<T>::DistGrid(const Device& device, RowPartition planes, std::int64_t nx, std::int64_t ny, int radius,
                      ExchangeEvery exchange_every)
    : DistGrid(device, std::move(planes), nx, ny, -1, radius, exchange_every) {}

template <class T>
void DistGrid<T>::upload_global(const std::vector<T>& global) {
  auto& s = *st_;
  detail::agree(s.planes.comm(), {"DistGrid::upload_global", detail::dtype_code<T>()}, [&] {
    if (static_cast<std::int64_t>(global.size()) != s.plane * s.planes.size())
      throw DimensionMismatch("DistGrid::upload_global: " + std::to_string(global.size()) + " cells, the grid has " +
                              std::to_string(s.plane * s.planes.size()));
  });
  const std::int64_t first = s.planes.local_begin() - s.below;
  const auto b = global.begin() + first * s.plane;
  s.local.upload(std::vector<T>(b, b + s.local.size()));
}

template <class T>
std::vector<T> DistGrid<T>::to_global() const {
  auto& s = *st_;
  detail::agree(s.planes.comm(), {"DistGrid::to_global", detail::dtype_code<T>()}, [] {});
  const std::vector<T> slab = s.local.to_host();
  const std::vector<T> mine(slab.begin() + s.below * s.plane, slab.end() - s.above * s.plane);
  const auto& o = s.planes.offsets();
  std::vector<int> counts(static_cast<std::size_t>(s.planes.ranks())), displs(counts.size());
  for (std::size_t r = 0; r < counts.size(); ++r) {
    counts[r] = static_cast<int>((o[r + 1] - o[r]) * s.plane);
    displs[r] = static_cast<int>(o[r] * s.plane);
  }
  std::vector<T> all(static_cast<std::size_t>(s.plane * s.planes.size()));
  MPI_Allgatherv(mine.data(), static_cast<int>(mine.size()), detail::mpi_type<T>(), all.data(), counts.data(),
                 displs.data(), detail::mpi_type<T>(), s.planes.comm());
  return all;
}

template <class T>
void DistGrid<T>::exchange_halos(const Queue& q) {
  auto& s = *st_;
  detail::PhaseClock clock(q);
  const std::int64_t k = s.depth * s.plane;  // cells per halo
  const std::int64_t own = s.planes.local_size();
  const Vector<T> cells = s.local.as_vector();
  const MPI_Comm comm = s.planes.comm();
  const MPI_Datatype type = detail::mpi_type<T>();
  if (detail::Nccl* nccl = detail::nccl_for(s.planes, s.local.device())) {
    // Straight between the grids' planes on q's stream: no staging, no host wait.
    T* base = detail::device_pointer(cells);
    detail::nccl_group_start(nccl);
    if (s.lower >= 0) {
      detail::nccl_recv(nccl, base, static_cast<std::size_t>(k), sizeof(T), s.lower, q);
      detail::nccl_send(nccl, base + s.below * s.plane, static_cast<std::size_t>(k), sizeof(T), s.lower, q);
    }
    if (s.upper >= 0) {
      detail::nccl_recv(nccl, base + (s.below + own) * s.plane, static_cast<std::size_t>(k), sizeof(T), s.upper, q);
      detail::nccl_send(nccl, base + (s.below + own - s.depth) * s.plane, static_cast<std::size_t>(k), sizeof(T),
                        s.upper, q);
    }
    detail::nccl_group_end(nccl);
    clock.lap(&PhaseTimes::halo);
    return;
  }
  // Offsets in the staging buffers: the lower neighbour's part first.
  const std::int64_t lo = 0, hi = s.below > 0 ? k : 0;
  MPI_Request req[4] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL, MPI_REQUEST_NULL, MPI_REQUEST_NULL};
  s.halo.recv_writable();
  T* recv = s.halo.recv_mpi();
  if (s.lower >= 0) MPI_Irecv(recv + lo, static_cast<int>(k), type, s.lower, kGridTag, comm, &req[0]);
  if (s.upper >= 0) MPI_Irecv(recv + hi, static_cast<int>(k), type, s.upper, kGridTag, comm, &req[1]);
  // My lowest own planes go down, my highest up.
  Vector<T>& send = s.halo.send();
  if (s.lower >= 0) {
    Vector<T> dst = send.sub(lo, k);
    tessera::copy(q, cells.sub(s.below * s.plane, k), dst);
  }
  if (s.upper >= 0) {
    Vector<T> dst = send.sub(hi, k);
    tessera::copy(q, cells.sub((s.below + own - s.depth) * s.plane, k), dst);
  }
  s.halo.send_ready(q);
  T* out = s.halo.send_mpi();
  if (s.lower >= 0) MPI_Isend(out + lo, static_cast<int>(k), type, s.lower, kGridTag, comm, &req[2]);
  if (s.upper >= 0) MPI_Isend(out + hi, static_cast<int>(k), type, s.upper, kGridTag, comm, &req[3]);
  MPI_Waitall(4, req, MPI_STATUSES_IGNORE);
  s.halo.recv_done(q);
  if (s.lower >= 0) {
    Vector<T> dst = cells.sub(0, k);
    tessera::copy(q, s.halo.recv().sub(lo, k), dst);
  }
  if (s.upper >= 0) {
    Vector<T> dst = cells.sub((s.below + own) * s.plane, k);
    tessera::copy(q, s.halo.recv().sub(hi, k), dst);
  }
  clock.lap(&PhaseTimes::halo);
  if (detail::timing_on()) detail::times().halo_bytes += static_cast<std::int64_t>(((s.lower >= 0) + (s.upper >= 0)) * k * sizeof(T));
}

template <class T>
int DistGrid<T>::ndim() const { return st_->ndim; }
template <class T>
int DistGrid<T>::radius() const { return st_->radius; }
template <class T>
int DistGrid<T>::exchange_every() const { return st_->every; }
template <class T>
int DistGrid<T>::halo_depth() const { return st_->depth; }
template <class T>
std::int64_t DistGrid<T>::nx() const { return st_->nx; }
template <class T>
std::int64_t DistGrid<T>::ny() const { return st_->ny; }
template <class T>
std::int64_t DistGrid<T>::nz() const { return st_->nz; }
template <class T>
const RowPartition& DistGrid<T>::planes() const { return st_->planes; }
template <class T>
Grid<T>& DistGrid<T>::local() { return st_->local; }
template <class T>
std::int64_t DistGrid<T>::halo_below() const { return st_->below; }
template <class T>
std::int64_t DistGrid<T>::halo_above() const { return st_->above; }
template <class T>
const Device& DistGrid<T>::device() const { return st_->local.device(); }

template <class T>
void stencil(const Queue& q, const std::vector<T>& coeffs, DistGrid<T>& u, int steps) {
  detail::agree(u.planes().comm(), {"stencil", detail::dtype_code<T>()}, [&] {
    if (coeffs.size() < 2 || static_cast<int>(coeffs.size()) - 1 > u.radius())
      throw InvalidArgument("stencil: " + std::to_string(coeffs.size()) + " coefficients (radius " +
                            std::to_string(static_cast<int>(coeffs.size()) - 1) + ") on a grid with halos of " +
                            std::to_string(u.radius()) + " planes; expected radius 1.." + std::to_string(u.radius()));
    if (steps < 0) throw InvalidArgument("stencil: steps is " + std::to_string(steps) + ", expected >= 0");
    if (q.device() != u.device())
      throw DeviceMismatch("stencil: the queue belongs to " + q.device().spec() + ", the grid to " + u.device().spec());
  });
  // After an exchange the halos are exact to depth d; each step of radius r leaves the outer r
  // planes of what is exact behind (the slab's outermost planes are held fixed as a face), so
  // d / r steps keep every own plane exact.
  const int per_exchange = u.halo_depth() / (static_cast<int>(coeffs.size()) - 1);
  for (int done = 0; done < steps;) {
    const int n = std::min(per_exchange, steps - done);
    u.exchange_halos(q);
    detail::PhaseClock clock(q);
    if (u.local().size() > 0) tessera::stencil(q, coeffs, u.local(), n);
    clock.lap(&PhaseTimes::local);
    done += n;
  }
}

template class DistGrid<float>;
template class DistGrid<double>;
template void stencil<float>(const Queue&, const std::vector<float>&, DistGrid<float>&, int);
template void stencil<double>(const Queue&, const std::vector<double>&, DistGrid<double>&, int);

}  // namespace tessera::mpi
