// Sparse triangular solve L x = b, L = lower triangle (with diagonal) of the 3D 7-point
// Laplacian (diagonal 6.5, so L is diagonally dominant and the solve well conditioned), or of
// a real matrix from a Matrix Market file (kind "mtx": an n/a row where a diagonal entry is
// missing or zero, as the solve would refuse it).
//   flops = 2 * nnz - rows (a multiply-add per off-diagonal entry, a division per row)
//   bytes = nnz * (sizeof(T) + 4) + (rows + 1) * 4 + 2 * rows * sizeof(T) (b read, x written)
// Its speed is limited by the dependency chain (level sets) more than by bandwidth; the
// percentage is still of the read bandwidth, the bound it would have without dependencies.
// The analysis runs when the runner is built, twice: the first loads the kernels and allocates
// (one-off costs of the first analysis in a process), the second is timed and reported as
// setup_ms (the table's "analysis"); cuSPARSE's the same way (baselines/cuda_libs.cpp).
#include "baselines/baselines.hpp"
#include "measure.hpp"
#include "tessera/csr_matrix.hpp"
#include "tessera/generate.hpp"
#include "tessera/ops.hpp"
#include "tessera/vector.hpp"
#include "workloads/common.hpp"
#include "workloads/solve_common.hpp"

namespace bench {

namespace {

template <class T>
tessera::HostCsr<T> lower_triangle(const tessera::HostCsr<T>& A) {
  tessera::HostCsr<T> L;
  L.rows = A.rows;
  L.cols = A.cols;
  L.row_ptr.assign(1, 0);
  for (std::int64_t i = 0; i < A.rows; ++i) {
    for (auto k = A.row_ptr[static_cast<std::size_t>(i)]; k < A.row_ptr[static_cast<std::size_t>(i + 1)]; ++k) {
      const auto j = A.col_idx[static_cast<std::size_t>(k)];
      if (j <= i) {
        L.col_idx.push_back(j);
        L.values.push_back(A.values[static_cast<std::size_t>(k)]);
      }
    }
    L.row_ptr.push_back(static_cast<std::int32_t>(L.col_idx.size()));
  }
  return L;
}

template <class T>
class TesseraSptrsv : public Runner {
 public:
  TesseraSptrsv(const tessera::Device& dev, const SptrsvData<T>& d)
      : dev_(dev),
        L_(tessera::CsrMatrix<T>::from_host(dev, d.L)),
        b_(tessera::Vector<T>::from_host(dev, d.b)),
        x_(dev, d.L.rows) {
    plan_ = tessera::sptrsv_analyze(tessera::Uplo::lower, tessera::Diag::non_unit, L_);
    dev_.synchronize();
    const double t0 = now_s();
    auto second = tessera::sptrsv_analyze(tessera::Uplo::lower, tessera::Diag::non_unit, L_);
    dev_.synchronize();
    setup_ms_ = (now_s() - t0) * 1e3;
    plan_ = std::move(second);  // the first plan's release (its buffers freed) outside the timing
  }
  void run() override { tessera::sptrsv_solve(plan_, b_, x_); }
  void sync() override { dev_.synchronize(); }
  std::vector<double> result() override { return widen(x_.to_host()); }
  double setup_ms() const override { return setup_ms_; }

 private:
  tessera::Device dev_;
  tessera::CsrMatrix<T> L_;
  tessera::Vector<T> b_, x_;
  tessera::SptrsvPlan<T> plan_;
  double setup_ms_ = -1;
};

template <class T>
class SptrsvWorkload : public Workload {
 public:
  using Workload::Workload;

  void generate() override {
    if (spec().kind == "mtx") {
      d_.L = lower_triangle(square_matrix<T>(spec().path, "sptrsv"));
      for (std::int64_t i = 0; i < d_.L.rows; ++i) {
        const auto last = d_.L.row_ptr[static_cast<std::size_t>(i + 1)];  // the diagonal, if any, ends the row
        if (last == d_.L.row_ptr[static_cast<std::size_t>(i)] || d_.L.col_idx[static_cast<std::size_t>(last - 1)] != i ||
            d_.L.values[static_cast<std::size_t>(last - 1)] == T(0))
          throw Skipped("sptrsv skipped: row " + std::to_string(i) + " has no nonzero diagonal entry");
      }
    } else {
      const auto n = spec().get("n");
      d_.L = lower_triangle(tessera::laplacian_3d<T>(n, n, n));
    }
    d_.b = random_vector<T>(d_.L.rows, 0x5eed0301);
  }
  void release() override { d_ = {}; }

  std::vector<std::pair<std::string, std::int64_t>> sizes() const override {
    auto v = spec().sizes;
    set_size(v, "rows", d_.L.rows);
    set_size(v, "nnz", d_.L.nnz());
    return v;
  }
  double flops() const override { return 2.0 * static_cast<double>(d_.L.nnz()) - static_cast<double>(d_.L.rows); }
  double bytes() const override {
    const double s = sizeof(T);
    return csr_bytes(d_.L) + 2.0 * static_cast<double>(d_.L.rows) * s;
  }
  Bound bound() const override { return Bound::read_bandwidth; }

  std::unique_ptr<Runner> tessera_runner(const tessera::Device& dev) override {
    return std::make_unique<TesseraSptrsv<T>>(dev, d_);
  }
  std::vector<NamedRunner> baseline_runners() override { return sptrsv_baselines<T>(d_); }

 private:
  SptrsvData<T> d_;
};

}  // namespace

std::unique_ptr<Workload> make_sptrsv_workload(const CaseSpec& spec, tessera::DType dtype) {
  return make_typed<SptrsvWorkload>(spec, dtype);
}

}  // namespace bench
