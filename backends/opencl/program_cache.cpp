#include "program_cache.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <map>
#include <vector>

#include "embedded_kernels.hpp"
#include "tessera/errors.hpp"
#include "tessera/version.hpp"

namespace tessera::opencl {

namespace {

// FNV-1a, 128-bit for cache keys (file names: collisions must be negligible) and 64-bit for the
// payload checksum (detects truncated or corrupted files, not attacks).
using u128 = unsigned __int128;

u128 fnv1a_128(const std::string& s) {
  u128 h = (static_cast<u128>(0x6c62272e07bb0142ULL) << 64) | 0x62b821756295c58dULL;
  const u128 prime = (static_cast<u128>(1) << 88) | 0x13bU;
  for (unsigned char c : s) {
    h ^= c;
    h *= prime;
  }
  return h;
}

std::uint64_t fnv1a_64(const unsigned char* p, std::size_t n) {
  std::uint64_t h = 0xcbf29ce484222325ULL;
  for (std::size_t i = 0; i < n; ++i) {
    h ^= p[i];
    h *= 0x100000001b3ULL;
  }
  return h;
}

std::string hex128(u128 v) {
  char buf[33];
  std::snprintf(buf, sizeof buf, "%016llx%016llx", static_cast<unsigned long long>(v >> 64),
                static_cast<unsigned long long>(v));
  return buf;
}

// Header of a cache file, followed by the binary. The key hash repeats the file name, so a
// file renamed or copied by hand is not loaded for the wrong program.
constexpr char kMagic[16] = {'T', 'E', 'S', 'S', 'E', 'R', 'A', '-', 'O', 'C', 'L', '-', 'B', 'I', 'N', '\n'};
constexpr std::uint32_t kFormat = 1;
struct FileHeader {
  char magic[16];
  std::uint32_t format;
  std::uint32_t reserved;
  std::uint64_t key_hi, key_lo;
  std::uint64_t payload_size;
  std::uint64_t payload_checksum;
};

const std::string& embedded(const std::string& file) {
  static std::map<std::string, std::string> texts = [] {
    std::map<std::string, std::string> m;
    for (const auto& s : embedded_sources()) m.emplace(s.name, std::string(s.text, s.size));
    return m;
  }();
  const auto it = texts.find(file);
  if (it == texts.end()) throw Error("opencl: no embedded kernel source named " + file + " (a plugin build error)");
  return it->second;
}

bool make_dirs(const std::string& path) {
  std::string partial;
  std::size_t pos = 0;
  while (pos != std::string::npos) {
    pos = path.find('/', pos + 1);
    partial = path.substr(0, pos);
    if (partial.empty()) continue;
    if (::mkdir(partial.c_str(), 0755) != 0 && errno != EEXIST) return false;
  }
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

std::string first_lines(const std::string& text, int lines) {
  std::size_t pos = 0;
  for (int i = 0; i < lines && pos != std::string::npos; ++i) {
    pos = text.find('\n', pos);
    if (pos != std::string::npos) ++pos;
  }
  return pos == std::string::npos ? text : text.substr(0, pos) + "...\n";
}

}  // namespace

std::string tessera_cache_dir() {
  if (const char* d = std::getenv("TESSERA_CACHE_DIR"); d && *d) return d;
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x) return std::string(x) + "/tessera";
  if (const char* h = std::getenv("HOME"); h && *h) return std::string(h) + "/.cache/tessera";
  return {};
}

ProgramCache::ProgramCache(cl::Context context, cl::Device device, std::string identity, std::string label)
    : context_(std::move(context)),
      device_(std::move(device)),
      identity_(std::move(identity)),
      label_(std::move(label)) {
  const char* off = std::getenv("TESSERA_OPENCL_DISK_CACHE");
  if (!(off && std::string(off) == "0")) {
    const std::string base = tessera_cache_dir();
    if (!base.empty()) dir_ = base + "/opencl";
  }
  const char* v = std::getenv("TESSERA_OPENCL_VERBOSE");
  verbose_ = v && *v && std::string(v) != "0";
}

cl::Kernel& ProgramCache::kernel(const std::string& file, const std::string& options, const std::string& name) {
  Entry& e = program(file, options);
  auto it = e.kernels.find(name);
  if (it == e.kernels.end()) {
    cl::Kernel k = translate_errors(label_ + ": kernel " + name + " of " + file,
                                    [&] { return cl::Kernel(e.program, name.c_str()); });
    it = e.kernels.emplace(name, std::move(k)).first;
  }
  return it->second;
}

ProgramCache::Entry& ProgramCache::program(const std::string& file, const std::string& options) {
  const std::string mem_key = file + '\n' + options;
  if (auto it = programs_.find(mem_key); it != programs_.end()) return it->second;

  const std::string source = embedded("common.cl") + "\n#line 1\n" + embedded(file);
  // Everything that can change the binary: the device and driver (identity), our version, the
  // options and the exact source text.
  const std::string key = identity_ + "\ntessera " + TESSERA_VERSION_STRING + "\n" + options + "\n" + source;
  const u128 hash = fnv1a_128(key);
  cl::Program prog;
  bool loaded = false;
  std::string path;
  if (!dir_.empty()) {
    path = dir_ + "/" + hex128(hash) + ".clbin";
    switch (cache_use(path)) {
      case CacheUse::load: loaded = load_binary(path, key, options, prog); break;
      case CacheUse::rebuild: break;
      case CacheUse::bypass: path.clear(); break;
    }
  }
  if (!loaded) {
    prog = build_from_source(file, source, options);
    if (!path.empty()) store_binary(path, key, prog);
  }
  Entry entry;
  entry.program = std::move(prog);
  return programs_.emplace(mem_key, std::move(entry)).first->second;
}

cl::Program ProgramCache::build_from_source(const std::string& file, const std::string& source,
                                            const std::string& options) {
  const auto t0 = std::chrono::steady_clock::now();
  cl::Program prog =
      translate_errors(label_ + ": creating program " + file, [&] { return cl::Program(context_, source); });
  try {
    prog.build(std::vector<cl::Device>{device_}, options.c_str());
  } catch (const cl::BuildError& e) {
    std::string log;
    for (const auto& entry : e.getBuildLog()) log += entry.second;
    throw KernelBuildError(label_ + ": building " + file + " with options '" + options + "' failed (" +
                               std::string(e.what() ? e.what() : "clBuildProgram") + ": " + error_name(e.err()) +
                               "); build log:\n" + first_lines(log, 20),
                           log);
  } catch (const cl::Error& e) {
    // Some bindings versions report a failed build as a plain cl::Error; the log is still there.
    std::string log;
    try {
      log = prog.getBuildInfo<CL_PROGRAM_BUILD_LOG>(device_);
    } catch (const cl::Error&) {
    }
    throw KernelBuildError(label_ + ": building " + file + " with options '" + options + "' failed (" +
                               std::string(e.what() ? e.what() : "clBuildProgram") + ": " + error_name(e.err()) +
                               "); build log:\n" + first_lines(log, 20),
                           log);
  }
  const double s = seconds_since(t0);
  ++stats_.source_builds;
  stats_.build_seconds += s;
  if (verbose_)
    std::fprintf(stderr, "tessera opencl: built %s [%s] from source in %.3f s\n", file.c_str(), options.c_str(), s);
  return prog;
}

namespace {

// Cache files larger than this are not read (the largest program binary seen, PoCL's gemm with
// every kernel, is a few MiB): a huge file there is damage, not a program.
constexpr std::uint64_t kMaxCacheFile = std::uint64_t{256} << 20;

// The bytes of a regular file of at most kMaxCacheFile bytes, or false: a directory, FIFO,
// device, symbolic link (e.g. to /dev/zero), unreadable or oversized entry is a cache miss.
// O_NONBLOCK: opening a FIFO must not wait for a writer; O_NOFOLLOW: links are not followed.
bool read_regular_file(const std::string& path, std::vector<unsigned char>& bytes, const char*& why) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return why = errno == ENOENT ? nullptr : "cannot be opened as a plain file", false;
  struct stat st {};
  bool ok = ::fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
  if (!ok) why = "not a regular file";
  if (ok && static_cast<std::uint64_t>(st.st_size) > kMaxCacheFile) ok = false, why = "too large";
  if (ok) {
    bytes.resize(static_cast<std::size_t>(st.st_size));
    std::size_t got = 0;
    while (got < bytes.size()) {
      const ssize_t r = ::read(fd, bytes.data() + got, bytes.size() - got);
      if (r <= 0) break;
      got += static_cast<std::size_t>(r);
    }
    if (got != bytes.size()) ok = false, why = "short read";
  }
  ::close(fd);
  return ok;
}

bool process_alive(long pid) { return pid > 0 && (::kill(static_cast<pid_t>(pid), 0) == 0 || errno == EPERM); }

}  // namespace

