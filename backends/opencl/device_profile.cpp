#include "device_profile.hpp"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <sstream>

#include "tessera/errors.hpp"

namespace tessera::opencl {

namespace {

// The table. Numbers follow from each device class's hardware facts (comments), and were
// checked on PoCL (all profiles) for correctness; only pocl-cpu is tuned by measurement here.
std::vector<DeviceProfile> make_profiles() {
  std::vector<DeviceProfile> v;

  DeviceProfile nv;
  nv.name = "nvidia";
  nv.description = "NVIDIA GPU: warp 32, tiles in shared memory";
  nv.family = KernelFamily::gpu;
  nv.subgroup = 32;
  nv.max_wg = 1024;
  nv.local_mem_kb = 48;  // the static shared memory limit per block
  nv.reduce_wg = 256;
  nv.reduce_groups_per_cu = 8;  // 8 x 256 threads keep an SM's 2048 thread slots busy
  nv.reduce_vw = 4;             // 16-byte loads in f32: a scalar-load loop reached ~52% of the
                                // H200's bandwidth in f32 against 87% in f64 (bench/RESULTS.md)
  nv.spmv_wg = 256;
  nv.spmv_max_lanes = 32;  // a warp per row at most: its tree needs no cross-warp traffic
  nv.spmv_stream_mean = 12;  // as the CUDA backend: short rows read as one run per group
  // As the CUDA backend: merge path when the longest row is over 8x the mean (the complement of
  // the stream kernel's evenness test), tiles of 256 x 4 rows + nonzeros. H200, 2026-11-22,
  // 4M power-law rows of 3-10000: 0.285 / 0.396 ms (f32 / f64) against 0.466 / 0.788 ms for the
  // vector kernel; 2 or 8 items per work-item were slower (f64 0.456 / 0.760 ms).
  nv.spmv_merge_skew = 8, nv.spmv_merge_items = 4;
  // Inverted 64 x 64 diagonal blocks (as the CUDA backend): a chain step is a matrix-vector
  // product, and trsv is one launch; 2 groups of 256 per SM are resident (registers).
  nv.trsv_block = 64, nv.trsv_inverse = 1, nv.trsv_wg = 256, nv.trsv_groups_per_cu = 2;
  nv.sptrsv_wg = 256;
  // Sync-free solve as the CUDA backend: 2 groups of 128 per SM in flight, dependencies polled
  // in batches with nanosleep back-off up to 256 ns, f32 values published with their epoch in
  // one 64-bit word. H200, 2026-11-22, lower triangle of the 128^3 Laplacian: 0.72 / 1.56 ms
  // (f32 / f64) against 2.10 / 2.91 ms for one launch per level; 1 or 4 groups per SM, groups of
  // 64 or 256, back-off up to 1 or 1024 ns were within -5%..+32% of that.
  nv.sptrsv_syncfree = 32, nv.sptrsv_groups_per_cu = 2, nv.sptrsv_syncfree_wg = 128, nv.sptrsv_sleep_ns = 256;
  // 128 x 128 tiles, 16 x 16 threads of 8 x 8: 64 accumulators per thread, 16 KB (f32) of
  // shared memory per k-step of 16: enough reuse to be bound by FMA rather than bandwidth.
  nv.gemm_mwg = 128, nv.gemm_nwg = 128, nv.gemm_kwg = 16, nv.gemm_mdimc = 16, nv.gemm_ndimc = 16, nv.gemm_vw = 1;
  // The FP64 tensor cores (mma.sync m16n8k4) and cp.async are reachable only through inline PTX.
  nv.gemm_kernels = kGemmNvidiaPtx;
  nv.stencil_lx = 32, nv.stencil_ly = 8;                              // a warp spans a row segment: coalesced
  nv.conv_lx = 32, nv.conv_ly = 8, nv.conv_vw = 1, nv.conv_rows = 4;  // 32 x 32 output tiles
  v.push_back(nv);

  DeviceProfile gcn;
  gcn.name = "amd-gcn";
  gcn.description = "AMD GCN GPU: wavefront 64, <= 256 work-items and 32 KB local memory per group";
  gcn.family = KernelFamily::gpu;
  gcn.subgroup = 64;
  gcn.max_wg = 256;       // GCN's hard limit per work-group
  gcn.local_mem_kb = 32;  // LDS per work-group
  gcn.reduce_wg = 256;
  // Few groups per CU: each group writes one partial, and on GCN many writes of neighbouring
  // words from different groups are not coalesced.
  gcn.reduce_groups_per_cu = 4;
  gcn.reduce_vw = 4;  // dwordx4 loads
  gcn.spmv_wg = 256;
  gcn.spmv_max_lanes = 64;  // a wavefront per row at most
  gcn.spmv_merge_skew = 8, gcn.spmv_merge_items = 4;  // 15 KB of LDS per group in f64
  gcn.trsv_block = 64;      // one wavefront solves a diagonal block
  gcn.sptrsv_wg = 256;
  // 64 x 64 tiles with 16 x 16 work-items of 4 x 4: 256 work-items (the limit), 8 KB of LDS in
  // f32 (16 KB in f64), leaving room for several groups per CU.
  gcn.gemm_mwg = 64, gcn.gemm_nwg = 64, gcn.gemm_kwg = 16, gcn.gemm_mdimc = 16, gcn.gemm_ndimc = 16, gcn.gemm_vw = 1;
  gcn.stencil_lx = 64, gcn.stencil_ly = 4;                                // a wavefront spans a row segment
  gcn.conv_lx = 64, gcn.conv_ly = 4, gcn.conv_vw = 1, gcn.conv_rows = 4;  // 64 x 16 output tiles
  v.push_back(gcn);

  DeviceProfile pocl;
  pocl.name = "pocl-cpu";
  pocl.description = "PoCL on a CPU: register-blocked kernels, no local memory, explicit vectors";
  pocl.family = KernelFamily::cpu;
  pocl.subgroup = 16;  // float lanes of AVX-512 (PoCL compiles for the host CPU)
  pocl.max_wg = 4096;
  pocl.local_mem_kb = 1024;  // ordinary memory on a CPU
  pocl.reduce_wg = 64;
  pocl.reduce_groups_per_cu = 1;
  pocl.reduce_chunk = 4096;  // 4096 / (2 accumulators x 16 lanes): 128 additions per lane
  pocl.reduce_vw = 16;
  pocl.spmv_wg = 64;
  pocl.spmv_max_lanes = 1;
  pocl.spmv_rows_per_item = 32;
  pocl.trsv_block = 128;  // few launches (PoCL's launch costs ~10-50 us); the diagonal
                          // block is solved by one work-item, sequentially
  pocl.trsv_vw = 16;
  pocl.sptrsv_wg = 64;
  // A work-item computes 8 x 32 of C in 16 AVX-512 registers (2 x float16 per row); groups of
  // 4 x 2 work-items share the packed panels of A and B through the caches.
  pocl.gemm_mwg = 32, pocl.gemm_nwg = 64, pocl.gemm_kwg = 16, pocl.gemm_mdimc = 4, pocl.gemm_ndimc = 2;
  pocl.gemm_vw = 16;
  // A work-item does 16 cells of one row; a group, 256 consecutive cells. Measured: groups
  // spanning several rows, or work-items several rows, were slower (more concurrent streams).
  pocl.stencil_lx = 16, pocl.stencil_ly = 1, pocl.stencil_vw = 16, pocl.stencil_rows = 1;
  pocl.stencil_sweep_rows = 16;
  pocl.conv_lx = 8, pocl.conv_ly = 4, pocl.conv_vw = 16, pocl.conv_rows = 1;
  v.push_back(pocl);

  DeviceProfile intel = pocl;
  intel.name = "intel-cpu";
  intel.description = "Intel OpenCL CPU runtime: register-blocked kernels, no local memory, explicit vectors";
  intel.subgroup = 8;  // AVX2 float lanes, the common denominator of Intel's CPUs
  intel.max_wg = 8192;
  intel.reduce_vw = 8;
  intel.reduce_chunk = 2048;  // 2048 / (2 x 8): 128 additions per lane
  intel.spmv_rows_per_item = 16;
  // 8 x 16 per work-item = 16 AVX2 registers (2 x float8 per row).
  intel.gemm_mwg = 32, intel.gemm_nwg = 64, intel.gemm_kwg = 16, intel.gemm_mdimc = 4, intel.gemm_ndimc = 4;
  intel.gemm_vw = 8;
  intel.conv_vw = 8;
  intel.stencil_vw = 8;
  intel.stencil_sweep_rows = 0;  // clang builtins: untested on Intel's compiler
  intel.trsv_vw = 8;
  v.push_back(intel);

  DeviceProfile gen;
  gen.name = "generic";
  gen.description = "generic OpenCL device: small work-groups and tiles that any OpenCL 1.2 device runs";
  gen.family = KernelFamily::gpu;
  gen.subgroup = 32;
  gen.max_wg = 64;        // the smallest CL_DEVICE_MAX_WORK_GROUP_SIZE common on GPUs
  gen.local_mem_kb = 16;  // the OpenCL 1.2 minimum for CL_DEVICE_LOCAL_MEM_SIZE
  gen.reduce_wg = 64;
  gen.reduce_groups_per_cu = 4;
  gen.reduce_vw = 1;
  gen.spmv_wg = 64;
  gen.spmv_max_lanes = 32;
  gen.trsv_block = 32;
  gen.sptrsv_wg = 64;
  gen.gemm_mwg = 32, gen.gemm_nwg = 32, gen.gemm_kwg = 8, gen.gemm_mdimc = 8, gen.gemm_ndimc = 8, gen.gemm_vw = 1;
  gen.stencil_lx = 16, gen.stencil_ly = 4;
  gen.conv_lx = 16, gen.conv_ly = 4, gen.conv_vw = 1, gen.conv_rows = 2;
  v.push_back(gen);
  return v;
}

// Selection rules, first match wins; PoCL comes before Intel because PoCL on an Intel CPU
// reports the CPU's vendor.
struct Rule {
  const char* profile;
  bool gpu;                       // device type required: GPU (true) or CPU (false)
  const char* vendor_contains;    // nullptr: any
  const char* platform_contains;  // nullptr: any
};
constexpr Rule rules[] = {
    {"pocl-cpu", false, nullptr, "Portable Computing Language"},
    {"intel-cpu", false, "Intel", nullptr},
    {"nvidia", true, "NVIDIA", nullptr},
    {"amd-gcn", true, "Advanced Micro Devices", nullptr},
    {"amd-gcn", true, "AMD", nullptr},
};

bool contains_nocase(const std::string& hay, const char* needle) {
  std::string h = hay, n = needle;
  std::transform(h.begin(), h.end(), h.begin(), [](unsigned char c) { return std::tolower(c); });
  std::transform(n.begin(), n.end(), n.begin(), [](unsigned char c) { return std::tolower(c); });
  return h.find(n) != std::string::npos;
}

// Parameter keys bound to profile members: the one list behind display and overrides.
struct Param {
  const char* key;
  int DeviceProfile::*member;
  int min = 1;  // 0 for switches and thresholds where 0 means off
};
constexpr Param params[] = {
    {"subgroup", &DeviceProfile::subgroup},
    {"max_wg", &DeviceProfile::max_wg},
    {"local_mem_kb", &DeviceProfile::local_mem_kb},
    {"reduce.wg", &DeviceProfile::reduce_wg},
    {"reduce.groups_per_cu", &DeviceProfile::reduce_groups_per_cu},
    {"reduce.chunk", &DeviceProfile::reduce_chunk},
    {"reduce.vw", &DeviceProfile::reduce_vw},
    {"spmv.wg", &DeviceProfile::spmv_wg},
    {"spmv.max_lanes", &DeviceProfile::spmv_max_lanes},
    {"spmv.rows_per_item", &DeviceProfile::spmv_rows_per_item},
    {"spmv.stream_mean", &DeviceProfile::spmv_stream_mean, 0},
    {"spmv.merge_skew", &DeviceProfile::spmv_merge_skew, 0},
    {"spmv.merge_items", &DeviceProfile::spmv_merge_items},
    {"trsv.block", &DeviceProfile::trsv_block},
    {"trsv.vw", &DeviceProfile::trsv_vw},
    {"trsv.inverse", &DeviceProfile::trsv_inverse, 0},
    {"trsv.wg", &DeviceProfile::trsv_wg},
    {"trsv.groups_per_cu", &DeviceProfile::trsv_groups_per_cu},
    {"sptrsv.wg", &DeviceProfile::sptrsv_wg},
    {"sptrsv.syncfree", &DeviceProfile::sptrsv_syncfree, 0},
    {"sptrsv.groups_per_cu", &DeviceProfile::sptrsv_groups_per_cu},
    {"sptrsv.syncfree_wg", &DeviceProfile::sptrsv_syncfree_wg},
    {"sptrsv.sleep_ns", &DeviceProfile::sptrsv_sleep_ns, 0},
    {"gemm.mwg", &DeviceProfile::gemm_mwg},
    {"gemm.nwg", &DeviceProfile::gemm_nwg},
    {"gemm.kwg", &DeviceProfile::gemm_kwg},
    {"gemm.mdimc", &DeviceProfile::gemm_mdimc},
    {"gemm.ndimc", &DeviceProfile::gemm_ndimc},
    {"gemm.vw", &DeviceProfile::gemm_vw},
    {"gemm.kernels", &DeviceProfile::gemm_kernels},
    {"stencil.lx", &DeviceProfile::stencil_lx},
    {"stencil.ly", &DeviceProfile::stencil_ly},
    {"stencil.vw", &DeviceProfile::stencil_vw},
    {"stencil.rows", &DeviceProfile::stencil_rows},
    {"stencil.sweep_rows", &DeviceProfile::stencil_sweep_rows, 0},
    {"conv.lx", &DeviceProfile::conv_lx},
    {"conv.ly", &DeviceProfile::conv_ly},
    {"conv.vw", &DeviceProfile::conv_vw},
    {"conv.rows", &DeviceProfile::conv_rows},
};

std::string known_names() {
  std::string s;
  for (const auto& p : builtin_profiles()) s += (s.empty() ? "" : ", ") + p.name;
  return s;
}

const DeviceProfile* find_profile(const std::string& name) {
  for (const auto& p : builtin_profiles())
    if (p.name == name) return &p;
  return nullptr;
}

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t");
  if (b == std::string::npos) return {};
  const auto e = s.find_last_not_of(" \t");
  return s.substr(b, e - b + 1);
}

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::stringstream ss(s);
  for (std::string part; std::getline(ss, part, sep);) out.push_back(trim(part));
  return out;
}

