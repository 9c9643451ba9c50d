// Command-line options of tessera-bench (parsed in cli.cpp).
#pragma once

#include <string>
#include <vector>

#include "case_spec.hpp"

namespace bench {

struct Options {
  std::vector<Op> ops;           // in run order
  std::vector<tessera::DType> dtypes;
  std::vector<std::string> devices;       // specs; empty with devices_all
  bool devices_all = true;
  std::string size = "medium";
  double min_time_s = 0.3;
  int reps = 3;
  std::string json_path, csv_path;
  bool baselines = true;
  bool check = true;
  bool time_reference = false;            // resolved: time the reference device too?
  std::vector<CaseSpec> explicit_cases;   // --case; when set, replaces the named-size cases
  bool sweep = false;                     // --sweep: size series instead of the named cases
  std::string report_dir;                 // --report: HTML page with charts
  std::vector<std::string> matrices;      // --matrix files or folders (spmv cases)
  std::vector<std::string> case_filter;   // --filter: substrings of case names
  bool list_only = false;                 // --list: print the plan, run nothing
  bool first_call_cache = false;          // --first-call-cache: cold vs warm kernel disk caches
  std::string corrupt_op;                 // --corrupt: testing hook, see cli.cpp
  std::string command_line;
};

// Parses argv. Returns false when the program should exit with `exit_code` (help, bad usage).
bool parse_cli(int argc, char** argv, Options& out, int& exit_code);

}  // namespace bench
