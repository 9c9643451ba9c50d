// Stencil time stepping: two buffers (u and a scratch grid) ping-pong, ordered so
// the last step writes u: with an even step count the first step reads u and only the
// boundary is copied to the scratch grid; with an odd count the scratch grid starts as a full
// copy of u. Boundary cells are never written, so each buffer keeps them. The scratch grid is
// kept by the backend between calls (CpuBackend::StencilState, below): in a fresh allocation
// every page faults on first touch, which cost as much as several steps of a 256^3 grid.
//
// 3D grids are cache blocked in y: a thread sweeps z inside a block of rows, so the 2r+1 source
// planes' rows of the block stay in L2 and each source cell comes from memory once per step.
// The general stencil (per-axis coefficients, Neumann / periodic faces, a source) takes the same
// blocking with its own row kernel (kernels/cpu/stencil_general.cpp); the isotropic Dirichlet
// case keeps its kernel, streaming stores included.
// The block size and the minimum cells per thread are the tuning values stencil.block_bytes and
// stencil.min_cells_per_thread (tuning/stencil.cpp).
//
// Temporal blocking: a 3D grid beyond the last-level cache with steps > 1 spends one step per
// pass waiting on memory (a read and a streamed write of every cell), while a core computes the
// 7-point update several times faster from its L2. plan_time_blocking (below: the decision and
// its arithmetic, the constants stencil.time_block*, tuning/stencil.cpp) then runs several steps
// per pass: each thread owns blocks of rows and sweeps z with a wavefront that keeps the
// intermediate steps in a ring of planes (kernels/cpu/stencil_wavefront.hpp), bit-identical to
// one step per pass. Only the isotropic all-Dirichlet stencil without a source (the one-vector
// call) is blocked; the general faces (Neumann, periodic: their ghost reads would need their own
// ring rules) and 2D grids keep one step per pass.
//
// Planes a multiple of 4 KiB apart (256^2 f32, 512^2) put a cell's z neighbours in one cache
// set: where more of them than a set holds would be read (pack_planes, below), the sweep reads
// the source planes from the same kind of ring, each plane's rows copied in once (one step per
// pass: the wavefront with one level).

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <mutex>
#include <type_traits>
#include <utility>

#include "cpu/cpu_backend.hpp"
#include "cpu/stencil_stores.hpp"
#include "host_machine.hpp"
#include "kernels/cpu/dispatch.hpp"
#include "kernels/cpu/stencil.hpp"
#include "kernels/cpu/stencil_general.hpp"
#include "kernels/cpu/stencil_wavefront.hpp"
#include "tuning/tuning.hpp"

namespace tessera {
namespace {

template <class T>
void copy_parallel(T* dst, const T* src, std::int64_t n) {
  const int threads = cpu::threads_for(n, 1 << 16);
#pragma omp parallel for num_threads(threads) schedule(static, 1)
  for (int t = 0; t < threads; ++t) {
    const cpu::Range r = cpu::split(n, threads, t, 16);
    std::memcpy(dst + r.begin, src + r.begin, static_cast<std::size_t>(r.end - r.begin) * sizeof(T));
  }
}

// The cells within r of a face.
template <class T>
void copy_boundary(T* dst, const T* src, const GridView& g, std::int64_t r) {
  const std::int64_t nx = g.nx, ny = g.ny, nz = g.nz, plane = nx * ny;
  const bool is_3d = g.ndim == 3;
  const std::int64_t zb = is_3d ? r : 0, ze = is_3d ? nz - r : 1;
  auto copy = [&](std::int64_t at, std::int64_t n) {
    std::memcpy(dst + at, src + at, static_cast<std::size_t>(n) * sizeof(T));
  };
  if (is_3d) {
    copy(0, r * plane);
    copy((nz - r) * plane, r * plane);
  }
  for (std::int64_t z = zb; z < ze; ++z) {
    copy(z * plane, r * nx);
    copy(z * plane + (ny - r) * nx, r * nx);
    for (std::int64_t y = r; y < ny - r; ++y) {
      copy(z * plane + y * nx, r);
      copy(z * plane + y * nx + nx - r, r);
    }
  }
}

// Host memory that grows on demand and is freed with its owner.
class Scratch {
 public:
  Scratch() = default;
  Scratch(const Scratch&) = delete;
  Scratch& operator=(const Scratch&) = delete;
  ~Scratch() { host_memory::deallocate(data_); }
  void* reserve(std::size_t want) {
    if (want <= bytes_) return data_;
    host_memory::deallocate(data_);
    data_ = nullptr;
    bytes_ = 0;
    data_ = host_memory::allocate(want);
    bytes_ = want;
    return data_;
  }

