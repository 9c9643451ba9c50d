// Bad input: each case must throw the right typed error, write nothing to its outputs (they are
// filled with a sentinel pattern before and compared bit for bit after), and leave the device
// usable (a valid operation runs right after). Every case runs on every device, the reference
// included: most checks live in lib/ and are the same for all, but a backend must not have
// touched anything before lib/ rejected the call, and some checks (a singular sparse triangle)
// are the backend's own.
//
// CSR structure errors must also allocate nothing (csr_matrix.hpp): the public API cannot
// observe allocations, so that part is covered by reading (validate_csr runs before any Buffer)
// and by LeakSanitizer in the sanitizer build.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "support/compare.hpp"
#include "support/devices.hpp"
#include "support/random.hpp"
#include "tessera/tessera.hpp"

using namespace tessera;
using namespace tessera_test;

namespace {

// Runs f, which must throw E (or a type derived from it) with a non-empty message; returns it.
template <class E, class F>
std::string expect_error(const char* type, const std::string& what, F&& f) {
  try {
    f();
  } catch (const E& e) {
    const std::string msg = e.what();
    CHECK_MESSAGE(!msg.empty(), what << ": " << type << " with an empty message");
    return msg;
  } catch (const std::exception& e) {
    FAIL_CHECK(what << ": expected " << type << ", got another exception: " << std::string(e.what()));
    return {};
  }
  FAIL_CHECK(what << ": expected " << type << ", nothing was thrown");
  return {};
}
#define EXPECT_ERROR(E, what, ...) expect_error<E>(#E, what, [&] { __VA_ARGS__; })

// A recognisable pattern no operation would produce by chance.
template <class T>
std::vector<T> sentinel(std::size_t n) {
  std::vector<T> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = static_cast<T>(-7777.0 + static_cast<double>(i % 61) * 0.25);
  return v;
}

template <class T>
Vector<T> sentinel_vector(const Device& d, std::int64_t n) {
  return Vector<T>::from_host(d, sentinel<T>(static_cast<std::size_t>(n)));
}
template <class T>
DenseMatrix<T> sentinel_matrix(const Device& d, std::int64_t rows, std::int64_t cols) {
  return DenseMatrix<T>::from_host(d, rows, cols, sentinel<T>(static_cast<std::size_t>(rows * cols)));
}

template <class T>
void check_unchanged(const Vector<T>& v, const std::string& what) {
  check_bitwise(v.to_host(), sentinel<T>(static_cast<std::size_t>(v.size())), what + ": output written");
}
template <class T>
void check_unchanged(const DenseMatrix<T>& m, const std::string& what) {
  check_bitwise(m.to_host(), sentinel<T>(static_cast<std::size_t>(m.rows() * m.cols())), what + ": output written");
}
template <class T>
void check_unchanged(const Tensor4<T>& t, const std::string& what) {
  check_bitwise(t.to_host(), sentinel<T>(static_cast<std::size_t>(t.size())), what + ": output written");
}
template <class T>
void check_unchanged(const Grid<T>& g, const std::string& what) {
  check_bitwise(g.to_host(), sentinel<T>(static_cast<std::size_t>(g.size())), what + ": output written");
}

// The device still works: a dot product and an spmv with known answers.
template <class T>
void check_usable(const Device& d) {
  INFO("device " << d.spec() << " after the errors above");
  const auto x = Vector<T>::from_host(d, {T(1), T(2), T(3)});
  const auto y = Vector<T>::from_host(d, {T(4), T(5), T(6)});
  CHECK(dot(x, y) == T(32));
  const auto A = CsrMatrix<T>::from_host(d, 2, 3, {0, 2, 3}, {0, 2, 1}, {T(1), T(1), T(2)});
  auto out = Vector<T>::from_host(d, {T(9), T(9)});
  spmv(T(1), A, x, T(0), out);
  CHECK(out.to_host() == std::vector<T>{T(4), T(4)});
}

template <class T>
CsrMatrix<T> small_csr(const Device& d, std::int64_t rows, std::int64_t cols, std::uint32_t seed) {
  Rng rng(seed);
  std::vector<std::int32_t> rp{0}, ci;
  std::vector<T> v;
  for (std::int64_t i = 0; i < rows; ++i) {
    for (std::int64_t j = 0; j < cols; ++j)
      if (i == j || rng.coin(0.3)) {
        ci.push_back(static_cast<std::int32_t>(j));
        v.push_back(static_cast<T>(i == j ? 4.0 : rng.signed_unit()));
      }
    rp.push_back(static_cast<std::int32_t>(ci.size()));
  }
  return CsrMatrix<T>::from_host(d, rows, cols, rp, ci, v);
}

// A device other than `d` (the reference for any other device, the first device under test for
// the reference), or an empty handle when there is none.
Device other_device(const Device& d) {
  if (d != reference_device()) return reference_device();
  return devices_under_test().empty() ? Device() : devices_under_test().front();
}

}  // namespace

