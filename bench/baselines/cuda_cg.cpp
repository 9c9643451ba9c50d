// The cg case on GPU 0 as a C++ programmer writes it with NVIDIA's libraries (and as CuPy's
// cg runs): cusparseSpMV for the products, cuBLAS level 1 for the rest, scalars on the host.
// Each cublas?dot in host pointer mode returns its value, so the host waits twice per iteration
// (p.q and r.z). z = inv_diag .* r is cublas?dgmm (a diagonal matrix times a column); p = z +
// beta p is ?scal then ?axpy (cuBLAS has no axpby). Set-up as Tessera's: x = 0, r = b - A x,
// z = inv_diag .* r, p = z, rz = r.z; then `iters` iterations, no convergence test. The matrix,
// b and 1/diag are uploaded and cusparseSpMV_preprocess is run once, outside the timing.
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cusparse.h>

#include <memory>
#include <type_traits>
#include <vector>

#include "baselines/cuda_common.hpp"
#include "baselines/cuda_handles.hpp"
#include "baselines/libs.hpp"

namespace bench::cudalibs {

namespace {

template <class T>
class Cg : public GpuRunner {
 public:
  explicit Cg(const CgData<T>& d)
      : d_(d),
        n_(static_cast<int>(d.A.rows)),
        A_(d.A),
        b_(d.b),
        inv_diag_(d.inv_diag),
        x_(std::vector<T>(d.b.size())),
        r_(std::vector<T>(d.b.size())),
        z_(std::vector<T>(d.b.size())),
        p_(std::vector<T>(d.b.size())),
        q_(std::vector<T>(d.b.size())) {
    std::size_t bytes = 0;
    check(cusparseSpMV_bufferSize(sparse(), CUSPARSE_OPERATION_NON_TRANSPOSE, &one_, A_.mat, p_.vec, &zero_, q_.vec,
                                  cuda_type<T>(), CUSPARSE_SPMV_ALG_DEFAULT, &bytes),
          "cusparseSpMV_bufferSize");
    buffer_ = std::make_unique<DevBuf>(bytes);
    check(cusparseSpMV_preprocess(sparse(), CUSPARSE_OPERATION_NON_TRANSPOSE, &one_, A_.mat, p_.vec, &zero_, q_.vec,
                                  cuda_type<T>(), CUSPARSE_SPMV_ALG_DEFAULT, buffer_->get<void>()),
          "cusparseSpMV_preprocess");
    check(cusparseSpMV_bufferSize(sparse(), CUSPARSE_OPERATION_NON_TRANSPOSE, &minus_one_, A_.mat, x_.vec, &one_, r_.vec,
                                  cuda_type<T>(), CUSPARSE_SPMV_ALG_DEFAULT, &bytes),
          "cusparseSpMV_bufferSize");
    setup_buffer_ = std::make_unique<DevBuf>(bytes);
  }
  void run() override {
    check(cublasSetPointerMode(blas(), CUBLAS_POINTER_MODE_HOST), "cublasSetPointerMode");
    T* x = x_.buf.get<T>();
    T* r = r_.buf.get<T>();
    T* z = z_.buf.get<T>();
    T* p = p_.buf.get<T>();
    T* q = q_.buf.get<T>();
    check(cudaMemsetAsync(x, 0, x_.buf.bytes(), stream()), "cudaMemsetAsync");
    copy(b_.get<T>(), r);
    check(cusparseSpMV(sparse(), CUSPARSE_OPERATION_NON_TRANSPOSE, &minus_one_, A_.mat, x_.vec, &one_, r_.vec,
                       cuda_type<T>(), CUSPARSE_SPMV_ALG_DEFAULT, setup_buffer_->get<void>()),
          "cusparseSpMV");
    jacobi(r, z);
    copy(z, p);
    T rz = dot(r, z);
    for (int it = 0; it < d_.iters; ++it) {
      check(cusparseSpMV(sparse(), CUSPARSE_OPERATION_NON_TRANSPOSE, &one_, A_.mat, p_.vec, &zero_, q_.vec,
                         cuda_type<T>(), CUSPARSE_SPMV_ALG_DEFAULT, buffer_->get<void>()),
            "cusparseSpMV");
      const T alpha = rz / dot(p, q);
      const T minus_alpha = -alpha;
      axpy(alpha, p, x);
      axpy(minus_alpha, q, r);
      jacobi(r, z);
      const T rz_new = dot(r, z);
      const T beta = rz_new / rz;
      if constexpr (std::is_same_v<T, float>) check(cublasSscal(blas(), n_, &beta, p, 1), "cublasSscal");
      else check(cublasDscal(blas(), n_, &beta, p, 1), "cublasDscal");
      axpy(one_, z, p);
      rz = rz_new;
    }
  }
  std::vector<double> result() override { return x_.buf.download_as_double<T>(); }
  int calls_per_run() const override { return d_.iters; }
  std::string detail() const override { return "2 host waits per iteration (host pointer mode dots)"; }

 private:
  void copy(const T* from, T* to) {
    if constexpr (std::is_same_v<T, float>) check(cublasScopy(blas(), n_, from, 1, to, 1), "cublasScopy");
    else check(cublasDcopy(blas(), n_, from, 1, to, 1), "cublasDcopy");
  }
  void axpy(T a, const T* x, T* y) {
    if constexpr (std::is_same_v<T, float>) check(cublasSaxpy(blas(), n_, &a, x, 1, y, 1), "cublasSaxpy");
    else check(cublasDaxpy(blas(), n_, &a, x, 1, y, 1), "cublasDaxpy");
  }
  T dot(const T* x, const T* y) {
    T v{};
    if constexpr (std::is_same_v<T, float>) check(cublasSdot(blas(), n_, x, 1, y, 1, &v), "cublasSdot");
    else check(cublasDdot(blas(), n_, x, 1, y, 1, &v), "cublasDdot");
    return v;
  }
  // z = diag(inv_diag) r: a diagonal matrix times the one-column matrix r.
  void jacobi(const T* r, T* z) {
    const T* dinv = inv_diag_.get<T>();
    if constexpr (std::is_same_v<T, float>)
      check(cublasSdgmm(blas(), CUBLAS_SIDE_LEFT, n_, 1, r, n_, dinv, 1, z, n_), "cublasSdgmm");
    else
      check(cublasDdgmm(blas(), CUBLAS_SIDE_LEFT, n_, 1, r, n_, dinv, 1, z, n_), "cublasDdgmm");
  }

  const CgData<T>& d_;
  int n_;
  DevCsr<T> A_;
  DevBuf b_, inv_diag_;
  DevVec x_, r_, z_, p_, q_;
  T one_ = T(1), zero_ = T(0), minus_one_ = T(-1);
  std::unique_ptr<DevBuf> buffer_, setup_buffer_;
};

}  // namespace

template <class T>
std::unique_ptr<Runner> cg(const CgData<T>& d) {
  return std::make_unique<Cg<T>>(d);
}

template std::unique_ptr<Runner> cg<float>(const CgData<float>&);
template std::unique_ptr<Runner> cg<double>(const CgData<double>&);

}  // namespace bench::cudalibs