// Applies one entry's items (a profile name and/or key=value settings) to `p`.
void apply_items(DeviceProfile& p, const std::string& entry, const std::string& env) {
  for (const std::string& item : split(entry, ',')) {
    if (item.empty()) continue;
    const auto eq = item.find('=');
    if (eq == std::string::npos) {
      const DeviceProfile* named = find_profile(item);
      if (named == nullptr)
        throw InvalidArgument("TESSERA_OPENCL_PROFILE='" + env + "': unknown profile '" + item + "'; expected one of " +
                              known_names());
      p = *named;
      continue;
    }
    const std::string key = trim(item.substr(0, eq)), value = trim(item.substr(eq + 1));
    const Param* param = nullptr;
    for (const auto& candidate : params)
      if (key == candidate.key) param = &candidate;
    if (param == nullptr) {
      std::string keys;
      for (const auto& candidate : params) keys += (keys.empty() ? "" : ", ") + std::string(candidate.key);
      throw InvalidArgument("TESSERA_OPENCL_PROFILE='" + env + "': unknown parameter '" + key + "'; expected one of " +
                            keys);
    }
    char* end = nullptr;
    const long v = std::strtol(value.c_str(), &end, 10);
    if (value.empty() || *end != '\0' || v < param->min || v > (1 << 20))
      throw InvalidArgument("TESSERA_OPENCL_PROFILE='" + env + "': " + key + "=" + value + " is not an integer in " +
                            std::to_string(param->min) + "..1048576");
    p.*(param->member) = static_cast<int>(v);
    if (p.name.find('*') == std::string::npos) p.name += "*";  // marks a tweaked profile in tessera-info
  }
}

