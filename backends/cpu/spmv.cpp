// SpMV: rows are split among threads by cost (cpu/row_split.hpp). The splits cost O(threads
// log rows) per call, so nothing is cached per matrix for CSR. Fewer threads run where each
// would get less than spmv.min_work_per_thread (tuning/spmv.cpp).
//
// Column plans (plan/csr_columns.hpp): at the first call for a large matrix, one pass over its
// columns gives its bandwidth (whether x is read in a sliding window, which decides the x
// prefetch) and, where plan/spmv_policy.hpp asks for them, narrow int16 columns; kept per
// generation (update_values keeps them: the structure is the same).
//
// SELL-C-sigma (plan/spmv_policy.hpp decides, plan/sell_layout.hpp builds): the layout and its
// padded arrays are built on the host at the first call for a matrix and kept per generation
// (plan::PlanCache); update_values refills the values (a new plan sharing the structure) at the
// next call. Slices are split among threads by their padded entries, as CSR rows by nonzeros.
//
// CG's fused iterations (cg_steps) live here too: they are this file's product with the
// vector updates of CG between its row chunks, in one thread team.
#include <omp.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "cpu/cpu_backend.hpp"
#include "cpu/gathers.hpp"
#include "cpu/per_thread.hpp"
#include "cpu/row_split.hpp"
#include "host_machine.hpp"
#include "kernels/cpu/dispatch.hpp"
#include "kernels/cpu/spmv.hpp"
#include "kernels/cpu/spmv_sell.hpp"
#include "plan/csr_columns.hpp"
#include "plan/plan_cache.hpp"
#include "plan/sell_layout.hpp"
#include "plan/spmv_policy.hpp"

namespace tessera {

struct CpuBackend::ColumnPlan {
  std::int64_t bandwidth = 0;
  bool narrow_tried = false;   // narrow columns were asked for when it was built
  plan::NarrowColumns narrow;  // null: not asked for, or some column out of the int16 range
};
struct CpuBackend::ColumnInfo {
  std::shared_ptr<const std::int16_t> narrow;  // int16 offsets from the row (aliasing the plan), or null
  std::int64_t bandwidth = -1;                 // max |col - row|; -1: not known (no plan)
};

namespace {

// The CSR product over row ranges: the kernel's arguments and choices for one call, and the
// number of threads (tuning spmv.min_work_per_thread); csr(r0, r1) computes rows [r0, r1).
template <class T>
struct CsrRows {
  const std::int32_t* row_ptr;
  const std::int32_t* col;
  std::shared_ptr<const std::int16_t> narrow;  // int16 offsets from the row, or null: int32 columns
  const T* val;
  const T* x;
  T* y;
  T a, b;
  std::int64_t gather_min;
  bool prefetch_x, prefetch_streams, short_gather;
  int threads;