 private:
  void* data_ = nullptr;
  std::size_t bytes_ = 0;
};

// The rows of a 3D cache block: its 2r + 1 source row blocks and the destination block within
// stencil.block_bytes (and at least 2r rows).
std::int64_t rows_per_block(std::int64_t nx, int r, std::size_t elem, std::int64_t block_bytes) {
  return std::max<std::int64_t>(2 * r, block_bytes / ((2 * r + 2) * nx * static_cast<std::int64_t>(elem)));
}

// `steps` steps between u and the scratch grid (first_src / first_dst as the caller prepared
// them, so that the last step writes u) over the updated rows z in [z0, z1), y in [y0, y1):
// work items are z chunks x y blocks (3D) or y chunks (2D), z chunks outermost so a thread's
// static share is a run of y blocks over the same z range. block(src, dst, z0, z1, y0, y1)
// computes one item.
template <class T, class Block>
void run_steps(const GridView& g, int r, std::int64_t z0, std::int64_t z1, std::int64_t y0, std::int64_t y1,
               std::int64_t row_cells, int steps, T* first_src, T* first_dst, std::int64_t block_bytes,
               std::int64_t min_cells_per_thread, const Block& block) {
  const bool is_3d = g.ndim == 3;
  const std::int64_t nx = g.nx;
  const std::int64_t block_rows = is_3d ? rows_per_block(nx, r, sizeof(T), block_bytes) : y1 - y0;
  const int threads = cpu::threads_for((z1 - z0) * (y1 - y0) * row_cells, min_cells_per_thread);
  const std::int64_t z_chunks = is_3d ? std::min<std::int64_t>(threads, z1 - z0) : 1;
  const std::int64_t y_blocks = is_3d ? (y1 - y0 + block_rows - 1) / block_rows : threads;
  const std::int64_t items = z_chunks * y_blocks;

#pragma omp parallel num_threads(threads)
  {
    const cpu::Range mine = cpu::split(items, omp_get_num_threads(), omp_get_thread_num());
    T* src = first_src;
    T* dst = first_dst;
    for (int step = 0; step < steps; ++step) {
      for (std::int64_t item = mine.begin; item < mine.end; ++item) {
        const cpu::Range zr = cpu::split(z1 - z0, static_cast<int>(z_chunks), static_cast<int>(item / y_blocks));
        const cpu::Range yr = cpu::split(y1 - y0, static_cast<int>(y_blocks), static_cast<int>(item % y_blocks));
        if (zr.begin == zr.end || yr.begin == yr.end) continue;
        block(src, dst, z0 + zr.begin, z0 + zr.end, y0 + yr.begin, y0 + yr.end);
      }
      std::swap(src, dst);
#pragma omp barrier
    }
  }
}

// A plan of the ring path (plan_time_blocking): temporally blocked, or one step per pass with
// the source planes packed into the ring.
struct TimeBlocking {
  int levels = 1;               // steps per pass; 1: not blocked
  bool pack = false;            // source planes packed into the ring (pack_planes)
  std::int64_t block_rows = 0;  // the most interior rows of a block
  std::int64_t blocks = 0;      // blocks per pass (a multiple of the threads where rows allow)
  bool ring() const { return levels > 1 || pack; }
};

// Whether the 3D sweeps read the source planes from a ring of padded slots instead of the grid
// (stencil.pack_planes; kernels/cpu/stencil_wavefront.hpp, pack). Where planes are a multiple
// of 4 KiB apart, a cell's 2r + 1 z neighbours, the in-plane rows +-k whose distance is also a
// 4 KiB multiple, and the destination cell all fall into one L1 set; more of them than the 8
// ways of common L1s (Zen, most Intel cores) evict each other on every load. The copy into the
// ring costs where they fit. Measured on a Zen VM (AVX2, 2 threads, 2026-11-29, one step per
// pass, ms for 10 steps, grid / ring): 256^3 f32 radius 4 (12 lines) 979 / 137, radius 3 (8)
// 95 / 195, radius 2 (6) 64 / 95, radius 1 68 / 88; f64 radius 3 (10) 306 / 276, radius 2 (8)
// 125 / 186; 512^3 radius 4, 2 steps, f32 1290 / 443, f64 2086 / 520. The same VM at 06:58
// (bench/RESULTS.md, session 19) cost far less: 256^3 f32 radius 4 131 / 121, f64 radius 3
// 181 / 194 (a loss); the general stencil (Neumann faces), radius 4: f32 289 / 209, f64 506 / 361.
bool pack_planes(const GridView& g, int r, std::size_t elem, const tuning::Tuning& tune) {
  const std::int64_t setting = tune["stencil.pack_planes"];
  if (g.ndim != 3 || setting == 0) return false;
  if (setting == 1) return true;
  constexpr std::int64_t page = 4096, ways = 8;
  const auto row_bytes = g.nx * static_cast<std::int64_t>(elem);
  if ((row_bytes * g.ny) % page != 0) return false;
  std::int64_t lines = 2 * r + 1 + 1;  // the planes and the destination
  for (std::int64_t k = 1; k <= r; ++k)
    if ((k * row_bytes) % page == 0) lines += 2;
  return lines > ways;
}

// Whether and how to block `steps` steps of a plain 3D stencil in time. Blocked when the radius
// is at most stencil.time_block_max_radius (wider stencils are bound by their arithmetic), both
// grids exceed stencil.time_block_min_bytes (0: the last-level cache; below it every step is served
// from the cache anyway) and a thread's ring (stencil.time_block_bytes) holds blocks of at least
// 4 * levels * r rows: a block reads levels * r rows beyond each side (its halo) from memory, so
// this keeps the extra reads under half a grid per pass. Fewer levels are tried before none.
TimeBlocking plan_time_blocking(const GridView& g, int r, int steps, std::size_t elem, int threads,
                                const tuning::Tuning& tune) {
  TimeBlocking p;
  if (g.ndim != 3) return p;
  p.pack = pack_planes(g, r, elem, tune);
  const std::int64_t nx = g.nx, iy = g.ny - 2 * r, grid_bytes = 2 * g.nx * g.ny * g.nz * static_cast<std::int64_t>(elem);
  const auto cut = [&](std::int64_t rows) {  // blocks of at most `rows`, a multiple of the threads
    const std::int64_t want = (iy + rows - 1) / rows;
    p.blocks = std::min(iy, (want + threads - 1) / threads * threads);
    p.block_rows = (iy + p.blocks - 1) / p.blocks;
  };
  const std::int64_t min_bytes = tune["stencil.time_block_min_bytes"];
  const auto threshold = min_bytes > 0 ? min_bytes : static_cast<std::int64_t>(host::machine().caches.l3);
  if (steps >= 2 && r <= tune["stencil.time_block_max_radius"] && grid_bytes > threshold) {
    const std::int64_t budget = tune["stencil.time_block_bytes"];
    for (auto t = static_cast<int>(std::min<std::int64_t>(tune["stencil.time_block"], steps)); t >= 2; --t) {
      const std::int64_t slots = static_cast<std::int64_t>(t - 1 + (p.pack ? 1 : 0)) * (2 * r + 1);
      const std::int64_t rows = budget / (slots * nx * static_cast<std::int64_t>(elem)) - 2 * (t - (p.pack ? 0 : 1)) * r;
      if (rows < 4 * t * r) continue;
      cut(rows);
      p.levels = t;
      return p;
    }
  }
  // One step per pass through the packed ring: the source blocks of stencil.block_bytes, as the
  // grid's blocks of run_steps.
  if (p.pack) cut(rows_per_block(nx, r, elem, tune["stencil.block_bytes"]));
  return p;
}

// The passes of a blocked run (levels steps each, the remainder spread so passes differ by at
// most one step), ping-ponging like run_steps so that the last pass writes u.
template <class T>
void run_time_blocked(const TimeBlocking& p, int r, const T* c, const GridView& g, int steps, T* u, T* scratch,
                      T* rings, int threads, bool stream) {
  const std::int64_t nx = g.nx, ny = g.ny, nz = g.nz, iy = ny - 2 * r;
  const int passes = (steps + p.levels - 1) / p.levels;
  if (passes % 2 == 1)
    copy_parallel(scratch, u, nx * ny * nz);
  else
    copy_boundary(scratch, u, g, r);
  const std::int64_t ring_elems = cpu::stencil_wavefront_ring_elems(r, p.levels, nx, p.block_rows, p.pack);
#pragma omp parallel num_threads(threads)
  {
    const int tid = omp_get_thread_num();
    const cpu::Range mine = cpu::split(p.blocks, omp_get_num_threads(), tid);
    T* ring = rings + tid * ring_elems;
    T* src = passes % 2 == 1 ? scratch : u;
    T* dst = passes % 2 == 1 ? u : scratch;
    for (int pass = 0; pass < passes; ++pass) {
      const int levels = steps / passes + (pass < steps % passes ? 1 : 0);
      for (std::int64_t b = mine.begin; b < mine.end; ++b) {
        const cpu::Range yr = cpu::split(iy, static_cast<int>(p.blocks), static_cast<int>(b));
        if (yr.begin == yr.end) continue;
        cpu::stencil_wavefront<T>(src, dst, ring, r, c, nx, ny, nz, levels, r + yr.begin, r + yr.end, p.block_rows,
                                  stream, p.pack);
      }
      std::swap(src, dst);
#pragma omp barrier
    }
  }
}

// The isotropic all-Dirichlet stencil without a source (StencilSpec::plain): the boundary is
// never written, so an even step count needs only the boundary in the scratch grid.
template <class T>
void stencil_steps(const StencilSpec& spec, const GridView& g, int steps, void* scratch_bytes, Scratch& rings,
                   const tuning::Tuning& tune) {
  const std::int64_t block_bytes = tune["stencil.block_bytes"], min_cells_per_thread = tune["stencil.min_cells_per_thread"];
  const int r = spec.radius;
  const bool is_3d = g.ndim == 3;
  const std::int64_t nx = g.nx, ny = g.ny, nz = is_3d ? g.nz : 1;
  if (nx < 2 * r + 1 || ny < 2 * r + 1 || (is_3d && nz < 2 * r + 1)) return;  // no interior cell
  const std::int64_t cells = nx * ny * nz;
  T c[StencilSpec::max_radius + 1];
  c[0] = static_cast<T>(spec.centre);
  for (int k = 1; k <= r; ++k) c[k] = static_cast<T>(spec.axis[0][static_cast<std::size_t>(k)]);

  T* u = static_cast<T*>(g.data);
  T* scratch = static_cast<T*>(scratch_bytes);
  // Both grids larger than the last-level cache: nothing a step writes is still cached when the
  // next step reads it, so its stores may bypass the caches (no write-allocate read), where
  // that is faster on this host (cpu/stencil_stores.hpp).
  const bool stream =
      2 * cells * static_cast<std::int64_t>(sizeof(T)) > static_cast<std::int64_t>(host::machine().caches.l3) &&
      cpu::stencil_stream_stores(tune["stencil.stream_stores"], block_bytes);
  if (is_3d) {
    const int threads = cpu::threads_for((nz - 2 * r) * (ny - 2 * r) * (nx - 2 * r), min_cells_per_thread);
    const TimeBlocking p = plan_time_blocking(g, r, steps, sizeof(T), threads, tune);
    if (p.ring()) {
      const auto ring_bytes =
          static_cast<std::size_t>(cpu::stencil_wavefront_ring_elems(r, p.levels, nx, p.block_rows, p.pack)) * sizeof(T);
      T* ring = static_cast<T*>(rings.reserve(ring_bytes * static_cast<std::size_t>(threads)));
      run_time_blocked<T>(p, r, c, g, steps, u, scratch, ring, threads, stream);
      return;
    }
  }
  if (steps % 2 == 1)
    copy_parallel(scratch, u, cells);
  else
    copy_boundary(scratch, u, g, r);
  const int ndim = g.ndim;
  auto block = [&](const T* src, T* dst, std::int64_t za, std::int64_t zb, std::int64_t ya, std::int64_t yb) {
    if constexpr (std::is_same_v<T, float>)
      cpu::stencil_block_f32(src, dst, ndim, r, c, nx, ny, za, zb, ya, yb, stream);
    else
      cpu::stencil_block_f64(src, dst, ndim, r, c, nx, ny, za, zb, ya, yb, stream);
  };
  run_steps<T>(g, r, is_3d ? r : 0, is_3d ? nz - r : 1, r, ny - r, nx - 2 * r, steps,
               steps % 2 == 1 ? scratch : u, steps % 2 == 1 ? u : scratch, block_bytes, min_cells_per_thread, block);
}

// Every other stencil: the updated range per axis follows the faces (Dirichlet: r cells in),
// and the scratch grid starts as a full copy of u, so cells a step does not update hold the
// same values in both grids.
template <class T>
void general_steps(const StencilSpec& spec, const GridView& g, int steps, void* scratch_bytes, Scratch& rings,
                   const tuning::Tuning& tune) {
  const std::int64_t block_bytes = tune["stencil.block_bytes"], min_cells_per_thread = tune["stencil.min_cells_per_thread"];
  const int r = spec.radius;
  const bool is_3d = g.ndim == 3;
  cpu::GeneralStencil<T> s;
  s.ndim = g.ndim;
  s.radius = r;
  s.nx = g.nx;
  s.ny = g.ny;
  s.nz = is_3d ? g.nz : 1;
  for (int f = 0; f < 6; ++f) s.faces[f] = spec.faces[static_cast<std::size_t>(f)];
  s.centre = static_cast<T>(spec.centre);
  for (int a = 0; a < 3; ++a)
    for (int k = 1; k <= r; ++k)
      s.axis[a][k] = static_cast<T>(spec.axis[static_cast<std::size_t>(a)][static_cast<std::size_t>(k)]);
  s.source = static_cast<T>(spec.source);
  auto begin = [&](int face) { return s.faces[face] == StencilBoundary::dirichlet ? std::int64_t{r} : 0; };
  auto end = [&](int face, std::int64_t n) { return s.faces[face] == StencilBoundary::dirichlet ? n - r : n; };
  s.x_begin = begin(0);
  s.x_end = end(1, s.nx);
  const std::int64_t y0 = begin(2), y1 = end(3, s.ny);
  const std::int64_t z0 = is_3d ? begin(4) : 0, z1 = is_3d ? end(5, s.nz) : 1;
  if (s.x_end <= s.x_begin || y1 <= y0 || z1 <= z0) return;  // no updated cell

  T* u = static_cast<T*>(g.data);
  T* scratch = static_cast<T*>(scratch_bytes);
  copy_parallel(scratch, u, s.nx * s.ny * s.nz);
  // Where planes alias in the cache, each thread reads the source rows of its blocks from a ring
  // of padded plane slots (kernels/cpu/stencil_general.hpp), slots as the isotropic one-step
  // sweep's (one level, packed).
  T* ring = nullptr;
  std::int64_t slot_elems = 0, ring_elems = 0;
  if (pack_planes(g, r, sizeof(T), tune)) {
    const std::int64_t block_rows = rows_per_block(s.nx, r, sizeof(T), block_bytes);
    slot_elems = cpu::stencil_wavefront_slot_elems(r, 1, s.nx, block_rows, true);
    ring_elems = cpu::stencil_wavefront_ring_elems(r, 1, s.nx, block_rows, true);
    ring = static_cast<T*>(rings.reserve(static_cast<std::size_t>(ring_elems) * sizeof(T) *
                                         static_cast<std::size_t>(cpu::num_threads())));
  }
  auto block = [&](const T* src, T* dst, std::int64_t za, std::int64_t zb, std::int64_t ya, std::int64_t yb) {
    T* mine = ring != nullptr ? ring + omp_get_thread_num() * ring_elems : nullptr;
    if constexpr (std::is_same_v<T, float>)
      cpu::stencil_rows_general_f32(src, dst, s, za, zb, ya, yb, mine, slot_elems);
    else
      cpu::stencil_rows_general_f64(src, dst, s, za, zb, ya, yb, mine, slot_elems);
  };
  run_steps<T>(g, r, z0, z1, y0, y1, s.x_end - s.x_begin, steps, steps % 2 == 1 ? scratch : u,
               steps % 2 == 1 ? u : scratch, block_bytes, min_cells_per_thread, block);
}

}  // namespace

// The second grid, kept between calls; guarded, since the device may be used from several
// threads.
struct CpuBackend::StencilState {
  std::mutex mutex;
  Scratch grid;
  Scratch rings;  // the threads' rings of the temporally blocked and packed paths
};

std::shared_ptr<CpuBackend::StencilState> CpuBackend::make_stencil_state() { return std::make_shared<StencilState>(); }

template <class T>
void CpuBackend::stencil(QueueImpl&, const StencilSpec& spec, const GridView& u, int steps) {
  const std::size_t bytes = static_cast<std::size_t>(u.nx * u.ny * (u.ndim == 3 ? u.nz : 1)) * sizeof(T);
  // Concurrent stencils on this device (rare: each uses every core) get a grid of their own.
  std::unique_lock<std::mutex> lock(stencil_state_->mutex, std::try_to_lock);
  Scratch own, own_rings;
  void* scratch = lock.owns_lock() ? stencil_state_->grid.reserve(bytes) : own.reserve(bytes);
  if (spec.plain(u.ndim))
    stencil_steps<T>(spec, u, steps, scratch, lock.owns_lock() ? stencil_state_->rings : own_rings, tune_);
  else
    general_steps<T>(spec, u, steps, scratch, lock.owns_lock() ? stencil_state_->rings : own_rings, tune_);
}

TESSERA_INSTANTIATE_TYPED_OP(CpuBackend, stencil)

}  // namespace tessera
