#include "plan.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>

#include "baselines/baselines.hpp"
#include "cases.hpp"
#include "check.hpp"
#include "machine.hpp"
#include "measure.hpp"
#include "peaks.hpp"
#include "progress.hpp"
#include "tessera/device.hpp"
#include "tessera/errors.hpp"
#include "workload.hpp"

namespace bench {

namespace {

struct TimedDevice {
  tessera::Device device;
  const Peaks* peaks = nullptr;  // null when the peak could not be measured
  std::shared_ptr<tessera::DeviceTimer> timer;  // the device's clock (CUDA or OpenCL events), or null: host clock
};

struct Unit {
  CaseSpec spec;
  tessera::DType dtype;
};

std::uint64_t g_llc_bytes = 0;  // set once at the start of run_bench

std::string first_line(const std::string& s) { return s.substr(0, s.find('\n')); }

// Runs `f`; turns an exception into a row status: NotImplemented and unavailable backends are
// "n/a" (a gap, not a fault); anything else is an "error" that fails the run.
template <class F>
bool guarded(Row& row, F&& f) {
  try {
    f();
    return true;
  } catch (const tessera::NotImplemented& e) {
    row.check = "n/a";
    row.note = first_line(e.what());
  } catch (const tessera::BackendUnavailable& e) {
    row.check = "n/a";
    row.note = first_line(e.what());
  } catch (const Skipped& e) {
    row.check = "n/a";
    row.note = first_line(e.what());
  } catch (const std::exception& e) {
    row.check = "error";
    row.note = first_line(e.what());
  }
  return false;
}

// gpu_timed: a GPU device is among the timed ones (gpu_only cases run only then).
std::vector<Unit> plan_units(const Options& o, bool gpu_timed) {
  std::vector<CaseSpec> specs;
  for (Op op : o.ops) {
    std::vector<CaseSpec> cases;
    if (!o.explicit_cases.empty()) {
      for (const auto& c : o.explicit_cases)
        if (c.op == op) cases.push_back(c);
    } else if (o.sweep) {
      cases = sweep_cases(op, o.size);
    } else {
      cases = default_cases(op, o.size);
    }
    if ((op == Op::spmv || op == Op::spmm) && !o.sweep) {  // spmm: the same matrices, k = 8 and 32
      std::vector<std::string> mtx = o.matrices;
      if (o.size == "large" && o.explicit_cases.empty()) {
        const auto extra = large_collection_matrices(TESSERA_BENCH_DEFAULT_MATRIX_DIR);
        mtx.insert(mtx.end(), extra.begin(), extra.end());
      }
      const auto m = matrix_market_cases(mtx, op);
      cases.insert(cases.end(), m.begin(), m.end());
    }
    if (op == Op::sptrsv && !o.sweep) {  // the lower triangles of real matrices
      std::vector<std::string> mtx = o.matrices;
      if ((o.size == "large" || o.size == "gpu") && o.explicit_cases.empty()) {
        const auto extra = spd_matrices(TESSERA_BENCH_DEFAULT_MATRIX_DIR);
        mtx.insert(mtx.end(), extra.begin(), extra.end());
      }
      const auto m = matrix_market_cases(mtx, Op::sptrsv);
      cases.insert(cases.end(), m.begin(), m.end());
    }
    if (op == Op::cg && !o.sweep) {  // CG on the SPD ones (the others give n/a rows saying why)
      std::vector<std::string> mtx = o.matrices;
      if (o.size == "large" && o.explicit_cases.empty()) {
        const auto extra = large_spd_matrices(TESSERA_BENCH_DEFAULT_MATRIX_DIR);
        mtx.insert(mtx.end(), extra.begin(), extra.end());
      }
      const auto m = matrix_market_cases(mtx, Op::cg);
      cases.insert(cases.end(), m.begin(), m.end());
    }
    if (op == Op::bicgstab && !o.sweep) {  // ILU(0)-BiCGSTAB on every square real matrix given
      const auto m = matrix_market_cases(o.matrices, Op::bicgstab);
      cases.insert(cases.end(), m.begin(), m.end());
    }
    if (!gpu_timed)
      cases.erase(std::remove_if(cases.begin(), cases.end(), [](const CaseSpec& c) { return c.gpu_only; }), cases.end());
    for (auto& c : cases) {
      const bool keep = o.case_filter.empty() || std::any_of(o.case_filter.begin(), o.case_filter.end(), [&](const auto& f) {
                          return c.name.find(f) != std::string::npos;
                        });
      if (keep) specs.push_back(std::move(c));
    }
  }
  std::vector<Unit> units;
  for (const auto& s : specs)
    for (auto dt : o.dtypes)
      if (s.dtypes.empty() || std::find(s.dtypes.begin(), s.dtypes.end(), dt) != s.dtypes.end()) units.push_back({s, dt});
  return units;
}

const char* bound_name(Bound b) {
  switch (b) {
    case Bound::read_bandwidth: return "read bandwidth";
    case Bound::copy_bandwidth: return "copy bandwidth";
    case Bound::triad_bandwidth: return "triad bandwidth";
    case Bound::flops: return "flops";
    case Bound::latency: return "latency";
  }
  return "?";
}

Row base_row(const Workload& w, const std::vector<std::pair<std::string, std::int64_t>>& sizes) {
  Row r;
  r.op = to_string(w.spec().op);
  r.dtype = tessera::to_string(w.dtype());
  r.case_name = w.spec().name;
  r.series = w.spec().series;
  r.sizes = sizes;
  return r;
}

void fill_rates(Row& row, const Workload& w, const Timing& t, const Peaks* peaks) {
  // Only CPUs share the host's cache; peaks->host_memory says whether this is one.
  if (peaks && peaks->host_memory && w.bound() != Bound::flops && w.bound() != Bound::latency && g_llc_bytes > 0)
    row.in_llc = w.footprint_bytes() < 2.0 * static_cast<double>(g_llc_bytes);
  row.reps = t.reps;
  row.first_call_ms = t.first_call_ms;
  row.median_ms = t.median_ms;
  row.min_ms = t.min_ms;
  row.max_ms = t.max_ms;
  row.gflops = w.flops() / t.median_ms * 1e-6;
  row.gbs = w.bytes() / t.median_ms * 1e-6;
  if (peaks) {
    const double peak = peak_for(*peaks, w.bound(), w.dtype(), &row.peak_name);
    const double achieved = w.bound() == Bound::flops ? row.gflops : row.gbs;
    if (peak > 0) row.pct_peak = 100.0 * achieved / peak;
  }
}

// Measures one runner and checks its last result; fills the row.
// `device_timer`: the Tessera device's clock, or null; a runner with its own clock uses that.
void measure_and_check(Row& row, Runner& runner, const Workload& w, const Peaks* peaks, const Options& o,
                       const Oracle& oracle, tessera::DeviceTimer* device_timer,
                       std::vector<double>* result_out = nullptr) {
  MeasureOptions mo;
  mo.min_time_s = o.min_time_s;
  mo.min_reps = o.reps;
  const Timing t = measure(runner, mo, runner.timer() ? runner.timer() : device_timer);
  row.clock = t.clock;
  fill_rates(row, w, t, peaks);
  if (runner.setup_ms() >= 0) row.setup_ms = runner.setup_ms();
  row.iterations = runner.iterations();
  row.impl_detail = runner.detail();
  std::vector<double> got = runner.result();
  if (!o.corrupt_op.empty() && o.corrupt_op == row.op && !row.is_baseline && !result_out && !got.empty())
    got[got.size() / 2] += 1.0 + 2.0 * std::fabs(got[got.size() / 2]);  // far outside any tolerance
  if (result_out) {  // this run is the oracle itself
    *result_out = std::move(got);
    row.check = "oracle";
    row.oracle = "reference";
    return;
  }
  const CheckResult c = o.check ? check_result(oracle, got, w.dtype(), row.reduced_precision ? kTf32Tolerance : w.tolerance())
                                : CheckResult{"unchecked", -1, -1, "--no-check"};
  row.check = c.status;
  row.oracle = oracle.source;
  if (c.error >= 0) row.check_error = c.error;
  if (c.mean_error >= 0) row.check_mean_error = c.mean_error;
  if (!c.detail.empty()) row.note = c.detail;
  if (c.status == "FAILED") {  // a wrong result is not a speed: no time, rate or ratio is reported for it
    char buf[64];
    std::snprintf(buf, sizeof buf, " (median %.4g ms, not reported)", row.median_ms);
    row.note += buf;
    row.median_ms = row.min_ms = row.max_ms = row.gflops = row.gbs = row.pct_peak = NAN;
  }
}

// The oracle when the reference device is not timed: one untimed reference call on the same
// inputs, or a host-computed sample when that would take too long (see check.hpp).
Oracle compute_oracle(Workload& w, const tessera::Device& reference, const Options& o) {
  Oracle oracle;
  if (!o.check) {
    oracle.why_none = "--no-check";
    return oracle;
  }
  if (w.has_sampled_oracle() && w.oracle_cost() > kOracleBudgetFlops) return w.sampled_oracle();
  std::string why;
  try {
    if (!reference) throw tessera::BackendUnavailable("the reference device could not be opened");
    auto r = w.tessera_runner(reference);
    r->reset();
    r->run();
    r->sync();
    oracle.expected = r->result();
    oracle.source = "reference";
    oracle.scale = w.check_scale();
    return oracle;
  } catch (const std::exception& e) {
    why = "reference: " + first_line(e.what());
  }
  // No reference result: a sample computed on the host still catches a wrong answer.
  if (w.has_sampled_oracle()) return w.sampled_oracle();
  oracle.why_none = why;
  return oracle;
}

}  // namespace

RunOutput run_bench(const Options& o) {
  RunOutput out;
  RunInfo& info = out.info;
  info = collect_run_info(o);
  g_llc_bytes = info.llc_bytes;

  // ---- devices ----
  std::vector<std::string> specs;
  if (o.devices_all) {
    for (const auto& d : tessera::devices()) specs.push_back(d.spec);
  } else {
    specs = o.devices;
  }
  for (const auto& b : tessera::backends())
    if (!b.available) info.unavailable.emplace_back(b.name, b.reason);

  tessera::Device reference;
  try {
    reference = tessera::Device::open("reference");
  } catch (const std::exception& e) {
    info.notes.push_back(std::string("reference device unavailable (no correctness oracle): ") + e.what());
  }

  std::vector<TimedDevice> timed;
  for (const auto& spec : specs) {
    if (spec == "reference" && !o.time_reference) {
      info.notes.push_back(
          "reference device: correctness oracle only (plain sequential loops: too slow to time at --size " + o.size +
          "; --devices reference,... times it)");
      continue;
    }
    try {
      timed.push_back({tessera::Device::open(spec), nullptr, nullptr});
    } catch (const std::exception& e) {
      info.notes.push_back("device " + spec + " skipped: " + first_line(e.what()));
      std::fprintf(stderr, "tessera-bench: device %s skipped: %s\n", spec.c_str(), first_line(e.what()).c_str());
    }
  }
  // The device clocks (events on the backend's stream or queue), once per device; host clock elsewhere.
  for (auto& td : timed) {
    try {
      td.timer = td.device.backend().device_timer(td.device.queue().backend_queue());
    } catch (const std::exception& e) {
      info.notes.push_back("device " + td.device.spec() + ": no device clock, host clock used: " + first_line(e.what()));
    }
    if (td.timer)
      info.notes.push_back("device " + td.device.spec() + " timed with its " + td.timer->clock() +
                           " clock (marks on its queue); host steady_clock around synchronize elsewhere");
  }
  // The reference (if timed) runs first: its result is then the oracle of the devices after it.
  std::stable_partition(timed.begin(), timed.end(), [](const TimedDevice& d) { return d.device.spec() == "reference"; });
  for (const auto& td : timed) {
    const auto& di = td.device.info();
    info.devices.push_back({di.spec, di.backend, di.name, di.vendor, di.type, di.driver, di.simd_target, di.compute_units,
                            di.memory_bytes});
  }

  {
    std::vector<std::string> timed_specs;
    for (const auto& td : timed) timed_specs.push_back(td.device.spec());
    set_baseline_devices(timed_specs);
  }
  const bool gpu_timed = std::any_of(timed.begin(), timed.end(), [](const TimedDevice& td) { return td.device.info().type == "gpu"; });
  const auto units = plan_units(o, gpu_timed);
  if (o.list_only) {
    for (const auto& d : timed) std::printf("device   %s\n", d.device.spec().c_str());
    for (const auto& u : units)
      std::printf("case     %-10s %s  %s\n", to_string(u.spec.op), tessera::to_string(u.dtype), u.spec.name.c_str());
    return out;
  }

  // ---- peaks, once per device (the host's once for all CPU devices) ----
  Progress progress(static_cast<int>(units.size()));
  info.peaks.reserve(timed.size() + 1);  // rows point into it
  const Peaks* host_peaks = nullptr;
  for (auto& td : timed) {
    const bool on_host = td.device.info().type == "cpu";
    // A CPU OpenCL device (PoCL) shares the host's bandwidths but has its own FMA peak.
    const bool own_flops = on_host && has_own_flops_peak(td.device);
    if (on_host && host_peaks && !own_flops) {
      td.peaks = host_peaks;
      continue;
    }
    progress.update(0, "measuring the peaks of " + td.device.spec());
    try {
      if (on_host && !host_peaks) {
        info.peaks.push_back(measure_host_peaks());
        host_peaks = &info.peaks.back();
      }
      if (!on_host)
        info.peaks.push_back(measure_device_copy_peak(td.device));
      else if (own_flops)
        info.peaks.push_back(measure_host_device_peaks(td.device, *host_peaks));
      td.peaks = &info.peaks.back();
    } catch (const std::exception& e) {
      td.peaks = on_host ? host_peaks : nullptr;  // a CPU device keeps at least the host's
      info.notes.push_back("peak of " + td.device.spec() + " not measured: " + first_line(e.what()));
    }
  }
  const std::string host_device = "cpu";  // where host baselines' errors are reported

  // ---- the cases ----
  int index = 0;
  for (const auto& u : units) {
    ++index;
    const std::string what = std::string(to_string(u.spec.op)) + " " + tessera::to_string(u.dtype) + " " + u.spec.name;
    auto w = make_workload(u.spec, u.dtype);

    progress.update(index, what + ": generating inputs");
    Row proto = base_row(*w, u.spec.sizes);
    const bool generated = guarded(proto, [&] { w->generate(); });
    if (!generated) {  // the whole case is missing: one row per device says why
      for (const auto& td : timed) {
        Row r = proto;
        r.device = td.device.spec();
        r.backend = td.device.info().backend;
        r.impl = "tessera";
        r.note = "inputs: " + proto.note;
        out.rows.push_back(r);
      }
      if (proto.check == "error") ++out.failures;
      continue;
    }
    proto.sizes = w->sizes();
    proto.flops = w->flops();
    proto.bytes = w->bytes();
    proto.bound = bound_name(w->bound());

    Oracle oracle;
    const bool reference_timed = !timed.empty() && timed.front().device.spec() == "reference";
    if (!reference_timed) {
      progress.update(index, what + ": reference oracle");
      oracle = compute_oracle(*w, reference, o);
    } else if (!o.check) {
      oracle.why_none = "--no-check";
    }

    const std::size_t first_row = out.rows.size();
    // A gpu_only case: GPU devices and the baselines beside them only.
    auto on_gpu = [&](const std::string& spec) {
      return std::any_of(timed.begin(), timed.end(),
                         [&](const TimedDevice& td) { return td.device.spec() == spec && td.device.info().type == "gpu"; });
    };
    for (const auto& td : timed) {
      if (u.spec.gpu_only && !on_gpu(td.device.spec())) continue;
      const bool is_ref = td.device.spec() == "reference";
      progress.update(index, what + ": " + td.device.spec() + " tessera");
      Row r = proto;
      r.device = td.device.spec();
      r.backend = td.device.info().backend;
      r.impl = "tessera";
      std::vector<double> ref_result;
      const bool produces_oracle = is_ref && o.check;
      guarded(r, [&] {
        auto runner = w->tessera_runner(td.device);
        measure_and_check(r, *runner, *w, td.peaks, o, oracle, td.timer.get(), produces_oracle ? &ref_result : nullptr);
      });
      if (produces_oracle) {
        if (r.check == "oracle") {
          oracle.source = "reference";
          oracle.expected = std::move(ref_result);
          oracle.scale = w->check_scale();
        } else {
          oracle.why_none = "reference: " + r.note;
          if (w->has_sampled_oracle()) oracle = w->sampled_oracle();
        }
      }
      out.rows.push_back(std::move(r));

      // Other forms of the operation on this device (dot into a Scalar), after the oracle.
      std::vector<NamedRunner> variants;
      Row verr = proto;
      verr.device = td.device.spec();
      verr.backend = td.device.info().backend;
      verr.impl = "tessera";
      if (!guarded(verr, [&] { variants = w->tessera_variants(td.device); })) out.rows.push_back(verr);
      for (auto& v : variants) {
        progress.update(index, what + ": " + td.device.spec() + " " + v.impl);
        Row vr = proto;
        vr.device = td.device.spec();
        vr.backend = td.device.info().backend;
        vr.impl = v.impl;
        vr.variant = v.variant;
        vr.reduced_precision = v.reduced_precision;
        guarded(vr, [&] { measure_and_check(vr, *v.runner, *w, td.peaks, o, oracle, td.timer.get()); });
        v.runner.reset();
        out.rows.push_back(std::move(vr));
      }
    }

    if (o.baselines) {
      std::vector<NamedRunner> baselines;
      Row err = proto;
      err.device = host_device;
      err.impl = "baselines";
      if (!guarded(err, [&] { baselines = w->baseline_runners(); })) out.rows.push_back(err);
      for (auto& b : baselines) {
        if (u.spec.gpu_only && !on_gpu(b.device)) continue;
        progress.update(index, what + ": " + b.impl);
        Row r = proto;
        r.device = b.device;
        r.backend = b.impl;
        r.impl = b.impl;
        r.is_baseline = true;
        r.reduced_precision = b.reduced_precision;
        r.variant = b.variant;
        const Peaks* peaks = host_peaks;
        for (const auto& td : timed)
          if (td.device.spec() == b.device) peaks = td.peaks;
        guarded(r, [&] { measure_and_check(r, *b.runner, *w, peaks, o, oracle, nullptr); });
        b.runner.reset();  // frees its copies before the next one allocates
        out.rows.push_back(std::move(r));
      }
    }

    // ratio_to_baseline on each Tessera row: the fastest baseline on the same device whose
    // result is not wrong, among those computing in the operation's own precision (a TF32
    // line is shown beside it, never the denominator of an exact row) and the row's form
    // (variant): a TF32 row (Tessera's MathMode::tf32, variant kTf32Variant) against the
    // fastest of the TF32 and exact baselines.
    for (std::size_t i = first_row; i < out.rows.size(); ++i) {
      Row& t = out.rows[i];
      if (t.is_baseline || !t.measured()) continue;
      const Row* best = nullptr;
      for (std::size_t j = first_row; j < out.rows.size(); ++j) {
        const Row& b = out.rows[j];
        if (b.is_baseline && (!b.reduced_precision || (!t.variant.empty() && b.variant == t.variant)) &&
            b.device == t.device && b.measured() &&
            (b.variant.empty() || b.variant == t.variant) &&
            (!best || b.median_ms < best->median_ms))
          best = &b;
      }
      if (best) {
        t.ratio_to_baseline = best->median_ms / t.median_ms;
        t.baseline = best->impl;
      }
    }
    for (std::size_t i = first_row; i < out.rows.size(); ++i)
      if (out.rows[i].check == "FAILED" || out.rows[i].check == "error") ++out.failures;

    w->release();
  }
  progress.clear();
  return out;
}

}  // namespace bench
