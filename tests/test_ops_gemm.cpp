// gemm: C = alpha * op(A) * op(B) + beta * C on every device against the reference.
//
// Bound per element: a k-term dot product plus the alpha and beta terms,
//   |C_ij - C_ref_ij| <= gamma_{k+2} (|alpha| sum_p |op(A)_ip op(B)_pj| + |beta C_ij|),
// with the magnitudes computed by the reference on |alpha|, |A|, |B|, |beta|, |C|. Padding
// (ld > cols) of every operand holds NaN, which must never reach a result.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "support/compare.hpp"
#include "support/devices.hpp"
#include "support/random.hpp"
#include "support/scale.hpp"
#include "tessera/tessera.hpp"

using namespace tessera;
using namespace tessera_test;

namespace {

struct Shape {
  std::int64_t m, n, k;
};

struct AlphaBeta {
  double alpha, beta;
  bool nan_c;  // C holds NaN on entry (with beta == 0 it must not propagate)
};

const AlphaBeta alpha_betas[] = {{1.0, 0.0, false}, {1.0, 1.0, false},  {-0.5, 0.25, false},
                                 {2.0, 0.0, true},  {0.0, 1.5, false},  {0.75, -2.0, false}};

// A rows x cols matrix stored with leading dimension ld, NaN in the padding.
template <class T>
struct Stored {
  std::int64_t rows, cols, ld;
  std::vector<T> data;  // rows * ld

  DenseMatrix<T> on(const Device& d) const {
    DenseMatrix<T> m(d, rows, cols, ld);
    if (rows > 0 && cols > 0) m.upload(data.data(), ld);
    return m;
  }
  std::vector<T> compact() const {  // rows x cols, leading dimension cols
    std::vector<T> out(static_cast<std::size_t>(rows * cols));
    for (std::int64_t i = 0; i < rows; ++i)
      for (std::int64_t j = 0; j < cols; ++j)
        out[static_cast<std::size_t>(i * cols + j)] = data[static_cast<std::size_t>(i * ld + j)];
    return out;
  }
  Stored abs() const {
    Stored a = *this;
    for (auto& v : a.data) v = std::isnan(v) ? v : std::abs(v);
    return a;
  }
};

template <class T>
Stored<T> stored_random(std::int64_t rows, std::int64_t cols, std::int64_t pad, std::uint32_t seed, bool nan = false) {
  Stored<T> s{rows, cols, std::max<std::int64_t>(cols + pad, 1), {}};
  s.data.assign(static_cast<std::size_t>(rows * s.ld), std::numeric_limits<T>::quiet_NaN());
  Rng rng(seed);
  if (!nan)
    for (std::int64_t i = 0; i < rows; ++i)
      for (std::int64_t j = 0; j < cols; ++j) s.data[static_cast<std::size_t>(i * s.ld + j)] = static_cast<T>(rng.signed_unit());
  return s;
}

const char* name(Trans t) { return t == Trans::N ? "N" : "T"; }

template <class T>
void gemm_case(Trans ta, Trans tb, const Shape& s, const AlphaBeta& ab, bool padded, std::uint32_t seed) {
  const Device ref = reference_device();
  const std::int64_t pad = padded ? 3 : 0;
  // op(A) is m x k: A is m x k (N) or k x m (T); likewise B.
  const auto A = ta == Trans::N ? stored_random<T>(s.m, s.k, pad, seed) : stored_random<T>(s.k, s.m, pad + 2, seed);
  const auto B = tb == Trans::N ? stored_random<T>(s.k, s.n, pad + 1, seed + 1) : stored_random<T>(s.n, s.k, pad, seed + 1);
  const auto C = stored_random<T>(s.m, s.n, padded ? 5 : 0, seed + 2, ab.nan_c);
  const auto C_mag = ab.nan_c ? stored_random<T>(s.m, s.n, 0, seed + 2) : C.abs();
  const T alpha = static_cast<T>(ab.alpha), beta = static_cast<T>(ab.beta);
  std::ostringstream w;
  w << "gemm " << name(ta) << name(tb) << " m=" << s.m << " n=" << s.n << " k=" << s.k << " alpha=" << ab.alpha
    << " beta=" << ab.beta << (ab.nan_c ? " C=NaN" : "") << (padded ? " ld>cols" : "");
  const std::string what = w.str();

  std::vector<T> expected, magnitude;
  if (!on_reference(what.c_str(), [&] {
        auto c = C.on(ref);
        gemm(ta, tb, alpha, A.on(ref), B.on(ref), beta, c);
        expected = c.to_host();
        auto cm = C_mag.on(ref);
        gemm(ta, tb, static_cast<T>(std::abs(ab.alpha)), A.abs().on(ref), B.abs().on(ref),
             static_cast<T>(std::abs(ab.beta)), cm);
        magnitude = cm.to_host();
      }))
    return;
  if (ab.nan_c) CHECK_MESSAGE(all_finite(expected), what << ": the reference propagated NaN from C");
  std::vector<double> bound(expected.size());
  for (std::size_t i = 0; i < bound.size(); ++i)
    bound[i] = gamma_bound<T>(static_cast<double>(s.k + 2)) * static_cast<double>(magnitude[i]);

  for_each_device<T>(Op::gemm, [&](const Device& d) {
    const auto a = A.on(d), b = B.on(d);
    auto c = C.on(d);
    gemm(ta, tb, alpha, a, b, beta, c);
    const auto got = c.to_host();
    if (ab.nan_c) CHECK_MESSAGE(all_finite(got), what << ": NaN in C propagated although beta == 0");
    check_close(got, expected, bound, what);
    check_bitwise(a.to_host(), A.compact(), what + ": A modified");
    check_bitwise(b.to_host(), B.compact(), what + ": B modified");
  });
}

}  // namespace

