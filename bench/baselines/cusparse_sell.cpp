// cuSPARSE's sliced-ELL SpMV (cusparseCreateSlicedEll + cusparseSpMV, CUSPARSE_SPMV_SELL_ALG1)
// beside its CSR SpMV: the vendor's own SELL, for Tessera's SELL-C-sigma rows. cuSPARSE's
// format has no row sorting (sigma = 1): slices of kSlice rows, column-major inside a slice,
// padded to the slice's longest row with column -1. The conversion from the workload's CSR is
// done here on the host, untimed, as a user of cuSPARSE would.
#include <algorithm>
#include <memory>
#include <vector>

#include "baselines/cuda_handles.hpp"
#include "baselines/libs.hpp"

namespace bench::cudalibs {

namespace {

// A warp per slice: cuSPARSE's documentation suggests slice sizes of 32 or so.
constexpr int kSlice = 32;

template <class T>
struct HostSell {
  std::vector<int> slice_offsets{0}, col;
  std::vector<T> val;
};

template <class T>
HostSell<T> to_sliced_ell(const tessera::HostCsr<T>& a) {
  HostSell<T> s;
  for (std::int64_t first = 0; first < a.rows; first += kSlice) {
    const std::int64_t last = std::min<std::int64_t>(first + kSlice, a.rows);
    std::int64_t width = 0;
    for (std::int64_t r = first; r < last; ++r) width = std::max<std::int64_t>(width, a.row_ptr[r + 1] - a.row_ptr[r]);
    const std::size_t base = s.col.size();
    s.col.resize(base + static_cast<std::size_t>(width * kSlice), -1);
    s.val.resize(base + static_cast<std::size_t>(width * kSlice), T(0));
    for (std::int64_t r = first; r < last; ++r)
      for (std::int64_t j = 0; j < a.row_ptr[r + 1] - a.row_ptr[r]; ++j) {
        const std::size_t k = base + static_cast<std::size_t>(j * kSlice + (r - first));
        s.col[k] = a.col_idx[static_cast<std::size_t>(a.row_ptr[r] + j)];
        s.val[k] = a.values[static_cast<std::size_t>(a.row_ptr[r] + j)];
      }
    s.slice_offsets.push_back(static_cast<int>(s.col.size()));
  }
  return s;
}

template <class T>
class SellSpmv : public GpuRunner {
 public:
  explicit SellSpmv(const SpmvData<T>& d) : d_(d), x_(d.x), y_(d.y0) {
    const HostSell<T> h = to_sliced_ell(d.A);
    padded_ = static_cast<std::int64_t>(h.val.size());
    offsets_ = std::make_unique<DevBuf>(h.slice_offsets);
    col_ = std::make_unique<DevBuf>(h.col);
    val_ = std::make_unique<DevBuf>(h.val);
    check(cusparseCreateSlicedEll(&mat_, d.A.rows, d.A.cols, d.A.nnz(), padded_, kSlice, offsets_->get<int>(),
                                  col_->get<int>(), val_->get<T>(), CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                                  CUSPARSE_INDEX_BASE_ZERO, cuda_type<T>()),
          "cusparseCreateSlicedEll");
    check(cusparseSpMV_bufferSize(sparse(), CUSPARSE_OPERATION_NON_TRANSPOSE, &d_.alpha, mat_, x_.vec, &d_.beta, y_.vec,
                                  cuda_type<T>(), CUSPARSE_SPMV_SELL_ALG1, &buffer_bytes_),
          "cusparseSpMV_bufferSize (sliced ELL)");
    buffer_ = std::make_unique<DevBuf>(buffer_bytes_);
  }
  ~SellSpmv() override { cusparseDestroySpMat(mat_); }
  void reset() override { y_.buf.upload(d_.y0.data()); }
  void run() override {
    check(cusparseSpMV(sparse(), CUSPARSE_OPERATION_NON_TRANSPOSE, &d_.alpha, mat_, x_.vec, &d_.beta, y_.vec,
                       cuda_type<T>(), CUSPARSE_SPMV_SELL_ALG1, buffer_->get<void>()),
          "cusparseSpMV (sliced ELL)");
  }
  std::vector<double> result() override { return y_.buf.download_as_double<T>(); }
  std::string detail() const override {
    const double pad = d_.A.nnz() > 0 ? 100.0 * static_cast<double>(padded_ - d_.A.nnz()) / static_cast<double>(d_.A.nnz()) : 0.0;
    return "slice " + std::to_string(kSlice) + ", padding " + std::to_string(static_cast<int>(pad + 0.5)) + "%";
  }

 private:
  const SpmvData<T>& d_;
  DevVec x_, y_;
  std::unique_ptr<DevBuf> offsets_, col_, val_, buffer_;
  cusparseSpMatDescr_t mat_ = nullptr;
  std::int64_t padded_ = 0;
  std::size_t buffer_bytes_ = 0;
};

}  // namespace

template <class T>
std::unique_ptr<Runner> spmv_sell(const SpmvData<T>& d) {
  return std::make_unique<SellSpmv<T>>(d);
}
template std::unique_ptr<Runner> spmv_sell<float>(const SpmvData<float>&);
template std::unique_ptr<Runner> spmv_sell<double>(const SpmvData<double>&);

}  // namespace bench::cudalibs
