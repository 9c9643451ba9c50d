// spmv_dot (ops.hpp): y = alpha A x + beta y and out = w . y, on every device against the host.
//
// y is checked as spmv's tests check it: within 2 gamma_{k+1} (|alpha| |A| |x| + |beta| |y|)_i of
// the product in long double. out is checked against the device's own y: within
// 2 gamma_{n} sum |w_i y_i| of sum w_i y_i in long double (a dot's bound, any summation order),
// so a fused dot that reads a stale or partial y fails. y is a view inside a larger vector
// whose guard elements must not change.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

#include "support/compare.hpp"
#include "support/devices.hpp"
#include "support/random.hpp"
#include "support/sparse.hpp"
#include "tessera/tessera.hpp"

using namespace tessera;
using namespace tessera_test;

namespace {

template <class T>
void check_case(const Device& d, const HostCsr<T>& h, T alpha, T beta, bool w_is_x, std::uint32_t seed,
                const std::string& what) {
  CAPTURE(what);
  const auto hx = random_vector<T>(static_cast<std::size_t>(h.cols), seed);
  const auto hy = random_vector<T>(static_cast<std::size_t>(h.rows), seed + 1);
  const auto hw = w_is_x ? hx : random_vector<T>(static_cast<std::size_t>(h.rows), seed + 2);
  const T guard = T(1e30);
  std::vector<T> padded(hy.size() + 6, guard);
  std::copy(hy.begin(), hy.end(), padded.begin() + 3);
  const auto A = CsrMatrix<T>::from_host(d, h);
  const auto x = Vector<T>::from_host(d, hx);
  auto whole = Vector<T>::from_host(d, padded);
  Vector<T> y = whole.sub(3, h.rows);
  const Vector<T> w = w_is_x ? x : Vector<T>::from_host(d, hw);
  Scalar<T> out(d, T(-123));
  spmv_dot(d.queue(), alpha, A, x, beta, y, w, out);
  const auto got = y.to_host();
  const auto all = whole.to_host();
  for (int i = 0; i < 3; ++i) {
    CHECK(all[static_cast<std::size_t>(i)] == guard);
    CHECK(all[all.size() - 1 - static_cast<std::size_t>(i)] == guard);
  }
  std::vector<T> ref(got.size());
  std::vector<double> bound(got.size());
  long double dot = 0, dot_abs = 0;
  for (std::int64_t i = 0; i < h.rows; ++i) {
    const auto u = static_cast<std::size_t>(i);
    long double s = 0, a = std::abs(static_cast<long double>(beta) * hy[u]);
    for (std::int32_t k = h.row_ptr[u]; k < h.row_ptr[u + 1]; ++k) {
      const long double p = static_cast<long double>(h.values[static_cast<std::size_t>(k)]) *
                            hx[static_cast<std::size_t>(h.col_idx[static_cast<std::size_t>(k)])];
      s += p;
      a += std::abs(static_cast<long double>(alpha) * p);
    }
    ref[u] = static_cast<T>(static_cast<long double>(alpha) * s + static_cast<long double>(beta) * hy[u]);
    bound[u] = 2 * gamma_bound<T>(static_cast<double>(h.row_ptr[u + 1] - h.row_ptr[u] + 2)) * static_cast<double>(a);
    dot += static_cast<long double>(hw[u]) * got[u];
    dot_abs += std::abs(static_cast<long double>(hw[u]) * got[u]);
  }
  check_close(got, ref, bound, what + ": y");
  const double out_bound = 2 * gamma_bound<T>(static_cast<double>(h.rows) + 1) * static_cast<double>(dot_abs);
  CHECK_MESSAGE(std::abs(static_cast<double>(out.get()) - static_cast<double>(dot)) <= out_bound,
                what << ": out = " << out.get() << ", w . y = " << static_cast<double>(dot) << ", bound " << out_bound);
}

}  // namespace

