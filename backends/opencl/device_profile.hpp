// DeviceProfile: every parameter the OpenCL kernels are specialised with (work-group sizes,
// subgroup width, tile sizes, kernel family), as data. Profiles live in one table
// (device_profile.cpp), are chosen by vendor and device type, and can be replaced or tweaked by
// the user with TESSERA_OPENCL_PROFILE. Vendor quirks belong here, not in `if`s in the op code.
#pragma once

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

namespace tessera::opencl {

// Which variant of each kernel a profile runs. GPU kernels use work-group trees and tiles in
// local memory; CPU kernels give each work-item a contiguous piece of work in registers (on a
// CPU driver local memory is ordinary cached memory and barriers are pure overhead).
enum class KernelFamily { gpu, cpu };

constexpr int kGemmPortable = 1, kGemmNvidiaPtx = 2;  // DeviceProfile::gemm_kernels

struct DeviceProfile {
  std::string name;         // what TESSERA_OPENCL_PROFILE accepts, e.g. "nvidia"
  std::string description;  // one line for tessera-info
  KernelFamily family = KernelFamily::gpu;
  int subgroup = 32;      // lanes executing in lock step: warp 32, wavefront 64, CPU SIMD lanes
  int max_wg = 256;       // most work-items per group this class of device runs well
  int local_mem_kb = 32;  // local memory one work-group may use

  // reduce: gpu = grid-stride compensated sums of `vw`-wide vectors, then a tree in local
  //         memory, per group; cpu = each work-item sums `chunk` consecutive elements in two
  //         `vw`-wide vector accumulators.
  int reduce_wg = 256;           // power of two (tree kernels, and the final pass on any family)
  int reduce_groups_per_cu = 8;  // gpu: groups in the first pass, per compute unit
  int reduce_chunk = 4096;       // cpu: elements per work-item (multiple of 2 * vw)
  int reduce_vw = 8;             // 1, 2, 4, 8 or 16

  // spmv CSR: gpu = `lanes` work-items per row (lanes from the mean row length, at most
  //           max_lanes), tree in local memory; cpu = one work-item per `rows_per_item` rows.
  int spmv_wg = 256;
  int spmv_max_lanes = 32;      // power of two, <= spmv_wg
  int spmv_rows_per_item = 16;  // cpu
  int spmv_stream_mean = 0;     // gpu: stream kernel for even rows of mean length up to this (0: never)
  // gpu: merge-path kernel when the longest row exceeds 64 and merge_skew x the mean (0: never);
  // its tiles are spmv_wg x merge_items rows + nonzeros.
  int spmv_merge_skew = 0, spmv_merge_items = 4;

  // trsv/trsm: unknowns per diagonal block (one kernel launch per block); cpu: right-hand
  // sides per work-item (a vector along B's rows).
  int trsv_block = 32, trsv_vw = 1;
  // gpu, trsv.inverse = 1: invert the diagonal blocks first (a multiple of 32 for trsv.block),
  // then trsv as one launch of at most groups_per_cu x compute units groups of trsv.wg
  // work-items that synchronise through flags, and trsm one launch per block column.
  int trsv_inverse = 0, trsv_wg = 256, trsv_groups_per_cu = 2;

  // sptrsv: work-group of the level kernels (small levels run as one group with barriers).
  int sptrsv_wg = 256;
  // gpu: one sync-free launch (rows wait on flags of the rows they depend on) when the levels
  // hold at least this many rows on average (0: never); groups_per_cu x compute units groups of
  // syncfree_wg work-items take tasks of syncfree_wg rows; a waiting work-item backs off up to
  // sleep_ns (NVIDIA's nanosleep; 0: spin).
  int sptrsv_syncfree = 0, sptrsv_groups_per_cu = 4, sptrsv_syncfree_wg = 256, sptrsv_sleep_ns = 0;

  // gemm: a work-group computes an mwg x nwg tile of C with mdimc x ndimc work-items, each an
  // (mwg/mdimc) x (nwg/ndimc) register block; gpu: k-steps of kwg through local memory (the
  // k-loop is unrolled: keep kwg small); cpu: no local memory (kwg unused), vw-wide vectors
  // along n (nwg/ndimc a multiple of vw).
  int gemm_mwg = 64, gemm_nwg = 64, gemm_kwg = 16, gemm_mdimc = 16, gemm_ndimc = 16, gemm_vw = 1;
  // Which gemm kernels gemm and conv_layer run (an integer key, so the override can set it):
  // kGemmPortable = gemm.cl (the family's variant above); kGemmNvidiaPtx = gemm_ptx.cl (inline
  // PTX: cp.async pipeline, f64 on mma.sync) where the platform is NVIDIA's, else gemm.cl.
  // Its tile shapes follow from its warp layout (gemm.cpp), not from mwg/nwg/kwg.
  int gemm_kernels = kGemmPortable;

  // stencil: work-group shape in work-items (x fastest); cpu: a work-item computes vw
  // consecutive cells (explicit vectors) of `rows` consecutive rows; gpu: one cell.
  int stencil_lx = 32, stencil_ly = 8, stencil_vw = 1, stencil_rows = 1;
  // cpu, 3D grids beyond the caches: a work-item sweeps z over a block of this many rows,
  // streaming its stores (kernels/opencl/stencil.cl stencil_sweep; clang builtins: PoCL). 0: off.
  int stencil_sweep_rows = 0;

  // conv2d: work-group shape; cpu: each work-item computes vw consecutive outputs of a row;
  // gpu: `rows` outputs of a column (a group's tile is lx x (ly * rows), staged in local memory).
  int conv_lx = 32, conv_ly = 8, conv_vw = 1, conv_rows = 4;
};

// The built-in profiles, in selection order.
const std::vector<DeviceProfile>& builtin_profiles();

// What the selection looks at.
struct DeviceFacts {
  std::string platform_name;
  std::string vendor;
  std::string device_name;
  bool is_gpu = false;
  bool is_cpu = false;
};

// The profile for a device: TESSERA_OPENCL_PROFILE when set (see below), else the first rule of
// the table that matches vendor and device type, else "generic". `index` is N of opencl:N.
// Throws InvalidArgument for an unknown profile name or a malformed or invalid setting.
//
// TESSERA_OPENCL_PROFILE = entry (';' entry)*
//   entry = [N ':'] item (',' item)*      N: apply to opencl:N only (else to every device)
//   item  = profile-name | key '=' integer (keys as listed by profile_parameters, e.g. gemm.mwg)
// e.g. "amd-gcn", "1:nvidia", "pocl-cpu,gemm.mwg=48", "gemm.kwg=32" (tweak the automatic one).
DeviceProfile select_profile(const DeviceFacts& facts, int index);

// The tunable parameters as (key, value), in a fixed order, for display and overrides.
std::vector<std::pair<std::string, int>> profile_parameters(const DeviceProfile& p);

// Checks the constraints the kernels rely on (powers of two, divisibility, limits of the
// device); throws InvalidArgument naming the parameter.
void validate_profile(const DeviceProfile& p, std::size_t device_max_wg, std::size_t device_local_mem_bytes);

}  // namespace tessera::opencl
