// NVIDIA library baselines on GPU 0, compared with Tessera's cuda:0: CUB (reduce sum), cuBLAS
// (dot, trsv, trsm, gemm: FP32 with the pedantic compute type, FP64, and a separate TF32 line)
// and cuSPARSE (CSR SpMV, sparse triangular solve). Each runner uploads the workload's host
// arrays to its own device buffers once (untimed); all run on one stream (stream()) and are
// timed by events around the library call (cuda_common.hpp); run() is asynchronous except where
// the call hands a value to the host (dot, reduce), as Tessera's does.
//
// Row-major data in column-major BLAS: a row-major matrix is its transpose in column-major, so
//   gemm  C = A B      is  C^T = B^T A^T                 (operands swapped)
//   trsv  lower A x = b   is  (upper A^T)^T x = b        (fill upper, op T)
//   trsm  A X = alpha B   is  X^T A^T = alpha B^T        (side right, fill upper, op N)
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cusparse.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "baselines/cub_reduce.hpp"
#include "baselines/cuda_common.hpp"
#include "baselines/cuda_handles.hpp"
#include "baselines/libs.hpp"

namespace bench::cudalibs {

cudaStream_t stream() {
  static cudaStream_t s = [] {
    check(cudaSetDevice(0), "cudaSetDevice");
    cudaStream_t x;
    check(cudaStreamCreate(&x), "cudaStreamCreate");
    return x;
  }();
  return s;
}

void check(cublasStatus_t s, const char* what) {
  if (s != CUBLAS_STATUS_SUCCESS) throw std::runtime_error(std::string(what) + ": cuBLAS status " + std::to_string(s));
}
void check(cusparseStatus_t s, const char* what) {
  if (s != CUSPARSE_STATUS_SUCCESS) throw std::runtime_error(std::string(what) + ": " + cusparseGetErrorString(s));
}

// One handle each for the process, on GPU 0 and stream() (created on first use, kept to the end).
cublasHandle_t blas() {
  static cublasHandle_t h = [] {
    cudaStream_t s = stream();  // sets the device too
    cublasHandle_t x;
    check(cublasCreate(&x), "cublasCreate");
    check(cublasSetStream(x, s), "cublasSetStream");
    return x;
  }();
  return h;
}
cusparseHandle_t sparse() {
  static cusparseHandle_t h = [] {
    cudaStream_t s = stream();
    cusparseHandle_t x;
    check(cusparseCreate(&x), "cusparseCreate");
    check(cusparseSetStream(x, s), "cusparseSetStream");
    return x;
  }();
  return h;
}

namespace {

// CUB's DeviceReduce::Sum; the temporary storage is sized and allocated once, here. The value
// goes to the host before run() returns, as tessera::sum's does, so both timings include the
// same device-to-host round trip.
template <class T>
class CubSum : public GpuRunner {
 public:
  explicit CubSum(const ReduceData<T>& d) : x_(d.x), out_(sizeof(T)), n_(static_cast<std::int64_t>(d.x.size())) {
    check(cub_sum<T>(nullptr, temp_bytes_, x_.get<T>(), out_.get<T>(), n_, stream()),
          "cub::DeviceReduce::Sum (storage size)");
    temp_ = std::make_unique<DevBuf>(temp_bytes_);
    check(cudaMallocHost(&host_, sizeof(T)), "cudaMallocHost");
  }
  ~CubSum() override { cudaFreeHost(host_); }
  void run() override {
    check(cub_sum<T>(temp_->get<void>(), temp_bytes_, x_.get<T>(), out_.get<T>(), n_, stream()),
          "cub::DeviceReduce::Sum");
    check(cudaMemcpyAsync(host_, out_.get<T>(), sizeof(T), cudaMemcpyDeviceToHost, stream()), "cudaMemcpyAsync D2H");
    check(cudaStreamSynchronize(stream()), "cudaStreamSynchronize");
    value_ = *host_;
  }
  std::vector<double> result() override { return {static_cast<double>(value_)}; }
  std::string detail() const override { return "temporary storage " + std::to_string(temp_bytes_) + " bytes"; }