TEST_CASE_TEMPLATE("bad input: dimension mismatches throw DimensionMismatch and write nothing", T, float, double) {
  for (const Device& d : all_devices()) {
    run_on_device<T>(d, Op::reduce, [&](const Device& dev) {
      {  // dot
        const auto x = sentinel_vector<T>(dev, 5), y = sentinel_vector<T>(dev, 6);
        EXPECT_ERROR(DimensionMismatch, "dot 5 vs 6", dot(x, y));
        check_unchanged(x, "dot");
        check_unchanged(y, "dot");
      }
      {  // spmv: A 4 x 5 needs x of 5 and y of 4
        const auto A = small_csr<T>(dev, 4, 5, 1);
        const auto x_ok = sentinel_vector<T>(dev, 5), x_bad = sentinel_vector<T>(dev, 4);
        auto y_ok = sentinel_vector<T>(dev, 4), y_bad = sentinel_vector<T>(dev, 5);
        EXPECT_ERROR(DimensionMismatch, "spmv x size", spmv(T(1), A, x_bad, T(0), y_ok));
        check_unchanged(y_ok, "spmv x size");
        EXPECT_ERROR(DimensionMismatch, "spmv y size", spmv(T(1), A, x_ok, T(1), y_bad));
        check_unchanged(y_bad, "spmv y size");
      }
      {  // trsv / trsm
        const auto A_rect = sentinel_matrix<T>(dev, 4, 5), A = sentinel_matrix<T>(dev, 4, 4);
        auto x4 = sentinel_vector<T>(dev, 4), x5 = sentinel_vector<T>(dev, 5);
        EXPECT_ERROR(DimensionMismatch, "trsv non-square A", trsv(Uplo::lower, Trans::N, Diag::non_unit, A_rect, x4));
        check_unchanged(x4, "trsv non-square A");
        EXPECT_ERROR(DimensionMismatch, "trsv x size", trsv(Uplo::upper, Trans::T, Diag::unit, A, x5));
        check_unchanged(x5, "trsv x size");
        auto B = sentinel_matrix<T>(dev, 4, 3), B5 = sentinel_matrix<T>(dev, 5, 3);
        EXPECT_ERROR(DimensionMismatch, "trsm non-square A", trsm(Uplo::lower, Trans::N, Diag::non_unit, T(1), A_rect, B));
        check_unchanged(B, "trsm non-square A");
        EXPECT_ERROR(DimensionMismatch, "trsm B rows", trsm(Uplo::lower, Trans::T, Diag::unit, T(2), A, B5));
        check_unchanged(B5, "trsm B rows");
      }
      {  // gemm: op(A) m x k, op(B) k x n, C m x n
        const auto A = sentinel_matrix<T>(dev, 3, 4), B = sentinel_matrix<T>(dev, 4, 5), B_bad = sentinel_matrix<T>(dev, 3, 5);
        auto C = sentinel_matrix<T>(dev, 3, 5), C_rows = sentinel_matrix<T>(dev, 4, 5), C_cols = sentinel_matrix<T>(dev, 3, 4);
        EXPECT_ERROR(DimensionMismatch, "gemm k", gemm(Trans::N, Trans::N, T(1), A, B_bad, T(0), C));
        EXPECT_ERROR(DimensionMismatch, "gemm k (transposed A)", gemm(Trans::T, Trans::N, T(1), A, B, T(0), C));
        EXPECT_ERROR(DimensionMismatch, "gemm k (transposed B)", gemm(Trans::N, Trans::T, T(1), A, B, T(0), C));
        check_unchanged(C, "gemm k");
        EXPECT_ERROR(DimensionMismatch, "gemm C rows", gemm(Trans::N, Trans::N, T(1), A, B, T(1), C_rows));
        check_unchanged(C_rows, "gemm C rows");
        EXPECT_ERROR(DimensionMismatch, "gemm C cols", gemm(Trans::N, Trans::N, T(1), A, B, T(0), C_cols));
        check_unchanged(C_cols, "gemm C cols");
      }
      {  // conv2d
        const auto img = sentinel_matrix<T>(dev, 6, 7);
        const auto f_rect = sentinel_matrix<T>(dev, 3, 2), f = sentinel_matrix<T>(dev, 3, 3);
        auto out = sentinel_matrix<T>(dev, 4, 5), out_bad = sentinel_matrix<T>(dev, 4, 4);
        EXPECT_ERROR(DimensionMismatch, "conv2d non-square filter", conv2d(ConvMode::valid, img, f_rect, out));
        check_unchanged(out, "conv2d non-square filter");
        EXPECT_ERROR(DimensionMismatch, "conv2d out size (valid)", conv2d(ConvMode::valid, img, f, out_bad));
        EXPECT_ERROR(DimensionMismatch, "conv2d out size (same)", conv2d(ConvMode::same, img, f, out));
        check_unchanged(out_bad, "conv2d out size");
        check_unchanged(out, "conv2d out size");
      }
      {  // conv_layer: in 2x3x5x5, filter 4x3x3x3, pad 0 stride 1 -> out 2x4x3x3
        Tensor4<T> in(dev, 2, 3, 5, 5), f(dev, 4, 3, 3, 3), f_bad(dev, 4, 2, 3, 3);
        in.upload(sentinel<T>(static_cast<std::size_t>(in.size())));
        f.upload(sentinel<T>(static_cast<std::size_t>(f.size())));
        f_bad.upload(sentinel<T>(static_cast<std::size_t>(f_bad.size())));
        const std::int64_t shapes[][4] = {{2, 4, 3, 3}, {1, 4, 3, 3}, {2, 3, 3, 3}, {2, 4, 4, 3}, {2, 4, 3, 2}};
        for (const auto& s : shapes) {
          Tensor4<T> out(dev, s[0], s[1], s[2], s[3]);
          out.upload(sentinel<T>(static_cast<std::size_t>(out.size())));
          const bool good = s[0] == 2 && s[1] == 4 && s[2] == 3 && s[3] == 3;
          if (good) {
            EXPECT_ERROR(DimensionMismatch, "conv_layer filter channels", conv_layer(ConvParams{}, in, f_bad, out));
          } else {
            EXPECT_ERROR(DimensionMismatch, "conv_layer out shape", conv_layer(ConvParams{}, in, f, out));
          }
          check_unchanged(out, "conv_layer");
        }
      }
      {  // sparse triangular
        const auto A_rect = small_csr<T>(dev, 4, 5, 2);
        EXPECT_ERROR(DimensionMismatch, "sptrsv_analyze non-square", sptrsv_analyze(Uplo::lower, Diag::non_unit, A_rect));
      }
      check_usable<T>(dev);
    });
  }
}

