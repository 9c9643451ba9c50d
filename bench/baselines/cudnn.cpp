// cuDNN baselines on GPU 0 beside Tessera's cuda:0: conv2d as a one-channel convolution
// (N = C = K = 1, padding K/2 for 'same') and the conv layer, NCHW, cross-correlation, through
// the legacy convolution API (deprecated in cuDNN 9, still complete).
//
// Math: the baseline line uses CUDNN_FMA_MATH for f32 (FMA kernels only: FP32 products and
// sums, though the algorithm may be Winograd or FFT, whose transforms round differently from
// direct summation; well within the f32 check), the default math for f64. "cudnn-tf32" (f32)
// permits TF32 tensor cores (CUDNN_TENSOR_OP_MATH) and is shown beside it, never used for the
// ratio. The algorithm is chosen once by cudnnFindConvolutionForwardAlgorithm (cuDNN times each
// candidate), its workspace allocated once; only cudnnConvolutionForward is timed, by events
// on the baselines' stream.
//
// libcudnn.so.9 is opened with dlopen on first use, never linked: the bench starts where there
// is none (CI), and its header says why the cuDNN rows are absent. Where it is looked for:
// $TESSERA_CUDNN_LIBRARY (a path), then the loader's search (LD_LIBRARY_PATH: on the GPU machine
// scripts/gpu-machine-check.sh adds the Python package nvidia.cudnn's lib/), then
// TESSERA_CUDNN_ROOT/lib of the build (TESSERA_BENCH_CUDNN_LIBRARY).
#include <cudnn.h>
#include <dlfcn.h>

#include <cstdlib>
#include <exception>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "baselines/cuda_common.hpp"
#include "baselines/libs.hpp"
#include "workload.hpp"

