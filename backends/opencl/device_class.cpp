#include "device_class.hpp"

#include <algorithm>
#include <cctype>

#include "tessera/errors.hpp"

namespace tessera::opencl {

namespace {

// Selection rules, first match wins; PoCL comes before Intel because PoCL on an Intel CPU
// reports the CPU's vendor.
struct Rule {
  const char* device_class;
  bool gpu;                       // device type required: GPU (true) or CPU (false)
  const char* vendor_contains;    // nullptr: any
  const char* platform_contains;  // nullptr: any
};
constexpr Rule rules[] = {
    {"opencl/pocl-cpu", false, nullptr, "Portable Computing Language"},
    {"opencl/intel-cpu", false, "Intel", nullptr},
    {"opencl/nvidia", true, "NVIDIA", nullptr},
    {"opencl/amd-gcn", true, "Advanced Micro Devices", nullptr},
    {"opencl/amd-gcn", true, "AMD", nullptr},
};

bool contains_nocase(const std::string& hay, const char* needle) {
  std::string h = hay, n = needle;
  std::transform(h.begin(), h.end(), h.begin(), [](unsigned char c) { return std::tolower(c); });
  std::transform(n.begin(), n.end(), n.begin(), [](unsigned char c) { return std::tolower(c); });
  return h.find(n) != std::string::npos;
}

}  // namespace

std::string device_class(const DeviceFacts& facts) {
  for (const Rule& r : rules) {
    if (r.gpu ? !facts.is_gpu : !facts.is_cpu) continue;
    if (r.vendor_contains && !contains_nocase(facts.vendor, r.vendor_contains)) continue;
    if (r.platform_contains && !contains_nocase(facts.platform_name, r.platform_contains)) continue;
    return r.device_class;
  }
  return "opencl/generic";
}

void validate_tuning(const tuning::Tuning& t, std::size_t device_max_wg, std::size_t device_local_mem_bytes) {
  auto fail = [&](const std::string& what) {
    throw InvalidArgument("OpenCL tuning (class " + t.device_class() + "): " + what +
                          " (set by lib/src/tuning or TESSERA_TUNE)");
  };
  auto v = [&](const char* key) { return static_cast<long>(t[key]); };
  // The class's own device.max_wg binds too: the GCN class forced onto a CPU driver that allows
  // 4096 work-items must still keep to GCN's 256, or PoCL would test shapes GCN cannot run.
  const std::size_t wg_limit = std::min<std::size_t>(device_max_wg, static_cast<std::size_t>(v("device.max_wg")));
  auto need_wg = [&](const char* key, long n) {
    if (n < 1 || static_cast<std::size_t>(n) > wg_limit)
      fail(std::string(key) + " gives work-groups of " + std::to_string(n) +
           " work-items; device.max_wg and the device allow 1.." + std::to_string(wg_limit));
  };
  // Powers of two and vector widths are checked by the tuning table (Shape); the rest here.
  need_wg("reduce.wg", v("reduce.wg"));
  // reduce.cl's tree kernels give each work-item at most one of the n % reduce.vw tail elements,
  // and pass 2 runs a single group: fewer work-items than reduce.vw would drop elements (a sum
  // of 8192 ones once came out as 4096 with reduce.wg = 1).
  if (v("reduce.wg") < v("reduce.vw"))
    fail("reduce.wg = " + std::to_string(v("reduce.wg")) + " must be at least reduce.vw = " +
         std::to_string(v("reduce.vw")) + " (each work-item takes at most one tail element)");
  if (v("reduce.chunk") % (2 * v("reduce.vw")) != 0)
    fail("reduce.chunk = " + std::to_string(v("reduce.chunk")) + " must be a multiple of 2 * reduce.vw");
  need_wg("vector.wg", v("vector.wg"));
  if (v("cg.fused_max_nnz") > 0) need_wg("cg.wg", v("cg.wg"));
  need_wg("spmv.wg", v("spmv.wg"));
  need_wg("spmm.wg", v("spmm.wg"));
  if (v("spmv.max_lanes") > v("spmv.wg")) fail("spmv.max_lanes must not exceed spmv.wg");
  need_wg("trsv.block", v("trsv.block"));
  need_wg("sptrsv.wg", v("sptrsv.wg"));
  need_wg("sptrsv.syncfree_wg", v("sptrsv.syncfree_wg"));
  if (v("gemm.mwg") % v("gemm.mdimc") != 0 || v("gemm.nwg") % v("gemm.ndimc") != 0)
    fail("gemm.mwg must be a multiple of gemm.mdimc and gemm.nwg of gemm.ndimc");
  need_wg("gemm.mdimc * gemm.ndimc", v("gemm.mdimc") * v("gemm.ndimc"));
  if ((v("gemm.nwg") / v("gemm.ndimc")) % v("gemm.vw") != 0) fail("gemm.nwg / gemm.ndimc must be a multiple of gemm.vw");
  // Each work-item keeps its (mwg / mdimc) x (nwg / ndimc) block of C in registers, its loops
  // fully unrolled: the built-in classes use 64 (nvidia) to 256 (pocl-cpu) values; far beyond
  // that the block spills and the unrolled code takes compilers minutes (gemm.nwg = 2^20 once
  // ran 400 s on PoCL), so 1024 is the limit.
  const std::int64_t block = (v("gemm.mwg") / v("gemm.mdimc")) * (v("gemm.nwg") / v("gemm.ndimc"));
  if (block > 1024)
    fail("gemm's register block (gemm.mwg / gemm.mdimc) x (gemm.nwg / gemm.ndimc) = " + std::to_string(block) +
         " values per work-item, at most 1024");
  need_wg("stencil.lx * stencil.ly", v("stencil.lx") * v("stencil.ly"));
  need_wg("conv.lx * conv.ly", v("conv.lx") * v("conv.ly"));
  const bool gpu_kernels = v("device.cpu_kernels") == 0;
  const bool trsv_inverse = v("trsv.inverse") == 1 && gpu_kernels;
  const long trsv_block = v("trsv.block"), trsv_wg = v("trsv.wg");
  if (trsv_inverse) {
    // trsv_inv.cl: 32-wide lanes over a block, whole warps of rows, whole parts of the inverse.
    if (trsv_block % 32 != 0 || trsv_block > 128) fail("trsv.block must be a multiple of 32 up to 128 with trsv.inverse");
    if (trsv_wg % trsv_block != 0 || trsv_wg / 32 > 32 || trsv_block % (trsv_wg / 32) != 0)
      fail("trsv.wg must be a multiple of trsv.block, at most 1024, and trsv.wg / 32 must divide trsv.block");
    need_wg("trsv.wg", trsv_wg);
    need_wg("trsm block-column tile (16 x 16)", 256);
  }
  if (!gpu_kernels) return;  // the cpu kernels use no local memory
  // Local memory of the largest users, in f64 (the worst case): gemm's two tiles, trsv's block.
  const std::size_t local_limit =
      std::min<std::size_t>(static_cast<std::size_t>(v("device.local_mem_kb")) * 1024, device_local_mem_bytes);
  auto need_local = [&](const std::string& what, std::size_t bytes) {
    if (bytes > local_limit)
      fail(what + " needs " + std::to_string(bytes) + " bytes of local memory in f64, the limit is " +
           std::to_string(local_limit));
  };
  need_local("gemm's tiles (gemm.mwg + gemm.nwg) x gemm.kwg",
             static_cast<std::size_t>(v("gemm.mwg") + v("gemm.nwg")) * v("gemm.kwg") * 8);
  const auto spmv_wg = static_cast<std::size_t>(v("spmv.wg"));
  if (v("spmv.stream_mean") > 0) need_local("spmv.stream_mean > 0 (spmv_stream's chunk of 8 x spmv.wg)", spmv_wg * 8 * 8);
  // spmv_merge: row ends, products and per-work-item carries of one tile.
  const std::size_t merge_tile = spmv_wg * static_cast<std::size_t>(v("spmv.merge_items"));
  if (v("spmv.merge_skew") > 0)
    need_local("spmv.merge_skew > 0 with spmv.wg x spmv.merge_items = " + std::to_string(merge_tile),
               (merge_tile + 1) * 4 + merge_tile * 8 + spmv_wg * 12);
  const auto b = static_cast<std::size_t>(trsv_block);
  if (trsv_inverse)  // the largest of trsv_inv.cl's kernels: inversion, or trsm's two tiles
    need_local("trsv.inverse with trsv.block = " + std::to_string(b), std::max(b * (b + 1), b * 33 + 32 * 65) * 8);
  // trsv tiles shrink to fit (trsv.cpp), down to one column: BS x 2 plus x.
  need_local("trsv.block = " + std::to_string(b), b * 3 * 8);
}

}  // namespace tessera::opencl
