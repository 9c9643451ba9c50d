// The table for people: a header that says where and how the numbers were taken, the measured
// peaks, one block per operation, and a legend. n/a and FAILED rows say so instead of a time.
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "report.hpp"

namespace bench {

namespace {

std::string fmt(const char* f, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

std::string ms(double v) {
  if (std::isnan(v)) return "";
  if (v < 0.01) return fmt("%.6f", v);  // launch: a fraction of a microsecond per call
  if (v < 1) return fmt("%.4f", v);
  if (v < 10) return fmt("%.3f", v);
  if (v < 100) return fmt("%.2f", v);
  return fmt("%.1f", v);
}

std::string rate(double v) {
  if (std::isnan(v)) return "";
  return v < 10 ? fmt("%.2f", v) : fmt("%.1f", v);
}

std::string gib(std::uint64_t b) { return fmt("%.1f GiB", static_cast<double>(b) / (1ull << 30)); }

std::string pad(const std::string& s, std::size_t w, bool right = false) {
  if (s.size() >= w) return s;
  return right ? std::string(w - s.size(), ' ') + s : s + std::string(w - s.size(), ' ');
}

std::string peak_short(const std::string& name) {
  if (name == "stream read") return "read";
  if (name == "stream triad") return "triad";
  if (name == "stream copy") return "copy";
  if (name == "fma f32" || name == "fma f64") return "fma";
  if (name == "gemm f32" || name == "gemm f64") return "gemm";
  return name;
}

}  // namespace

void print_table(std::FILE* out, const RunInfo& i, const std::vector<Row>& rows) {
  // ---- header ----
  std::fprintf(out, "tessera-bench %s  %s  size %s  (>= %.2g s and >= %d calls per measurement, median)\n",
               i.tessera_version.c_str(), i.date.c_str(), i.size.c_str(), i.min_time_s, i.min_reps);
  std::fprintf(out, "machine   %s: %s, %d cores, %d OpenMP threads, %s, last-level cache %s; %s\n", i.machine.c_str(),
               i.cpu_model.c_str(), i.cores, i.threads, gib(i.memory_bytes).c_str(),
               i.llc_bytes ? fmt("%.0f MiB", static_cast<double>(i.llc_bytes) / (1 << 20)).c_str() : "unknown",
               i.os.c_str());
  std::string targets;
  for (const auto& t : i.cpu_simd_targets) targets += (targets.empty() ? "" : ", ") + t;
  std::fprintf(out, "build     %s; cpu SIMD target %s%s%s\n", i.compiler.c_str(), i.cpu_simd_target.c_str(),
               targets.empty() ? "" : " (available: ", targets.empty() ? "" : (targets + ")").c_str());
  std::string libs;
  for (const auto& b : i.baselines) libs += (libs.empty() ? "" : ", ") + b;
  std::fprintf(out, "baselines %s\n", libs.empty() ? "none compiled in" : libs.c_str());
  if (!i.openblas_core.empty())
    std::fprintf(out, "OpenBLAS  core %s (OPENBLAS_CORETYPE%s%s: %s)\n", i.openblas_core.c_str(),
                 i.openblas_coretype_env.empty() ? " unset" : "=", i.openblas_coretype_env.c_str(), i.openblas_note.c_str());
  for (const auto& d : i.devices)
    std::fprintf(out, "device    %-10s %s%s%s, %d compute units, %s\n", d.spec.c_str(), d.name.c_str(),
                 d.simd_target.empty() ? "" : ", SIMD ", d.simd_target.c_str(), d.compute_units, gib(d.memory_bytes).c_str());
  for (const auto& [b, why] : i.unavailable) std::fprintf(out, "          %-10s unavailable: %s\n", b.c_str(), why.c_str());
  for (const auto& p : i.peaks) {
    std::fprintf(out, "peak      %-10s", p.scope.c_str());
    if (p.host_memory)
      std::fprintf(out, " read %s GB/s, copy %s GB/s, triad %s GB/s; %s f32 %s GFLOP/s, f64 %s GFLOP/s\n",
                   rate(p.read_gbs).c_str(), rate(p.copy_gbs).c_str(), rate(p.triad_gbs).c_str(),
                   p.flops_kind.empty() ? "fma" : p.flops_kind.c_str(), rate(p.gflops_f32).c_str(), rate(p.gflops_f64).c_str());
    else if (!std::isnan(p.gflops_f32))
      std::fprintf(out, " copy %s GB/s; %s f32 %s GFLOP/s, f64 %s GFLOP/s\n", rate(p.copy_gbs).c_str(),
                   p.flops_kind.c_str(), rate(p.gflops_f32).c_str(), rate(p.gflops_f64).c_str());
    else
      std::fprintf(out, " copy %s GB/s\n", rate(p.copy_gbs).c_str());
    std::fprintf(out, "          %-10s (%s)\n", "", p.method.c_str());
  }
  for (const auto& n : i.notes) std::fprintf(out, "note      %s\n", n.c_str());

  // ---- rows, grouped by operation in run order ----
  std::size_t w_op = 2, w_case = 4, w_dev = 6, w_impl = 4;
  for (const Row& r : rows) {
    w_op = std::max(w_op, r.op.size());
    w_case = std::max(w_case, r.case_name.size());
    w_dev = std::max(w_dev, r.device.size());
    w_impl = std::max(w_impl, r.impl.size());
  }
  const std::string head = pad("op", w_op) + "  dtype  " + pad("case", w_case) + "  " + pad("device", w_dev) + "  " +
                           pad("impl", w_impl) + "   reps  median ms     min ms     max ms  1st call ms   GFLOP/s     GB/s  % peak     " +
                           " vs base            max rel err  mean rel err  check";
  std::vector<std::string> order;
  for (const Row& r : rows)
    if (std::find(order.begin(), order.end(), r.op) == order.end()) order.push_back(r.op);

  for (const auto& op : order) {
    std::fprintf(out, "\n== %s ==\n%s\n", op.c_str(), head.c_str());
    std::string last_unit;
    for (const Row& r : rows) {
      if (r.op != op) continue;
      const std::string unit = r.dtype + "|" + r.case_name;
      if (!last_unit.empty() && unit != last_unit) std::fprintf(out, "\n");
      last_unit = unit;
      std::string line = pad(r.op, w_op) + "  " + pad(r.dtype, 5) + "  " + pad(r.case_name, w_case) + "  " +
                         pad(r.device, w_dev) + "  " + pad(r.impl, w_impl) + "  ";
      if (r.check == "n/a" || r.check == "error") {
        line += r.check + ": " + r.note;
      } else if (r.check == "FAILED") {
        line += pad("", 6) + pad("FAILED", 11, true) + "  " + r.note;
      } else {
        std::string pct;
        if (!std::isnan(r.pct_peak)) pct = fmt("%.0f%% ", r.pct_peak) + peak_short(r.peak_name) + (r.in_llc ? "*" : "");
        std::string ratio;
        if (!std::isnan(r.ratio_to_baseline)) ratio = fmt("%.2fx ", r.ratio_to_baseline) + r.baseline;
        std::string check = r.check;
        if (r.check == "ok" && r.oracle == "sampled") check = "ok (sampled)";
        line += pad(std::to_string(r.reps), 5, true) + pad(ms(r.median_ms), 11, true) + pad(ms(r.min_ms), 11, true) +
                pad(ms(r.max_ms), 11, true) + pad(ms(r.first_call_ms), 13, true) + pad(rate(r.gflops), 10, true) + pad(rate(r.gbs), 9, true) + "  " +
                pad(pct, 12) + pad(ratio, 18) + " " +
                pad(std::isnan(r.check_error) ? "" : fmt("%.2e", r.check_error), 12) + " " +
                pad(std::isnan(r.check_mean_error) ? "" : fmt("%.2e", r.check_mean_error), 13) + " " + check;
        if (r.check == "unchecked" && !r.note.empty()) line += " (" + r.note + ")";
        // Solves to convergence: their iterations and their preconditioner's setup, beside the check.
        if (r.iterations >= 0) line += "  " + std::to_string(r.iterations) + " it";
        if (r.iterations >= 0 && !std::isnan(r.setup_ms)) line += ", setup " + ms(r.setup_ms) + " ms";
        // Triangular solves: the analysis their plan took (outside the timed solves).
        if (r.op == "sptrsv" && !std::isnan(r.setup_ms)) line += "  analysis " + ms(r.setup_ms) + " ms";
        // What the implementation chose where it says (spmv's format and kernel, cuDNN's algorithm,
        // oneDNN's kernel, a solve's method): last, so the columns before it stay put for awk.
        if (!r.impl_detail.empty()) line += "  [" + r.impl_detail + "]";
      }
      std::fprintf(out, "%s\n", line.c_str());
    }
  }

  std::fprintf(out,
               "\nGFLOP/s and GB/s: FLOPs and minimum bytes moved per call (formulas in bench/workloads/*.cpp) over the "
               "median time.\n"
               "%% peak: of this run's measured peak of the device: read = STREAM-style read (reduce, dot, spmv, spmm, trsv, "
               "sptrsv, norm2, dot2, cg), copy = STREAM copy on CPUs (axpy, copy, axpby_dot), triad = STREAM triad (stencil, conv2d), fma = FMA-loop FLOP/s on CPUs and OpenCL devices, gemm = vendor GEMM on cuda:0 (gemm, trsm, conv_layer); copy = device copy on GPUs. "
               "* = the data is smaller than 2x the last-level cache: on a CPU that rate may be cache bandwidth.\n"
               "Per call: ms of one operation; cg: of one iteration (the run of 50 / 50; to tol: the solve / its "
               "iterations, shown as 'N it' after the check with the preconditioner's setup); launch: of one axpy, "
               "n = 1000: 'enqueue' = host clock around 1000 enqueues without a wait / 1000, 'round trip' = one call "
               "and its wait.\n"
               "1st call ms: the untimed warm-up call (kernel compilation or loading from the disk cache, first touch, "
               "plans), apart from the timed calls.\n"
               "analysis (sptrsv): host clock around the plan's analysis and a device synchronise, the second analysis "
               "of the matrix (the first loads kernels and allocates).\n"
               "vs base: fastest baseline's median / Tessera's median on the same device (host libraries beside cpu, "
               "CUB/cuBLAS/cuSPARSE/cuDNN beside cuda:0, CLBlast/ViennaCL beside opencl:N), same process, same data: > 1 means Tessera is faster; "
               "*-tf32 lines (TF32 tensor cores) are shown but never the baseline of an exact line's ratio.\n"
               "check: every measured result against the reference backend on the same inputs (sampled = a random "
               "sample of entries computed on the host in double, for cases too slow for the reference); FAILED means "
               "a wrong result, not a time. max rel err: max |result - expected| / max |expected| over the checked "
               "entries (expected: summed in double; the reference rounds it to the dtype once), so speed is never "
               "shown without the error it costs (badly scaled gemm data, \"x2^+-E\": each entry's error over its own sum "
               "|a b|); mean rel err: the mean of the same ratio over those entries.\n"
               "[...]: what the implementation chose, where it says (spmv: format and kernel; cuDNN: algorithm and math; "
               "oneDNN: kernel; solves: method and iterations).\n"
               "tessera-tf32 / tessera-tf32x3: f32 gemm and conv_layer in the TF32 math modes (MathMode, "
               "tessera/types.hpp); tessera-tf32's ratio is against the fastest of the exact and TF32 baselines, "
               "tessera-tf32x3's against the exact ones.\n");
}

}  // namespace bench
