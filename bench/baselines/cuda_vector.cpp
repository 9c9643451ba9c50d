// cuBLAS level 1 on GPU 0 (beside Tessera's cuda:0): the vector algebra, dot in device
// pointer mode, and the launch case. Inputs are uploaded once (untimed); outputs written in
// place are restored before each call by a device-to-device copy on the stream (untimed).
// Scalars: alpha/beta from the host (host pointer mode, as Tessera's axpy takes a host value);
// results of nrm2 and dot go to device memory (device pointer mode, as Tessera's Scalar) and
// are read after the timing. cuBLAS has no fused forms: axpby_dot is ?scal + ?axpy + ?dot and
// dot2 two ?dot calls (detail() says so).
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <chrono>
#include <stdexcept>
#include <type_traits>
#include <vector>

#include "baselines/cuda_common.hpp"
#include "baselines/cuda_handles.hpp"
#include "baselines/libs.hpp"

namespace bench::cudalibs {

namespace {

template <class T>
void axpy_(int n, const T* a, const T* x, T* y) {
  if constexpr (std::is_same_v<T, float>) check(cublasSaxpy(blas(), n, a, x, 1, y, 1), "cublasSaxpy");
  else check(cublasDaxpy(blas(), n, a, x, 1, y, 1), "cublasDaxpy");
}
template <class T>
void dot_(int n, const T* x, const T* y, T* out) {
  if constexpr (std::is_same_v<T, float>) check(cublasSdot(blas(), n, x, 1, y, 1, out), "cublasSdot");
  else check(cublasDdot(blas(), n, x, 1, y, 1, out), "cublasDdot");
}
void pointer_mode(cublasPointerMode_t m) { check(cublasSetPointerMode(blas(), m), "cublasSetPointerMode"); }

// y0 -> y on the stream: the untimed restore of an output computed in place.
void restore(DevBuf& y, const DevBuf& y0) {
  check(cudaMemcpyAsync(y.get<void>(), y0.get<void>(), y.bytes(), cudaMemcpyDeviceToDevice, stream()),
        "cudaMemcpyAsync D2D");
}

template <class T>
T read(const DevBuf& b, std::size_t i) {
  T h{};
  check(cudaMemcpy(&h, b.get<T>() + i, sizeof(T), cudaMemcpyDeviceToHost), "cudaMemcpy D2H");
  return h;
}

template <class T>
class DotScalar : public GpuRunner {
 public:
  explicit DotScalar(const DotData<T>& d) : x_(d.x), y_(d.y), out_(sizeof(T)), n_(static_cast<int>(d.x.size())) {}
  void run() override {
    pointer_mode(CUBLAS_POINTER_MODE_DEVICE);
    dot_(n_, x_.get<T>(), y_.get<T>(), out_.get<T>());
  }
  std::vector<double> result() override { return {static_cast<double>(read<T>(out_, 0))}; }