namespace bench::cudnn {

namespace {

using cudalibs::check;
using cudalibs::DevBuf;

// Every cuDNN function the runners call, resolved with dlsym. decltype(&::f) only names the
// header's declaration, so nothing here links against libcudnn.
#define TESSERA_CUDNN_FUNCTIONS(X)                                                                               \
  X(cudnnGetVersion) X(cudnnGetErrorString) X(cudnnCreate) X(cudnnSetStream) X(cudnnCreateTensorDescriptor)      \
  X(cudnnSetTensor4dDescriptor) X(cudnnDestroyTensorDescriptor) X(cudnnCreateFilterDescriptor)                  \
  X(cudnnSetFilter4dDescriptor) X(cudnnDestroyFilterDescriptor) X(cudnnCreateConvolutionDescriptor)             \
  X(cudnnSetConvolution2dDescriptor) X(cudnnSetConvolutionMathType) X(cudnnDestroyConvolutionDescriptor)        \
  X(cudnnGetConvolution2dForwardOutputDim) X(cudnnGetConvolutionForwardAlgorithmMaxCount)                       \
  X(cudnnFindConvolutionForwardAlgorithm) X(cudnnGetConvolutionForwardWorkspaceSize) X(cudnnConvolutionForward)

struct Api {
  std::string why;  // empty when loaded
  std::string path;
#define TESSERA_CUDNN_MEMBER(f) decltype(&::f) f = nullptr;
  TESSERA_CUDNN_FUNCTIONS(TESSERA_CUDNN_MEMBER)
#undef TESSERA_CUDNN_MEMBER
};

Api load() {
  Api a;
  const std::string soname = "libcudnn.so." + std::to_string(CUDNN_MAJOR);
  std::vector<std::string> candidates;
  if (const char* env = std::getenv("TESSERA_CUDNN_LIBRARY"); env && *env) candidates.emplace_back(env);
  candidates.push_back(soname);
#ifdef TESSERA_BENCH_CUDNN_LIBRARY
  candidates.emplace_back(TESSERA_BENCH_CUDNN_LIBRARY);
#endif
  void* lib = nullptr;
  std::string tried;
  for (const auto& c : candidates) {
    lib = dlopen(c.c_str(), RTLD_NOW | RTLD_LOCAL);  // kept open to the end of the process
    if (lib) {
      a.path = c;
      break;
    }
    const char* e = dlerror();
    tried += (tried.empty() ? "" : "; ") + std::string(e ? e : c + ": not found");
  }
  if (!lib) {
    a.why = tried + " (set LD_LIBRARY_PATH or TESSERA_CUDNN_LIBRARY; see bench/README.md)";
    return a;
  }
#define TESSERA_CUDNN_RESOLVE(f)                                                  \
  a.f = reinterpret_cast<decltype(&::f)>(dlsym(lib, #f));                         \
  if (!a.f) {                                                                     \
    a.why = a.path + " has no " #f;                                               \
    return a;                                                                     \
  }
  TESSERA_CUDNN_FUNCTIONS(TESSERA_CUDNN_RESOLVE)
#undef TESSERA_CUDNN_RESOLVE
  // The legacy structs and enums used here are those of the major version compiled against.
  const std::size_t v = a.cudnnGetVersion();
  if (v / 10000 != CUDNN_MAJOR) {
    a.why = a.path + " is cuDNN " + std::to_string(v) + ", the bench was compiled against major version " +
            std::to_string(CUDNN_MAJOR);
    a.cudnnGetVersion = nullptr;
  }
  return a;
}

const Api& api() {
  static const Api a = load();
  return a;
}

void check(cudnnStatus_t s, const char* what) {
  if (s != CUDNN_STATUS_SUCCESS) throw std::runtime_error(std::string(what) + ": " + api().cudnnGetErrorString(s));
}

// One handle for the process, on GPU 0 and the baselines' stream.
cudnnHandle_t handle() {
  static cudnnHandle_t h = [] {
    cudaStream_t s = cudalibs::stream();  // sets the device too
    cudnnHandle_t x;
    check(api().cudnnCreate(&x), "cudnnCreate");
    check(api().cudnnSetStream(x, s), "cudnnSetStream");
    return x;
  }();
  return h;
}

const char* algo_name(cudnnConvolutionFwdAlgo_t a) {
  switch (a) {
    case CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM: return "IMPLICIT_GEMM";
    case CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM: return "IMPLICIT_PRECOMP_GEMM";
    case CUDNN_CONVOLUTION_FWD_ALGO_GEMM: return "GEMM";
    case CUDNN_CONVOLUTION_FWD_ALGO_DIRECT: return "DIRECT";
    case CUDNN_CONVOLUTION_FWD_ALGO_FFT: return "FFT";
    case CUDNN_CONVOLUTION_FWD_ALGO_FFT_TILING: return "FFT_TILING";
    case CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD: return "WINOGRAD";
    case CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD_NONFUSED: return "WINOGRAD_NONFUSED";
    default: return "?";
  }
}
const char* math_name(cudnnMathType_t m) {
  switch (m) {
    case CUDNN_DEFAULT_MATH: return "default math";
    case CUDNN_TENSOR_OP_MATH: return "tensor-op math";
    case CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION: return "tensor-op math with conversion";
    case CUDNN_FMA_MATH: return "FMA math";
  }
  return "?";
}

// NCHW in, KCRS filter, NKPQ out; all int as the legacy API takes them.
struct Shape {
  int n, c, h, w, k, r, s, pad_h, pad_w, stride_h, stride_w, p, q;
};

template <class T>
class Conv : public cudalibs::GpuRunner {
 public:
  Conv(const Shape& sh, const std::vector<T>& in, const std::vector<T>& filter, bool tf32)
      : sh_(sh), x_(in), w_(filter), y_(static_cast<std::size_t>(sh.n) * sh.k * sh.p * sh.q * sizeof(T)) {
    const Api& a = api();
    const cudnnDataType_t dt = std::is_same_v<T, float> ? CUDNN_DATA_FLOAT : CUDNN_DATA_DOUBLE;
    check(a.cudnnCreateTensorDescriptor(&xd_), "cudnnCreateTensorDescriptor");
    check(a.cudnnCreateTensorDescriptor(&yd_), "cudnnCreateTensorDescriptor");
    check(a.cudnnCreateFilterDescriptor(&wd_), "cudnnCreateFilterDescriptor");
    check(a.cudnnCreateConvolutionDescriptor(&cd_), "cudnnCreateConvolutionDescriptor");
    check(a.cudnnSetTensor4dDescriptor(xd_, CUDNN_TENSOR_NCHW, dt, sh.n, sh.c, sh.h, sh.w), "cudnnSetTensor4dDescriptor");
    check(a.cudnnSetFilter4dDescriptor(wd_, dt, CUDNN_TENSOR_NCHW, sh.k, sh.c, sh.r, sh.s), "cudnnSetFilter4dDescriptor");
    check(a.cudnnSetConvolution2dDescriptor(cd_, sh.pad_h, sh.pad_w, sh.stride_h, sh.stride_w, 1, 1,
                                            CUDNN_CROSS_CORRELATION, dt),
          "cudnnSetConvolution2dDescriptor");
    const cudnnMathType_t math = tf32 ? CUDNN_TENSOR_OP_MATH : std::is_same_v<T, float> ? CUDNN_FMA_MATH : CUDNN_DEFAULT_MATH;
    check(a.cudnnSetConvolutionMathType(cd_, math), "cudnnSetConvolutionMathType");
    int on = 0, ok = 0, oh = 0, ow = 0;
    check(a.cudnnGetConvolution2dForwardOutputDim(cd_, xd_, wd_, &on, &ok, &oh, &ow),
          "cudnnGetConvolution2dForwardOutputDim");
    if (on != sh.n || ok != sh.k || oh != sh.p || ow != sh.q)
      throw std::runtime_error("cuDNN output " + std::to_string(oh) + "x" + std::to_string(ow) + ", expected " +
                               std::to_string(sh.p) + "x" + std::to_string(sh.q));
    check(a.cudnnSetTensor4dDescriptor(yd_, CUDNN_TENSOR_NCHW, dt, sh.n, sh.k, sh.p, sh.q), "cudnnSetTensor4dDescriptor");

    int count = 0;
    check(a.cudnnGetConvolutionForwardAlgorithmMaxCount(handle(), &count), "cudnnGetConvolutionForwardAlgorithmMaxCount");
    std::vector<cudnnConvolutionFwdAlgoPerf_t> perf(static_cast<std::size_t>(count > 0 ? count : 1));
    int returned = 0;
    check(a.cudnnFindConvolutionForwardAlgorithm(handle(), xd_, wd_, cd_, yd_, static_cast<int>(perf.size()), &returned,
                                                 perf.data()),
          "cudnnFindConvolutionForwardAlgorithm");
    // Sorted fastest first; the exact line also refuses a tensor-op result, should one appear.
    const cudnnConvolutionFwdAlgoPerf_t* best = nullptr;
    for (int i = 0; i < returned && !best; ++i) {
      const auto& p = perf[static_cast<std::size_t>(i)];
      const bool tensor_op = p.mathType == CUDNN_TENSOR_OP_MATH || p.mathType == CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION;
      if (p.status == CUDNN_STATUS_SUCCESS && (tf32 || !tensor_op)) best = &p;
    }
    if (!best)
      throw Skipped(std::string("cuDNN has no forward algorithm for this case in ") +
                    (std::is_same_v<T, float> ? "f32" : "f64") + " with " + math_name(math));
    algo_ = best->algo;
    // The math type the chosen algorithm was timed with must be set for the call itself.
    check(a.cudnnSetConvolutionMathType(cd_, best->mathType), "cudnnSetConvolutionMathType");
    check(a.cudnnGetConvolutionForwardWorkspaceSize(handle(), xd_, wd_, cd_, yd_, algo_, &ws_bytes_),
          "cudnnGetConvolutionForwardWorkspaceSize");
    ws_ = std::make_unique<DevBuf>(ws_bytes_);
    detail_ = std::string(algo_name(algo_)) + ", " + math_name(best->mathType) + ", workspace " +
              std::to_string(ws_bytes_ >> 10) + " KiB";
  }
  ~Conv() override {
    const Api& a = api();
    if (cd_) a.cudnnDestroyConvolutionDescriptor(cd_);
    if (wd_) a.cudnnDestroyFilterDescriptor(wd_);
    if (yd_) a.cudnnDestroyTensorDescriptor(yd_);
    if (xd_) a.cudnnDestroyTensorDescriptor(xd_);
  }
  Conv(const Conv&) = delete;
  Conv& operator=(const Conv&) = delete;

  void run() override {
    const T alpha = 1, beta = 0;  // scaling factors in the data type (double for double data)
    check(api().cudnnConvolutionForward(handle(), &alpha, xd_, x_.get<T>(), wd_, w_.get<T>(), cd_, algo_,
                                        ws_->get<void>(), ws_bytes_, &beta, yd_, y_.get<T>()),
          "cudnnConvolutionForward");
  }
  std::vector<double> result() override { return y_.download_as_double<T>(); }
  std::string detail() const override { return detail_; }

 private:
  Shape sh_;
  DevBuf x_, w_, y_;
  cudnnTensorDescriptor_t xd_ = nullptr, yd_ = nullptr;
  cudnnFilterDescriptor_t wd_ = nullptr;
  cudnnConvolutionDescriptor_t cd_ = nullptr;
  cudnnConvolutionFwdAlgo_t algo_ = CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM;
  std::size_t ws_bytes_ = 0;
  std::unique_ptr<DevBuf> ws_;
  std::string detail_;
};

int to_int(std::int64_t v) {
  if (v < 0 || v > 0x7fffffff) throw Skipped("cuDNN: a dimension exceeds int (" + std::to_string(v) + ")");
  return static_cast<int>(v);
}

// Builds the runner; a failure becomes that row's n/a (Skipped) or error, not the whole case's.
template <class F>
std::unique_ptr<Runner> guarded(F&& build) {
  try {
    return build();
  } catch (...) {
    return std::make_unique<cudalibs::NotRunnable>(std::current_exception());
  }
}

}  // namespace

bool available() { return api().why.empty(); }

std::string version() {
  const Api& a = api();
  if (!a.why.empty()) return "cuDNN not loaded: " + a.why;
  const std::size_t v = a.cudnnGetVersion();
  std::string file = a.path;  // the file the loader chose, where it says
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(a.cudnnGetVersion), &info) && info.dli_fname) file = info.dli_fname;
  return "cuDNN " + std::to_string(v / 10000) + "." + std::to_string(v / 100 % 100) + "." + std::to_string(v % 100) +
         " (" + file + ")";
}

template <class T>
std::unique_ptr<Runner> conv2d(const Conv2dData<T>& d, bool tf32) {
  return guarded([&]() -> std::unique_ptr<Runner> {
    // 'same' pads (K-1)/2 before and K/2 after: symmetric, as cuDNN requires, for odd K only.
    const bool same = d.mode == tessera::ConvMode::same;
    if (same && d.K % 2 == 0) throw Skipped("cuDNN: 'same' with an even filter needs asymmetric padding");
    Shape sh{};
    sh.n = sh.c = sh.k = 1;
    sh.h = to_int(d.H);
    sh.w = to_int(d.W);
    sh.r = sh.s = to_int(d.K);
    sh.pad_h = sh.pad_w = same ? sh.r / 2 : 0;
    sh.stride_h = sh.stride_w = 1;
    sh.p = same ? sh.h : sh.h - sh.r + 1;
    sh.q = same ? sh.w : sh.w - sh.s + 1;
    return std::make_unique<Conv<T>>(sh, d.image, d.filter, tf32);
  });
}

template <class T>
std::unique_ptr<Runner> conv_layer(const ConvLayerData<T>& d, bool tf32) {
  return guarded([&]() -> std::unique_ptr<Runner> {
    Shape sh{};
    sh.n = to_int(d.N);
    sh.c = to_int(d.C);
    sh.h = to_int(d.H);
    sh.w = to_int(d.W);
    sh.k = to_int(d.K);
    sh.r = to_int(d.R);
    sh.s = to_int(d.S);
    sh.pad_h = to_int(d.params.pad_h);
    sh.pad_w = to_int(d.params.pad_w);
    sh.stride_h = to_int(d.params.stride_h);
    sh.stride_w = to_int(d.params.stride_w);
    sh.p = to_int(d.P);
    sh.q = to_int(d.Q);
    return std::make_unique<Conv<T>>(sh, d.in, d.filter, tf32);
  });
}

template std::unique_ptr<Runner> conv2d<float>(const Conv2dData<float>&, bool);
template std::unique_ptr<Runner> conv2d<double>(const Conv2dData<double>&, bool);
template std::unique_ptr<Runner> conv_layer<float>(const ConvLayerData<float>&, bool);
template std::unique_ptr<Runner> conv_layer<double>(const ConvLayerData<double>&, bool);

}  // namespace bench::cudnn