 private:
  DevBuf x_, out_;
  std::int64_t n_;
  std::size_t temp_bytes_ = 0;
  std::unique_ptr<DevBuf> temp_;
  T* host_ = nullptr;  // pinned
  T value_{};
};

template <class T>
class Dot : public GpuRunner {
 public:
  explicit Dot(const DotData<T>& d) : x_(d.x), y_(d.y), n_(static_cast<int>(d.x.size())) {}
  void run() override {
    // Host pointer mode: the call returns with the value, as tessera::dot does.
    check(cublasSetPointerMode(blas(), CUBLAS_POINTER_MODE_HOST), "cublasSetPointerMode");
    if constexpr (std::is_same_v<T, float>)
      check(cublasSdot(blas(), n_, x_.get<T>(), 1, y_.get<T>(), 1, &value_), "cublasSdot");
    else
      check(cublasDdot(blas(), n_, x_.get<T>(), 1, y_.get<T>(), 1, &value_), "cublasDdot");
  }
  std::vector<double> result() override { return {static_cast<double>(value_)}; }

 private:
  DevBuf x_, y_;
  int n_;
  T value_{};
};

template <class T>
class Trsv : public GpuRunner {
 public:
  explicit Trsv(const TrsvData<T>& d) : d_(d), A_(d.A), x_(d.b) {}
  void reset() override { x_.upload(d_.b.data()); }
  void run() override {
    const int n = static_cast<int>(d_.n);
    if constexpr (std::is_same_v<T, float>)
      check(cublasStrsv(blas(), CUBLAS_FILL_MODE_UPPER, CUBLAS_OP_T, CUBLAS_DIAG_NON_UNIT, n, A_.get<T>(), n,
                        x_.get<T>(), 1),
            "cublasStrsv");
    else
      check(cublasDtrsv(blas(), CUBLAS_FILL_MODE_UPPER, CUBLAS_OP_T, CUBLAS_DIAG_NON_UNIT, n, A_.get<T>(), n,
                        x_.get<T>(), 1),
            "cublasDtrsv");
  }
  std::vector<double> result() override { return x_.download_as_double<T>(); }

 private:
  const TrsvData<T>& d_;
  DevBuf A_, x_;
};

template <class T>
class Trsm : public GpuRunner {
 public:
  explicit Trsm(const TrsmData<T>& d) : d_(d), A_(d.A), B_(d.B) {}
  void reset() override { B_.upload(d_.B.data()); }
  void run() override {
    check(cublasSetPointerMode(blas(), CUBLAS_POINTER_MODE_HOST), "cublasSetPointerMode");
    const int n = static_cast<int>(d_.n), nrhs = static_cast<int>(d_.nrhs);
    const T alpha = d_.alpha;
    if constexpr (std::is_same_v<T, float>)
      check(cublasStrsm(blas(), CUBLAS_SIDE_RIGHT, CUBLAS_FILL_MODE_UPPER, CUBLAS_OP_N, CUBLAS_DIAG_NON_UNIT, nrhs, n,
                        &alpha, A_.get<T>(), n, B_.get<T>(), nrhs),
            "cublasStrsm");
    else
      check(cublasDtrsm(blas(), CUBLAS_SIDE_RIGHT, CUBLAS_FILL_MODE_UPPER, CUBLAS_OP_N, CUBLAS_DIAG_NON_UNIT, nrhs, n,
                        &alpha, A_.get<T>(), n, B_.get<T>(), nrhs),
            "cublasDtrsm");
  }
  std::vector<double> result() override { return B_.download_as_double<T>(); }

 private:
  const TrsmData<T>& d_;
  DevBuf A_, B_;
};

// The compute type names the arithmetic explicitly, whatever the handle's math mode:
// f32 CUBLAS_COMPUTE_32F_PEDANTIC (IEEE FP32 products and sums: the exact baseline) or
// CUBLAS_COMPUTE_32F_FAST_TF32 (inputs rounded to TF32 for the tensor cores: a separate line);
// f64 CUBLAS_COMPUTE_64F (FP64 tensor cores on sm_80+ are IEEE FP64 FMAs).
template <class T>
class Gemm : public GpuRunner {
 public:
  Gemm(const GemmData<T>& d, cublasComputeType_t compute)
      : d_(d), compute_(compute), A_(d.A), B_(d.B), C_(static_cast<std::size_t>(d.m * d.n) * sizeof(T)) {}
  void run() override {
    check(cublasSetPointerMode(blas(), CUBLAS_POINTER_MODE_HOST), "cublasSetPointerMode");
    const int m = static_cast<int>(d_.m), n = static_cast<int>(d_.n), k = static_cast<int>(d_.k);
    const T alpha = d_.alpha, beta = d_.beta;  // scalars in the compute type's precision = T
    check(cublasGemmEx(blas(), CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &alpha, B_.get<T>(), cuda_type<T>(), n, A_.get<T>(),
                       cuda_type<T>(), k, &beta, C_.get<T>(), cuda_type<T>(), n, compute_, CUBLAS_GEMM_DEFAULT),
          "cublasGemmEx");
  }
  std::vector<double> result() override { return C_.download_as_double<T>(); }
  std::string detail() const override {
    switch (compute_) {
      case CUBLAS_COMPUTE_32F_PEDANTIC: return "CUBLAS_COMPUTE_32F_PEDANTIC";
      case CUBLAS_COMPUTE_32F_FAST_TF32: return "CUBLAS_COMPUTE_32F_FAST_TF32";
      case CUBLAS_COMPUTE_64F: return "CUBLAS_COMPUTE_64F";
      default: return {};
    }
  }

