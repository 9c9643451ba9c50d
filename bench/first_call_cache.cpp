#include "first_call_cache.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace bench {

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

struct Child {
  int status = 2;     // exit status; 2 when it could not run
  json results;       // the "results" array of its JSON
  std::string error;  // why it could not run or be read
};

// Runs this program again with `args` and the cache variables pointing into `dir`.
Child run_child(const std::vector<std::string>& args, const fs::path& dir, const fs::path& json_path) {
  Child c;
  std::vector<char*> argv;
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  std::fflush(stdout);
  std::fflush(stderr);
  const pid_t pid = fork();
  if (pid < 0) {
    c.error = "fork failed";
    return c;
  }
  if (pid == 0) {
    setenv("TESSERA_CACHE_DIR", (dir / "tessera").c_str(), 1);
    setenv("POCL_CACHE_DIR", (dir / "pocl").c_str(), 1);
    setenv("CUDA_CACHE_PATH", (dir / "nvidia").c_str(), 1);
    execv("/proc/self/exe", argv.data());
    std::perror("tessera-bench --first-call-cache: exec");
    _exit(127);
  }
  int ws = 0;
  if (waitpid(pid, &ws, 0) != pid || !WIFEXITED(ws)) {
    c.error = "the child process did not exit normally";
    return c;
  }
  c.status = WEXITSTATUS(ws);
  if (c.status != 0 && c.status != 1) {
    c.error = "the child process exited with status " + std::to_string(c.status);
    return c;
  }
  try {
    std::ifstream f(json_path);
    c.results = json::parse(f).at("results");
  } catch (const std::exception& e) {
    c.error = std::string("reading ") + json_path.string() + ": " + e.what();
    c.status = 2;
  }
  return c;
}

std::string key(const json& r) {
  return r.value("op", "") + "|" + r.value("dtype", "") + "|" + r.value("case", "") + "|" + r.value("device", "") +
         "|" + r.value("impl", "");
}

double first_call(const json& r) {
  const auto it = r.find("first_call_ms");
  return it != r.end() && it->is_number() ? it->get<double>() : NAN;
}

std::string ms(double v) {
  char buf[32];
  if (std::isnan(v)) return "-";
  std::snprintf(buf, sizeof buf, v < 10 ? "%.3f" : "%.1f", v);
  return buf;
}

std::string pct(double warm, double cold) {
  char buf[32];
  if (std::isnan(warm) || std::isnan(cold) || cold <= 0) return "-";
  std::snprintf(buf, sizeof buf, "%.1f%%", 100.0 * warm / cold);
  return buf;
}

}  // namespace

int run_first_call_cache(int argc, char** argv, const Options& o) {
  if (!o.json_path.empty() || !o.csv_path.empty() || !o.report_dir.empty() || o.list_only) {
    std::fprintf(stderr,
                 "tessera-bench: --first-call-cache prints its own comparison; it does not combine with --json, "
                 "--csv, --report or --list\n");
    return 2;
  }
  std::error_code ec;
  std::string tmpl = (fs::temp_directory_path(ec) / "tessera-first-call-XXXXXX").string();
  if (ec || mkdtemp(tmpl.data()) == nullptr) {
    std::fprintf(stderr, "tessera-bench: cannot create a temporary folder for --first-call-cache\n");
    return 2;
  }
  const fs::path dir = tmpl;

  std::vector<std::string> args{argv[0]};
  for (int i = 1; i < argc; ++i)
    if (std::string(argv[i]) != "--first-call-cache") args.push_back(argv[i]);
  args.push_back("--json");

  const char* names[2] = {"cold", "warm"};
  Child runs[2];
  for (int i = 0; i < 2; ++i) {
    const fs::path json_path = dir / (std::string(names[i]) + ".json");
    std::vector<std::string> a = args;
    a.push_back(json_path.string());
    std::printf("==== %s run: TESSERA_CACHE_DIR=%s, POCL_CACHE_DIR=%s, CUDA_CACHE_PATH=%s (%s) ====\n", names[i],
                (dir / "tessera").c_str(), (dir / "pocl").c_str(), (dir / "nvidia").c_str(),
                i == 0 ? "empty" : "filled by the cold run");
    runs[i] = run_child(a, dir, json_path);
    if (!runs[i].error.empty()) {
      std::fprintf(stderr, "tessera-bench --first-call-cache: %s run: %s\n", names[i], runs[i].error.c_str());
      fs::remove_all(dir, ec);
      return 2;
    }
  }

  std::map<std::string, const json*> warm;
  for (const auto& r : runs[1].results) warm[key(r)] = &r;
  std::printf("\n==== first call with cold and warm kernel disk caches (OpenCL devices; a new process each) ====\n");
  std::printf("%-10s %-5s %-30s %-9s %-9s %12s %12s %10s\n", "op", "dtype", "case", "device", "impl", "cold ms",
              "warm ms", "warm/cold");
  struct Total {
    double cold = 0, warm = 0;
  };
  std::map<std::string, Total> totals;  // "device impl"
  int rows = 0;
  for (const auto& r : runs[0].results) {
    const std::string device = r.value("device", "");
    if (device.rfind("opencl:", 0) != 0) continue;
    const auto it = warm.find(key(r));
    const double c = first_call(r), w = it == warm.end() ? NAN : first_call(*it->second);
    std::printf("%-10s %-5s %-30s %-9s %-9s %12s %12s %10s\n", r.value("op", "").c_str(), r.value("dtype", "").c_str(),
                r.value("case", "").c_str(), device.c_str(), r.value("impl", "").c_str(), ms(c).c_str(), ms(w).c_str(),
                pct(w, c).c_str());
    ++rows;
    if (!std::isnan(c) && !std::isnan(w)) {
      Total& t = totals[device + " " + r.value("impl", "")];
      t.cold += c;
      t.warm += w;
    }
  }
  if (rows == 0) std::printf("(no OpenCL device among the rows: --devices opencl:N)\n");
  for (const auto& [who, t] : totals)
    std::printf("total %-30s cold %10s ms   warm %10s ms   warm/cold %s\n", who.c_str(), ms(t.cold).c_str(),
                ms(t.warm).c_str(), pct(t.warm, t.cold).c_str());
  std::printf(
      "A row's first call includes compiling (cold) or loading (warm) the kernels it is the first to use in its "
      "process; later cases of the same program find it in memory in both runs.\n");
  fs::remove_all(dir, ec);
  return std::max(runs[0].status, runs[1].status);
}

}  // namespace bench
