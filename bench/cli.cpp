// The command line (CLI11, through lib/tools/command_line.hpp). Defaults make the README's plain
// `tessera-bench` a complete comparison on every available device in a few minutes on 2 cores.
#include <algorithm>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

#include "cases.hpp"
#include "command_line.hpp"
#include "options.hpp"

namespace bench {

namespace {

std::string quote_arg(const std::string& a) {
  if (!a.empty() && a.find_first_of(" \t\"'\\$`") == std::string::npos) return a;
  std::string q = "'";
  for (char c : a) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

}  // namespace

bool parse_cli(int argc, char** argv, Options& out, int& exit_code) {
  tessera::tools::CommandLine cli{
      "tessera-bench: every Tessera operation on every available device, beside the vendor baselines "
      "(OpenBLAS, Eigen, oneDNN; CUB, cuBLAS, cuSPARSE, cuDNN), with measured peaks and a check of every result "
      "against the reference backend. Exit status 1 when a result is wrong."};
  cli.help_column_width(34);

  std::vector<std::string> ops, dtypes, devices = {"all"};
  std::vector<std::string> cases;
  bool no_baselines = false, no_check = false;
  cli.option("--ops", ops,
             "operations to run, comma-separated (default: all): reduce, dot, spmv, spmm, trsv, trsm, sptrsv, gemm, "
             "stencil, conv2d, conv_layer")
      .split_on(',');
  cli.option("--dtypes", dtypes, "f32, f64 or both (default: both)").split_on(',').choices({"f32", "f64"});
  cli.option("--devices", devices,
             "device specs (cpu, reference, cuda:0, opencl:1, ...) or 'all' (default). With 'all', the reference "
             "device is timed only at --size small (elsewhere it is the correctness oracle only: it is plain "
             "sequential loops); name it to time it anyway")
      .split_on(',');
  cli.option("--size", out.size,
             "named case sizes: small (CI smoke), medium (default), large (the issue-3 sizes), gpu (the CUDA "
             "issue's table, its dtypes only; with --devices cuda:0)")
      .choices({"small", "medium", "large", "gpu"});
  cli.option("--case", cases,
             "explicit case OP[:KIND][:key=value,...], repeatable; replaces the named-size cases. E.g. gemm:n=3000, "
             "spmv:random:rows=2000000, stencil:3d:n=300,radius=4 (unspecified keys keep their medium value)");
  cli.flag("--sweep", out.sweep,
           "instead of the named cases, a size series per operation up to its --size case (time against size: "
           "growth and cache boundaries)");
  cli.option("--report", out.report_dir,
             "write DIR/index.html: a self-contained page with charts (bars per device and implementation, "
             "time-against-size lines for series), viewable offline");
  cli.option("--matrix", out.matrices,
             "Matrix Market file or folder of them: adds spmv cases, spmm cases (k = 8 and 32), cg cases (SPD files "
             "only: Jacobi and IC(0)) and bicgstab cases (ILU(0)), repeatable");
  cli.option("--filter", out.case_filter, "run only cases whose name contains one of these substrings").split_on(',');
  cli.option("--min-time", out.min_time_s, "seconds of timed calls per measurement (default 0.3)").positive();
  cli.option("--reps", out.reps, "minimum timed calls per measurement (default 3)").range(1, 1000000);
  cli.option("--json", out.json_path, "write every measurement and the run's header as JSON");
  cli.option("--csv", out.csv_path, "write every measurement as CSV (one row per table row)");
  cli.flag("--no-baselines", no_baselines, "skip the vendor baselines");
  cli.flag("--no-check", no_check, "skip the correctness check (and the reference oracle runs)");
  std::string openblas_core;  // acted on before parsing (openblas_coretype.cpp); listed for --help
  cli.option("--openblas-coretype", openblas_core,
             "OpenBLAS core type to load (e.g. SkylakeX, Haswell); default: OPENBLAS_CORETYPE if set, else "
             "OpenBLAS's own choice, unless that has no AVX-512 kernels on an AVX-512 CPU (then SkylakeX)");
  cli.option("--corrupt", out.corrupt_op,
             "testing: perturb one element of Tessera's results of this operation before the check, to see a FAILED "
             "row and exit status 1")
      .group("Testing");
  cli.flag("--list", out.list_only, "print the cases and devices that would run, and exit");
  cli.flag("--first-call-cache", out.first_call_cache,
           "run the rest of the command twice in new processes, with empty then filled kernel disk caches "
           "(TESSERA_CACHE_DIR, POCL_CACHE_DIR, CUDA_CACHE_PATH in a temporary folder), and compare the first "
           "call of every OpenCL row");

  if (!cli.parse(argc, argv, exit_code)) return false;

  try {
    if (ops.empty())
      out.ops.assign(all_ops.begin(), all_ops.end());
    else
      for (const auto& o : ops) out.ops.push_back(parse_op(o));
    for (const auto& c : cases) out.explicit_cases.push_back(parse_case(c));
  } catch (const std::invalid_argument& e) {
    std::fprintf(stderr, "tessera-bench: %s\n", e.what());
    exit_code = 2;
    return false;
  }
  if (dtypes.empty()) dtypes = {"f32", "f64"};
  for (const auto& d : dtypes) out.dtypes.push_back(d == "f32" ? tessera::DType::f32 : tessera::DType::f64);

  out.devices_all = std::find(devices.begin(), devices.end(), "all") != devices.end();
  out.devices.clear();
  if (!out.devices_all) out.devices = devices;
  out.time_reference =
      out.size == "small" || std::find(out.devices.begin(), out.devices.end(), "reference") != out.devices.end();
  out.baselines = !no_baselines;
  out.check = !no_check;

  for (int i = 0; i < argc; ++i) out.command_line += (i ? " " : "") + quote_arg(argv[i]);
  return true;
}

}  // namespace bench
