// The run: open the devices, measure their peaks, then for every case and dtype generate the
// inputs, get the oracle, time Tessera on each device and each baseline, and check each result.
#pragma once

#include <vector>

#include "options.hpp"
#include "result.hpp"

namespace bench {

struct RunOutput {
  RunInfo info;
  std::vector<Row> rows;
  int failures = 0;  // rows whose check FAILED or that hit an unexpected error
};

RunOutput run_bench(const Options& options);

}  // namespace bench
