// One semantics per operation, on every device alike (lib/src/ops.cpp decides it once):
//  - alpha == 0 in gemm and trsm follows BLAS: C = beta * C and X = 0, A and B not read, so
//    NaN and Inf in them never reach the result (beta == 0: C not read either);
//  - an enumeration value outside its declared range (an integer cast to Trans, Uplo, Diag,
//    ReduceOp or ConvMode) is InvalidArgument, and nothing is written.
#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "support/compare.hpp"
#include "support/devices.hpp"
#include "support/random.hpp"
#include "tessera/tessera.hpp"

using namespace tessera;
using namespace tessera_test;

namespace {

template <class T>
std::vector<T> poisoned(std::size_t n, std::uint64_t seed) {
  std::vector<T> v = random_vector<T>(n, seed);
  for (std::size_t i = 0; i < n; i += 3) v[i] = std::numeric_limits<T>::quiet_NaN();
  for (std::size_t i = 1; i < n; i += 7) v[i] = std::numeric_limits<T>::infinity();
  return v;
}

}  // namespace

TEST_CASE_TEMPLATE("gemm with alpha == 0 computes beta * C without reading A or B, on every device", T, float,
                   double) {
  const std::int64_t m = 37, n = 29, k = 41;
  const std::vector<T> a = poisoned<T>(static_cast<std::size_t>(m * k), 11), b = poisoned<T>(static_cast<std::size_t>(k * n), 12);
  const std::vector<T> c0 = random_vector<T>(static_cast<std::size_t>(m * n), 13);
  for (const Device& dev : all_devices()) {
    run_on_device<T>(dev, Op::gemm, [&](const Device& d) {
      for (const Trans ta : {Trans::N, Trans::T})
        for (const double beta : {0.0, 1.0, -0.75}) {
          auto A = ta == Trans::N ? DenseMatrix<T>::from_host(d, m, k, a) : DenseMatrix<T>::from_host(d, k, m, a);
          auto B = DenseMatrix<T>::from_host(d, k, n, b);
          auto C = DenseMatrix<T>::from_host(d, m, n, c0);
          gemm(ta, Trans::N, T(0), A, B, static_cast<T>(beta), C);
          const std::vector<T> got = C.to_host();
          for (std::size_t i = 0; i < got.size(); ++i) {
            const T want = static_cast<T>(beta) * c0[i];
            REQUIRE_MESSAGE(got[i] == want, "C[" << i << "] = " << got[i] << ", expected beta * C = " << want
                                                 << " (beta " << beta << ")");
          }
        }
      // beta == 0: C is not read either (NaN in C does not survive).
      auto A = DenseMatrix<T>::from_host(d, m, k, a);
      auto B = DenseMatrix<T>::from_host(d, k, n, b);
      auto C = DenseMatrix<T>::from_host(d, m, n, poisoned<T>(static_cast<std::size_t>(m * n), 14));
      gemm(Trans::N, Trans::N, T(0), A, B, T(0), C);
      for (const T v : C.to_host()) REQUIRE(v == T(0));
    });
  }
}

TEST_CASE_TEMPLATE("trsm with alpha == 0 gives X = 0 without reading A or B, on every device", T, float, double) {
  const std::int64_t n = 23, nrhs = 9;
  for (const Device& dev : all_devices()) {
    run_on_device<T>(dev, Op::trsm, [&](const Device& d) {
      for (const Uplo uplo : {Uplo::lower, Uplo::upper})
        for (const Diag diag : {Diag::non_unit, Diag::unit}) {
          auto A = DenseMatrix<T>::from_host(d, n, n, poisoned<T>(static_cast<std::size_t>(n * n), 21));
          auto B = DenseMatrix<T>::from_host(d, n, nrhs, poisoned<T>(static_cast<std::size_t>(n * nrhs), 22));
          trsm(uplo, Trans::N, diag, T(0), A, B);
          for (const T v : B.to_host()) REQUIRE(v == T(0));
        }
    });
  }
}

