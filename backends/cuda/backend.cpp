// CudaBackend: device selection, errors and info(). Queues are in queue.cpp, memory in
// memory.cpp, the operations in one file each (reduce.cpp, spmv.cpp, ...), beside the kernels
// they launch in kernels/cuda/.
#include "cuda_backend.hpp"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "kernels/cuda/launch.hpp"

namespace tessera::cuda {

namespace {

// "backends/cuda/gemm.cpp" rather than the build machine's absolute path.
const char* short_path(const char* file) {
  const char* best = file;
  for (const char* key : {"backends/", "kernels/"})
    if (const char* p = std::strstr(file, key)) best = p;
  return best;
}

std::string version_text(int v) {  // 13000 -> "13.0"
  return std::to_string(v / 1000) + "." + std::to_string(v % 1000 / 10);
}

}  // namespace

std::string bytes_text(std::size_t b) {
  char buf[64];
  if (b >= (1u << 30)) std::snprintf(buf, sizeof buf, "%.1f GiB", static_cast<double>(b) / (1u << 30));
  else if (b >= (1u << 20)) std::snprintf(buf, sizeof buf, "%zu MiB", b >> 20);
  else std::snprintf(buf, sizeof buf, "%zu KiB", b >> 10);
  return buf;
}

std::string cuda_error_text(cudaError_t err) {
  return std::string(cudaGetErrorName(err)) + " (" + cudaGetErrorString(err) + ")";
}

void throw_cuda_error(cudaError_t err, const char* call, const char* file, int line) {
  (void)cudaGetLastError();  // a non-sticky error must not be reported again by the next launch
  const std::string msg = std::string("cuda: ") + call + " failed at " + short_path(file) + ":" +
                          std::to_string(line) + ": " + cuda_error_text(err);
  if (err == cudaErrorMemoryAllocation) throw OutOfMemory(msg);
  throw Error(msg);
}

void wait_for_event(cudaStream_t stream, cudaEvent_t event) {
  const cudaError_t state = cudaEventQuery(event);
  if (state == cudaSuccess) return;
  if (state != cudaErrorNotReady) check(state, "cudaEventQuery(event)", __FILE__, __LINE__);
  // While the stream records a graph, an event recorded outside it may only be waited for as an
  // external node (a plain wait fails with cudaErrorStreamCaptureIsolation: seen with a SELL plan
  // whose fill was still running when CG's capture began); each replay then waits for that
  // recording, long complete by then.
  cudaStreamCaptureStatus capture = cudaStreamCaptureStatusNone;
  TESSERA_CUDA_CHECK(cudaStreamIsCapturing(stream, &capture));
  TESSERA_CUDA_CHECK(cudaStreamWaitEvent(
      stream, event, capture == cudaStreamCaptureStatusActive ? cudaEventWaitExternal : cudaEventWaitDefault));
}

bool capturing(cudaStream_t stream) {
  cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
  TESSERA_CUDA_CHECK(cudaStreamIsCapturing(stream, &status));
  return status != cudaStreamCaptureStatusNone;
}

namespace {
std::atomic<std::uint64_t> freed_scratch{0};
}  // namespace

std::uint64_t scratch_generation() noexcept { return freed_scratch.load(std::memory_order_acquire); }

void* DeviceBuffer::ensure(std::size_t bytes) {
  if (bytes <= bytes_ && p_ != nullptr) return p_;
  release();
  void* p = nullptr;
  TESSERA_CUDA_CHECK(cudaMalloc(&p, bytes == 0 ? 1 : bytes));
  p_ = p;
  bytes_ = bytes;
  return p_;
}

void DeviceBuffer::release() noexcept {
  if (p_ == nullptr) return;
  (void)cudaFree(p_);  // errors at teardown (runtime unloading) are moot
  freed_scratch.fetch_add(1, std::memory_order_release);
  p_ = nullptr;
  bytes_ = 0;
}

namespace {

// The tuning class of a compute capability: Hopper and later, or Ampere/Ada (the oldest the
// plugin is compiled for).
const char* tuning_class(const cudaDeviceProp& p) { return p.major >= 9 ? "cuda/sm90" : "cuda/sm80"; }

// The kernels' fixed shapes and the tuning values that shape them, for tessera-info.
std::vector<std::pair<std::string, std::string>> describe_kernels(const tuning::Tuning& tune, int sm_count, bool sm90a) {
  auto tile = [](int m, int n, int k, int tm, int tn) {
    return std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k) + " block, " + std::to_string(tm) +
           "x" + std::to_string(tn) + " per thread";
  };
  using F = GemmTile<float>;
  using D = GemmTile<double>;
  using FN = GemmTile<float, true>;
  using FD = GemmTile<float, false, true>;
  using T32 = Tf32GemmTile<false>;
  const std::string stages = ", " + std::to_string(F::STAGES) + "-stage cp.async";
  return {
      {"reduce", std::to_string(tune.get("reduce.blocks_per_sm") * sm_count) + " blocks x " +
                     std::to_string(kReduceThreads) + " threads, 16-byte loads, last-block finish writes the result"},
      {"vector", "fill/axpby/elementwise: up to " + std::to_string(tune.get("vector.blocks_per_sm") * sm_count) +
                     " blocks x " + std::to_string(kVectorThreads) +
                     " threads, 16-byte loads after a scalar head; fused dots as reduce; coefficients read on the"
                     " device"},
      {"spmv", "vector (" + std::to_string(tune.get("spmv.min_lanes")) + "-" + std::to_string(tune.get("spmv.max_lanes")) +
                   " lanes/row by mean row length), merge-path (" + std::to_string(kMergeTile) +
                   " items/block) when max/mean row > " + std::to_string(tune.get("spmv.merge_skew")) +
                   " and max row > " + std::to_string(tune.get("spmv.merge_long_row")) +
                   ", stream (a warp per 32 rows) when mean row <= " + std::to_string(tune.get("spmv.stream_mean"))},
      {"trsv/trsm", "diagonal blocks " + std::to_string(kTrsvBlock<float>) + " (f32) / " +
                        std::to_string(kTrsvBlock<double>) + " (f64), inverted; sync-free block-row sweep"},
      {"sptrsv", "GPU level analysis; levels of fewer than " + std::to_string(tune.get("sptrsv.syncfree")) +
                     " rows on average: one block of up to " + std::to_string(kSptrsvBlockThreads) +
                     " threads walks them; wider: " +
                     (tune.get("sptrsv.parts") > 0
                          ? std::to_string(tune.get("sptrsv.parts")) +
                                "/8 block a SM walk them, each over its own part of the rows, earlier parts' rows "
                                "polled"
                          : "sync-free solve in level order, " + std::to_string(tune.get("sptrsv.blocks_per_sm")) +
                                " x " + std::to_string(kSptrsvThreads) + " threads per SM")},
      {"gemm f32", tile(F::BM, F::BN, F::BK, F::TM, F::TN) + stages + "; from k = " +
                       std::to_string(tune.get("gemm.deep_k")) + ": " + tile(FD::BM, FD::BN, FD::BK, FD::TM, FD::TN) +
                       ", " + std::to_string(FD::STAGES) + "-stage (narrow: " + tile(FN::BM, FN::BN, FN::BK, FN::TM, FN::TN) +
                       ", when it fills the SMs' waves better)"},
      {"gemm f32 tf32/tf32x3", "TF32 tensor cores (mma m16n8k8; tf32x3: hi/lo split, 3 mmas), " +
                                   std::to_string(T32::BM) + "x" + std::to_string(T32::BN) + "x" +
                                   std::to_string(T32::BK) + " block, " + std::to_string(T32::WM) + "x" +
                                   std::to_string(T32::WN) + " per warp, " + std::to_string(T32::STAGES) +
                                   "-stage cp.async (narrow: " + std::to_string(Tf32GemmTile<true>::BN) +
                                   " columns); also conv_layer's" +
                                   (sm90a ? std::string("; gemm on this device: wgmma + bulk tensor copy where one operand "
                                                      "is K-major and 16-byte aligned (gemm.tf32_kernel)")
                                        : std::string())},
      {"gemm f64", "FP64 tensor cores (DMMA m16n8k4 on sm_90, m8n8k4 before), " + std::to_string(D::BM) + "x" +
                       std::to_string(D::BN) + "x" + std::to_string(D::BK) + " block, " + std::to_string(D::TM) + "x" +
                       std::to_string(D::TN) + " per warp" + stages + " (or half as wide)"},
      {"stencil", "2D " + std::to_string(kStencil2dBlockX) + "x" +
                      std::to_string(kStencil2dBlockY * kStencil2dRowsPerThread) + " tiles; 3D 2.5D " +
                      std::to_string(kStencil3dBlockX * kStencil3dCellsX) + "x" + std::to_string(kStencil3dBlockY) +
                      " planes, z chunk " + std::to_string(tune.get("stencil.z_chunk")) +
                      (sm90a ? "; radius 2-4 on this device: planes of " + std::to_string(stencil3d_tma_tile_x(tune.get("stencil.bulk_lanes"), 4)) +
                                   "x" + std::to_string(tune.get("stencil.bulk_rows")) +
                                   " (f32) by the bulk tensor copy into a ring, " +
                                   std::to_string(tune.get("stencil.bulk_prefetch")) + " in flight (stencil.plane_sweep)"
                             : std::string())},
      {"conv2d", std::to_string(kConvTileX) + "x" + std::to_string(kConvTileY) +
                     " output tiles, filter in constant memory up to K = " + std::to_string(kConvConstFilterMax)},
      {"conv_layer", "implicit GEMM on the gemm tiles"},
  };
}

}  // namespace