TEST_CASE_TEMPLATE("gemm: known answer for every Trans combination, the reference included", T, float, double) {
  // op(A) = [1 2 3; 4 5 6], op(B) = [1 -1; 0 2; 0.5 1] -> op(A) op(B) = [2.5 6; 7 12]
  const std::vector<T> a = {1, 2, 3, 4, 5, 6}, at = {1, 4, 2, 5, 3, 6};
  const std::vector<T> b = {1, -1, 0, 2, 0.5, 1}, bt = {1, 0, 0.5, -1, 2, 1};
  for (const Device& d : all_devices()) {
    run_on_device<T>(d, Op::gemm, [&](const Device& dev) {
      for (Trans ta : {Trans::N, Trans::T})
        for (Trans tb : {Trans::N, Trans::T}) {
          const auto A = ta == Trans::N ? DenseMatrix<T>::from_host(dev, 2, 3, a) : DenseMatrix<T>::from_host(dev, 3, 2, at);
          const auto B = tb == Trans::N ? DenseMatrix<T>::from_host(dev, 3, 2, b) : DenseMatrix<T>::from_host(dev, 2, 3, bt);
          auto C = DenseMatrix<T>::from_host(dev, 2, 2, {1, 2, 3, 4});
          gemm(ta, tb, T(2), A, B, T(-1), C);
          INFO("trans " << name(ta) << name(tb));
          CHECK(C.to_host() == std::vector<T>{4, 10, 11, 20});
        }
    });
  }
}

TEST_CASE_TEMPLATE("gemm: all Trans combinations, odd and edge shapes, alpha/beta variants", T, float, double) {
  const Shape shapes[] = {{0, 5, 3},    {5, 0, 3},     {4, 5, 0},     {1, 1, 1},     {1, 7, 13},    {7, 1, 13},
                          {13, 7, 1},   {17, 33, 7},   {33, 17, 65},  {65, 129, 33}, {127, 65, 129}, {129, 127, 17},
                          {257, 33, 129}, {31, 257, 257}, {2, 257, 65}, {257, 2, 3},  {64, 64, 64},  {65, 65, 65}};
  std::uint32_t seed = 10;
  int index = 0;
  for (const Shape& s : shapes)
    for (Trans ta : {Trans::N, Trans::T})
      for (Trans tb : {Trans::N, Trans::T}) {
        // Two alpha/beta variants per shape and combination, rotating through the list.
        const int i = index++;
        gemm_case<T>(ta, tb, s, alpha_betas[i % 6], i % 2 == 1, seed += 3);
        gemm_case<T>(ta, tb, s, alpha_betas[(i + 3) % 6], i % 3 == 0, seed += 3);
      }
}

// Shapes whose tiles are few for their k (CUDA splits k into parts summed by a second pass)
// and a short, wide C (CUDA's f32 kernels compute C^T). The GPU check also runs this file with
// gemm.splits and gemm.c_trans forced (scripts/gpu-machine-check.sh).
TEST_CASE_TEMPLATE("gemm: long k on few tiles, short and wide C", T, float, double) {
  const Shape shapes[] = {{40, 70, 3001}, {64, 300, 700}, {300, 24, 1537}, {3, 5, 1000}};
  std::uint32_t seed = 500;
  int index = 0;
  for (const Shape& s : shapes)
    for (Trans ta : {Trans::N, Trans::T})
      for (Trans tb : {Trans::N, Trans::T}) {
        const int i = index++;
        gemm_case<T>(ta, tb, s, alpha_betas[i % 6], i % 2 == 0, seed += 3);
      }
}

// Past two of CUDA's widest f32 tiles (256 x 128) each way, k off every k-tile width: blocks
// whose tiles lie wholly inside op(A) and op(B) (the loaders' unpredicated copies) beside cut
// ones, and a last, partial k-tile, for every Trans.
TEST_CASE_TEMPLATE("gemm: every Trans on whole and cut tiles, k off the k-tile", T, float, double) {
  using tessera_test::scaled;
  const Shape shapes[] = {{scaled(520, 41), scaled(300, 37), 77}, {scaled(300, 37), scaled(270, 35), 40}};
  std::uint32_t seed = 700;
  int index = 0;
  for (const Shape& s : shapes)
    for (Trans ta : {Trans::N, Trans::T})
      for (Trans tb : {Trans::N, Trans::T}) {
        const int i = index++;
        gemm_case<T>(ta, tb, s, alpha_betas[i % 6], i % 2 == 1, seed += 3);
      }
}

TEST_CASE_TEMPLATE("gemm: one larger case (577 x 577 x 577)", T, float, double) {
  // TESSERA_TEST_SCALE shrinks m and n only: k stays past the KC = 512 depth block.
  using tessera_test::scaled;
  gemm_case<T>(Trans::N, Trans::N, Shape{scaled(577, 67), scaled(577, 67), 577}, AlphaBeta{1.0, 0.5, false}, false, 99);
  gemm_case<T>(Trans::T, Trans::N, Shape{scaled(300, 37), scaled(700, 71), 513}, AlphaBeta{-1.0, 0.0, true}, true, 98);
}