bool is_pow2(int v) { return v > 0 && (v & (v - 1)) == 0; }

}  // namespace

const std::vector<DeviceProfile>& builtin_profiles() {
  static const std::vector<DeviceProfile> profiles = make_profiles();
  return profiles;
}

DeviceProfile select_profile(const DeviceFacts& facts, int index) {
  DeviceProfile chosen = *find_profile("generic");
  for (const Rule& r : rules) {
    if (r.gpu ? !facts.is_gpu : !facts.is_cpu) continue;
    if (r.vendor_contains && !contains_nocase(facts.vendor, r.vendor_contains)) continue;
    if (r.platform_contains && !contains_nocase(facts.platform_name, r.platform_contains)) continue;
    chosen = *find_profile(r.profile);
    break;
  }
  const char* env = std::getenv("TESSERA_OPENCL_PROFILE");
  if (env == nullptr || *env == '\0') return chosen;
  const std::string text = env;
  // Entries for every device first, then those for this device, so the latter win.
  std::vector<std::string> general, own;
  for (const std::string& entry : split(text, ';')) {
    if (entry.empty()) continue;
    const auto colon = entry.find(':');
    if (colon == std::string::npos) {
      general.push_back(entry);
      continue;
    }
    const std::string n = trim(entry.substr(0, colon));
    if (n.empty() || n.find_first_not_of("0123456789") != std::string::npos || n.size() > 6)
      throw InvalidArgument("TESSERA_OPENCL_PROFILE='" + text + "': '" + n +
                            "' before ':' is not a device index (expected N:profile, e.g. 1:nvidia)");
    if (std::stoi(n) == index) own.push_back(entry.substr(colon + 1));
  }
  for (const auto& e : general) apply_items(chosen, e, text);
  for (const auto& e : own) apply_items(chosen, e, text);
  return chosen;
}