TEST_CASE_TEMPLATE("bad input: sptrsv_solve sizes, empty plan, plan on another device", T, float, double) {
  for (const Device& d : all_devices()) {
    run_on_device<T>(d, Op::sptrsv, [&](const Device& dev) {
      const auto A = small_csr<T>(dev, 6, 6, 3);
      const auto plan = sptrsv_analyze(Uplo::lower, Diag::non_unit, A);
      const auto b6 = sentinel_vector<T>(dev, 6), b5 = sentinel_vector<T>(dev, 5);
      auto x6 = sentinel_vector<T>(dev, 6), x7 = sentinel_vector<T>(dev, 7);
      EXPECT_ERROR(DimensionMismatch, "sptrsv_solve b size", sptrsv_solve(plan, b5, x6));
      check_unchanged(x6, "sptrsv_solve b size");
      EXPECT_ERROR(DimensionMismatch, "sptrsv_solve x size", sptrsv_solve(plan, b6, x7));
      check_unchanged(x7, "sptrsv_solve x size");
      const SptrsvPlan<T> empty;
      CHECK_FALSE(static_cast<bool>(empty));
      EXPECT_ERROR(InvalidArgument, "sptrsv_solve with an empty plan", sptrsv_solve(empty, b6, x6));
      check_unchanged(x6, "sptrsv_solve with an empty plan");
      if (const Device other = other_device(dev)) {
        const auto b_other = sentinel_vector<T>(other, 6);
        auto x_other = sentinel_vector<T>(other, 6);
        EXPECT_ERROR(DeviceMismatch, "sptrsv_solve b on another device", sptrsv_solve(plan, b_other, x6));
        check_unchanged(x6, "sptrsv_solve b on another device");
        EXPECT_ERROR(DeviceMismatch, "sptrsv_solve x on another device", sptrsv_solve(plan, b6, x_other));
        check_unchanged(x_other, "sptrsv_solve x on another device");
      }
      check_usable<T>(dev);
    });
  }
}

TEST_CASE_TEMPLATE("bad input: operands on different devices throw DeviceMismatch and write nothing", T, float, double) {
  const Device r = reference_device();
  if (devices_under_test().empty()) {
    MESSAGE("only the reference device is available: no pair of devices to mix");
    return;
  }
  for (const Device& o : devices_under_test()) {
    INFO("mixing reference and " << o.spec());
    // Each op with one operand on `o` and the rest on the reference, and the other way round.
    for (int flip = 0; flip < 2; ++flip) {
      const Device& a = flip ? o : r;
      const Device& b = flip ? r : o;
      const auto xa = sentinel_vector<T>(a, 4), xb = sentinel_vector<T>(b, 4);
      EXPECT_ERROR(DeviceMismatch, "dot", dot(xa, xb));
      {
        const auto A = small_csr<T>(a, 4, 4, 5);
        auto ya = sentinel_vector<T>(a, 4), yb = sentinel_vector<T>(b, 4);
        EXPECT_ERROR(DeviceMismatch, "spmv x elsewhere", spmv(T(1), A, xb, T(0), ya));
        check_unchanged(ya, "spmv x elsewhere");
        EXPECT_ERROR(DeviceMismatch, "spmv y elsewhere", spmv(T(1), A, xa, T(0), yb));
        check_unchanged(yb, "spmv y elsewhere");
      }
      {
        const auto A = sentinel_matrix<T>(a, 4, 4);
        auto x = sentinel_vector<T>(b, 4);
        EXPECT_ERROR(DeviceMismatch, "trsv", trsv(Uplo::lower, Trans::N, Diag::non_unit, A, x));
        check_unchanged(x, "trsv");
        auto B = sentinel_matrix<T>(b, 4, 2);
        EXPECT_ERROR(DeviceMismatch, "trsm", trsm(Uplo::upper, Trans::N, Diag::non_unit, T(1), A, B));
        check_unchanged(B, "trsm");
      }
      {
        const auto A = sentinel_matrix<T>(a, 3, 4), B = sentinel_matrix<T>(a, 4, 5), Bb = sentinel_matrix<T>(b, 4, 5);
        auto Ca = sentinel_matrix<T>(a, 3, 5), Cb = sentinel_matrix<T>(b, 3, 5);
        EXPECT_ERROR(DeviceMismatch, "gemm C elsewhere", gemm(Trans::N, Trans::N, T(1), A, B, T(0), Cb));
        check_unchanged(Cb, "gemm C elsewhere");
        EXPECT_ERROR(DeviceMismatch, "gemm B elsewhere", gemm(Trans::N, Trans::N, T(1), A, Bb, T(0), Ca));
        check_unchanged(Ca, "gemm B elsewhere");
      }
      {
        const auto img = sentinel_matrix<T>(a, 6, 6), f = sentinel_matrix<T>(b, 3, 3);
        auto out = sentinel_matrix<T>(a, 4, 4);
        EXPECT_ERROR(DeviceMismatch, "conv2d", conv2d(ConvMode::valid, img, f, out));
        check_unchanged(out, "conv2d");
      }
      {
        Tensor4<T> in(a, 1, 2, 5, 5), f(a, 3, 2, 3, 3), out(b, 1, 3, 3, 3);
        in.upload(sentinel<T>(static_cast<std::size_t>(in.size())));
        f.upload(sentinel<T>(static_cast<std::size_t>(f.size())));
        out.upload(sentinel<T>(static_cast<std::size_t>(out.size())));
        EXPECT_ERROR(DeviceMismatch, "conv_layer", conv_layer(ConvParams{}, in, f, out));
        check_unchanged(out, "conv_layer");
      }
    }
    check_usable<T>(r);
    check_usable<T>(o);
  }
}

