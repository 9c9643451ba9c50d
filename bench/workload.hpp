// Workload: one case in one dtype. It owns the host inputs, knows its FLOP and byte counts,
// and makes runners: Tessera on a device, and the baselines that implement it.
#pragma once

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "case_spec.hpp"
#include "check.hpp"
#include "runner.hpp"
#include "tessera/device.hpp"
#include "tessera/types.hpp"

namespace bench {

// Thrown when a case cannot run for a reason that is not a fault (e.g. a complex Matrix Market
// file in a folder given to --matrix): the rows say n/a with the reason, the run still passes.
class Skipped : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Which measured peak a result is a percentage of: read, copy (operations that write as much as
// they read, or about: axpy, copy) or triad bandwidth, FLOP/s; `latency` has none (launch).
enum class Bound { read_bandwidth, copy_bandwidth, triad_bandwidth, flops, latency };

struct NamedRunner {
  std::string impl;  // "openblas", "eigen", "onednn"
  std::unique_ptr<Runner> runner;
  // The Tessera device this baseline is compared with: "cpu" for host libraries; a GPU
  // library would name its device ("cuda:0").
  std::string device = "cpu";
  // A line that trades accuracy for speed (TF32 tensor cores): shown and checked with
  // kTf32Tolerance, but never the baseline Tessera's ratio is taken against (exact arithmetic).
  bool reduced_precision = false;
  // Which form of the operation the runner computes, where there are several (dot: "" returns
  // the value to the host; "scalar" leaves it on the device, in a tessera::Scalar or cuBLAS's
  // device pointer mode). A Tessera row's ratio is taken against baselines of its own variant
  // and those with none (host libraries, whose result is in host memory either way).
  std::string variant = "";
};

// The variant of the lines that multiply on TF32 tensor cores (cuBLAS/cuDNN TF32, Tessera's
// MathMode::tf32): reduced-precision lines whose ratios are taken among themselves.
inline constexpr const char* kTf32Variant = "tf32";

class Workload {
 public:
  Workload(CaseSpec spec, tessera::DType dtype) : spec_(std::move(spec)), dtype_(dtype) {}
  virtual ~Workload() = default;

  const CaseSpec& spec() const { return spec_; }
  tessera::DType dtype() const { return dtype_; }

  // Builds the host inputs (fixed seed, never zeros). May throw (e.g. a generator that is not
  // implemented, an unreadable Matrix Market file); then the whole case is reported n/a.
  virtual void generate() = 0;
  // Frees the host inputs once every runner is done.
  virtual void release() = 0;

  // Valid after generate(). Formulas are documented in each workloads/<op>.cpp.
  virtual double flops() const = 0;
  virtual double bytes() const = 0;
  virtual Bound bound() const = 0;
  // Bytes of data the operation works on (for the cache-size flag); by default the bytes one
  // call moves, which is the same for single-pass operations.
  virtual double footprint_bytes() const { return bytes(); }
  // Size parameters for the report: the spec's plus what generation found (e.g. nnz).
  virtual std::vector<std::pair<std::string, std::int64_t>> sizes() const { return spec_.sizes; }

  // Floating-point operations the reference backend would spend on one call; above the
  // oracle budget the check uses sampled_oracle() instead (see check.hpp).
  virtual double oracle_cost() const { return flops(); }
  // Expected values of a sample of the output computed on the host in double; only workloads
  // whose reference run can be too slow provide one.
  virtual bool has_sampled_oracle() const { return false; }
  virtual Oracle sampled_oracle() const { return {}; }
  // The scale errors are measured against (0: max |expected|); reductions use sum |terms|,
  // because their result can be much smaller than the terms (cancellation).
  virtual double check_scale() const { return 0.0; }

  // The check's tolerance when the operation needs its own (0: tolerance(dtype)); an iterative
  // method's rounding differences grow with the iterations (cg).
  virtual double tolerance() const { return 0.0; }

  virtual std::unique_ptr<Runner> tessera_runner(const tessera::Device& device) = 0;
  // Further Tessera forms of the operation on the device, each a row of its own named by impl
  // (dot into a Scalar beside the dot that returns the value); checked like the main one.
  virtual std::vector<NamedRunner> tessera_variants(const tessera::Device&) { return {}; }
  virtual std::vector<NamedRunner> baseline_runners() { return {}; }

 private:
  CaseSpec spec_;
  tessera::DType dtype_;
};

// One factory per workloads/<op>.cpp; make_workload dispatches on spec.op.
std::unique_ptr<Workload> make_workload(const CaseSpec& spec, tessera::DType dtype);
std::unique_ptr<Workload> make_reduce_workload(const CaseSpec& spec, tessera::DType dtype);
std::unique_ptr<Workload> make_spmv_workload(const CaseSpec& spec, tessera::DType dtype);
std::unique_ptr<Workload> make_spmm_workload(const CaseSpec& spec, tessera::DType dtype);
std::unique_ptr<Workload> make_trsv_workload(const CaseSpec& spec, tessera::DType dtype);
std::unique_ptr<Workload> make_sptrsv_workload(const CaseSpec& spec, tessera::DType dtype);
std::unique_ptr<Workload> make_gemm_workload(const CaseSpec& spec, tessera::DType dtype);
std::unique_ptr<Workload> make_stencil_workload(const CaseSpec& spec, tessera::DType dtype);
std::unique_ptr<Workload> make_conv_workload(const CaseSpec& spec, tessera::DType dtype);
std::unique_ptr<Workload> make_vector_workload(const CaseSpec& spec, tessera::DType dtype);
std::unique_ptr<Workload> make_launch_workload(const CaseSpec& spec, tessera::DType dtype);
std::unique_ptr<Workload> make_cg_workload(const CaseSpec& spec, tessera::DType dtype);
std::unique_ptr<Workload> make_bicgstab_workload(const CaseSpec& spec, tessera::DType dtype);

}  // namespace bench
