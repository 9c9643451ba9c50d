// CLBlast baselines (gemm, trsv, trsm) on the OpenCL device of Tessera's opencl:N, row-major like
// the workloads. Each runner uploads the host arrays once (untimed) and times only the call;
// sync() waits with clFinish. CLBlast compiles its kernels for the device on the first call
// (PoCL: seconds), which the bench reports as first_call_ms, apart from the timed calls; gemm's
// temporary buffer is allocated once here, so no call allocates.
#include <clblast.h>

#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "baselines/libs.hpp"
#include "baselines/opencl_device.hpp"

namespace bench::clblast_lib {

namespace {

using opencl_baseline::ClBuffer;
using opencl_baseline::ClDevice;
using opencl_baseline::ClRunner;

void check(::clblast::StatusCode s, const char* what) {
  if (s != ::clblast::StatusCode::kSuccess)
    throw std::runtime_error(std::string(what) + " failed with CLBlast status " + std::to_string(static_cast<int>(s)));
}

template <class T>
std::vector<double> download_as_double(const ClBuffer& b) {
  std::vector<T> h(b.bytes() / sizeof(T));
  b.download(h.data());
  return std::vector<double>(h.begin(), h.end());
}

template <class T>
class Gemm : public ClRunner {
 public:
  Gemm(const ClDevice& dev, const GemmData<T>& d)
      : ClRunner(dev),
        d_(d),
        A_(dev, d.A.data(), d.A.size() * sizeof(T)),
        B_(dev, d.B.data(), d.B.size() * sizeof(T)),
        C_(dev, static_cast<std::size_t>(d.m * d.n) * sizeof(T)) {
    std::size_t temp_bytes = 0;
    cl_command_queue q = dev_.queue;
    check(::clblast::GemmTempBufferSize<T>(::clblast::Layout::kRowMajor, ::clblast::Transpose::kNo,
                                           ::clblast::Transpose::kNo, m(), n(), k(), 0, k(), 0, n(), 0, n(), &q,
                                           temp_bytes),
          "clblast::GemmTempBufferSize");
    if (temp_bytes > 0) temp_ = std::make_unique<ClBuffer>(dev, temp_bytes);
  }
  void run() override {
    cl_command_queue q = dev_.queue;
    check(::clblast::Gemm<T>(::clblast::Layout::kRowMajor, ::clblast::Transpose::kNo, ::clblast::Transpose::kNo, m(),
                             n(), k(), d_.alpha, A_.get(), 0, k(), B_.get(), 0, n(), d_.beta, C_.get(), 0, n(), &q,
                             nullptr, temp_ ? temp_->get() : nullptr),
          "clblast::Gemm");
  }
  std::vector<double> result() override { return download_as_double<T>(C_); }

 private:
  std::size_t m() const { return static_cast<std::size_t>(d_.m); }
  std::size_t n() const { return static_cast<std::size_t>(d_.n); }
  std::size_t k() const { return static_cast<std::size_t>(d_.k); }
  const GemmData<T>& d_;
  ClBuffer A_, B_, C_;
  std::unique_ptr<ClBuffer> temp_;
};

template <class T>
class Trsv : public ClRunner {
 public:
  Trsv(const ClDevice& dev, const TrsvData<T>& d)
      : ClRunner(dev),
        d_(d),
        A_(dev, d.A.data(), d.A.size() * sizeof(T)),
        x_(dev, d.b.data(), d.b.size() * sizeof(T)) {}
  void reset() override { x_.upload(d_.b.data()); }
  void run() override {
    cl_command_queue q = dev_.queue;
    const auto n = static_cast<std::size_t>(d_.n);
    check(::clblast::Trsv<T>(::clblast::Layout::kRowMajor, ::clblast::Triangle::kLower, ::clblast::Transpose::kNo,
                             ::clblast::Diagonal::kNonUnit, n, A_.get(), 0, n, x_.get(), 0, 1, &q),
          "clblast::Trsv");
  }
  std::vector<double> result() override { return download_as_double<T>(x_); }

 private:
  const TrsvData<T>& d_;
  ClBuffer A_, x_;
};

template <class T>
class Trsm : public ClRunner {
 public:
  Trsm(const ClDevice& dev, const TrsmData<T>& d)
      : ClRunner(dev),
        d_(d),
        A_(dev, d.A.data(), d.A.size() * sizeof(T)),
        B_(dev, d.B.data(), d.B.size() * sizeof(T)) {}
  void reset() override { B_.upload(d_.B.data()); }
  void run() override {
    cl_command_queue q = dev_.queue;
    const auto n = static_cast<std::size_t>(d_.n), nrhs = static_cast<std::size_t>(d_.nrhs);
    check(::clblast::Trsm<T>(::clblast::Layout::kRowMajor, ::clblast::Side::kLeft, ::clblast::Triangle::kLower,
                             ::clblast::Transpose::kNo, ::clblast::Diagonal::kNonUnit, n, nrhs, d_.alpha, A_.get(), 0,
                             n, B_.get(), 0, nrhs, &q),
          "clblast::Trsm");
  }
  std::vector<double> result() override { return download_as_double<T>(B_); }

 private:
  const TrsmData<T>& d_;
  ClBuffer A_, B_;
};

}  // namespace

template <class T>
std::unique_ptr<Runner> gemm(const std::string& spec, const GemmData<T>& d) {
  return std::make_unique<Gemm<T>>(opencl_baseline::device(spec), d);
}
template <class T>
std::unique_ptr<Runner> trsv(const std::string& spec, const TrsvData<T>& d) {
  return std::make_unique<Trsv<T>>(opencl_baseline::device(spec), d);
}
template <class T>
std::unique_ptr<Runner> trsm(const std::string& spec, const TrsmData<T>& d) {
  return std::make_unique<Trsm<T>>(opencl_baseline::device(spec), d);
}

std::string version() {
  return "CLBlast " + std::to_string(CLBLAST_VERSION_MAJOR) + "." + std::to_string(CLBLAST_VERSION_MINOR) + "." +
         std::to_string(CLBLAST_VERSION_PATCH);
}

template std::unique_ptr<Runner> gemm<float>(const std::string&, const GemmData<float>&);
template std::unique_ptr<Runner> gemm<double>(const std::string&, const GemmData<double>&);
template std::unique_ptr<Runner> trsv<float>(const std::string&, const TrsvData<float>&);
template std::unique_ptr<Runner> trsv<double>(const std::string&, const TrsvData<double>&);
template std::unique_ptr<Runner> trsm<float>(const std::string&, const TrsmData<float>&);
template std::unique_ptr<Runner> trsm<double>(const std::string&, const TrsmData<double>&);

}  // namespace bench::clblast_lib