TEST_CASE_TEMPLATE("bad input: default-constructed (empty) operands throw InvalidArgument", T, float, double) {
  for (const Device& d : all_devices()) {
    const auto x = sentinel_vector<T>(d, 3);
    const Vector<T> none;
    EXPECT_ERROR(InvalidArgument, "dot with an empty handle", dot(x, none));
    EXPECT_ERROR(InvalidArgument, "reduce of an empty handle", reduce(ReduceOp::sum, none));
    auto C = sentinel_matrix<T>(d, 2, 2);
    const DenseMatrix<T> nothing;
    EXPECT_ERROR(InvalidArgument, "gemm with an empty handle", gemm(Trans::N, Trans::N, T(1), nothing, nothing, T(0), C));
    check_unchanged(C, "gemm with an empty handle");
    EXPECT_ERROR(InvalidArgument, "Vector on an empty device handle", Vector<T>(Device(), 3));
    const Device empty;
    EXPECT_ERROR(InvalidArgument, "info() of an empty Device", (void)empty.info());
    EXPECT_ERROR(InvalidArgument, "spec() of an empty Device", (void)empty.spec());
    EXPECT_ERROR(InvalidArgument, "synchronize() of an empty Device", empty.synchronize());
    EXPECT_ERROR(InvalidArgument, "backend() of an empty Device", (void)empty.backend());
    check_usable<T>(d);
  }
}

TEST_CASE_TEMPLATE("bad input: malformed CSR structure throws InvalidArgument", T, float, double) {
  // A valid 3 x 4 matrix to start from: row_ptr {0, 2, 3, 5}.
  const std::vector<std::int32_t> rp = {0, 2, 3, 5}, ci = {0, 3, 1, 2, 3};
  const std::vector<T> v = {1, 2, 3, 4, 5};
  for (const Device& d : all_devices()) {
    INFO("device " << d.spec());
    CHECK_NOTHROW(CsrMatrix<T>::from_host(d, 3, 4, rp, ci, v));
    EXPECT_ERROR(InvalidArgument, "row_ptr[0] != 0", CsrMatrix<T>::from_host(d, 3, 4, {1, 2, 3, 5}, ci, v));
    EXPECT_ERROR(InvalidArgument, "decreasing row_ptr", CsrMatrix<T>::from_host(d, 3, 4, {0, 3, 2, 5}, ci, v));
    EXPECT_ERROR(InvalidArgument, "row_ptr[n] != nnz (less)", CsrMatrix<T>::from_host(d, 3, 4, {0, 2, 3, 4}, ci, v));
    EXPECT_ERROR(InvalidArgument, "row_ptr[n] != nnz (more)", CsrMatrix<T>::from_host(d, 3, 4, {0, 2, 3, 6}, ci, v));
    EXPECT_ERROR(InvalidArgument, "column index == cols", CsrMatrix<T>::from_host(d, 3, 4, rp, {0, 3, 1, 2, 4}, v));
    EXPECT_ERROR(InvalidArgument, "column index far out of range",
                 CsrMatrix<T>::from_host(d, 3, 4, rp, {0, 3, 1000000, 2, 3}, v));
    EXPECT_ERROR(InvalidArgument, "negative column index", CsrMatrix<T>::from_host(d, 3, 4, rp, {0, -1, 1, 2, 3}, v));
    EXPECT_ERROR(InvalidArgument, "fewer values than columns",
                 CsrMatrix<T>::from_host(d, 3, 4, rp, ci, std::vector<T>{1, 2, 3, 4}));
    EXPECT_ERROR(InvalidArgument, "more values than columns",
                 CsrMatrix<T>::from_host(d, 3, 4, rp, ci, std::vector<T>{1, 2, 3, 4, 5, 6}));
    EXPECT_ERROR(InvalidArgument, "row_ptr too short", CsrMatrix<T>::from_host(d, 3, 4, {0, 2, 5}, ci, v));
    EXPECT_ERROR(InvalidArgument, "row_ptr too long", CsrMatrix<T>::from_host(d, 3, 4, {0, 2, 3, 5, 5}, ci, v));
    EXPECT_ERROR(InvalidArgument, "empty row_ptr", CsrMatrix<T>::from_host(d, 0, 4, {}, {}, std::vector<T>{}));
    EXPECT_ERROR(InvalidArgument, "negative rows", CsrMatrix<T>::from_host(d, -1, 4, {0}, {}, std::vector<T>{}));
    EXPECT_ERROR(InvalidArgument, "negative cols", CsrMatrix<T>::from_host(d, 3, -4, rp, ci, v));
    EXPECT_ERROR(InvalidArgument, "rows beyond int32",
                 CsrMatrix<T>::from_host(d, std::int64_t(1) << 31, 4, {0}, {}, std::vector<T>{}));
    EXPECT_ERROR(InvalidArgument, "cols beyond int32", CsrMatrix<T>::from_host(d, 3, std::int64_t(1) << 32, rp, ci, v));
    // A valid matrix with 0 rows and one with 0 columns (every row empty) are fine.
    CHECK_NOTHROW(CsrMatrix<T>::from_host(d, 0, 4, {0}, {}, std::vector<T>{}));
    CHECK_NOTHROW(CsrMatrix<T>::from_host(d, 3, 0, {0, 0, 0, 0}, {}, std::vector<T>{}));
    check_usable<T>(d);
  }
}