 private:
  const GemmData<T>& d_;
  cublasComputeType_t compute_;
  DevBuf A_, B_, C_;
};

template <class T>
class Spmv : public GpuRunner {
 public:
  explicit Spmv(const SpmvData<T>& d) : d_(d), A_(d.A), x_(d.x), y_(d.y0) {
    check(cusparseSpMV_bufferSize(sparse(), CUSPARSE_OPERATION_NON_TRANSPOSE, &d_.alpha, A_.mat, x_.vec, &d_.beta, y_.vec,
                                  cuda_type<T>(), CUSPARSE_SPMV_ALG_DEFAULT, &buffer_bytes_),
          "cusparseSpMV_bufferSize");
    buffer_ = std::make_unique<DevBuf>(buffer_bytes_);
    // The one-off analysis cuSPARSE offers for repeated products, done before timing.
    check(cusparseSpMV_preprocess(sparse(), CUSPARSE_OPERATION_NON_TRANSPOSE, &d_.alpha, A_.mat, x_.vec, &d_.beta,
                                  y_.vec, cuda_type<T>(), CUSPARSE_SPMV_ALG_DEFAULT, buffer_->get<void>()),
          "cusparseSpMV_preprocess");
  }
  void reset() override { y_.buf.upload(d_.y0.data()); }
  void run() override {
    check(cusparseSpMV(sparse(), CUSPARSE_OPERATION_NON_TRANSPOSE, &d_.alpha, A_.mat, x_.vec, &d_.beta, y_.vec,
                       cuda_type<T>(), CUSPARSE_SPMV_ALG_DEFAULT, buffer_->get<void>()),
          "cusparseSpMV");
  }
  std::vector<double> result() override { return y_.buf.download_as_double<T>(); }

 private:
  const SpmvData<T>& d_;
  DevCsr<T> A_;
  DevVec x_, y_;
  std::size_t buffer_bytes_ = 0;
  std::unique_ptr<DevBuf> buffer_;
};

// cusparseSpMM with X and Y row-major (CUSPARSE_SPMM_CSR_ALG2: cuSPARSE's algorithm for
// row-major dense operands), preprocessed once before timing as the SpMV baseline.
template <class T>
class Spmm : public GpuRunner {
 public:
  explicit Spmm(const SpmmData<T>& d) : d_(d), A_(d.A), X_(d.X), Y_(d.Y0) {
    check(cusparseCreateDnMat(&x_, d.A.cols, d.k, d.k, X_.get<T>(), cuda_type<T>(), CUSPARSE_ORDER_ROW),
          "cusparseCreateDnMat");
    check(cusparseCreateDnMat(&y_, d.A.rows, d.k, d.k, Y_.get<T>(), cuda_type<T>(), CUSPARSE_ORDER_ROW),
          "cusparseCreateDnMat");
    std::size_t bytes = 0;
    check(cusparseSpMM_bufferSize(sparse(), CUSPARSE_OPERATION_NON_TRANSPOSE, CUSPARSE_OPERATION_NON_TRANSPOSE,
                                  &d_.alpha, A_.mat, x_, &d_.beta, y_, cuda_type<T>(), kAlg, &bytes),
          "cusparseSpMM_bufferSize");
    buffer_ = std::make_unique<DevBuf>(bytes);
    check(cusparseSpMM_preprocess(sparse(), CUSPARSE_OPERATION_NON_TRANSPOSE, CUSPARSE_OPERATION_NON_TRANSPOSE,
                                  &d_.alpha, A_.mat, x_, &d_.beta, y_, cuda_type<T>(), kAlg, buffer_->get<void>()),
          "cusparseSpMM_preprocess");
  }
  ~Spmm() override {
    cusparseDestroyDnMat(x_);
    cusparseDestroyDnMat(y_);
  }
  void reset() override { Y_.upload(d_.Y0.data()); }
  void run() override {
    check(cusparseSpMM(sparse(), CUSPARSE_OPERATION_NON_TRANSPOSE, CUSPARSE_OPERATION_NON_TRANSPOSE, &d_.alpha, A_.mat,
                       x_, &d_.beta, y_, cuda_type<T>(), kAlg, buffer_->get<void>()),
          "cusparseSpMM");
  }
  std::vector<double> result() override { return Y_.download_as_double<T>(); }

