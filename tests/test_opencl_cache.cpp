// The OpenCL disk cache against odd entries in its folder (each case a new process, since a
// device reads its cache folder when it opens): a directory, a FIFO or a link to /dev/zero in
// place of a cached program is a miss (no exception, no hang, no unbounded read), and a driver
// crash while loading a cached binary (simulated: the marker a loading process leaves, of a
// process that no longer runs) makes the next run rebuild from source, a second crash makes
// that program bypass the cache.
#include <doctest/doctest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "tessera/tessera.hpp"

namespace fs = std::filesystem;

namespace {

struct Run {
  int status = -1;
  std::string output;  // stdout and stderr
};

// The probe beside this test binary (a carried build, e.g. on the GPU machine), else where the
// build put it.
std::string probe_path() {
  std::error_code ec;
  const fs::path beside = fs::read_symlink("/proc/self/exe", ec).parent_path() / "tessera-opencl-cache-probe";
  return !ec && fs::exists(beside) ? beside.string() : std::string(TESSERA_OPENCL_CACHE_PROBE);
}

// The probe with TESSERA_CACHE_DIR=dir and verbose cache logging; killed after 120 s (a hang
// is a failure, not a stuck test).
Run probe(const fs::path& dir) {
  const std::string cmd = "TESSERA_CACHE_DIR='" + dir.string() +
                          "' TESSERA_OPENCL_VERBOSE=1 TESSERA_OPENCL_DISK_CACHE=1 timeout 120 '" + probe_path() +
                          "' 2>&1";
  Run r;
  FILE* p = ::popen(cmd.c_str(), "r");
  REQUIRE(p != nullptr);
  char buf[4096];
  for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, p)) > 0;) r.output.append(buf, n);
  const int st = ::pclose(p);
  r.status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  return r;
}

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

std::vector<fs::path> cache_files(const fs::path& dir) {
  std::vector<fs::path> out;
  for (const auto& e : fs::directory_iterator(dir / "opencl"))
    if (e.path().extension() == ".clbin") out.push_back(e.path());
  return out;
}

// A pid that no process has now: a child that has exited and been reaped.
long dead_pid() {
  const pid_t child = ::fork();
  if (child == 0) ::_exit(0);
  int st = 0;
  ::waitpid(child, &st, 0);
  return child;
}

}  // namespace

TEST_CASE("opencl disk cache: odd entries are misses, a crash while loading is rebuilt, then bypassed") {
  // Without an OpenCL device here (e.g. under QEMU, where the probe could not even be started
  // without binfmt) there is nothing to test.
  bool has_opencl = false;
  for (const auto& info : tessera::devices()) has_opencl = has_opencl || info.backend == "opencl";
  if (!has_opencl) {
    MESSAGE("SKIPPED: no OpenCL device");
    return;
  }
  const fs::path dir = fs::temp_directory_path() / ("tessera-cache-test-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  Run first = probe(dir);
  if (first.status == 77) {
    MESSAGE("SKIPPED: " << first.output);
    return;
  }
  INFO(first.output);
  REQUIRE(first.status == 0);
  REQUIRE(contains(first.output, "sum=1000"));
  const std::vector<fs::path> files = cache_files(dir);
  REQUIRE(!files.empty());
  const fs::path f = files.front();

  auto expect_rebuilt = [&](const char* what) {
    const Run r = probe(dir);
    INFO(what << ":\n" << r.output);
    CHECK(r.status == 0);
    CHECK(contains(r.output, "sum=1000"));
    CHECK(contains(r.output, "from source"));
  };
  // A second run loads the binary.
  {
    const Run r = probe(dir);
    INFO(r.output);
    CHECK(contains(r.output, "loaded " + f.string()));
  }
  for (const auto& other : files) fs::remove(other);
  fs::create_directory(f);
  expect_rebuilt("a directory in place of the file");
  fs::remove_all(f);
  REQUIRE(::mkfifo(f.c_str(), 0644) == 0);
  expect_rebuilt("a FIFO in place of the file");
  fs::remove(f);
  fs::create_symlink("/dev/zero", f);
  expect_rebuilt("a link to /dev/zero in place of the file");
  fs::remove(f);
  probe(dir);  // a good file again
  REQUIRE(fs::is_regular_file(f));

  // A loader that died: its marker stays. The next run deletes the binary and rebuilds it.
  std::FILE* m = std::fopen((f.string() + ".loading." + std::to_string(dead_pid())).c_str(), "w");
  REQUIRE(m != nullptr);
  std::fclose(m);
  expect_rebuilt("after one crash");
  CHECK(fs::exists(f.string() + ".crashed"));
  CHECK(fs::is_regular_file(f));  // written again
  // A second crash: that program no longer uses the disk cache.
  m = std::fopen((f.string() + ".loading." + std::to_string(dead_pid())).c_str(), "w");
  REQUIRE(m != nullptr);
  std::fclose(m);
  expect_rebuilt("after a second crash");
  CHECK(fs::exists(f.string() + ".bypass"));
  {
    const Run r = probe(dir);
    INFO(r.output);
    CHECK(contains(r.output, "sum=1000"));
    CHECK(contains(r.output, "from source"));
    CHECK(!fs::exists(f));
  }
  fs::remove_all(dir);
}