std::vector<std::pair<std::string, int>> profile_parameters(const DeviceProfile& p) {
  std::vector<std::pair<std::string, int>> out;
  for (const auto& param : params) out.emplace_back(param.key, p.*(param.member));
  return out;
}

void validate_profile(const DeviceProfile& p, std::size_t device_max_wg, std::size_t device_local_mem_bytes) {
  auto fail = [&](const std::string& what) {
    throw InvalidArgument("OpenCL device profile '" + p.name + "': " + what +
                          " (set by the profile table or TESSERA_OPENCL_PROFILE)");
  };
  auto need_pow2 = [&](const char* key, int v) {
    if (!is_pow2(v)) fail(std::string(key) + " = " + std::to_string(v) + " must be a power of two");
  };
  // The profile's own max_wg binds too: a GCN profile forced onto a CPU driver that allows
  // 4096 work-items must still keep to GCN's 256, or PoCL would test shapes GCN cannot run.
  const std::size_t wg_limit = std::min<std::size_t>(device_max_wg, static_cast<std::size_t>(p.max_wg));
  auto need_wg = [&](const char* key, long v) {
    if (v < 1 || static_cast<std::size_t>(v) > wg_limit)
      fail(std::string(key) + " gives work-groups of " + std::to_string(v) +
           " work-items; max_wg and the device allow 1.." + std::to_string(wg_limit));
  };
  auto need_vw = [&](const char* key, int v) {
    if (v != 1 && v != 2 && v != 4 && v != 8 && v != 16)
      fail(std::string(key) + " = " + std::to_string(v) + " must be 1, 2, 4, 8 or 16 (an OpenCL vector width)");
  };
  need_pow2("reduce.wg", p.reduce_wg);
  need_wg("reduce.wg", p.reduce_wg);
  need_vw("reduce.vw", p.reduce_vw);
  if (p.reduce_chunk % (2 * p.reduce_vw) != 0)
    fail("reduce.chunk = " + std::to_string(p.reduce_chunk) + " must be a multiple of 2 * reduce.vw");
  need_pow2("spmv.wg", p.spmv_wg);
  need_pow2("spmv.max_lanes", p.spmv_max_lanes);
  need_wg("spmv.wg", p.spmv_wg);
  if (p.spmv_max_lanes > p.spmv_wg) fail("spmv.max_lanes must not exceed spmv.wg");
  if (p.spmv_merge_items > 64) fail("spmv.merge_items must be at most 64");
  need_wg("trsv.block", p.trsv_block);
  need_wg("sptrsv.wg", p.sptrsv_wg);
  need_wg("sptrsv.syncfree_wg", p.sptrsv_syncfree_wg);
  if (p.gemm_mwg % p.gemm_mdimc != 0 || p.gemm_nwg % p.gemm_ndimc != 0)
    fail("gemm.mwg must be a multiple of gemm.mdimc and gemm.nwg of gemm.ndimc");
  need_wg("gemm.mdimc * gemm.ndimc", static_cast<long>(p.gemm_mdimc) * p.gemm_ndimc);
  need_vw("gemm.vw", p.gemm_vw);
  if ((p.gemm_nwg / p.gemm_ndimc) % p.gemm_vw != 0) fail("gemm.nwg / gemm.ndimc must be a multiple of gemm.vw");
  if (p.gemm_kernels != kGemmPortable && p.gemm_kernels != kGemmNvidiaPtx)
    fail("gemm.kernels must be 1 (gemm.cl) or 2 (gemm_ptx.cl on NVIDIA's platform)");
  need_wg("stencil.lx * stencil.ly", static_cast<long>(p.stencil_lx) * p.stencil_ly);
  need_wg("conv.lx * conv.ly", static_cast<long>(p.conv_lx) * p.conv_ly);
  need_vw("conv.vw", p.conv_vw);
  need_vw("stencil.vw", p.stencil_vw);
  need_vw("trsv.vw", p.trsv_vw);
  if (p.trsv_inverse > 1) fail("trsv.inverse must be 0 or 1");
  const bool trsv_inverse = p.trsv_inverse == 1 && p.family == KernelFamily::gpu;
  if (trsv_inverse) {
    // trsv_inv.cl: 32-wide lanes over a block, whole warps of rows, whole parts of the inverse.
    if (p.trsv_block % 32 != 0 || p.trsv_block > 128)
      fail("trsv.block must be a multiple of 32 up to 128 with trsv.inverse");
    if (p.trsv_wg % p.trsv_block != 0 || p.trsv_wg / 32 > 32 || p.trsv_block % (p.trsv_wg / 32) != 0)
      fail("trsv.wg must be a multiple of trsv.block, at most 1024, and trsv.wg / 32 must divide trsv.block");
    need_wg("trsv.wg", p.trsv_wg);
    need_wg("trsm block-column tile (16 x 16)", 256);
  }
  // Local memory of the largest users, in f64 (the worst case): gemm's two tiles, trsv's block.
  const std::size_t local_limit =
      std::min<std::size_t>(static_cast<std::size_t>(p.local_mem_kb) * 1024, device_local_mem_bytes);
  if (p.family == KernelFamily::gpu) {
    const std::size_t gemm_bytes = static_cast<std::size_t>(p.gemm_mwg + p.gemm_nwg) * p.gemm_kwg * 8;
    if (gemm_bytes > local_limit)
      fail("gemm tiles need " + std::to_string(gemm_bytes) + " bytes of local memory in f64, the limit is " +
           std::to_string(local_limit));
    // trsv tiles shrink to fit (trsv.cpp), down to one column: BS x 2 plus x.
    const std::size_t trsv_bytes = static_cast<std::size_t>(p.trsv_block) * 3 * 8;
    const std::size_t stream_bytes = static_cast<std::size_t>(p.spmv_wg) * 8 * 8;  // spmv_stream's chunk
    if (p.spmv_stream_mean > 0 && stream_bytes > local_limit)
      fail("spmv.stream_mean > 0 with spmv.wg = " + std::to_string(p.spmv_wg) + " needs " +
           std::to_string(stream_bytes) + " bytes of local memory in f64, the limit is " + std::to_string(local_limit));
    // spmv_merge: row ends, products and per-work-item carries of one tile.
    const std::size_t merge_tile = static_cast<std::size_t>(p.spmv_wg) * p.spmv_merge_items;
    const std::size_t merge_bytes = (merge_tile + 1) * 4 + merge_tile * 8 + static_cast<std::size_t>(p.spmv_wg) * 12;
    if (p.spmv_merge_skew > 0 && merge_bytes > local_limit)
      fail("spmv.merge_skew > 0 with spmv.wg x spmv.merge_items = " + std::to_string(merge_tile) + " needs " +
           std::to_string(merge_bytes) + " bytes of local memory in f64, the limit is " + std::to_string(local_limit));
    if (trsv_inverse) {  // the largest of trsv_inv.cl's kernels: inversion, or trsm's two tiles
      const std::size_t b = static_cast<std::size_t>(p.trsv_block);
      const std::size_t inv_bytes = std::max(b * (b + 1), b * 33 + 32 * 65) * 8;
      if (inv_bytes > local_limit)
        fail("trsv.inverse with trsv.block = " + std::to_string(b) + " needs " + std::to_string(inv_bytes) +
             " bytes of local memory in f64, the limit is " + std::to_string(local_limit));
    }
    if (trsv_bytes > local_limit)
      fail("trsv.block needs at least " + std::to_string(trsv_bytes) + " bytes of local memory in f64, the limit is " +
           std::to_string(local_limit));
  }
}

}  // namespace tessera::opencl