TEST_CASE_TEMPLATE("bad input: negative and overflowing sizes throw InvalidArgument", T, float, double) {
  constexpr std::int64_t big = std::numeric_limits<std::int64_t>::max();
  for (const Device& d : all_devices()) {
    INFO("device " << d.spec());
    EXPECT_ERROR(InvalidArgument, "Vector(-1)", Vector<T>(d, -1));
    EXPECT_ERROR(InvalidArgument, "Vector(INT64_MAX / 2)", Vector<T>(d, big / 2));
    EXPECT_ERROR(InvalidArgument, "Vector(INT64_MAX)", Vector<T>(d, big));
    EXPECT_ERROR(InvalidArgument, "DenseMatrix(-2, 3)", DenseMatrix<T>(d, -2, 3));
    EXPECT_ERROR(InvalidArgument, "DenseMatrix(2, -3)", DenseMatrix<T>(d, 2, -3));
    EXPECT_ERROR(InvalidArgument, "DenseMatrix rows * ld overflows", DenseMatrix<T>(d, std::int64_t(1) << 40, std::int64_t(1) << 40));
    EXPECT_ERROR(InvalidArgument, "DenseMatrix rows * ld overflows int64", DenseMatrix<T>(d, 3, 4, big / 2));
    EXPECT_ERROR(InvalidArgument, "DenseMatrix ld < cols", DenseMatrix<T>(d, 3, 4, 3));
    EXPECT_ERROR(InvalidArgument, "DenseMatrix negative ld", DenseMatrix<T>(d, 3, 4, -5));
    EXPECT_ERROR(InvalidArgument, "Grid 2D negative", Grid<T>(d, -1, 5));
    EXPECT_ERROR(InvalidArgument, "Grid 3D negative", Grid<T>(d, 5, 5, -2));
    EXPECT_ERROR(InvalidArgument, "Grid 3D overflowing", Grid<T>(d, std::int64_t(1) << 30, std::int64_t(1) << 30, std::int64_t(1) << 30));
    EXPECT_ERROR(InvalidArgument, "Tensor4 negative", Tensor4<T>(d, 1, -1, 2, 2));
    EXPECT_ERROR(InvalidArgument, "Tensor4 overflowing", Tensor4<T>(d, std::int64_t(1) << 20, std::int64_t(1) << 20, std::int64_t(1) << 20, 1 << 10));
    // Zero sizes are fine.
    CHECK_NOTHROW(Vector<T>(d, 0));
    CHECK_NOTHROW(DenseMatrix<T>(d, 0, 5));
    CHECK_NOTHROW(DenseMatrix<T>(d, 5, 0));
    CHECK_NOTHROW(Grid<T>(d, 0, 3, 4));
    CHECK_NOTHROW(Tensor4<T>(d, 0, 1, 1, 1));
    check_usable<T>(d);
  }
}

#if !defined(__SANITIZE_ADDRESS__)
// AddressSanitizer aborts on an impossible allocation instead of returning null (unless
// allocator_may_return_null=1), so this case is left to the plain build.
TEST_CASE("bad input: an allocation that cannot succeed throws OutOfMemory") {
  for (const Device& d : all_devices()) {
    INFO("device " << d.spec());
    // 2^58 floats = 1 EiB: passes the size checks, fails in allocate().
    EXPECT_ERROR(OutOfMemory, "Vector of 2^58 floats", Vector<float>(d, std::int64_t(1) << 58));
    check_usable<float>(d);
  }
}
#endif

TEST_CASE_TEMPLATE("bad input: uploads and downloads of the wrong size", T, float, double) {
  for (const Device& d : all_devices()) {
    INFO("device " << d.spec());
    auto v = sentinel_vector<T>(d, 5);
    EXPECT_ERROR(DimensionMismatch, "Vector::upload 6 into 5", v.upload(std::vector<T>(6, T(1))));
    EXPECT_ERROR(DimensionMismatch, "Vector::upload 4 into 5", v.upload(std::vector<T>(4, T(1))));
    check_unchanged(v, "Vector::upload");
    std::vector<T> host(4);
    EXPECT_ERROR(DimensionMismatch, "Vector::download 5 into 4", v.download(host.data(), 4));
    auto m = sentinel_matrix<T>(d, 3, 4);
    EXPECT_ERROR(InvalidArgument, "DenseMatrix::upload host ld < cols", m.upload(std::vector<T>(12, T(1)).data(), 3));
    check_unchanged(m, "DenseMatrix::upload");
    EXPECT_ERROR(DimensionMismatch, "DenseMatrix::from_host wrong size", DenseMatrix<T>::from_host(d, 3, 4, std::vector<T>(11)));
    Grid<T> g(d, 4, 5);
    g.upload(sentinel<T>(20));
    EXPECT_ERROR(DimensionMismatch, "Grid::upload wrong size", g.upload(std::vector<T>(21, T(1))));
    check_unchanged(g, "Grid::upload");
    Tensor4<T> t(d, 1, 2, 3, 4);
    t.upload(sentinel<T>(24));
    EXPECT_ERROR(DimensionMismatch, "Tensor4::upload wrong size", t.upload(std::vector<T>(23, T(1))));
    check_unchanged(t, "Tensor4::upload");
    check_usable<T>(d);
  }
}

