// Narrow CSR columns on the cpu device (plan/csr_columns.hpp, plan/spmv_policy.hpp): the
// policy and its TESSERA_TUNE override, what spmv_kernel reports, and products against the
// reference on matrices that do and do not fit the int16 offsets, through spmv, spmv_dot and
// update_values. The kernel paths on every SIMD target: test_cpu_spmv_kernel.cpp. ctest runs
// the spmv, solver and SELL tests again with the offsets forced (spmv.narrow_forced).
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "host_machine.hpp"
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

TEST_CASE("spmv narrow columns: the policy (asked for by spmv.index, never without identity)") {
  const auto tune = [](const std::string& overrides) { return tuning::Tuning::for_device("cpu/host", "cpu", overrides); };
  CsrView v;
  v.rows = 1000;
  v.cols = 1000;
  v.nnz = 5000;
  v.generation = 7;
  CHECK(tune("spmv.index=int16")["spmv.index"] == 1);
  CHECK(tune("spmv.index=int32")["spmv.index"] == 0);
  CHECK(tune("")["spmv.index"] == 0);  // int32 unless asked for
  CHECK_THROWS_WITH_AS(tune("spmv.index=int8"), doctest::Contains("int32|int16"), InvalidArgument);
  CHECK(plan::narrow_candidate(v, tune("spmv.index=int16")));
  CHECK_FALSE(plan::narrow_candidate(v, tune("spmv.index=int32")));
  CsrView anonymous = v;  // generation 0: the offsets would be rebuilt at every call
  anonymous.generation = 0;
  CHECK_FALSE(plan::narrow_candidate(anonymous, tune("spmv.index=int16")));
  CsrView empty = v;
  empty.nnz = 0;
  CHECK_FALSE(plan::narrow_candidate(empty, tune("spmv.index=int16")));
}

TEST_CASE_TEMPLATE("spmv narrow columns: taken where they fit and the device asks, reported, and right", T, float,
                   double) {
  const Device d = Device::open("cpu");
  const std::int64_t index = tuning_value(d, "spmv.index", 0);
  // Fits: a 3D Laplacian (offsets +-1, +-nx, +-nx*ny).
  const HostCsr<T> lap = laplacian_3d<T>(61, 67, 71);
  // Does not fit: the same rows with one entry moved 40000 columns away.
  HostCsr<T> far = lap;
  far.col_idx[far.row_ptr[10]] = 10 + 40000;
  const auto A = CsrMatrix<T>::from_host(d, lap);
  const auto F = CsrMatrix<T>::from_host(d, far);
  const bool wants = index == 1;
  INFO("spmv.index " << index << ": " << spmv_kernel(A) << " / " << spmv_kernel(F));
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

TEST_CASE("spmv column plan: a banded matrix whose x exceeds the cache share takes the column pass, right either way") {
  // x beyond a quarter of the last-level cache makes the cpu backend look at the columns once
  // (their bandwidth decides the x prefetch; backends/cpu/spmv.cpp): a tridiagonal matrix of
  // that size, and the same with scattered columns, against the reference.
  const Device d = Device::open("cpu");
  const std::int64_t n =
      std::min<std::int64_t>(8 << 20, static_cast<std::int64_t>(host::machine().caches.l3 / 4 / sizeof(double)) + 4099);
  HostCsr<double> tri;
  tri.rows = tri.cols = n;
  const auto v = random_vector<double>(static_cast<std::size_t>(3 * n), 71);
  for (std::int64_t i = 0; i < n; ++i) {
    for (std::int64_t j = std::max<std::int64_t>(0, i - 1); j <= std::min(n - 1, i + 1); ++j) {
      tri.col_idx.push_back(static_cast<std::int32_t>(j));
      tri.values.push_back(v[static_cast<std::size_t>(3 * i + (j - i + 1))]);
    }
    tri.row_ptr.push_back(static_cast<std::int32_t>(tri.col_idx.size()));
  }
  HostCsr<double> scattered = tri;  // the middle entry of every 1000th row moved far away
  for (std::int64_t i = 1; i + 1 < n; i += 1000)
    scattered.col_idx[static_cast<std::size_t>(tri.row_ptr[static_cast<std::size_t>(i)] + 1)] =
        static_cast<std::int32_t>((i * 7919) % n);
  const auto hx = random_vector<double>(static_cast<std::size_t>(n), 72);
  const Device ref = reference_device();
  for (const HostCsr<double>* h : {&tri, &scattered}) {
    Vector<double> want(ref, n), got(d, n);
    spmv(1.0, CsrMatrix<double>::from_host(ref, *h), Vector<double>::from_host(ref, hx), 0.0, want);
    const auto A = CsrMatrix<double>::from_host(d, *h);
    for (int round = 0; round < 2; ++round) {  // the plan, then the kept plan
      spmv(1.0, A, Vector<double>::from_host(d, hx), 0.0, got);
      check_close(got.to_host(), want.to_host(), gamma_bound<double>(5.0) * 3, "column plan");
    }
  }
}
