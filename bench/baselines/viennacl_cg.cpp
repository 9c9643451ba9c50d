// ViennaCL baseline of the cg case: viennacl::linalg::solve(A, b, cg_tag(0, iters),
// jacobi_precond) on the OpenCL device of Tessera's opencl:N, through the context
// viennacl.cpp sets up on that device's context and in-order queue. Tolerance 0 runs exactly
// `iters` iterations (ViennaCL stops when ||r||^2 / ||b||^2 < tol^2, never with tol = 0).
// With a preconditioner ViennaCL 1.7 runs its classic loop (Saad alg. 9.1): r.z and p.Ap are
// read to the host in every iteration (two host waits), z = r ./ diag(A); it starts from x0 = 0
// (r = b) and allocates its vectors in the call. The matrix and b are uploaded once and the
// Jacobi diagonal extracted on the device once, untimed; ViennaCL compiles its kernels on the
// first call.
#include <string>
#include <vector>
#include <viennacl/compressed_matrix.hpp>
#include <viennacl/linalg/cg.hpp>
#include <viennacl/linalg/jacobi_precond.hpp>
#include <viennacl/vector.hpp>

#include "baselines/libs.hpp"
#include "baselines/viennacl_context.hpp"

namespace bench::viennacl_lib {

namespace {

using opencl_baseline::ClDevice;
using opencl_baseline::ClRunner;

template <class T>
class Cg : public ClRunner {
 public:
  Cg(const ClDevice& dev, const CgData<T>& d)
      : ClRunner(dev), d_(d), ctx_(context_for(dev)), A_(ctx_), b_(d.b.size(), ctx_), x_(d.b.size(), ctx_) {
    A_.set(d.A.row_ptr.data(), d.A.col_idx.data(), d.A.values.data(), static_cast<viennacl::vcl_size_t>(d.A.rows),
           static_cast<viennacl::vcl_size_t>(d.A.cols), static_cast<viennacl::vcl_size_t>(d.A.nnz()));
    viennacl::fast_copy(d.b.begin(), d.b.end(), b_.begin());
    precond_ = std::make_unique<Precond>(A_, viennacl::linalg::jacobi_tag());
  }
  void run() override {
    viennacl::linalg::cg_tag tag(0.0, static_cast<unsigned int>(d_.iters));
    x_ = viennacl::linalg::solve(A_, b_, tag, *precond_);
    iters_ = tag.iters();
  }
  std::vector<double> result() override {
    std::vector<T> h(d_.b.size());
    viennacl::fast_copy(x_.begin(), x_.end(), h.begin());
    return std::vector<double>(h.begin(), h.end());
  }
  int calls_per_run() const override { return d_.iters; }
  std::string detail() const override {
    return "cg_tag + jacobi_precond, " + std::to_string(iters_) + " iterations on " + dev_.name;
  }

 private:
  using Precond = viennacl::linalg::jacobi_precond<viennacl::compressed_matrix<T>>;
  const CgData<T>& d_;
  viennacl::context ctx_;
  viennacl::compressed_matrix<T> A_;
  viennacl::vector<T> b_, x_;
  std::unique_ptr<Precond> precond_;
  unsigned int iters_ = 0;
};

}  // namespace

template <class T>
std::unique_ptr<Runner> cg(const std::string& spec, const CgData<T>& d) {
  return std::make_unique<Cg<T>>(opencl_baseline::device(spec), d);
}

template std::unique_ptr<Runner> cg<float>(const std::string&, const CgData<float>&);
template std::unique_ptr<Runner> cg<double>(const std::string&, const CgData<double>&);

}  // namespace bench::viennacl_lib