TEST_CASE_TEMPLATE("spmv_dot: y = alpha A x + beta y and out = w . y on every device", T, float, double) {
  std::uint32_t seed = 9100;
  struct Shape {
    std::int64_t rows, cols;
    int min_len, max_len;
  };
  // One row; odd sizes; more rows than one chunk of the cpu's fused loop (1024) and than one
  // thread's share; short and long rows; rectangular.
  for (const Shape s : {Shape{1, 1, 1, 1}, Shape{37, 41, 0, 6}, Shape{1031, 1031, 3, 9}, Shape{20011, 20011, 5, 8},
                        Shape{5003, 3001, 20, 70}}) {
    const auto h = local_random_csr<T>(s.rows, s.cols, s.min_len, s.max_len, ++seed, false, 0.05);
    for (const auto& [alpha, beta] : {std::pair<T, T>{T(1), T(0)}, std::pair<T, T>{T(-1.5), T(0.75)}})
      for (bool w_is_x : {false, true}) {
        if (w_is_x && s.rows != s.cols) continue;
        std::ostringstream w;
        w << s.rows << " x " << s.cols << ", alpha " << alpha << ", beta " << beta << (w_is_x ? ", w = x" : "");
        for_each_device<T>(Op::spmv, [&](const Device& d) { check_case<T>(d, h, alpha, beta, w_is_x, ++seed, w.str()); });
      }
  }
  // The 3D Laplacian of a CG iteration (w = x = p, beta = 0); the larger one has more groups of
  // 256 rows than a GPU kernel's grid (CUDA: 8 blocks per SM), so blocks loop over several.
  const auto lap = laplacian_3d<T>(23, 19, 17);
  for_each_device<T>(Op::spmv, [&](const Device& d) { check_case<T>(d, lap, T(1), T(0), true, 9300, "laplacian"); });
  const auto big = laplacian_3d<T>(71, 67, 65);
  for_each_device<T>(Op::spmv, [&](const Device& d) { check_case<T>(d, big, T(1), T(0), true, 9301, "laplacian 71x67x65"); });
}

TEST_CASE_TEMPLATE("spmv_dot: bad input throws, writes nothing, and the device works after", T, float, double) {
  const auto h = local_random_csr<T>(50, 40, 1, 5, 9400);
  for (const Device& d : all_devices()) {
    CAPTURE(d.spec());
    const Queue q = d.queue();
    const auto A = CsrMatrix<T>::from_host(d, h);
    const auto x = Vector<T>::from_host(d, random_vector<T>(40, 1));
    const auto hy = random_vector<T>(50, 2);
    auto y = Vector<T>::from_host(d, hy);
    const auto w = Vector<T>::from_host(d, random_vector<T>(50, 3));
    Scalar<T> out(d, T(5));
    auto unchanged = [&] {
      CHECK(y.to_host() == hy);
      CHECK(out.get() == T(5));
    };
    const auto x_short = Vector<T>::from_host(d, random_vector<T>(39, 4));
    CHECK_THROWS_AS(spmv_dot(q, T(1), A, x_short, T(0), y, w, out), DimensionMismatch);
    unchanged();
    const auto w_short = Vector<T>::from_host(d, random_vector<T>(49, 5));
    CHECK_THROWS_AS(spmv_dot(q, T(1), A, x, T(0), y, w_short, out), DimensionMismatch);
    unchanged();
    // y over x's storage, and w over y's.
    auto big = Vector<T>::from_host(d, random_vector<T>(60, 6));
    const auto big_before = big.to_host();
    Vector<T> y_in_big = big.sub(0, 50);
    const Vector<T> x_in_big = big.sub(10, 40);
    CHECK_THROWS_AS(spmv_dot(q, T(1), A, x_in_big, T(0), y_in_big, w, out), InvalidArgument);
    CHECK_THROWS_AS(spmv_dot(q, T(1), A, x, T(0), y, y, out), InvalidArgument);
    CHECK(big.to_host() == big_before);
    unchanged();
    // A result on another device.
    for (const Device& other : all_devices())
      if (other != d) {
        Scalar<T> elsewhere(other, T(5));
        CHECK_THROWS_AS(spmv_dot(q, T(1), A, x, T(0), y, w, elsewhere), DeviceMismatch);
        CHECK(elsewhere.get() == T(5));
        unchanged();
        break;
      }
    // An empty matrix: out = 0.
    const CsrMatrix<T> E = CsrMatrix<T>::from_host(d, [] { HostCsr<T> e; e.cols = 40; return e; }());
    Vector<T> y0(d, 0), w0(d, 0);
    spmv_dot(q, T(1), E, x, T(0), y0, w0, out);
    CHECK(out.get() == T(0));
    // Still usable: a known answer.
    const auto I = CsrMatrix<T>::from_host(d, 2, 2, {0, 1, 2}, {0, 1}, {T(2), T(3)});
    const auto v = Vector<T>::from_host(d, {T(1), T(2)});
    Vector<T> r(d, 2);
    spmv_dot(q, T(1), I, v, T(0), r, v, out);
    CHECK(r.to_host() == std::vector<T>{T(2), T(6)});
    CHECK(out.get() == T(14));
  }
}
