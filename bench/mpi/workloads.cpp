// Tessera's side: SpMV and CG on the 7-point Laplacian, the 7-point stencil on the grid of the
// same size; each timed as a whole (no phase timing), then once more with phase timing on for
// the split (on a host device the two agree: its queue is the calling thread).
#include "workloads.hpp"

#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <stdexcept>

namespace tessera_bench_mpi {
namespace {
namespace dm = tessera::mpi;
using Clock = std::chrono::steady_clock;

double slowest(double s) {
  MPI_Allreduce(MPI_IN_PLACE, &s, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return s;
}

// Times f (which does `count` operations) plainly (the median of `samples` runs) and once with
// the phase split.
template <class F>
Row measure(const std::string& workload, int count, int samples, std::int64_t rows, const tessera::Queue& q, F f) {
  Row r;
  r.workload = workload;
  r.impl = "tessera";
  r.rows = rows;
  MPI_Comm_size(MPI_COMM_WORLD, &r.ranks);
  f();  // warm-up: first-call setup, caches
  q.synchronize();
  r.seconds = median_seconds(samples, [&] {
                MPI_Barrier(MPI_COMM_WORLD);
                const auto t0 = Clock::now();
                f();
                q.synchronize();
                return slowest(std::chrono::duration<double>(Clock::now() - t0).count());
              }) /
              count;
  MPI_Barrier(MPI_COMM_WORLD);
  dm::reset_phase_times();
  dm::set_phase_timing(true);
  f();
  dm::set_phase_timing(false);
  const dm::PhaseTimes t = dm::phase_times();
  r.local = slowest(t.local) / count;
  r.halo = slowest(t.halo) / count;
  r.allreduce = slowest(t.allreduce) / count;
  return r;
}

}  // namespace

std::int64_t global_nz(const Config& c, int ranks) {
  const std::int64_t nz = c.nz > 0 ? c.nz : c.n;
  return c.weak ? nz * ranks : nz;
}

tessera::HostCsr<double> laplacian_rows(std::int64_t nx, std::int64_t ny, std::int64_t nz, std::int64_t begin,
                                        std::int64_t end) {
  tessera::HostCsr<double> h;
  h.rows = end - begin;
  h.cols = nx * ny * nz;
  h.row_ptr.reserve(static_cast<std::size_t>(h.rows) + 1);
  h.col_idx.reserve(static_cast<std::size_t>(h.rows) * 7);
  h.values.reserve(static_cast<std::size_t>(h.rows) * 7);
  for (std::int64_t i = begin; i < end; ++i) {
    const std::int64_t x = i % nx, y = (i / nx) % ny, z = i / (nx * ny);
    auto add = [&](bool inside, std::int64_t col, double v) {
      if (!inside) return;
      h.col_idx.push_back(static_cast<std::int32_t>(col));
      h.values.push_back(v);
    };
    add(z > 0, i - nx * ny, -1.0);
    add(y > 0, i - nx, -1.0);
    add(x > 0, i - 1, -1.0);
    add(true, i, 6.5);
    add(x + 1 < nx, i + 1, -1.0);
    add(y + 1 < ny, i + nx, -1.0);
    add(z + 1 < nz, i + nx * ny, -1.0);
    h.row_ptr.push_back(static_cast<std::int32_t>(h.col_idx.size()));
  }
  if (h.cols <= 40000) {  // the same matrix as the library's generator
    const auto g = tessera::laplacian_3d<double>(nx, ny, nz);
    const auto b = static_cast<std::size_t>(g.row_ptr[static_cast<std::size_t>(begin)]);
    bool same = true;
    for (std::int64_t r = 0; r <= h.rows; ++r)
      same = same && h.row_ptr[static_cast<std::size_t>(r)] ==
                         g.row_ptr[static_cast<std::size_t>(begin + r)] - static_cast<std::int32_t>(b);
    for (std::size_t k = 0; same && k < h.col_idx.size(); ++k)
      same = h.col_idx[k] == g.col_idx[b + k] && h.values[k] == g.values[b + k];
    if (!same) throw std::runtime_error("laplacian_rows differs from tessera::laplacian_3d");
  }
  return h;
}

std::vector<Row> run_tessera(const Config& c) {
  std::vector<Row> rows;
  int ranks = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  const tessera::Device dev = tessera::Device::open(c.device);
  const tessera::Queue q = dev.queue();
  const std::int64_t nz = global_nz(c, ranks);
  const auto part = dm::RowPartition::uniform(MPI_COMM_WORLD, c.n * c.n * nz);
  struct {
    std::int64_t rows;
  } h{part.size()};
  // The matrix and vectors only where a workload needs them: a stencil-only run on a grid of
  // 2^31 cells or more has no CSR form (int32 indices).
  const bool sparse = std::find(c.workloads.begin(), c.workloads.end(), "spmv") != c.workloads.end() ||
                      std::find(c.workloads.begin(), c.workloads.end(), "cg") != c.workloads.end();
  dm::DistCsrMatrix<double> A;
  dm::DistVector<double> x, y, b;
  if (sparse) {
    A = dm::DistCsrMatrix<double>::from_local_rows(
        dev, part, laplacian_rows(c.n, c.n, nz, part.local_begin(), part.local_begin() + part.local_size()));
    x = dm::DistVector<double>(dev, part);
    y = dm::DistVector<double>(dev, part);
    b = dm::DistVector<double>(dev, part);
    dm::fill(q, 1.0, x);
  }
  for (const auto& w : c.workloads) {
    if (w == "spmv") {
      Row r = measure("spmv", c.repeat, c.samples, h.rows, q, [&] {
        for (int i = 0; i < c.repeat; ++i) dm::spmv(q, 1.0, A, x, 0.0, y);
      });
      tessera::Scalar<double> s(dev);
      dm::norm2(q, y, s);
      char buf[64];
      std::snprintf(buf, sizeof buf, "norm2(Ax) %.10g", s.get(q));
      r.check = buf;
      rows.push_back(r);
    } else if (w == "cg") {
      // b = A * 1; CG + Jacobi for exactly `iterations` iterations (tolerance 0), checking every 10.
      dm::spmv(q, 1.0, A, x, 0.0, b);
      dm::DistJacobi<double> M(q, A);
      tessera::SolveOptions o;
      o.rel_tol = 0;
      o.abs_tol = 0;
      o.max_iterations = c.iterations;
      o.check_every = 10;
      o.true_residual = false;
      tessera::SolveResult res;
      Row r = measure("cg+jacobi iteration", c.iterations, c.samples, h.rows, q, [&] {
        dm::fill(q, 0.0, y);
        res = dm::cg(q, A, b, y, &M, o);
      });
      char buf[64];
      std::snprintf(buf, sizeof buf, "norm2(r) after %lld: %.6g", static_cast<long long>(res.iterations), res.residual);
      r.check = buf;
      rows.push_back(r);
    } else if (w == "stencil") {
      const auto grid_part = dm::RowPartition::uniform(MPI_COMM_WORLD, nz);
      dm::DistGrid<double> u(dev, grid_part, c.n, c.n, nz, 1, dm::ExchangeEvery{c.exchange_every});
      // Every plane its own value (a constant field would stay constant, whatever the halo
      // exchange did), so the check after the runs tells a wrong halo on any rank count.
      tessera::Vector<double> cells = u.local().as_vector();
      const std::int64_t plane = c.n * c.n, first = grid_part.local_begin() - u.halo_below();
      const std::int64_t slab = u.halo_below() + grid_part.local_size() + u.halo_above();
      for (std::int64_t z = 0; z < slab; ++z) {
        tessera::Vector<double> p = cells.sub(z * plane, plane);
        tessera::fill(q, 1.0 + 0.5 * std::sin(0.05 * static_cast<double>(first + z)), p);
      }
      const std::vector<double> coeffs{0.4, 0.1};
      Row r = measure(c.exchange_every == 1 ? std::string("stencil 7-point step")
                                            : "stencil 7-point step, halos every " + std::to_string(c.exchange_every),
                      c.steps, c.samples, h.rows, q, [&] { dm::stencil(q, coeffs, u, c.steps); });
      // Sum of squares of the own cells over all ranks, after every timed run (the same runs on
      // any rank count).
      const tessera::Vector<double> own = cells.sub(u.halo_below() * plane, grid_part.local_size() * plane);
      tessera::Scalar<double> s(dev);
      tessera::dot(q, own, own, s);
      double sum = s.get(q);
      MPI_Allreduce(MPI_IN_PLACE, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
      char buf[64];
      std::snprintf(buf, sizeof buf, "norm2(u) %.10g", std::sqrt(sum));
      r.check = buf;
      rows.push_back(r);
    }
  }
  return rows;
}

std::vector<Row> median_rows(const std::vector<std::vector<Row>>& rounds) {
  std::vector<Row> out;
  if (rounds.empty()) return out;
  for (std::size_t i = 0; i < rounds.front().size(); ++i) {
    std::vector<const Row*> same;
    for (const auto& r : rounds) same.push_back(&r.at(i));
    std::sort(same.begin(), same.end(), [](const Row* a, const Row* b) { return a->seconds < b->seconds; });
    out.push_back(*same[same.size() / 2]);
  }
  return out;
}

std::vector<std::string> round_ratios(const std::vector<std::vector<Row>>& rounds) {
  std::vector<std::string> lines;
  if (rounds.size() < 2) return lines;
  const auto& first = rounds.front();
  for (std::size_t t = 0; t < first.size(); ++t) {
    if (first[t].impl != "tessera") continue;
    for (std::size_t p = 0; p < first.size(); ++p) {
      if (first[p].impl != "petsc" || first[p].workload != first[t].workload) continue;
      std::vector<double> ratios;
      std::string line = first[t].workload + ": PETSc / Tessera per round";
      for (const auto& r : rounds) {
        ratios.push_back(r.at(p).seconds / r.at(t).seconds);
        char buf[32];
        std::snprintf(buf, sizeof buf, " %.2f", ratios.back());
        line += buf;
      }
      std::sort(ratios.begin(), ratios.end());
      char buf[48];
      std::snprintf(buf, sizeof buf, ", median %.2fx", ratios[ratios.size() / 2]);
      lines.push_back(line + buf);
    }
  }
  return lines;
}

}  // namespace tessera_bench_mpi
