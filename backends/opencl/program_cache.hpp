// Program cache of one OpenCL context: programs and kernel objects in memory, and program
// binaries on disk so that a new process (ctest runs every test case in its own) does not pay
// the driver's compile time again.
//
// Disk cache: <dir>/opencl/<hash>.clbin, where dir is TESSERA_CACHE_DIR, else
// $XDG_CACHE_HOME/tessera, else $HOME/.cache/tessera, and hash covers the full source, the
// build options, the device name, vendor, driver and platform versions, and Tessera's version:
// anything that can change the binary changes the file name, so entries are never stale, only
// unused. Files are written to a temporary name and renamed (readers never see half a file),
// and checked on load (a regular file of bounded size, header, key, length, checksum); anything
// else in its place (a directory, FIFO, link, device) is a miss, and a file that fails a check
// or that the driver refuses is ignored and the program built from source and written again. A
// driver that crashed while loading a binary is detected at the next load (a marker file left
// behind): rebuilt from source once, then that program bypasses the disk cache.
// TESSERA_OPENCL_DISK_CACHE=0 turns the disk cache off; TESSERA_OPENCL_VERBOSE=1 logs every
// build and load (with its time) to stderr.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "cl_common.hpp"

namespace tessera::opencl {

struct CacheStats {
  int source_builds = 0;     // programs compiled from source
  int disk_loads = 0;        // programs created from a cached binary
  double build_seconds = 0;  // total time in clBuildProgram (both kinds)
};

class ProgramCache {
 public:
  // `identity` names the device and driver (it goes into every key); `label` ("opencl:0") starts
  // every error message.
  ProgramCache(cl::Context context, cl::Device device, std::string identity, std::string label);

  // The kernel `name` from kernels/opencl/<file> (preceded by common.cl), built with `options`.
  // The same (file, options, name) returns the same kernel object; callers set its arguments
  // and enqueue it under the backend's lock. Throws KernelBuildError with the log on failure.
  cl::Kernel& kernel(const std::string& file, const std::string& options, const std::string& name);

  const CacheStats& stats() const { return stats_; }
  // The disk folder in use, or "" when the disk cache is off.
  const std::string& disk_dir() const { return dir_; }

 private:
  struct Entry {
    cl::Program program;
    std::map<std::string, cl::Kernel> kernels;
  };
  Entry& program(const std::string& file, const std::string& options);
  cl::Program build_from_source(const std::string& file, const std::string& source, const std::string& options);
  // Whether a cache file may be loaded, after a crash of the driver while loading it must be
  // rebuilt from source, or must not be used (program_cache.cpp, cache_use).
  enum class CacheUse { load, rebuild, bypass };
  CacheUse cache_use(const std::string& path);
  bool load_binary(const std::string& path, const std::string& key, const std::string& options, cl::Program& out);
  void store_binary(const std::string& path, const std::string& key, const cl::Program& program);

  cl::Context context_;
  cl::Device device_;
  std::string identity_;
  std::string label_;
  std::string dir_;
  bool verbose_ = false;
  std::map<std::string, Entry> programs_;  // key: file + '\n' + options
  CacheStats stats_;
};

// The user's cache folder for Tessera (without the "opencl" part), "" if none can be found.
std::string tessera_cache_dir();

}  // namespace tessera::opencl
