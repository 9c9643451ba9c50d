// One row of the report: one implementation of one case on one device.
#pragma once

#include <cmath>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "peaks.hpp"

namespace bench {

struct Row {
  std::string op, dtype, case_name;
  std::vector<std::pair<std::string, std::int64_t>> sizes;
  double flops = NAN, bytes = NAN;  // per call, from the workload's formulas
  std::string series;               // --sweep series name (empty otherwise)
  std::string bound;                // "read bandwidth", "triad bandwidth" or "flops": what limits it
  std::string device;   // device spec ("cpu", "cuda:0"); baselines: the host device they compare with
  std::string backend;  // Tessera backend name, or the baseline library
  std::string impl;     // "tessera", "openblas", "eigen", "onednn"
  std::string impl_detail;  // what the implementation chose, when it says (oneDNN's kernel)
  bool is_baseline = false;
  bool reduced_precision = false;  // a TF32 baseline line: not a ratio denominator
  std::string variant;             // the form of the operation (NamedRunner::variant), "" for most
  std::string clock;               // "host" or the device timer's ("cuda-event", "opencl-event")

  // Filled when the measurement ran (status != "n/a" / "error").
  int reps = 0;
  double first_call_ms = NAN, median_ms = NAN, min_ms = NAN, max_ms = NAN, setup_ms = NAN;
  double gflops = NAN, gbs = NAN;
  long long iterations = -1;  // a solve to convergence: the iterations it took (Runner::iterations)
  double pct_peak = NAN;  // of the peak named by peak_name
  std::string peak_name;
  // A bandwidth-bound case whose data is smaller than 2x the host's last-level cache: on a
  // CPU device its GB/s may be cache, not memory, bandwidth.
  bool in_llc = false;
  double ratio_to_baseline = NAN;  // best baseline time / this time (> 1: Tessera faster)
  std::string baseline;            // which baseline the ratio is against

  // "ok", "FAILED", "unchecked" (no oracle), "n/a" (not implemented / unavailable), "error".
  std::string check;
  double check_error = NAN;
  double check_mean_error = NAN;  // the mean of the same relative error over the checked entries
  std::string oracle;  // "reference", "sampled", ""
  std::string note;    // reason for n/a or error, or what failed

  bool measured() const { return !std::isnan(median_ms); }
};

// What the header of every report says about the run.
struct RunInfo {
  std::string machine, os, cpu_model, compiler, tessera_version, date, command_line;
  std::string cpu_simd_target;
  std::vector<std::string> cpu_simd_targets;
  int cores = 0, threads = 0;
  std::uint64_t memory_bytes = 0;
  std::uint64_t llc_bytes = 0;  // host last-level cache, 0 if unknown
  std::string openblas_core, openblas_coretype_env, openblas_note;
  std::vector<std::string> baselines;  // libraries compiled in
  std::string size;
  double min_time_s = 0;
  int min_reps = 0;
  struct DeviceLine {
    std::string spec, backend, name, vendor, type, driver, simd_target;
    int compute_units = 0;
    std::uint64_t memory_bytes = 0;
  };
  std::vector<DeviceLine> devices;
  std::vector<std::pair<std::string, std::string>> unavailable;  // backend, reason
  std::vector<Peaks> peaks;
  std::vector<std::string> notes;  // e.g. "reference device: oracle only at --size medium"
};

}  // namespace bench