 private:
  static constexpr cusparseSpMMAlg_t kAlg = CUSPARSE_SPMM_CSR_ALG2;
  const SpmmData<T>& d_;
  DevCsr<T> A_;
  DevBuf X_, Y_;
  cusparseDnMatDescr_t x_ = nullptr, y_ = nullptr;
  std::unique_ptr<DevBuf> buffer_;
};

template <class T>
class Sptrsv : public GpuRunner {
 public:
  explicit Sptrsv(const SptrsvData<T>& d) : A_(d.L), b_(d.b), x_(d.b) {
    cusparseFillMode_t fill = CUSPARSE_FILL_MODE_LOWER;
    cusparseDiagType_t diag = CUSPARSE_DIAG_TYPE_NON_UNIT;
    check(cusparseSpMatSetAttribute(A_.mat, CUSPARSE_SPMAT_FILL_MODE, &fill, sizeof fill), "cusparseSpMatSetAttribute");
    check(cusparseSpMatSetAttribute(A_.mat, CUSPARSE_SPMAT_DIAG_TYPE, &diag, sizeof diag), "cusparseSpMatSetAttribute");
    check(cusparseSpSV_createDescr(&descr_), "cusparseSpSV_createDescr");
    std::size_t bytes = 0;
    check(cusparseSpSV_bufferSize(sparse(), CUSPARSE_OPERATION_NON_TRANSPOSE, &one_, A_.mat, b_.vec, x_.vec,
                                  cuda_type<T>(), CUSPARSE_SPSV_ALG_DEFAULT, descr_, &bytes),
          "cusparseSpSV_bufferSize");
    buffer_ = std::make_unique<DevBuf>(bytes);
    // The analysis, like Tessera's sptrsv_analyze, is done outside the solves' timing, twice: the
    // second, timed, is setup_ms (as workloads/sptrsv.cpp times Tessera's).
    auto analyse = [&] {
      check(cusparseSpSV_analysis(sparse(), CUSPARSE_OPERATION_NON_TRANSPOSE, &one_, A_.mat, b_.vec, x_.vec,
                                  cuda_type<T>(), CUSPARSE_SPSV_ALG_DEFAULT, descr_, buffer_->get<void>()),
            "cusparseSpSV_analysis");
      check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
    };
    check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
    analyse();
    const auto t0 = std::chrono::steady_clock::now();
    analyse();
    setup_ms_ = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  }
  ~Sptrsv() override { cusparseSpSV_destroyDescr(descr_); }
  void run() override {
    check(cusparseSpSV_solve(sparse(), CUSPARSE_OPERATION_NON_TRANSPOSE, &one_, A_.mat, b_.vec, x_.vec, cuda_type<T>(),
                             CUSPARSE_SPSV_ALG_DEFAULT, descr_),
          "cusparseSpSV_solve");
  }
  std::vector<double> result() override { return x_.buf.download_as_double<T>(); }
  double setup_ms() const override { return setup_ms_; }