// A driver may crash while it turns a cached binary into a program (a binary damaged in a way
// the checksum cannot see, e.g. rewritten together with its checksum): that kills the process
// before any check of ours runs, and every later run that loads the file. So a load leaves a
// marker <file>.loading.<pid> while the driver has the binary. A marker of a process that no
// longer runs is the evidence of such a crash: the binary is deleted and built from source once
// (<file>.crashed records that); after a second crash (<file>.bypass) that program never uses
// the disk cache again.
ProgramCache::CacheUse ProgramCache::cache_use(const std::string& path) {
  struct stat st {};
  if (::lstat((path + ".bypass").c_str(), &st) == 0) return CacheUse::bypass;
  const auto slash = path.rfind('/');
  const std::string dir = path.substr(0, slash), base = path.substr(slash + 1) + ".loading.";
  bool crashed = false;
  if (DIR* d = ::opendir(dir.c_str())) {
    while (const dirent* e = ::readdir(d)) {
      const std::string name = e->d_name;
      if (name.compare(0, base.size(), base) != 0) continue;
      if (process_alive(std::strtol(name.c_str() + base.size(), nullptr, 10))) continue;
      crashed = true;
      ::unlink((dir + "/" + name).c_str());
    }
    ::closedir(d);
  }
  if (!crashed) return CacheUse::load;
  ::unlink(path.c_str());
  const bool again = ::lstat((path + ".crashed").c_str(), &st) == 0;
  const int fd = ::open((path + (again ? ".bypass" : ".crashed")).c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
  if (fd >= 0) ::close(fd);
  if (verbose_)
    std::fprintf(stderr, "tessera opencl: a process crashed while loading %s: %s\n", path.c_str(),
                 again ? "bypassing the disk cache for this program" : "rebuilding it from source");
  return again ? CacheUse::bypass : CacheUse::rebuild;
}

bool ProgramCache::load_binary(const std::string& path, const std::string& key, const std::string& options,
                               cl::Program& out) {
  const auto t0 = std::chrono::steady_clock::now();
  std::vector<unsigned char> bytes;
  const char* why = nullptr;
  auto reject = [&](const char* reason) {
    if (verbose_) std::fprintf(stderr, "tessera opencl: ignoring cache file %s: %s\n", path.c_str(), reason);
    return false;
  };
  if (!read_regular_file(path, bytes, why)) return why ? reject(why) : false;
  FileHeader h{};
  if (bytes.size() < sizeof h) return reject("shorter than its header");
  std::memcpy(&h, bytes.data(), sizeof h);
  const u128 hash = fnv1a_128(key);
  if (std::memcmp(h.magic, kMagic, sizeof kMagic) != 0 || h.format != kFormat)
    return reject("not a Tessera cache file");
  if (h.key_hi != static_cast<std::uint64_t>(hash >> 64) || h.key_lo != static_cast<std::uint64_t>(hash))
    return reject("written for another program");
  if (h.payload_size != bytes.size() - sizeof h) return reject("truncated");
  const unsigned char* payload = bytes.data() + sizeof h;
  if (fnv1a_64(payload, h.payload_size) != h.payload_checksum) return reject("checksum mismatch");
  // The marker of this load (cache_use); removed once the driver is done with the binary.
  const std::string marker = path + ".loading." + std::to_string(::getpid());
  if (const int fd = ::open(marker.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644); fd >= 0) ::close(fd);
  struct Unmark {
    const std::string& path;
    ~Unmark() { ::unlink(path.c_str()); }
  } unmark{marker};
  try {
    cl::Program::Binaries bins{std::vector<unsigned char>(payload, payload + h.payload_size)};
    std::vector<cl_int> status;
    cl::Program prog(context_, std::vector<cl::Device>{device_}, bins, &status);
    if (status.empty() || status[0] != CL_SUCCESS) return reject("the driver refused the binary");
    prog.build(std::vector<cl::Device>{device_}, options.c_str());
    out = std::move(prog);
  } catch (const cl::Error& e) {
    if (verbose_)
      std::fprintf(stderr, "tessera opencl: ignoring cache file %s: %s failed with %s\n", path.c_str(), e.what(),
                   error_name(e.err()).c_str());
    return false;
  }
  const double s = seconds_since(t0);
  ++stats_.disk_loads;
  stats_.build_seconds += s;
  if (verbose_) std::fprintf(stderr, "tessera opencl: loaded %s in %.3f s\n", path.c_str(), s);
  return true;
}

void ProgramCache::store_binary(const std::string& path, const std::string& key, const cl::Program& program) {
  // A cache that cannot be written costs only speed: every failure here is silent (or logged).
  std::vector<unsigned char> binary;
  try {
    auto bins = program.getInfo<CL_PROGRAM_BINARIES>();
    if (bins.empty() || bins[0].empty()) return;
    binary = std::move(bins[0]);
  } catch (const cl::Error&) {
    return;
  }
  if (!make_dirs(dir_)) {
    if (verbose_) std::fprintf(stderr, "tessera opencl: cannot create cache folder %s\n", dir_.c_str());
    return;
  }
  const u128 hash = fnv1a_128(key);
  FileHeader h{};
  std::memcpy(h.magic, kMagic, sizeof kMagic);
  h.format = kFormat;
  h.key_hi = static_cast<std::uint64_t>(hash >> 64);
  h.key_lo = static_cast<std::uint64_t>(hash);
  h.payload_size = binary.size();
  h.payload_checksum = fnv1a_64(binary.data(), binary.size());
  // Unique per process and call, in the same folder so that rename() is atomic.
  static std::atomic<unsigned> counter{0};
  const std::string tmp = path + ".tmp." + std::to_string(::getpid()) + "." + std::to_string(counter++);
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL, 0644);
  if (fd < 0) return;
  auto write_all = [fd](const void* p, std::size_t n) {
    const char* c = static_cast<const char*>(p);
    while (n > 0) {
      const ssize_t w = ::write(fd, c, n);
      if (w <= 0) return false;
      c += w;
      n -= static_cast<std::size_t>(w);
    }
    return true;
  };
  const bool ok = write_all(&h, sizeof h) && write_all(binary.data(), binary.size());
  if (::close(fd) != 0 || !ok || ::rename(tmp.c_str(), path.c_str()) != 0) {
    ::unlink(tmp.c_str());
    if (verbose_) std::fprintf(stderr, "tessera opencl: could not write cache file %s\n", path.c_str());
    return;
  }
  if (verbose_) std::fprintf(stderr, "tessera opencl: wrote %s (%zu bytes)\n", path.c_str(), binary.size());
}

}  // namespace tessera::opencl
