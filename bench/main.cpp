// tessera-bench: runs each operation on each available device beside the vendor baselines,
// checks every result against the reference backend, and reports time, GFLOP/s, GB/s, % of the
// device's measured peak and the ratio to the fastest baseline. See bench/README.md.
#include <cstdio>

#include "first_call_cache.hpp"
#include "openblas_coretype.hpp"
#include "options.hpp"
#include "plan.hpp"
#include "report.hpp"

int main(int argc, char** argv) {
  // First: may re-execute the program so OpenBLAS loads with the right core type.
  bench::ensure_openblas_coretype(argc, argv);

  bench::Options options;
  int exit_code = 0;
  if (!bench::parse_cli(argc, argv, options, exit_code)) return exit_code;
  if (options.first_call_cache) return bench::run_first_call_cache(argc, argv, options);

  bench::RunOutput out;
  try {
    out = bench::run_bench(options);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "tessera-bench: %s\n", e.what());
    return 2;
  }
  if (options.list_only) return 0;

  bench::print_table(stdout, out.info, out.rows);
  std::fflush(stdout);
  try {
    if (!options.json_path.empty()) bench::write_json(options.json_path, out.info, out.rows);
    if (!options.csv_path.empty()) bench::write_csv(options.csv_path, out.rows);
    if (!options.report_dir.empty()) bench::write_html_report(options.report_dir, out.info, out.rows);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "tessera-bench: %s\n", e.what());
    return 2;
  }
  if (out.failures > 0) {
    std::fprintf(stderr, "tessera-bench: %d result(s) FAILED their check or hit an error (see the table)\n", out.failures);
    return 1;
  }
  return 0;
}
