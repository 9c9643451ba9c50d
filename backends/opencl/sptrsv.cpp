// Sparse triangular solve by level sets (kernels/opencl/sptrsv.cl). The analysis runs on the
// host from the downloaded structure: each row's diagonal (sum of its diagonal entries, as the
// reference computes it; missing or zero -> InvalidArgument naming the row), the level of every
// row in the triangle named by uplo, the rows ordered by level, and the solve plan, one of:
//  - sync-free (gpu profiles with sptrsv.syncfree, where the levels hold that many rows on
//    average; the CUDA backend's method): one launch of sptrsv.groups_per_cu x compute units
//    groups that take tasks (levels cut into pieces of at most sptrsv.syncfree_wg rows) in
//    level order from an atomic ticket; a row waits on flags of the rows it depends on;
//  - levels: a level with more rows than a work-group gets a launch of its own, and runs of
//    consecutive smaller levels are solved by one work-group with a barrier between levels (one
//    launch for a whole chain of small levels instead of one per level; on the H200 letting one
//    group take levels of up to 2048 rows was slower: 2.7 against 2.1 ms, 128^3 Laplacian, f32).
#include <algorithm>
#include <climits>
#include <string>
#include <vector>

#include "opencl_backend.hpp"
#include "tessera/errors.hpp"