CudaBackend::CudaBackend(int device) : device_(device) {
  TESSERA_CUDA_CHECK(cudaSetDevice(device_));
  TESSERA_CUDA_CHECK(cudaGetDeviceProperties(&props_, device_));
  TESSERA_CUDA_CHECK(cudaDeviceGetAttribute(&clock_khz_, cudaDevAttrClockRate, device_));
  TESSERA_CUDA_CHECK(cudaDeviceGetAttribute(&mem_clock_khz_, cudaDevAttrMemoryClockRate, device_));
  tune_ = tuning::Tuning::for_device(tuning_class(props_), "cuda:" + std::to_string(device_));
  reduce_blocks_ = std::max(1, tune_.get("reduce.blocks_per_sm") * sm_count());
  vector_blocks_ = std::max(1, tune_.get("vector.blocks_per_sm") * sm_count());
}

CudaBackend::~CudaBackend() {
  // Errors here cannot be reported (and the runtime may be unloading at exit): ignore them.
  // Queues hold their own scratch; the shared state (SpMV partitions) is freed after this body,
  // on this device.
  (void)cudaSetDevice(device_);
}

void CudaBackend::make_current() const { TESSERA_CUDA_CHECK(cudaSetDevice(device_)); }

DeviceInfo CudaBackend::info() const {
  DeviceInfo d;
  d.name = props_.name;
  d.vendor = "NVIDIA";
  d.type = "gpu";
  d.compute_units = props_.multiProcessorCount;
  d.memory_bytes = props_.totalGlobalMem;
  int driver = 0, runtime = 0;
  (void)cudaDriverGetVersion(&driver);
  (void)cudaRuntimeGetVersion(&runtime);
  d.driver = "CUDA " + version_text(driver) + " (runtime " + version_text(runtime) + ", linked statically)";
  d.details = {
      {"compute capability", std::to_string(props_.major) + "." + std::to_string(props_.minor)},
      {"SMs", std::to_string(props_.multiProcessorCount)},
      {"SM clock", std::to_string(clock_khz_ / 1000) + " MHz"},
      {"memory clock", std::to_string(mem_clock_khz_ / 1000) + " MHz, " + std::to_string(props_.memoryBusWidth) +
                           "-bit bus"},
      {"L2 cache", bytes_text(static_cast<std::size_t>(props_.l2CacheSize))},
      {"shared memory per block", bytes_text(props_.sharedMemPerBlock) + " (" +
                                      bytes_text(props_.sharedMemPerBlockOptin) + " opt-in)"},
      {"PCI", std::to_string(props_.pciDomainID) + ":" + std::to_string(props_.pciBusID) + ":" +
                  std::to_string(props_.pciDeviceID)},
  };
  for (auto& kv : describe_kernels(tune_, sm_count(), has_sm90a())) d.details.emplace_back("kernels: " + kv.first, kv.second);
  d.tuning_class = tune_.device_class();
  d.tuning = tune_.values();
  return d;
}

}  // namespace tessera::cuda