  CsrRows(const CsrView& A, const CpuBackend::ColumnInfo& columns, const VecView& xv, double alpha, double beta,
          const VecView& yv, const tuning::Tuning& tune)
      : row_ptr(static_cast<const std::int32_t*>(A.row_ptr)), col(static_cast<const std::int32_t*>(A.col_idx)),
        narrow(columns.narrow), val(static_cast<const T*>(A.values)), x(host_ptr<const T>(xv)), y(host_ptr<T>(yv)), a(static_cast<T>(alpha)),
        b(static_cast<T>(beta)),
        gather_min(cpu::gather_min_len(std::is_same_v<T, float> ? cpu::lanes_f32() : cpu::lanes_f64(), tune)) {
    const std::size_t llc = host::machine().caches.l3;
    // x is read within the window of rows +-bandwidth where that is known: a banded matrix's
    // x streams however long x is (7-point Laplacian 128^3 f64, one thread: 11.7 -> 8.9 ms
    // without the x prefetch; 256^3: 94 -> 83 ms).
    const std::int64_t window = columns.bandwidth >= 0 ? std::min(A.cols, 2 * columns.bandwidth + 1) : A.cols;
    prefetch_x = cpu::prefetch_gathers(static_cast<std::size_t>(window) * sizeof(T), llc);
    prefetch_streams = cpu::prefetch_streams(static_cast<std::size_t>(A.nnz) * (sizeof(T) + sizeof(std::int32_t)), llc);
    threads = cpu::threads_for(A.nnz + A.rows, tune["spmv.min_work_per_thread"]);
    // The branch-free short-row gather pays where the short rows vary in length
    // (plan::irregular_short_rows; where spmv.sell_irregular is set, auto gives those matrices
    // SELL instead and this is CSR's answer when SELL is not taken). Measured on a Zen 5 VM, one
    // thread: 1.7-2.5x faster on ct2010, delaunay_n16 and vsp_model (5-8 nonzeros a row,
    // irregular), 20-40% slower on the 7-point Laplacian, whose rows are 7 long nearly
    // everywhere. It reads x[0] for its idle lanes: only with cols >= 1. The rows must be too
    // many for the branch predictor to learn their lengths (tuning/spmv.cpp).
    short_gather = A.cols > 0 && cpu::spmv_target_has_gather() && plan::irregular_short_rows(A.stats) &&
                   !plan::predictor_learns_rows(A, tune);
  }
  void operator()(std::int64_t r0, std::int64_t r1) const {
    if (narrow) {
      const std::int16_t* off = narrow.get();
      if constexpr (std::is_same_v<T, float>)
        cpu::spmv_narrow_f32(row_ptr, off, val, x, a, b, y, r0, r1, gather_min, short_gather, prefetch_streams);
      else
        cpu::spmv_narrow_f64(row_ptr, off, val, x, a, b, y, r0, r1, gather_min, short_gather, prefetch_streams);
      return;
    }
    if constexpr (std::is_same_v<T, float>)
      cpu::spmv_f32(row_ptr, col, val, x, a, b, y, r0, r1, gather_min, prefetch_x, short_gather, prefetch_streams);
    else
      cpu::spmv_f64(row_ptr, col, val, x, a, b, y, r0, r1, gather_min, prefetch_x, short_gather, prefetch_streams);
  }
};

}  // namespace

// The structure half of a SELL plan (shared by its value refreshes) and the values.
struct SellStructure {
  plan::SellLayout layout;
  bool use = false;  // keep_sell's verdict; the arrays are filled only when used
  std::vector<std::int32_t> col;
};
template <class T>
struct CpuBackend::SellPlan {
  std::shared_ptr<const SellStructure> structure;
  std::vector<T> val;
  std::uint64_t values_version = 0;
  cpu::SellArrays<T> arrays() const {
    const plan::SellLayout& l = structure->layout;
    return {l.c, l.rows, l.slice_ptr.data(), l.row_len.data(), l.sorted() ? l.perm.data() : nullptr,
            structure->col.data(), val.data()};
  }
};

struct CpuBackend::SpmvState {
  plan::PlanCache<SellPlan<float>> f32;
  plan::PlanCache<SellPlan<double>> f64;
  plan::PlanCache<ColumnPlan> columns;
  template <class T>
  plan::PlanCache<SellPlan<T>>& cache() {
    if constexpr (std::is_same_v<T, float>) return f32;
    else return f64;
  }
};
std::shared_ptr<CpuBackend::SpmvState> CpuBackend::make_spmv_state() { return std::make_shared<SpmvState>(); }

template <class T>
std::shared_ptr<const CpuBackend::SellPlan<T>> CpuBackend::sell_plan(const CsrView& A) {
  if (!plan::sell_candidate(A, tune_, sizeof(T))) return nullptr;
  const int c = std::is_same_v<T, float> ? cpu::sell_c_f32() : cpu::sell_c_f64();
  const auto* row_ptr = static_cast<const std::int32_t*>(A.row_ptr);
  const T* values = static_cast<const T*>(A.values);
  auto plan = spmv_state_->cache<T>().get(A.generation, [&](std::shared_ptr<const SellPlan<T>> old) {
    const int sigma = plan::sell_sigma_for(tune_.get("spmv.sell_sigma"), c);
    // A plan for another C or sigma (TESSERA_CPU_TARGET or the tuning changed) is rebuilt.
    if (old && old->structure->layout.c == c && old->structure->layout.sigma == sigma) {
      if (!old->structure->use || old->values_version == A.values_version) return old;
      auto fresh = std::make_shared<SellPlan<T>>();  // update_values: new values, same structure
      fresh->structure = old->structure;
      fresh->val.resize(static_cast<std::size_t>(fresh->structure->layout.padded));
      plan::sell_fill_values(fresh->structure->layout, row_ptr, values, fresh->val.data());
      fresh->values_version = A.values_version;
      return std::shared_ptr<const SellPlan<T>>(fresh);
    }
    auto st = std::make_shared<SellStructure>();
    st->layout = plan::sell_layout(row_ptr, A.rows, c, sigma);
    st->use = plan::keep_sell(A, st->layout.padded, tune_, sizeof(T));
    auto p = std::make_shared<SellPlan<T>>();
    if (st->use) {
      st->col.resize(static_cast<std::size_t>(st->layout.padded));
      p->val.resize(static_cast<std::size_t>(st->layout.padded));
      plan::sell_fill(st->layout, row_ptr, static_cast<const std::int32_t*>(A.col_idx), values, st->col.data(),
                      p->val.data());
    }
    p->structure = std::move(st);
    p->values_version = A.values_version;
    return std::shared_ptr<const SellPlan<T>>(p);
  });
  return plan->structure->use ? plan : nullptr;
}

CpuBackend::ColumnInfo CpuBackend::column_info(const CsrView& A, DType dtype) {
  ColumnInfo info;
  if (A.generation == 0 || A.rows == 0 || A.nnz == 0) return info;  // nothing to key a plan by
  const bool narrow_wanted = plan::narrow_candidate(A, tune_);
  const std::size_t esize = dtype == DType::f32 ? sizeof(float) : sizeof(double);
  // Only where a choice depends on the columns: the narrow storage, or the x prefetch (which
  // the window of a banded matrix can switch off only where all of x would switch it on).
  if (!narrow_wanted &&
      !cpu::prefetch_gathers(static_cast<std::size_t>(A.cols) * esize, host::machine().caches.l3))
    return info;
  const auto* row_ptr = static_cast<const std::int32_t*>(A.row_ptr);
  const auto* col = static_cast<const std::int32_t*>(A.col_idx);
  auto p = spmv_state_->columns.get(A.generation, [&](std::shared_ptr<const ColumnPlan> old) {
    if (old && (old->narrow_tried || !narrow_wanted)) return old;
    auto fresh = std::make_shared<ColumnPlan>();
    fresh->bandwidth = old ? old->bandwidth : plan::csr_bandwidth(row_ptr, col, A.rows);
    if (narrow_wanted) {
      fresh->narrow_tried = true;
      if (fresh->bandwidth <= INT16_MAX) fresh->narrow = plan::narrow_columns(row_ptr, col, A.rows);
    }
    return std::shared_ptr<const ColumnPlan>(std::move(fresh));
  });
  info.bandwidth = p->bandwidth;
  if (narrow_wanted && p->narrow) info.narrow = std::shared_ptr<const std::int16_t>(p, p->narrow.get());
  return info;
}

std::string CpuBackend::spmv_kernel(DType dtype, const CsrView& A) {
  const auto describe = [&](const auto& plan) -> std::string {
    if (!plan) return column_info(A, dtype).narrow ? "csr/rows(int16 columns)" : "csr/rows";
    const plan::SellLayout& l = plan->structure->layout;
    return plan::describe_sell(l.c, l.sigma, l.padded, A.nnz);
  };
  return dtype == DType::f32 ? describe(sell_plan<float>(A)) : describe(sell_plan<double>(A));
}

template <class T>
void CpuBackend::spmv(QueueImpl&, double alpha, const CsrView& A, const VecView& xv, double beta, const VecView& yv) {
  if (const auto sell = sell_plan<T>(A)) {
    const cpu::SellArrays<T> arr = sell->arrays();
    const T* x = host_ptr<const T>(xv);
    T* y = host_ptr<T>(yv);
    const T a = static_cast<T>(alpha), b = static_cast<T>(beta);
    const plan::SellLayout& l = sell->structure->layout;
    const auto run = [&](std::int64_t s0, std::int64_t s1) {
      if constexpr (std::is_same_v<T, float>)
        cpu::spmv_sell_f32(arr, x, a, b, y, s0, s1);
      else
        cpu::spmv_sell_f64(arr, x, a, b, y, s0, s1);
    };
    // A slice costs its padded entries plus its rows (as a CSR row its nonzeros plus one);
    // slice_ptr / C is the slices' "row_ptr" in units of steps.
    const int threads = cpu::threads_for(l.padded + l.rows, tune_["spmv.min_work_per_thread"]);
    cpu::parallel_parts(threads, [&](int t) {
      const cpu::RowRange r =
          threads == 1 ? cpu::RowRange{0, l.slices} : cpu::thread_rows(l.slice_ptr.data(), l.slices, l.padded, t, threads);
      run(r.begin, r.end);
    });
    return;
  }
  const CsrRows<T> csr(A, column_info(A, dtype_v<T>), xv, alpha, beta, yv, tune_);
  cpu::for_each_row_share(csr.row_ptr, A.rows, A.nnz, csr.threads, csr);
}

template <class T>
void CpuBackend::spmv_dot_typed(QueueImpl& q, double alpha, const CsrView& A, const VecView& xv, double beta,
                                const VecView& yv, const VecView& wv, const VecView& out) {
  if (sell_plan<T>(A)) {  // SELL's slices write rows in permuted order: the product, then the dot
    Backend::spmv_dot(dtype_v<T>, q, alpha, A, xv, beta, yv, wv, out);
    return;
  }
  const CsrRows<T> csr(A, column_info(A, dtype_v<T>), xv, alpha, beta, yv, tune_);
  const T* w = host_ptr<const T>(wv);
  // Each thread's rows in chunks of kDotChunkRows: the chunk's product, then its dot while y's
  // and w's chunk are still in the L1/L2 (w is usually x, whose rows the product just read).
  constexpr std::int64_t kDotChunkRows = 1024;
  const auto rows_dot = [&](std::int64_t r0, std::int64_t r1) {
    double sum = 0.0;
    for (std::int64_t c0 = r0; c0 < r1; c0 += kDotChunkRows) {
      const std::int64_t c1 = std::min(r1, c0 + kDotChunkRows);
      csr(c0, c1);
      sum += dot_chunk(w + c0, csr.y + c0, c1 - c0);
    }
    return sum;
  };
  std::vector<double> parts(static_cast<std::size_t>(csr.threads));
  if (csr.threads == 1) {
    parts[0] = rows_dot(0, A.rows);
  } else {
    cpu::parallel_parts(csr.threads, [&](int t) {
      const cpu::RowRange r = cpu::thread_rows(csr.row_ptr, A.rows, A.nnz, t, csr.threads);
      parts[static_cast<std::size_t>(t)] = rows_dot(r.begin, r.end);
    });
  }
  *host_ptr<T>(out) = static_cast<T>(sum_parts(parts));
}

void CpuBackend::spmv_dot(DType dtype, QueueImpl& q, double alpha, const CsrView& A, const VecView& x, double beta,
                          const VecView& y, const VecView& w, const VecView& out) {
  if (dtype == DType::f32)
    spmv_dot_typed<float>(q, alpha, A, x, beta, y, w, out);
  else
    spmv_dot_typed<double>(q, alpha, A, x, beta, y, w, out);
}

// CG's iterations in one thread team (Backend::cg_steps), for matrices up to cg.fused_max_nnz:
// the separate operations open three parallel regions per iteration, whose fork and join cost
// more than a small system's arithmetic on many cores. Each thread keeps the product's rows
// (the same split and kernel as spmv_dot) for every update, so only the three sums and the
// gathers of p cross threads: a barrier after each sum's partials and one after p's update.
// Every thread adds the partials in thread order, so all hold the same values.
template <class T>
bool CpuBackend::cg_steps_typed(std::int64_t steps, const CsrView& A, const VecView& dv, const VecView& xv,
                                const VecView& rv, const VecView& pv, const VecView& apv, const VecView& zv,
                                const VecView& rzv, const VecView& rrv) {
  const std::int64_t max_nnz = tune_["cg.fused_max_nnz"];
  if (max_nnz <= 0 || A.nnz > max_nnz || sell_plan<T>(A)) return false;
  const CsrRows<T> csr(A, column_info(A, dtype_v<T>), pv, 1.0, 0.0, apv, tune_);
  const T* d = dv.data != nullptr ? host_ptr<const T>(dv) : nullptr;
  T* x = host_ptr<T>(xv);
  T* r = host_ptr<T>(rv);
  T* p = host_ptr<T>(pv);
  T* ap = host_ptr<T>(apv);
  T* z = d != nullptr ? host_ptr<T>(zv) : r;
  T* rz_io = host_ptr<T>(rzv);
  T* rr_out = host_ptr<T>(rrv);
  constexpr std::int64_t kBlock = 2048;  // rows per vector pass, within the L1 (vector.cpp's kL1Block)
  struct alignas(64) Part {  // a line each: no two threads write one
    double pq, rz, rr;
  };
  std::vector<Part> parts(static_cast<std::size_t>(std::max(csr.threads, 1)));
  const auto run = [&](int t, int team, const auto& barrier) {
    const cpu::RowRange rows = team == 1 ? cpu::RowRange{0, A.rows} : cpu::thread_rows(csr.row_ptr, A.rows, A.nnz, t, team);
    constexpr std::int64_t kChunkRows = 1024;  // the product's chunk, dotted while in cache (spmv_dot)
    T rz = *rz_io, rr = 0;
    for (std::int64_t it = 0; it < steps; ++it) {
      double pq_part = 0.0;
      for (std::int64_t c0 = rows.begin; c0 < rows.end; c0 += kChunkRows) {
        const std::int64_t c1 = std::min(rows.end, c0 + kChunkRows);
        csr(c0, c1);
        pq_part += dot_chunk(p + c0, ap + c0, c1 - c0);
      }
      parts[static_cast<std::size_t>(t)].pq = pq_part;
      barrier();
      double pq = 0.0;
      for (int i = 0; i < team; ++i) pq += parts[static_cast<std::size_t>(i)].pq;
      const T pq_t = static_cast<T>(pq);
      const T alpha = static_cast<T>(static_cast<double>(rz) / static_cast<double>(pq_t));
      const T minus_alpha = static_cast<T>(-static_cast<double>(rz) / static_cast<double>(pq_t));
      double rz_part = 0.0, rr_part = 0.0;
      for (std::int64_t k = rows.begin; k < rows.end; k += kBlock) {  // the SIMD kernels of vector.cpp
        const std::int64_t len = std::min(kBlock, rows.end - k);
        axpby_kernel(minus_alpha, ap + k, T(1), cpu::AxpbyMode::add, r + k, len);
        if (d != nullptr) {
          double bz = 0.0, br = 0.0;
          multiply_dot2_chunk(d + k, r + k, z + k, len, &bz, &br);
          rz_part += bz;
          rr_part += br;
        } else {
          const double rr_block = dot_chunk(r + k, r + k, len);
          rz_part += rr_block;
          rr_part += rr_block;
        }
      }
      parts[static_cast<std::size_t>(t)].rz = rz_part;
      parts[static_cast<std::size_t>(t)].rr = rr_part;
      barrier();
      double rz_sum = 0.0, rr_sum = 0.0;
      for (int i = 0; i < team; ++i) {
        rz_sum += parts[static_cast<std::size_t>(i)].rz;
        rr_sum += parts[static_cast<std::size_t>(i)].rr;
      }
      const T rz_new = static_cast<T>(rz_sum);
      rr = static_cast<T>(rr_sum);
      const T beta = static_cast<T>(static_cast<double>(rz_new) / static_cast<double>(rz));
      for (std::int64_t k = rows.begin; k < rows.end; k += kBlock) {  // x += alpha p reads p first
        const std::int64_t len = std::min(kBlock, rows.end - k);
        axpby_kernel(alpha, p + k, T(1), cpu::AxpbyMode::add, x + k, len);
        axpby_kernel(T(1), z + k, beta, cpu::AxpbyMode::scale, p + k, len);
      }
      rz = rz_new;
      barrier();  // p complete before the next product gathers it
    }
    if (t == 0) {
      *rz_io = rz;
      *rr_out = rr;
    }
  };
  if (csr.threads <= 1) {
    run(0, 1, [] {});
  } else {
#pragma omp parallel num_threads(csr.threads)
    {
      // The team OpenMP gave (fewer than asked where it limits threads) splits the rows.
      run(omp_get_thread_num(), omp_get_num_threads(), [] {
#pragma omp barrier
      });
    }
  }
  return true;
}

bool CpuBackend::cg_steps(DType dtype, QueueImpl&, std::int64_t steps, const CsrView& A, const VecView& d,
                          const VecView& x, const VecView& r, const VecView& p, const VecView& ap, const VecView& z,
                          const VecView& rz, const VecView& rr) {
  return dtype == DType::f32 ? cg_steps_typed<float>(steps, A, d, x, r, p, ap, z, rz, rr)
                             : cg_steps_typed<double>(steps, A, d, x, r, p, ap, z, rz, rr);
}

TESSERA_INSTANTIATE_TYPED_OP(CpuBackend, spmv)

}  // namespace tessera