namespace tessera::opencl {

namespace {

class OpenCLSptrsvPlan final : public SptrsvPlanData {
 public:
  const void* owner = nullptr;  // the backend that made it
  Uplo uplo = Uplo::lower;
  Diag diag = Diag::non_unit;
  std::uint64_t generation = 0;
  cl::Buffer diagonal;    // per row, in the dtype; empty with Diag::unit
  cl::Buffer level_rows;  // rows ordered by level
  cl::Buffer level_ptr;   // levels + 1 offsets into level_rows
  struct Segment {
    bool chain;            // true: levels [begin, end) in one work-group
    int begin, end;        // levels
    int first_row, count;  // chain == false: level_rows[first_row, + count)
  };
  std::vector<Segment> segments;
  // Sync-free solve: level_rows[task_ptr[t], task_ptr[t + 1]) is task t; ready[i] says row i is
  // solved in the current solve (epoch, advanced per solve; kernels/opencl/sptrsv.cl): a 64-bit
  // word per row in f32 (epoch and value), an int in f64.
  bool syncfree = false;
  int tasks = 0;
  std::size_t ready_bytes = 0;
  cl::Buffer task_ptr, ready;
  mutable int epoch = 0;
};

template <class T>
std::vector<double> diagonal_of(const std::vector<std::int32_t>& rp, const std::vector<std::int32_t>& ci,
                                const std::vector<unsigned char>& raw, std::int64_t n) {
  const T* values = reinterpret_cast<const T*>(raw.data());
  std::vector<double> d(static_cast<std::size_t>(n), 0.0);
  for (std::int64_t i = 0; i < n; ++i) {
    bool found = false;
    for (std::int32_t k = rp[static_cast<std::size_t>(i)]; k < rp[static_cast<std::size_t>(i) + 1]; ++k) {
      if (ci[static_cast<std::size_t>(k)] != i) continue;
      found = true;
      d[static_cast<std::size_t>(i)] += static_cast<double>(values[k]);
    }
    if (!found)
      throw InvalidArgument("sptrsv_analyze: row " + std::to_string(i) +
                            " has no diagonal entry: the triangular matrix is singular");
    if (d[static_cast<std::size_t>(i)] == 0.0)
      throw InvalidArgument("sptrsv_analyze: row " + std::to_string(i) +
                            " has a zero diagonal: the triangular matrix is singular");
  }
  return d;
}

}  // namespace

std::shared_ptr<SptrsvPlanData> OpenCLBackend::sptrsv_analyze(DType dt, Uplo uplo, Diag diag, const CsrView& A) {
  require_dtype(Op::sptrsv, dt);
  std::lock_guard<std::mutex> lock(mutex_);
  return translate_errors(where("sptrsv_analyze"), [&]() -> std::shared_ptr<SptrsvPlanData> {
    const std::int64_t n = A.rows;
    const auto un = static_cast<std::size_t>(n);
    std::vector<std::int32_t> rp(un + 1), ci(static_cast<std::size_t>(A.nnz));
    queue_.enqueueReadBuffer(cl::Buffer(mem(A.row_ptr), true), CL_TRUE, 0, rp.size() * 4, rp.data());
    if (A.nnz > 0) queue_.enqueueReadBuffer(cl::Buffer(mem(A.col_idx), true), CL_TRUE, 0, ci.size() * 4, ci.data());

    auto plan = std::make_shared<OpenCLSptrsvPlan>();
    plan->owner = this;
    plan->uplo = uplo;
    plan->diag = diag;
    plan->generation = A.generation;
    if (n == 0) return plan;  // nothing to solve (and OpenCL has no empty buffers)

    if (diag == Diag::non_unit) {
      std::vector<unsigned char> raw(static_cast<std::size_t>(A.nnz) * dtype_size(dt));
      if (A.nnz > 0) queue_.enqueueReadBuffer(cl::Buffer(mem(A.values), true), CL_TRUE, 0, raw.size(), raw.data());
      const std::vector<double> d =
          dt == DType::f32 ? diagonal_of<float>(rp, ci, raw, n) : diagonal_of<double>(rp, ci, raw, n);
      std::vector<unsigned char> bytes(un * dtype_size(dt));
      for (std::size_t i = 0; i < un; ++i) {
        if (dt == DType::f32)
          reinterpret_cast<float*>(bytes.data())[i] = static_cast<float>(d[i]);
        else
          reinterpret_cast<double*>(bytes.data())[i] = d[i];
      }
      plan->diagonal = cl::Buffer(context_, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, bytes.size(), bytes.data());
    }

    // Levels: a row's level is one more than the highest level among the rows it depends on.
    const bool lower = uplo == Uplo::lower;
    std::vector<std::int32_t> level(un, 0);
    std::int32_t levels = 0;
    for (std::size_t step = 0; step < un; ++step) {
      const std::size_t i = lower ? step : un - 1 - step;
      std::int32_t l = 0;
      for (std::int32_t k = rp[i]; k < rp[i + 1]; ++k) {
        const auto j = static_cast<std::size_t>(ci[static_cast<std::size_t>(k)]);
        if (lower ? j < i : j > i) l = std::max(l, level[j] + 1);
      }
      level[i] = l;
      levels = std::max(levels, l + 1);
    }
    std::vector<std::int32_t> ptr(static_cast<std::size_t>(levels) + 1, 0);
    for (std::size_t i = 0; i < un; ++i) ++ptr[static_cast<std::size_t>(level[i]) + 1];
    for (std::size_t l = 0; l < static_cast<std::size_t>(levels); ++l) ptr[l + 1] += ptr[l];
    std::vector<std::int32_t> rows(un), fill(ptr.begin(), ptr.end() - 1);
    for (std::size_t i = 0; i < un; ++i)
      rows[static_cast<std::size_t>(fill[static_cast<std::size_t>(level[i])]++)] = static_cast<std::int32_t>(i);
    plan->level_rows = cl::Buffer(context_, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, rows.size() * 4, rows.data());
    plan->level_ptr = cl::Buffer(context_, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, ptr.size() * 4, ptr.data());

    if (!cpu_family() && profile_.sptrsv_syncfree > 0 &&
        n >= static_cast<std::int64_t>(levels) * profile_.sptrsv_syncfree) {
      const int task_rows = profile_.sptrsv_syncfree_wg;
      std::vector<std::int32_t> tasks{0};
      for (std::size_t l = 0; l < static_cast<std::size_t>(levels); ++l)
        for (std::int32_t r = ptr[l]; r < ptr[l + 1]; r += task_rows)
          tasks.push_back(std::min(r + task_rows, ptr[l + 1]));
      plan->syncfree = true;
      plan->tasks = static_cast<int>(tasks.size()) - 1;
      plan->task_ptr = cl::Buffer(context_, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, tasks.size() * 4, tasks.data());
      plan->ready_bytes = un * (dt == DType::f32 ? sizeof(cl_ulong) : sizeof(cl_int));
      plan->ready = cl::Buffer(context_, CL_MEM_READ_WRITE, plan->ready_bytes);
      queue_.enqueueFillBuffer(plan->ready, cl_int{0}, 0, plan->ready_bytes);
      return plan;
    }
    const int chain_max = profile_.sptrsv_wg;  // a level this small is one pass of one group
    for (int l = 0; l < levels;) {
      const int size = ptr[static_cast<std::size_t>(l) + 1] - ptr[static_cast<std::size_t>(l)];
      if (size > chain_max) {
        plan->segments.push_back({false, l, l + 1, ptr[static_cast<std::size_t>(l)], size});
        ++l;
        continue;
      }
      int end = l;
      while (end < levels && ptr[static_cast<std::size_t>(end) + 1] - ptr[static_cast<std::size_t>(end)] <= chain_max)
        ++end;
      plan->segments.push_back({true, l, end, 0, 0});
      l = end;
    }
    return plan;
  });
}

void OpenCLBackend::sptrsv_solve(DType dt, const SptrsvPlanData& plan_data, const CsrView& A, const VecView& b,
                                 const VecView& x) {
  require_dtype(Op::sptrsv, dt);
  const auto* plan = dynamic_cast<const OpenCLSptrsvPlan*>(&plan_data);
  if (plan == nullptr || plan->owner != this)
    throw InvalidArgument("sptrsv_solve: the plan was not made by opencl:" + std::to_string(index_) +
                          "; analyse on this device");
  if (plan->generation != A.generation)
    throw InvalidArgument("sptrsv_solve: the plan was made for a different matrix; analyse this one first");
  std::lock_guard<std::mutex> lock(mutex_);
  translate_errors(where("sptrsv_solve"), [&] {
    const int lower = plan->uplo == Uplo::lower ? 1 : 0;
    const int unit = plan->diag == Diag::unit ? 1 : 0;
    void* diag = unit ? nullptr : plan->diagonal();
    if (plan->syncfree) {  // reads b itself
      if (plan->epoch == INT_MAX) {  // flags of old solves could match again: clear them
        queue_.enqueueFillBuffer(plan->ready, cl_int{0}, 0, plan->ready_bytes);
        plan->epoch = 0;
      }
      ++plan->epoch;
      cl::Buffer& ticket = scratch(Scratch::sptrsv_ticket, sizeof(cl_int));
      queue_.enqueueFillBuffer(ticket, cl_int{0}, 0, sizeof(cl_int));
      const int wg = profile_.sptrsv_syncfree_wg;
      const int groups = std::max(1, std::min(plan->tasks, compute_units_ * profile_.sptrsv_groups_per_cu));
      const std::string defines =
          "-DSYNCFREE_WG=" + std::to_string(wg) + " -DSLEEP_NS=" + std::to_string(profile_.sptrsv_sleep_ns);
      cl::Kernel& k = kernel("sptrsv.cl", dt, defines, "sptrsv_syncfree");
      set_args(k, dt, A.row_ptr, A.col_idx, A.values, diag, plan->level_rows, plan->task_ptr, plan->tasks, b.data,
               x.data, lower, unit, plan->ready, plan->epoch, ticket);
      launch(k, cl::NDRange(static_cast<std::size_t>(groups) * wg), cl::NDRange(static_cast<std::size_t>(wg)));
      return;
    }
    if (b.data != x.data) {  // the level kernels solve x in place
      const cl_int err = ::clEnqueueCopyBuffer(queue_(), mem(b.data), mem(x.data), 0, 0,
                                               static_cast<std::size_t>(b.n) * dtype_size(dt), 0, nullptr, nullptr);
      if (err != CL_SUCCESS) throw cl::Error(err, "clEnqueueCopyBuffer");
    }
    const int wg = profile_.sptrsv_wg;
    const std::string defines = "-DWG_SIZE=" + std::to_string(wg);
    for (const auto& seg : plan->segments) {
      if (seg.chain) {
        cl::Kernel& k = kernel("sptrsv.cl", dt, defines, "sptrsv_chain");
        set_args(k, dt, A.row_ptr, A.col_idx, A.values, diag, plan->level_rows, plan->level_ptr, seg.begin, seg.end,
                 x.data, lower, unit);
        launch(k, cl::NDRange(static_cast<std::size_t>(wg)), cl::NDRange(static_cast<std::size_t>(wg)));
      } else {
        cl::Kernel& k = kernel("sptrsv.cl", dt, defines, "sptrsv_level");
        set_args(k, dt, A.row_ptr, A.col_idx, A.values, diag, plan->level_rows, seg.first_row, seg.count, x.data, lower,
                 unit);
        const std::size_t global = (static_cast<std::size_t>(seg.count) + wg - 1) / wg * wg;
        launch(k, cl::NDRange(global), cl::NDRange(static_cast<std::size_t>(wg)));
      }
    }
  });
}

}  // namespace tessera::opencl
