// spmm: Y = alpha * A * X + beta * Y with CSR A and row-major X (cols x k), Y (rows x k), on the
// spmv cases' matrices (alpha = 1, beta = 0.5, so Y is read and written).
//   flops = 2 * nnz * k
//   bytes = nnz * (sizeof(T) + 4)      values + int32 column indices, read once
//         + (rows + 1) * 4             row pointers
//         + cols * k * sizeof(T)       X, counted once (a lower bound: random columns re-read rows of it)
//         + 2 * rows * k * sizeof(T)   Y read and written
// Bound by read bandwidth. Y is restored before every call (untimed).
#include "baselines/baselines.hpp"
#include "tessera/csr_matrix.hpp"
#include "tessera/dense_matrix.hpp"
#include "tessera/ops.hpp"
#include "workloads/case_matrix.hpp"
#include "workloads/common.hpp"

namespace bench {

namespace {

template <class T>
class TesseraSpmm : public Runner {
 public:
  TesseraSpmm(const tessera::Device& dev, const SpmmData<T>& d)
      : dev_(dev),
        d_(d),
        A_(tessera::CsrMatrix<T>::from_host(dev, d.A)),
        X_(tessera::DenseMatrix<T>::from_host(dev, d.A.cols, d.k, d.X)),
        Y_(tessera::DenseMatrix<T>::from_host(dev, d.A.rows, d.k, d.Y0)) {}
  void reset() override { Y_.upload(d_.Y0.data()); }
  void run() override { tessera::spmm(d_.alpha, A_, X_, d_.beta, Y_); }
  void sync() override { dev_.synchronize(); }
  std::vector<double> result() override { return widen(Y_.to_host()); }

 private:
  tessera::Device dev_;
  const SpmmData<T>& d_;
  tessera::CsrMatrix<T> A_;
  tessera::DenseMatrix<T> X_, Y_;
};

template <class T>
class SpmmWorkload : public Workload {
 public:
  using Workload::Workload;

  void generate() override {
    d_.A = case_matrix<T>(spec());
    d_.k = spec().get("k");
    d_.X = random_vector<T>(d_.A.cols * d_.k, 0x5eed0105);
    d_.Y0 = random_vector<T>(d_.A.rows * d_.k, 0x5eed0106);
  }
  void release() override { d_ = {}; }

  std::vector<std::pair<std::string, std::int64_t>> sizes() const override {
    auto v = spec().sizes;
    set_size(v, "rows", d_.A.rows);
    set_size(v, "cols", d_.A.cols);
    set_size(v, "nnz", d_.A.nnz());
    return v;
  }
  double flops() const override { return 2.0 * static_cast<double>(d_.A.nnz()) * static_cast<double>(d_.k); }
  double bytes() const override {
    const double s = sizeof(T), k = static_cast<double>(d_.k);
    return csr_bytes(d_.A) + static_cast<double>(d_.A.cols) * k * s + 2.0 * static_cast<double>(d_.A.rows) * k * s;
  }
  Bound bound() const override { return Bound::read_bandwidth; }

  std::unique_ptr<Runner> tessera_runner(const tessera::Device& dev) override {
    return std::make_unique<TesseraSpmm<T>>(dev, d_);
  }
  std::vector<NamedRunner> baseline_runners() override { return spmm_baselines<T>(d_); }

 private:
  SpmmData<T> d_;
};

}  // namespace

std::unique_ptr<Workload> make_spmm_workload(const CaseSpec& spec, tessera::DType dtype) {
  return make_typed<SpmmWorkload>(spec, dtype);
}

}  // namespace bench