 private:
  DevBuf x_, y_, out_;
  int n_;
};

template <class T>
class Vector : public GpuRunner {
 public:
  explicit Vector(const VectorData<T>& d)
      : d_(d), n_(static_cast<int>(d.x.size())), x_(d.x), out_(2 * sizeof(T)) {
    const std::size_t bytes = d.x.size() * sizeof(T);
    if (d.op == Op::copy) y_ = std::make_unique<DevBuf>(bytes);
    if (d.op == Op::axpy || d.op == Op::axpby_dot || d.op == Op::dot2) y_ = std::make_unique<DevBuf>(d.y);
    if (d.op == Op::axpy || d.op == Op::axpby_dot) y0_ = std::make_unique<DevBuf>(d.y);
    if (d.op == Op::dot2) z_ = std::make_unique<DevBuf>(d.z);
  }
  void reset() override {
    if (y0_) restore(*y_, *y0_);
  }
  void run() override {
    T* out = out_.get<T>();
    switch (d_.op) {
      case Op::axpy:
        pointer_mode(CUBLAS_POINTER_MODE_HOST);
        axpy_(n_, &d_.alpha, x_.get<T>(), y_->get<T>());
        break;
      case Op::copy:
        if constexpr (std::is_same_v<T, float>)
          check(cublasScopy(blas(), n_, x_.get<T>(), 1, y_->get<T>(), 1), "cublasScopy");
        else
          check(cublasDcopy(blas(), n_, x_.get<T>(), 1, y_->get<T>(), 1), "cublasDcopy");
        break;
      case Op::norm2:
        pointer_mode(CUBLAS_POINTER_MODE_DEVICE);
        if constexpr (std::is_same_v<T, float>) check(cublasSnrm2(blas(), n_, x_.get<T>(), 1, out), "cublasSnrm2");
        else check(cublasDnrm2(blas(), n_, x_.get<T>(), 1, out), "cublasDnrm2");
        break;
      case Op::axpby_dot:
        pointer_mode(CUBLAS_POINTER_MODE_HOST);
        if constexpr (std::is_same_v<T, float>) check(cublasSscal(blas(), n_, &d_.beta, y_->get<T>(), 1), "cublasSscal");
        else check(cublasDscal(blas(), n_, &d_.beta, y_->get<T>(), 1), "cublasDscal");
        axpy_(n_, &d_.alpha, x_.get<T>(), y_->get<T>());
        pointer_mode(CUBLAS_POINTER_MODE_DEVICE);
        dot_(n_, y_->get<T>(), y_->get<T>(), out);
        break;
      case Op::dot2:
        pointer_mode(CUBLAS_POINTER_MODE_DEVICE);
        dot_(n_, x_.get<T>(), y_->get<T>(), out);
        dot_(n_, x_.get<T>(), z_->get<T>(), out + 1);
        break;
      default: throw std::logic_error("cudalibs::vector: not a vector operation");
    }
  }
  std::vector<double> result() override {
    std::vector<T> y;
    if (d_.op == Op::axpy || d_.op == Op::copy || d_.op == Op::axpby_dot) {
      y.resize(d_.x.size());
      check(cudaMemcpy(y.data(), y_->get<T>(), y_->bytes(), cudaMemcpyDeviceToHost), "cudaMemcpy D2H");
    }
    return vector_result(d_, y, read<T>(out_, 0), read<T>(out_, 1));
  }
  std::string detail() const override {
    return d_.op == Op::axpby_dot ? "?scal + ?axpy + ?dot" : d_.op == Op::dot2 ? "2 x ?dot" : "";
  }

 private:
  const VectorData<T>& d_;
  int n_;
  DevBuf x_, out_;
  std::unique_ptr<DevBuf> y_, y0_, z_;
};

// `calls` ?axpy enqueued on the stream, host clock around the loop alone; or one ?axpy and
// cudaStreamSynchronize, host clock around both.
template <class T>
class Launch : public GpuRunner {
 public:
  explicit Launch(const VectorData<T>& d) : d_(d), x_(d.x), y_(d.y), y0_(d.y) {}
  void reset() override { restore(y_, y0_); }
  void run() override {
    pointer_mode(CUBLAS_POINTER_MODE_HOST);
    const int n = static_cast<int>(d_.x.size());
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < d_.calls; ++i) axpy_(n, &d_.alpha, x_.get<T>(), y_.get<T>());
    if (d_.round_trip) check(cudaStreamSynchronize(stream()), "cudaStreamSynchronize");
    ms_ = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  }
  std::vector<double> result() override { return y_.download_as_double<T>(); }
  int calls_per_run() const override { return d_.calls; }
  double own_ms() const override { return ms_; }

 private:
  const VectorData<T>& d_;
  DevBuf x_, y_, y0_;
  double ms_ = -1;
};

}  // namespace

template <class T>
std::unique_ptr<Runner> dot_scalar(const DotData<T>& d) {
  return std::make_unique<DotScalar<T>>(d);
}
template <class T>
std::unique_ptr<Runner> vector(const VectorData<T>& d) {
  return std::make_unique<Vector<T>>(d);
}
template <class T>
std::unique_ptr<Runner> launch(const VectorData<T>& d) {
  return std::make_unique<Launch<T>>(d);
}

#define TESSERA_BENCH_INSTANTIATE(T)                                      \
  template std::unique_ptr<Runner> dot_scalar<T>(const DotData<T>&);      \
  template std::unique_ptr<Runner> vector<T>(const VectorData<T>&);       \
  template std::unique_ptr<Runner> launch<T>(const VectorData<T>&);
TESSERA_BENCH_INSTANTIATE(float)
TESSERA_BENCH_INSTANTIATE(double)
#undef TESSERA_BENCH_INSTANTIATE

}  // namespace bench::cudalibs
