// JSON: {"header": {...the run...}, "results": [ one object per row ]}. Numbers that do not
// exist for a row (a time of an n/a row, a ratio without a baseline) are null.
#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "report.hpp"

namespace bench {

namespace {

using json = nlohmann::ordered_json;

json num(double v) { return std::isnan(v) ? json(nullptr) : json(v); }
json str_or_null(const std::string& s) { return s.empty() ? json(nullptr) : json(s); }

json peaks_json(const Peaks& p) {
  // Bandwidths: STREAM-style read/copy/triad on CPUs, device copy (read + write) on GPUs.
  // FLOP/s: flops_kind says whose: "fma" (the bench's FMA loop) or "gemm" (the vendor GEMM).
  return json{{"scope", p.scope},
              {"read_gbs", num(p.read_gbs)},
              {"copy_gbs", num(p.copy_gbs)},
              {"triad_gbs", num(p.triad_gbs)},
              {"flops_kind", str_or_null(p.flops_kind)},
              {"f32_gflops", num(p.gflops_f32)},
              {"f64_gflops", num(p.gflops_f64)},
              {"method", p.method}};
}

}  // namespace

void write_json(const std::string& path, const RunInfo& i, const std::vector<Row>& rows) {
  json devices = json::array();
  for (const auto& d : i.devices)
    devices.push_back({{"spec", d.spec},
                       {"backend", d.backend},
                       {"name", d.name},
                       {"vendor", d.vendor},
                       {"type", d.type},
                       {"compute_units", d.compute_units},
                       {"memory_bytes", d.memory_bytes},
                       {"driver", str_or_null(d.driver)},
                       {"simd_target", str_or_null(d.simd_target)}});
  json unavailable = json::array();
  for (const auto& [b, why] : i.unavailable) unavailable.push_back({{"backend", b}, {"reason", why}});
  json peaks = json::array();
  for (const auto& p : i.peaks) peaks.push_back(peaks_json(p));

  json header = {
      {"tool", "tessera-bench"},
      {"tessera_version", i.tessera_version},
      {"date", i.date},
      {"command_line", i.command_line},
      {"machine", i.machine},
      {"os", i.os},
      {"cpu_model", i.cpu_model},
      {"cores", i.cores},
      {"omp_threads", i.threads},
      {"memory_bytes", i.memory_bytes},
      {"llc_bytes", i.llc_bytes},
      {"compiler", i.compiler},
      {"cpu_simd_target", i.cpu_simd_target},
      {"cpu_simd_targets", i.cpu_simd_targets},
      {"openblas_corename", str_or_null(i.openblas_core)},
      {"openblas_coretype_env", str_or_null(i.openblas_coretype_env)},
      {"openblas_coretype_note", str_or_null(i.openblas_note)},
      {"baselines", i.baselines},
      {"size", i.size},
      {"min_time_s", i.min_time_s},
      {"min_reps", i.min_reps},
      {"devices", devices},
      {"unavailable_backends", unavailable},
      {"peaks", peaks},
      {"notes", i.notes},
      {"units", {{"time", "ms"}, {"gflops", "1e9 flop/s"}, {"gbs", "1e9 byte/s"},
                 {"ratio_to_baseline", "best baseline median / this median (> 1: Tessera faster)"}}},
  };

  json results = json::array();
  for (const Row& r : rows) {
    json sizes = json::object();
    for (const auto& [k, v] : r.sizes) sizes[k] = v;
    results.push_back({{"op", r.op},
                       {"dtype", r.dtype},
                       {"case", r.case_name},
                       {"sizes", sizes},
                       {"series", str_or_null(r.series)},
                       {"flops", num(r.flops)},
                       {"bytes", num(r.bytes)},
                       {"bound", str_or_null(r.bound)},
                       {"device", r.device},
                       {"backend", r.backend},
                       {"impl", r.impl},
                       {"impl_detail", str_or_null(r.impl_detail)},
                       {"reduced_precision", r.reduced_precision},
                       {"variant", str_or_null(r.variant)},
                       {"clock", str_or_null(r.clock)},
                       {"reps", r.reps},
                       {"median_ms", num(r.median_ms)},
                       {"min_ms", num(r.min_ms)},
                       {"max_ms", num(r.max_ms)},
                       {"first_call_ms", num(r.first_call_ms)},
                       {"setup_ms", num(r.setup_ms)},
                       {"iterations", r.iterations >= 0 ? json(r.iterations) : json(nullptr)},
                       {"gflops", num(r.gflops)},
                       {"gbs", num(r.gbs)},
                       {"pct_peak", num(r.pct_peak)},
                       {"peak", str_or_null(r.peak_name)},
                       {"in_llc", r.in_llc},
                       {"ratio_to_baseline", num(r.ratio_to_baseline)},
                       {"baseline", str_or_null(r.baseline)},
                       {"check", r.check},
                       {"check_error", num(r.check_error)},
                       {"check_mean_error", num(r.check_mean_error)},
                       {"oracle", str_or_null(r.oracle)},
                       {"note", str_or_null(r.note)}});
  }

  std::ofstream f(path);
  if (!f) throw std::runtime_error("cannot write " + path);
  f << json{{"header", header}, {"results", results}}.dump(2) << '\n';
  if (!f) throw std::runtime_error("error writing " + path);
}

}  // namespace bench