 private:
  DevCsr<T> A_;
  DevVec b_, x_;
  T one_ = T(1);
  cusparseSpSVDescr_t descr_ = nullptr;
  std::unique_ptr<DevBuf> buffer_;
  double setup_ms_ = -1;
};

}  // namespace

bool available() {
  int count = 0;
  return cudaGetDeviceCount(&count) == cudaSuccess && count > 0;
}

template <class T>
std::unique_ptr<Runner> dot(const DotData<T>& d) {
  return std::make_unique<Dot<T>>(d);
}
template <class T>
std::unique_ptr<Runner> trsv(const TrsvData<T>& d) {
  return std::make_unique<Trsv<T>>(d);
}
template <class T>
std::unique_ptr<Runner> trsm(const TrsmData<T>& d) {
  return std::make_unique<Trsm<T>>(d);
}
template <class T>
std::unique_ptr<Runner> reduce(const ReduceData<T>& d) {
  return std::make_unique<CubSum<T>>(d);
}
template <class T>
std::unique_ptr<Runner> gemm(const GemmData<T>& d) {
  return std::make_unique<Gemm<T>>(d, std::is_same_v<T, float> ? CUBLAS_COMPUTE_32F_PEDANTIC : CUBLAS_COMPUTE_64F);
}
std::unique_ptr<Runner> gemm_tf32(const GemmData<float>& d) {
  return std::make_unique<Gemm<float>>(d, CUBLAS_COMPUTE_32F_FAST_TF32);
}
template <class T>
std::unique_ptr<Runner> spmm(const SpmmData<T>& d) {
  return std::make_unique<Spmm<T>>(d);
}
template <class T>
std::unique_ptr<Runner> spmv(const SpmvData<T>& d) {
  return std::make_unique<Spmv<T>>(d);
}
template <class T>
std::unique_ptr<Runner> sptrsv(const SptrsvData<T>& d) {
  return std::make_unique<Sptrsv<T>>(d);
}

double gemm_peak_gflops(bool f32, std::uint64_t memory_bytes) {
  // The largest square n <= 8192 whose three matrices take at most a quarter of the memory.
  std::size_t n = 8192;
  const std::size_t elem = f32 ? 4 : 8;
  while (n > 1024 && memory_bytes > 0 && 3 * n * n * elem > memory_bytes / 4) n /= 2;
  DevBuf A(n * n * elem), B(n * n * elem), C(n * n * elem);
  // 0x3C bytes: about 0.0115 in float and 1.6e-18 in double, normal numbers, no overflow.
  check(cudaMemset(A.get<void>(), 0x3C, n * n * elem), "cudaMemset");
  check(cudaMemset(B.get<void>(), 0x3C, n * n * elem), "cudaMemset");
  check(cublasSetPointerMode(blas(), CUBLAS_POINTER_MODE_HOST), "cublasSetPointerMode");
  const int ni = static_cast<int>(n);
  auto call = [&] {
    if (f32) {
      const float one = 1, zero = 0;
      check(cublasSgemm(blas(), CUBLAS_OP_N, CUBLAS_OP_N, ni, ni, ni, &one, A.get<float>(), ni, B.get<float>(), ni, &zero,
                        C.get<float>(), ni),
            "cublasSgemm");
    } else {
      const double one = 1, zero = 0;
      check(cublasDgemm(blas(), CUBLAS_OP_N, CUBLAS_OP_N, ni, ni, ni, &one, A.get<double>(), ni, B.get<double>(), ni,
                        &zero, C.get<double>(), ni),
            "cublasDgemm");
    }
  };
  call();
  check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
  double best = 1e30;
  for (int i = 0; i < 5; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    call();
    check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
    best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  return 2.0 * static_cast<double>(n) * static_cast<double>(n) * static_cast<double>(n) / best * 1e-9;
}

std::string version() {
  int blas_v = 0, sparse_v = 0;
  cublasGetProperty(MAJOR_VERSION, &blas_v);
  cusparseGetProperty(MAJOR_VERSION, &sparse_v);
  int minor = 0;
  cublasGetProperty(MINOR_VERSION, &minor);
  std::string s = "cuBLAS " + std::to_string(blas_v) + "." + std::to_string(minor);
  cusparseGetProperty(MINOR_VERSION, &minor);
  return s + ", cuSPARSE " + std::to_string(sparse_v) + "." + std::to_string(minor) + ", CUB " +
         std::to_string(cub_version() / 100000) + "." + std::to_string(cub_version() / 100 % 1000);
}

#define TESSERA_BENCH_INSTANTIATE(T)                                    \
  template std::unique_ptr<Runner> reduce<T>(const ReduceData<T>&);     \
  template std::unique_ptr<Runner> dot<T>(const DotData<T>&);           \
  template std::unique_ptr<Runner> trsv<T>(const TrsvData<T>&);         \
  template std::unique_ptr<Runner> trsm<T>(const TrsmData<T>&);         \
  template std::unique_ptr<Runner> gemm<T>(const GemmData<T>&);         \
  template std::unique_ptr<Runner> spmv<T>(const SpmvData<T>&);         \
  template std::unique_ptr<Runner> spmm<T>(const SpmmData<T>&);         \
  template std::unique_ptr<Runner> sptrsv<T>(const SptrsvData<T>&);
TESSERA_BENCH_INSTANTIATE(float)
TESSERA_BENCH_INSTANTIATE(double)
#undef TESSERA_BENCH_INSTANTIATE

}  // namespace bench::cudalibs