TEST_CASE_TEMPLATE("enumeration values outside their range throw InvalidArgument and write nothing", T, float,
                   double) {
  const auto bad_trans = static_cast<Trans>(2);
  const auto bad_uplo = static_cast<Uplo>(7);
  const auto bad_diag = static_cast<Diag>(7);
  for (const Device& d : all_devices()) {
    INFO("device " << d.spec());
    const std::vector<T> sq = random_vector<T>(16, 31), v4 = random_vector<T>(4, 32);
    auto A = DenseMatrix<T>::from_host(d, 4, 4, sq);
    auto B = DenseMatrix<T>::from_host(d, 4, 4, sq);
    auto C = DenseMatrix<T>::from_host(d, 4, 4, sq);
    auto x = Vector<T>::from_host(d, v4);
    CHECK_THROWS_AS(gemm(bad_trans, Trans::N, T(1), A, B, T(0), C), InvalidArgument);
    CHECK_THROWS_AS(gemm(Trans::N, bad_trans, T(1), A, B, T(0), C), InvalidArgument);
    CHECK_THROWS_AS(trsv(bad_uplo, Trans::N, Diag::non_unit, A, x), InvalidArgument);
    CHECK_THROWS_AS(trsv(Uplo::lower, bad_trans, Diag::non_unit, A, x), InvalidArgument);
    CHECK_THROWS_AS(trsv(Uplo::lower, Trans::N, bad_diag, A, x), InvalidArgument);
    CHECK_THROWS_AS(trsm(bad_uplo, Trans::N, Diag::unit, T(1), A, C), InvalidArgument);
    CHECK_THROWS_AS(trsm(Uplo::upper, bad_trans, Diag::unit, T(1), A, C), InvalidArgument);
    CHECK_THROWS_AS(reduce(static_cast<ReduceOp>(9), x), InvalidArgument);
    auto img = DenseMatrix<T>::from_host(d, 4, 4, sq);
    auto filt = DenseMatrix<T>::from_host(d, 1, 1, std::vector<T>{T(2)});
    CHECK_THROWS_AS(conv2d(static_cast<ConvMode>(9), img, filt, C), InvalidArgument);
    auto S = CsrMatrix<T>::from_host(d, 2, 2, {0, 1, 2}, {0, 1}, {T(1), T(2)});
    CHECK_THROWS_AS(sptrsv_analyze(Uplo::lower, bad_diag, S), InvalidArgument);
    CHECK_THROWS_AS(sptrsv_analyze(bad_uplo, Diag::unit, S), InvalidArgument);
    check_bitwise(C.to_host(), sq, "C after rejected calls");
    check_bitwise(x.to_host(), v4, "x after rejected calls");
    // The device is still usable.
    gemm(Trans::N, Trans::N, T(1), A, B, T(0), C);
    CHECK(std::isfinite(static_cast<double>(sum(x))));
  }
}

TEST_CASE_TEMPLATE("an output that is also an input of the same call throws InvalidArgument and writes nothing", T,
                   float, double) {
  for (const Device& d : all_devices()) {
    INFO("device " << d.spec());
    const std::vector<T> sq = random_vector<T>(4, 41);
    auto A = DenseMatrix<T>::from_host(d, 2, 2, sq);
    auto B = DenseMatrix<T>::from_host(d, 2, 2, sq);
    CHECK_THROWS_AS(gemm(Trans::N, Trans::N, T(1), A, B, T(0), A), InvalidArgument);  // C = A
    CHECK_THROWS_AS(gemm(Trans::N, Trans::N, T(1), A, B, T(1), B), InvalidArgument);  // C = B
    CHECK_THROWS_AS(gemm(Trans::N, Trans::N, T(0), A, A, T(1), A), InvalidArgument);  // even with alpha 0
    CHECK_THROWS_AS(trsm(Uplo::lower, Trans::N, Diag::unit, T(1), A, A), InvalidArgument);
    auto filt = DenseMatrix<T>::from_host(d, 1, 1, std::vector<T>{T(3)});
    CHECK_THROWS_AS(conv2d(ConvMode::valid, A, filt, A), InvalidArgument);
    Tensor4<T> t(d, 1, 1, 2, 2), f(d, 1, 1, 1, 1);
    t.upload(sq);
    f.upload(std::vector<T>{T(2)});
    CHECK_THROWS_AS(conv_layer(ConvParams{}, t, f, t), InvalidArgument);
    check_bitwise(A.to_host(), sq, "A after rejected calls");
    check_bitwise(B.to_host(), sq, "B after rejected calls");
    check_bitwise(t.to_host(), sq, "tensor after rejected calls");
    // A = B as two read-only inputs is fine.
    auto C = DenseMatrix<T>::from_host(d, 2, 2, sq);
    gemm(Trans::N, Trans::T, T(1), A, A, T(0), C);
    const std::vector<T> c = C.to_host();
    CHECK(c[0] == doctest::Approx(static_cast<double>(sq[0] * sq[0] + sq[1] * sq[1])).epsilon(1e-5));
  }
}

TEST_CASE("conv_output_size: extents near the int64 range are InvalidArgument, not an overflow") {
  CHECK_THROWS_AS(conv_output_size(5, 3, std::int64_t{1} << 62, 1), InvalidArgument);
  CHECK_THROWS_AS(conv_output_size(std::int64_t{1} << 62, 3, 1, 1), InvalidArgument);
  CHECK(conv_output_size(13, 3, 1, 1) == 13);
}

TEST_CASE("f32 reductions accumulate in double: partial sums past FLT_MAX and overflowing products cancel exactly") {
  // Every order of adding these gives exactly the expected value in double (the partial sums are
  // whole multiples of FLT_MAX, or of 2^200), while a float accumulator meets inf and then NaN.
  const float M = std::numeric_limits<float>::max();
  std::vector<float> x;
  for (int r = 0; r < 1001; ++r) x.insert(x.end(), {M, M, -M, -M});
  x.push_back(M);
  const float big = std::ldexp(1.0f, 100);
  std::vector<float> a(4002, big), b(4002);
  for (std::size_t i = 0; i < b.size(); ++i) b[i] = i % 2 ? -big : big;
  for (const Device& dev : all_devices()) {
    run_on_device<float>(dev, Op::reduce, [&](const Device& d) {
      const auto v = Vector<float>::from_host(d, x);
      CHECK(sum(v) == M);
      const auto va = Vector<float>::from_host(d, a), vb = Vector<float>::from_host(d, b);
      CHECK(dot(va, vb) == 0.0f);
      // The exact sum of squares exceeds FLT_MAX: the result, rounded to float, is inf (not NaN).
      CHECK(std::isinf(sum_squares(va)));
    });
  }
}