TEST_CASE_TEMPLATE("bad input: convolution parameters that give an empty output or are out of range", T, float, double) {
  CHECK(conv_output_size(5, 3, 0, 1) == 3);
  CHECK(conv_output_size(5, 3, 1, 2) == 3);
  EXPECT_ERROR(InvalidArgument, "stride 0", conv_output_size(5, 3, 0, 0));
  EXPECT_ERROR(InvalidArgument, "negative stride", conv_output_size(5, 3, 0, -1));
  EXPECT_ERROR(InvalidArgument, "negative pad", conv_output_size(5, 3, -1, 1));
  EXPECT_ERROR(InvalidArgument, "filter 0", conv_output_size(5, 0, 0, 1));
  EXPECT_ERROR(InvalidArgument, "filter > padded input", conv_output_size(5, 8, 1, 1));
  EXPECT_ERROR(InvalidArgument, "input 0", conv_output_size(0, 1, 1, 1));
  for (const Device& d : all_devices()) {
    INFO("device " << d.spec());
    {  // conv_layer
      Tensor4<T> in(d, 1, 2, 5, 5), f(d, 3, 2, 3, 3), f7(d, 3, 2, 7, 7), out(d, 1, 3, 3, 3);
      in.upload(sentinel<T>(static_cast<std::size_t>(in.size())));
      f.upload(sentinel<T>(static_cast<std::size_t>(f.size())));
      f7.upload(sentinel<T>(static_cast<std::size_t>(f7.size())));
      out.upload(sentinel<T>(static_cast<std::size_t>(out.size())));
      ConvParams p;
      p.stride_h = 0;
      EXPECT_ERROR(InvalidArgument, "conv_layer stride_h 0", conv_layer(p, in, f, out));
      p = ConvParams{};
      p.stride_w = 0;
      EXPECT_ERROR(InvalidArgument, "conv_layer stride_w 0", conv_layer(p, in, f, out));
      p = ConvParams{};
      p.pad_w = -1;
      EXPECT_ERROR(InvalidArgument, "conv_layer negative pad", conv_layer(p, in, f, out));
      EXPECT_ERROR(InvalidArgument, "conv_layer 7x7 filter on 5x5 without padding", conv_layer(ConvParams{}, in, f7, out));
      check_unchanged(out, "conv_layer");
    }
    {  // conv2d: a filter larger than the image in valid mode gives an empty output
      const auto img = sentinel_matrix<T>(d, 4, 9), f = sentinel_matrix<T>(d, 5, 5);
      auto out = sentinel_matrix<T>(d, 1, 5);
      EXPECT_ERROR(InvalidArgument, "conv2d valid, K > H", conv2d(ConvMode::valid, img, f, out));
      check_unchanged(out, "conv2d valid, K > H");
      const auto empty_img = sentinel_matrix<T>(d, 0, 5), f1 = sentinel_matrix<T>(d, 1, 1);
      auto out0 = sentinel_matrix<T>(d, 0, 5);
      EXPECT_ERROR(InvalidArgument, "conv2d same on an empty image", conv2d(ConvMode::same, empty_img, f1, out0));
      const auto f0 = sentinel_matrix<T>(d, 0, 0);
      EXPECT_ERROR(InvalidArgument, "conv2d 0 x 0 filter", conv2d(ConvMode::same, img, f0, out));
      check_unchanged(out, "conv2d 0 x 0 filter");
    }
    check_usable<T>(d);
  }
}

TEST_CASE_TEMPLATE("bad input: stencil coefficient count and steps", T, float, double) {
  for (const Device& d : all_devices()) {
    INFO("device " << d.spec());
    Grid<T> g(d, 9, 9);
    g.upload(sentinel<T>(81));
    EXPECT_ERROR(InvalidArgument, "stencil with 0 coefficients", stencil<T>({}, g, 1));
    EXPECT_ERROR(InvalidArgument, "stencil with 1 coefficient (radius 0)", stencil<T>({T(1)}, g, 1));
    EXPECT_ERROR(InvalidArgument, "stencil with 6 coefficients (radius 5)", stencil<T>(std::vector<T>(6, T(0.1)), g, 1));
    EXPECT_ERROR(InvalidArgument, "stencil with negative steps", stencil<T>({T(0.5), T(0.125)}, g, -1));
    check_unchanged(g, "stencil");
    Grid<T> g3(d, 9, 9, 9);
    g3.upload(sentinel<T>(729));
    EXPECT_ERROR(InvalidArgument, "3D stencil with 6 coefficients", stencil<T>(std::vector<T>(6, T(0.1)), g3, 2));
    check_unchanged(g3, "3D stencil");
    check_usable<T>(d);
  }
}

// The bulk-copy sweep's tile shape (stencil.bulk_lanes x stencil.bulk_rows) where TESSERA_TUNE
// names one that is not built: on a device that runs the bulk sweep (CUDA compute capability 9.0)
// a typed error, the grid unchanged, and the device usable after; elsewhere the keys are unused
// and the call runs. With the defaults (a built shape) there is nothing to check: the GPU check
// runs this with TESSERA_TUNE=cuda:0:stencil.bulk_lanes=8,cuda:0:stencil.bulk_rows=8.
TEST_CASE("bad input: a bulk stencil tile shape that is not built") {
  for (const Device& d : all_devices()) {
    std::int64_t lanes = 0, rows = 0;
    for (const auto& [k, v] : d.info().tuning) {
      if (k == "stencil.bulk_lanes") lanes = v;
      if (k == "stencil.bulk_rows") rows = v;
    }
    // The shapes kernels/cuda/launch.hpp's stencil3d_tma_shape_built names.
    const bool built = (lanes == 32 && (rows == 8 || rows == 16)) || (lanes == 16 && rows == 16) || (lanes == 8 && rows == 32);
    if (lanes == 0 || built) continue;
    INFO("device " << d.spec() << ", " << lanes << " x " << rows);
    bool hopper = false;
    for (const auto& [k, v] : d.info().details) hopper = hopper || (k == "compute capability" && v == "9.0");
    // 25-point on a grid of whole 16-byte rows, 16-byte aligned: the bulk sweep's case.
    Grid<float> g(d, 64, 40, 24);
    g.upload(sentinel<float>(64 * 40 * 24));
    const std::vector<float> coeffs{0.5f, 0.01f, 0.01f, 0.01f, 0.01f};
    if (hopper) {
      EXPECT_ERROR(InvalidArgument, "stencil in a tile shape not built", stencil(coeffs, g, 1));
      check_unchanged(g, "stencil in a tile shape not built");
    } else {
      stencil(coeffs, g, 1);
    }
    check_usable<float>(d);
  }
}

