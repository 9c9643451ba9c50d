// spmv: y = alpha * A * x + beta * y with CSR A (alpha = 1, beta = 0.5, so y is read and written).
//   flops = 2 * nnz (a multiply and an add per nonzero; the per-row alpha/beta scaling is not counted)
//   bytes = nnz * (sizeof(T) + 4)   values + int32 column indices
//         + (rows + 1) * 4          row pointers
//         + cols * sizeof(T)        x, counted once (a lower bound: random columns re-read it)
//         + 2 * rows * sizeof(T)    y read and written
// Bound by read bandwidth. y is restored before every call (untimed) so each call computes the
// same result, which is then checked.
#include <filesystem>

#include "baselines/baselines.hpp"
#include "tessera/errors.hpp"
#include "tessera/csr_matrix.hpp"
#include "tessera/generate.hpp"
#include "tessera/matrix_market.hpp"
#include "tessera/ops.hpp"
#include "tessera/vector.hpp"
#include "workloads/case_matrix.hpp"
#include "workloads/common.hpp"

namespace bench {

namespace {

// Power-law row lengths min_len / (1 - u)^(1 / exponent): with exponent 1.8 and min_len 3 the
// mean is about 6.75 (comparable to the other cases) with a tail of rows thousands long.
constexpr double kPowerLawExponent = 1.8;

}  // namespace

template <class T>
tessera::HostCsr<T> case_matrix(const CaseSpec& s) {
  if (s.kind == "laplace3d") {
    const auto n = s.get("n");
    return tessera::laplacian_3d<T>(n, n, n);
  } else if (s.kind == "laplace2d") {
    const auto n = s.get("n");
    return tessera::laplacian_2d<T>(n, n);
  } else if (s.kind == "random") {
    const auto rows = s.get("rows");
    return tessera::random_csr<T>(rows, rows, static_cast<int>(s.get("min_per_row")),
                                  static_cast<int>(s.get("max_per_row")), 0x5eed0101);
  } else if (s.kind == "powerlaw") {
    // exponent_x100: a case's own exponent (--size gpu: 1.2, as in the GPU figures).
    const double exponent = s.has("exponent_x100") ? static_cast<double>(s.get("exponent_x100")) / 100 : kPowerLawExponent;
    return tessera::power_law_csr<T>(s.get("rows"), exponent, static_cast<int>(s.get("min_len")),
                                     static_cast<int>(s.get("max_len")), 0x5eed0102);
  } else {
    try {
      return tessera::read_matrix_market<T>(s.path);
    } catch (const tessera::ParseError&) {
      throw;  // a malformed file is a fault worth failing the run for
    } catch (const tessera::InvalidArgument& e) {
      // A file Tessera refuses by design (complex, hermitian, dense array) is a gap, not a
      // fault, so a whole collection folder can be passed to --matrix; a missing file is a fault.
      if (!std::filesystem::is_regular_file(s.path)) throw;
      throw Skipped(e.what());
    }
  }
}
template tessera::HostCsr<float> case_matrix<float>(const CaseSpec&);
template tessera::HostCsr<double> case_matrix<double>(const CaseSpec&);

namespace {

template <class T>
class TesseraSpmv : public Runner {
 public:
  TesseraSpmv(const tessera::Device& dev, const SpmvData<T>& d)
      : dev_(dev),
        d_(d),
        A_(tessera::CsrMatrix<T>::from_host(dev, d.A)),
        x_(tessera::Vector<T>::from_host(dev, d.x)),
        y_(tessera::Vector<T>::from_host(dev, d.y0)) {}
  void reset() override { y_.upload(d_.y0); }
  void run() override { tessera::spmv(d_.alpha, A_, x_, d_.beta, y_); }
  void sync() override { dev_.synchronize(); }
  std::vector<double> result() override { return widen(y_.to_host()); }
  // The storage and kernel the plan chose ("sell(C=16, sigma=1, padding 0.4%)", "csr/vector(8)").
  std::string detail() const override { return tessera::spmv_kernel(A_); }

 private:
  tessera::Device dev_;
  const SpmvData<T>& d_;
  tessera::CsrMatrix<T> A_;
  tessera::Vector<T> x_, y_;
};

template <class T>
class SpmvWorkload : public Workload {
 public:
  using Workload::Workload;

  void generate() override {
    d_.A = case_matrix<T>(spec());
    d_.x = random_vector<T>(d_.A.cols, 0x5eed0103);
    d_.y0 = random_vector<T>(d_.A.rows, 0x5eed0104);
  }
  void release() override { d_ = {}; }

  std::vector<std::pair<std::string, std::int64_t>> sizes() const override {
    auto v = spec().sizes;
    set_size(v, "rows", d_.A.rows);
    set_size(v, "cols", d_.A.cols);
    set_size(v, "nnz", d_.A.nnz());
    return v;
  }
  double flops() const override { return 2.0 * static_cast<double>(d_.A.nnz()); }
  double bytes() const override {
    const double s = sizeof(T);
    return csr_bytes(d_.A) + static_cast<double>(d_.A.cols) * s + 2.0 * static_cast<double>(d_.A.rows) * s;
  }
  Bound bound() const override { return Bound::read_bandwidth; }

  std::unique_ptr<Runner> tessera_runner(const tessera::Device& dev) override {
    return std::make_unique<TesseraSpmv<T>>(dev, d_);
  }
  std::vector<NamedRunner> baseline_runners() override { return spmv_baselines<T>(d_); }

 private:
  SpmvData<T> d_;
};

}  // namespace

std::unique_ptr<Workload> make_spmv_workload(const CaseSpec& spec, tessera::DType dtype) {
  return make_typed<SpmvWorkload>(spec, dtype);
}

}  // namespace bench
