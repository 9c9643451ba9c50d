// Narrow CSR columns on the cpu device (plan/narrow_columns.hpp, plan/spmv_policy.hpp): the
// policy and its TESSERA_TUNE override, what spmv_kernel reports, and products against the
// reference on matrices that do and do not fit the int16 offsets, through spmv, spmv_dot and
// update_values. The kernel paths on every SIMD target: test_cpu_spmv_kernel.cpp. ctest runs
// the spmv, solver and SELL tests again with the offsets forced (spmv.narrow_forced).
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "plan/spmv_policy.hpp"
#include "support/compare.hpp"
#include "support/devices.hpp"
#include "support/random.hpp"
#include "support/sparse.hpp"
#include "tessera/tessera.hpp"
#include "tuning/tuning.hpp"

using namespace tessera;
using namespace tessera_test;

namespace {

std::int64_t tuning_value(const Device& d, const char* key, std::int64_t missing) {
  for (const auto& [k, v] : d.info().tuning)
    if (k == key) return v;
  return missing;
}

bool has(const std::string& s, const char* part) { return s.find(part) != std::string::npos; }

// y = alpha A x + beta y and spmv_dot on `d` against the reference, twice (the kept plan).
template <class T>
void check_products(const Device& d, const HostCsr<T>& h, const std::string& what) {
  const Device ref = reference_device();
  const auto hx = random_vector<T>(static_cast<std::size_t>(h.cols), 3);
  const auto hy = random_vector<T>(static_cast<std::size_t>(h.rows), 4);
  std::vector<T> want;
  auto ry = Vector<T>::from_host(ref, hy);
  spmv(T(0.5), CsrMatrix<T>::from_host(ref, h), Vector<T>::from_host(ref, hx), T(-2), ry);
  want = ry.to_host();
  // |0.5 A x| + |2 y| <= 0.5 * 12 + 2 (the Laplacian's rows: 6 and six -1; x, y within 1).
  const double bound = gamma_bound<T>(12.0) * 8.0;
  const auto A = CsrMatrix<T>::from_host(d, h);
  const auto x = Vector<T>::from_host(d, hx);
  for (int round = 0; round < 2; ++round) {
    auto y = Vector<T>::from_host(d, hy);
    spmv(T(0.5), A, x, T(-2), y);
    check_close(y.to_host(), want, std::vector<double>(want.size(), bound), what + " spmv");
    auto y2 = Vector<T>::from_host(d, hy);
    Scalar<T> out(d);
    spmv_dot(d.queue(), T(0.5), A, x, T(-2), y2, x, out);  // square: w = x
    const auto got = y2.to_host();
    check_close(got, want, std::vector<double>(want.size(), bound), what + " spmv_dot");
    double dot = 0.0, mag = 0.0;
    for (std::size_t i = 0; i < got.size(); ++i) {
      dot += static_cast<double>(got[i]) * hx[i];
      mag += std::abs(static_cast<double>(got[i]) * hx[i]);
    }
    CHECK(std::abs(static_cast<double>(out.get()) - dot) <= gamma_bound<T>(static_cast<double>(got.size())) * mag);
  }
}

}  // namespace

TEST_CASE("spmv narrow columns: the policy (auto from the nonzeros, forced by spmv.index, never without identity)") {
  const auto tune = [](const std::string& overrides) { return tuning::Tuning::for_device("cpu/host", "cpu", overrides); };
  CsrView v;
  v.rows = 1000;
  v.cols = 1000;
  v.nnz = 5000;
  v.generation = 7;
  CHECK(tune("spmv.index=int16")["spmv.index"] == 2);
  CHECK(tune("spmv.index=int32")["spmv.index"] == 1);
  CHECK_THROWS_WITH_AS(tune("spmv.index=int8"), doctest::Contains("auto|int32|int16"), InvalidArgument);
  for (const DType t : {DType::f32, DType::f64}) CHECK(plan::narrow_candidate(v, t, tune("spmv.index=int16")));
  CHECK_FALSE(plan::narrow_candidate(v, DType::f64, tune("spmv.index=int32,spmv.narrow_min_nnz=0")));
  CHECK_FALSE(plan::narrow_candidate(v, DType::f64, tune("spmv.index=auto,spmv.narrow_min_nnz=5001")));
  CHECK(plan::narrow_candidate(v, DType::f64, tune("spmv.index=auto,spmv.narrow_min_nnz=5000")));
  // Auto narrows f64 only (f32's row loop is bound by its loads, not by memory).
  CHECK_FALSE(plan::narrow_candidate(v, DType::f32, tune("spmv.index=auto,spmv.narrow_min_nnz=0")));
  CsrView anonymous = v;  // generation 0: the offsets would be rebuilt at every call
  anonymous.generation = 0;
  CHECK_FALSE(plan::narrow_candidate(anonymous, DType::f64, tune("spmv.index=int16")));
  CsrView empty = v;
  empty.nnz = 0;
  CHECK_FALSE(plan::narrow_candidate(empty, DType::f64, tune("spmv.index=int16")));
}

TEST_CASE_TEMPLATE("spmv narrow columns: taken where they fit and the device asks, reported, and right", T, float,
                   double) {
  const Device d = Device::open("cpu");
  const std::int64_t index = tuning_value(d, "spmv.index", 0);
  const std::int64_t min_nnz = tuning_value(d, "spmv.narrow_min_nnz", 1 << 20);
  // Fits: a 3D Laplacian (offsets +-1, +-nx, +-nx*ny), large enough for auto's default.
  const HostCsr<T> lap = laplacian_3d<T>(61, 67, 71);
  // Does not fit: the same rows with one entry moved 40000 columns away.
  HostCsr<T> far = lap;
  far.col_idx[far.row_ptr[10]] = 10 + 40000;
  const auto A = CsrMatrix<T>::from_host(d, lap);
  const auto F = CsrMatrix<T>::from_host(d, far);
  const bool wants = index == 2 || (index == 0 && std::is_same_v<T, double> && lap.nnz() >= min_nnz);
  INFO("spmv.index " << index << ", narrow_min_nnz " << min_nnz << ": " << spmv_kernel(A) << " / " << spmv_kernel(F));
  // Where the tuning takes SELL for these even rows there are no CSR columns to narrow.
  if (spmv_kernel(A).rfind("csr", 0) == 0) CHECK(has(spmv_kernel(A), "int16") == wants);
  CHECK_FALSE(has(spmv_kernel(F), "int16"));
  check_products(d, lap, "laplacian 61x67x71");
  check_products(d, far, "laplacian with a far entry");
  // update_values keeps the offsets (the structure is the same) and uses the new values.
  auto B = CsrMatrix<T>::from_host(d, lap);
  const std::string before = spmv_kernel(B);
  std::vector<T> v2 = random_vector<T>(lap.values.size(), 9);
  B.update_values(v2);
  CHECK(spmv_kernel(B) == before);
  HostCsr<T> lap2 = lap;
  lap2.values = v2;
  const Device ref = reference_device();
  const auto hx = random_vector<T>(static_cast<std::size_t>(lap.cols), 10);
  Vector<T> y(d, lap.rows), ry(ref, lap.rows);
  spmv(T(1), B, Vector<T>::from_host(d, hx), T(0), y);
  spmv(T(1), CsrMatrix<T>::from_host(ref, lap2), Vector<T>::from_host(ref, hx), T(0), ry);
  check_close(y.to_host(), ry.to_host(), std::vector<double>(static_cast<std::size_t>(lap.rows), gamma_bound<T>(9.0) * 7),
              "after update_values");
}