TEST_CASE_TEMPLATE("bad input: spmm shapes and aliasing", T, float, double) {
  for (const Device& d : all_devices()) {
    INFO("device " << d.spec());
    HostCsr<T> h;
    h.rows = 4;
    h.cols = 3;
    h.row_ptr = {0, 1, 2, 2, 3};
    h.col_idx = {0, 2, 1};
    h.values = {T(1), T(2), T(3)};
    const auto A = CsrMatrix<T>::from_host(d, h);
    const auto X = sentinel_matrix<T>(d, 3, 5);
    auto Y = sentinel_matrix<T>(d, 4, 5);
    const auto X_rows = sentinel_matrix<T>(d, 4, 5);
    EXPECT_ERROR(DimensionMismatch, "spmm X with A.rows rows", spmm(T(1), A, X_rows, T(0), Y));
    auto Y_rows = sentinel_matrix<T>(d, 3, 5);
    EXPECT_ERROR(DimensionMismatch, "spmm Y with A.cols rows", spmm(T(1), A, X, T(0), Y_rows));
    check_unchanged(Y_rows, "spmm Y with A.cols rows");
    const auto X_k = sentinel_matrix<T>(d, 3, 4);
    EXPECT_ERROR(DimensionMismatch, "spmm X and Y with different k", spmm(T(1), A, X_k, T(0), Y));
    // X and Y overlapping blocks of one matrix.
    auto big = sentinel_matrix<T>(d, 8, 5);
    auto Yb = big.block(2, 0, 4, 5);
    EXPECT_ERROR(InvalidArgument, "spmm X and Y overlapping", spmm(T(1), A, big.block(0, 0, 3, 5), T(0), Yb));
    check_unchanged(big, "spmm X and Y overlapping");
    check_unchanged(Y, "spmm");
    check_usable<T>(d);
  }
}

TEST_CASE_TEMPLATE("bad input: general stencil (coefficient counts, faces, radius beyond the grid)", T, float,
                   double) {
  using B = StencilBoundary;
  for (const Device& d : all_devices()) {
    INFO("device " << d.spec());
    Grid<T> g(d, 9, 3);
    g.upload(sentinel<T>(27));
    const std::vector<T> c1 = {T(0.1)}, c2 = {T(0.1), T(0.05)};
    EXPECT_ERROR(InvalidArgument, "no x coefficients", stencil(StarStencil<T>(T(0.5), {}, {}), g, 1));
    EXPECT_ERROR(InvalidArgument, "radius 5", stencil(StarStencil<T>(T(0.5), std::vector<T>(5, T(0.1)),
                                                                      std::vector<T>(5, T(0.1))), g, 1));
    EXPECT_ERROR(InvalidArgument, "y coefficients of another radius", stencil(StarStencil<T>(T(0.5), c1, c2), g, 1));
    EXPECT_ERROR(InvalidArgument, "z coefficients on a 2D grid", stencil(StarStencil<T>(T(0.5), c1, c1, c1), g, 1));
    StarStencil<T> bad_face(T(0.5), c1, c1);
    bad_face.faces[1] = static_cast<B>(7);
    EXPECT_ERROR(InvalidArgument, "face kind outside the enum", stencil(bad_face, g, 1));
    StarStencil<T> one_periodic(T(0.5), c1, c1);
    one_periodic.faces[2] = B::periodic;
    EXPECT_ERROR(InvalidArgument, "one periodic face of an axis", stencil(one_periodic, g, 1));
    const std::vector<T> c4(4, T(0.05));
    StarStencil<T> wide(T(0.5), c4, c4);
    wide.boundary(1, B::periodic);
    EXPECT_ERROR(InvalidArgument, "periodic radius 4 on 3 cells", stencil(wide, g, 1));
    wide.boundary(1, B::dirichlet).faces[3] = B::neumann;
    EXPECT_ERROR(InvalidArgument, "Neumann radius 4 on 3 cells", stencil(wide, g, 1));
    EXPECT_ERROR(InvalidArgument, "negative steps", stencil(StarStencil<T>(T(0.5), c1, c1), g, -1));
    check_unchanged(g, "general stencil");
    Grid<T> g3(d, 5, 6, 7);
    g3.upload(sentinel<T>(210));
    EXPECT_ERROR(InvalidArgument, "3D without z coefficients", stencil(StarStencil<T>(T(0.5), c1, c1), g3, 1));
    EXPECT_ERROR(InvalidArgument, "3D z of another radius", stencil(StarStencil<T>(T(0.5), c1, c1, c2), g3, 1));
    check_unchanged(g3, "3D general stencil");
    check_usable<T>(d);
  }
}

TEST_CASE_TEMPLATE("bad input: empty vectors for min and max", T, float, double) {
  for (const Device& d : all_devices()) {
    const Vector<T> x(d, 0);
    EXPECT_ERROR(InvalidArgument, "min of an empty vector", tessera::min(x));
    EXPECT_ERROR(InvalidArgument, "max of an empty vector", tessera::max(x));
    EXPECT_ERROR(InvalidArgument, "reduce(min) of an empty vector", reduce(ReduceOp::min, x));
    check_usable<T>(d);
  }
}

TEST_CASE_TEMPLATE("bad input: sptrsv_analyze rejects a zero or missing diagonal (non-unit)", T, float, double) {
  // 4 x 4 lower triangles: row 2 has a zero diagonal, or no diagonal entry at all.
  const std::vector<std::int32_t> rp_zero = {0, 1, 3, 6, 8}, ci_zero = {0, 0, 1, 0, 1, 2, 2, 3};
  const std::vector<T> v_zero = {2, 1, 3, 1, 1, 0, 1, 4};
  const std::vector<std::int32_t> rp_missing = {0, 1, 3, 5, 7}, ci_missing = {0, 0, 1, 0, 1, 2, 3};
  const std::vector<T> v_missing = {2, 1, 3, 1, 1, 1, 4};
  // The upper counterpart: row 1 without a diagonal (its only entry is in the lower triangle).
  const std::vector<std::int32_t> rp_up = {0, 2, 3, 5, 6}, ci_up = {0, 3, 0, 2, 3, 3};
  const std::vector<T> v_up = {2, 1, 7, 3, 1, 5};
  for (const Device& d : all_devices()) {
    run_on_device<T>(d, Op::sptrsv, [&](const Device& dev) {
      const auto Az = CsrMatrix<T>::from_host(dev, 4, 4, rp_zero, ci_zero, v_zero);
      const auto Am = CsrMatrix<T>::from_host(dev, 4, 4, rp_missing, ci_missing, v_missing);
      const auto Au = CsrMatrix<T>::from_host(dev, 4, 4, rp_up, ci_up, v_up);
      const std::string mz = EXPECT_ERROR(InvalidArgument, "zero diagonal", sptrsv_analyze(Uplo::lower, Diag::non_unit, Az));
      CHECK_MESSAGE(mz.find('2') != std::string::npos, "the message should name row 2: " << mz);
      const std::string mm = EXPECT_ERROR(InvalidArgument, "missing diagonal", sptrsv_analyze(Uplo::lower, Diag::non_unit, Am));
      CHECK_MESSAGE(mm.find('2') != std::string::npos, "the message should name row 2: " << mm);
      EXPECT_ERROR(InvalidArgument, "missing diagonal (upper)", sptrsv_analyze(Uplo::upper, Diag::non_unit, Au));
      // With a unit diagonal the stored diagonal is not used: the same matrices are fine.
      CHECK_NOTHROW(sptrsv_analyze(Uplo::lower, Diag::unit, Az));
      CHECK_NOTHROW(sptrsv_analyze(Uplo::lower, Diag::unit, Am));
      CHECK_NOTHROW(sptrsv_analyze(Uplo::upper, Diag::unit, Au));
      check_usable<T>(dev);
    });
  }
}

TEST_CASE_TEMPLATE("dense triangular solve with a zero on the diagonal: not checked, as in BLAS (inf/NaN, no crash)",
                   T, float, double) {
  // Documents the chosen behaviour (ops.hpp): trsv/trsm do not check the diagonal; a zero pivot
  // gives inf or NaN in the result and every device carries on.
  const std::int64_t n = 5;
  std::vector<T> a(static_cast<std::size_t>(n * n), T(0));
  for (std::int64_t i = 0; i < n; ++i) {
    a[static_cast<std::size_t>(i * n + i)] = T(2);
    for (std::int64_t j = 0; j < i; ++j) a[static_cast<std::size_t>(i * n + j)] = T(0.5);
  }
  a[2 * n + 2] = T(0);  // zero pivot in row 2
  const std::vector<T> b = {1, 1, 1, 1, 1};
  for (const Device& d : all_devices()) {
    for (Uplo uplo : {Uplo::lower, Uplo::upper}) {
      for (Trans t : {Trans::N, Trans::T}) {
        run_on_device<T>(d, Op::trsv, [&](const Device& dev) {
          const auto A = DenseMatrix<T>::from_host(dev, n, n, a);
          auto x = Vector<T>::from_host(dev, b);
          CHECK_NOTHROW(trsv(uplo, t, Diag::non_unit, A, x));
          CHECK_MESSAGE(!all_finite(x.to_host()), "trsv with a zero pivot: expected inf/NaN in the result");
          auto B = DenseMatrix<T>::from_host(dev, n, 2, std::vector<T>(static_cast<std::size_t>(2 * n), T(1)));
          CHECK_NOTHROW(trsm(uplo, t, Diag::non_unit, T(1), A, B));
          CHECK_MESSAGE(!all_finite(B.to_host()), "trsm with a zero pivot: expected inf/NaN in the result");
          // With Diag::unit the zero is never read: finite result.
          auto xu = Vector<T>::from_host(dev, b);
          trsv(uplo, t, Diag::unit, A, xu);
          CHECK(all_finite(xu.to_host()));
          check_usable<T>(dev);
        });
      }
    }
  }
}

TEST_CASE("bad input: device specs") {
  EXPECT_ERROR(InvalidArgument, "tpu", Device::open("tpu"));
  EXPECT_ERROR(InvalidArgument, "cpu:x", Device::open("cpu:x"));
  EXPECT_ERROR(InvalidArgument, "cuda:-1", Device::open("cuda:-1"));
  EXPECT_ERROR(InvalidArgument, "opencl:", Device::open("opencl:"));
  EXPECT_ERROR(InvalidArgument, "CPU (specs are lower case)", Device::open("CPU"));
  EXPECT_ERROR(InvalidArgument, "cpu:0:0", Device::open("cpu:0:0"));
  EXPECT_ERROR(InvalidArgument, "cpu: 1", Device::open("cpu: 1"));
  EXPECT_ERROR(BackendUnavailable, "cpu:5 (index out of range)", Device::open("cpu:5"));
  EXPECT_ERROR(BackendUnavailable, "reference:1 (index out of range)", Device::open("reference:1"));
  CHECK(Device::open("cpu:0") == Device::open("cpu"));

  bool found = false;
  for (const BackendStatus& s : backends()) {
    if (s.available) {
      CHECK_MESSAGE(s.reason.empty(), s.name << " is available but has a reason: " << s.reason);
      continue;
    }
    found = true;
    INFO("backend " << s.name);
    CHECK_MESSAGE(!s.reason.empty(), s.name << " is unavailable without a reason");
    const std::string msg = EXPECT_ERROR(BackendUnavailable, "unavailable backend " + s.name, Device::open(s.name));
    CHECK_MESSAGE(msg.find(s.reason) != std::string::npos,
                  "the error should carry the reason '" << s.reason << "', got: " << msg);
    EXPECT_ERROR(BackendUnavailable, "unavailable backend " + s.name + ":0", Device::open(s.name + ":0"));
  }
  if (!found) MESSAGE("every backend is available here: no unavailable backend to open");
  // The registry still works.
  check_usable<float>(Device::open("cpu"));
}
