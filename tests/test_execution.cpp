// The execution model on every device: queues and events, the host-wait counter, views at
// offsets through every operation family, interop (wrapping memory and queues), asynchronous
// transfers, and the typed errors of each new call.
#include <doctest/doctest.h>

#include <chrono>
#include <cmath>
#include <cstdint>
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

// One Jacobi-preconditioned CG iteration on the device, with no value brought to the host.
template <class T>
struct CgState {
  Vector<T> x, r, z, p, q, dinv;
  Scalar<T> rz, rz_new, pq, rr;
};

template <class T>
void cg_iteration(const Queue& qu, const CsrMatrix<T>& A, CgState<T>& s) {
  spmv(qu, T(1), A, s.p, T(0), s.q);
  dot(qu, s.p, s.q, s.pq);
  axpy(qu, s.rz / s.pq, s.p, s.x);
  axpby_dot(qu, -(s.rz / s.pq), s.q, T(1), s.r, s.r, s.rr);
  multiply(qu, s.dinv, s.r, s.z);
  dot(qu, s.r, s.z, s.rz_new);
  axpby(qu, T(1), s.z, s.rz_new / s.rz, s.p);
  std::swap(s.rz, s.rz_new);
}

}  // namespace

TEST_CASE_TEMPLATE("execution: a CG iteration makes no host wait, and converges", T, float, double) {
  const HostCsr<T> h = laplacian_2d<T>(20, 17);
  const auto n = static_cast<std::size_t>(h.rows);
  std::vector<T> diag_inv(n);
  for (std::int64_t i = 0; i < h.rows; ++i)
    for (std::int32_t k = h.row_ptr[static_cast<std::size_t>(i)]; k < h.row_ptr[static_cast<std::size_t>(i) + 1]; ++k)
      if (h.col_idx[static_cast<std::size_t>(k)] == i) diag_inv[static_cast<std::size_t>(i)] = T(1) / h.values[static_cast<std::size_t>(k)];
  const auto b = random_vector<T>(n, 3);
  for (const Device& d : all_devices()) {
    run_on_device<T>(d, Op::vector, [&](const Device& dev) {
      const CsrMatrix<T> A = CsrMatrix<T>::from_host(dev, h);
      for (const Queue& qu : {dev.queue(), dev.new_queue()}) {
        CgState<T> s{Vector<T>(dev, h.rows), Vector<T>::from_host(dev, b), Vector<T>(dev, h.rows), Vector<T>(dev, h.rows),
                     Vector<T>(dev, h.rows), Vector<T>::from_host(dev, diag_inv), Scalar<T>(dev), Scalar<T>(dev),
                     Scalar<T>(dev), Scalar<T>(dev)};
        fill(qu, T(0), s.x);
        multiply(qu, s.dinv, s.r, s.z);
        copy(qu, s.z, s.p);
        dot(qu, s.r, s.z, s.rz);
        qu.synchronize();
        const std::uint64_t before = dev.host_waits();
        for (int it = 0; it < 60; ++it) cg_iteration(qu, A, s);
        CHECK_MESSAGE(dev.host_waits() == before, "host waits inside 60 CG iterations on " << dev.spec());
        const T rr = s.rr.get(qu);
        CHECK(dev.host_waits() == before + 1);  // get() is the one wait
        // ||r||^2 after 60 iterations of this well-conditioned system: far below ||b||^2 (~n/3).
        CHECK_MESSAGE(rr < T(1e-6) * static_cast<T>(n), "CG did not converge on " << dev.spec() << ": rr = " << rr);
        // The residual the iteration carries is the true one.
        Vector<T> ax(dev, h.rows);
        spmv(qu, T(1), A, s.x, T(0), ax);
        qu.synchronize();  // to_host reads on the default queue, which qu's work does not precede
        const auto axh = ax.to_host(), rh = s.r.to_host(), xh = s.x.to_host();
        double worst = 0, x_max = 0;
        for (std::size_t i = 0; i < n; ++i) {
          worst = std::max(worst, std::abs(static_cast<double>(b[i]) - axh[i] - rh[i]));
          x_max = std::max(x_max, std::abs(static_cast<double>(xh[i])));
        }
        // The recursive residual drifts from b - A x by rounding, about one u (|A| |x| + |b|)
        // per iteration (|A|_inf = 8 here, |b| <= 1); a wrong update is off by O(|b|).
        const double drift = 60 * 16 * unit_roundoff<T>() * (8 * x_max + 1);
        CHECK_MESSAGE(worst < drift, "recursive and true residuals differ by " << worst << " > " << drift);
      }
    });
  }
}

TEST_CASE("execution: queues order their own work, events order work across queues") {
  for (const Device& d : all_devices()) {
    INFO(d.spec());
    const Queue a = d.new_queue(), b = d.new_queue();
    CHECK(a != b);
    CHECK(a.device() == d);
    CHECK(d.queue() == d.queue());
    const std::int64_t n = 1 << 20;
    Vector<float> x(d, n), y(d, n);
    fill(a, 1.0f, x);
    for (int i = 0; i < 20; ++i) axpy(a, 1.0f, x, x);  // x = 2^20 after 20 doublings
    Event e = a.record();
    b.wait(e);
    copy(b, x, y);  // after the doublings, on another queue
    Scalar<float> s(d);
    reduce(b, ReduceOp::max, y, s);
    CHECK(s.get(b) == 1048576.0f);
    e.synchronize();
    CHECK(e.ready());
    // Wrapping a queue's native handle gives a queue on the same native queue (GPU devices).
    if (a.native() != nullptr) {
      const Queue w = d.wrap_queue(a.native());
      CHECK(w.native() == a.native());
      fill(w, 3.0f, y);
      w.synchronize();  // to_host reads on the default queue
      CHECK(y.to_host()[0] == 3.0f);
    } else {
      int not_a_queue = 0;
      CHECK_THROWS_AS(d.wrap_queue(&not_a_queue), InvalidArgument);
    }
  }
}

TEST_CASE("execution: host waits are counted where the host waits") {
  for (const Device& d : all_devices()) {
    INFO(d.spec());
    Vector<double> x = Vector<double>::from_host(d, {1, 2, 3});
    Scalar<double> s(d);
    const std::uint64_t w0 = d.host_waits();
    dot(x, x, s);
    axpy(2.0, x, x);
    CHECK(d.host_waits() == w0);
    CHECK(s.get() == 14.0);
    CHECK(d.host_waits() == w0 + 1);
    (void)dot(x, x);  // the value-returning form waits once
    CHECK(d.host_waits() == w0 + 2);
    d.synchronize();
    CHECK(d.host_waits() == w0 + 3);
  }
}

TEST_CASE_TEMPLATE("execution: views at offsets through spmv, trsv, gemm and sptrsv", T, float, double) {
  const HostCsr<T> h = laplacian_2d<T>(9, 7);
  const std::int64_t n = h.rows;
  const auto hx = random_vector<T>(static_cast<std::size_t>(n), 11);
  const Device ref = reference_device();
  // Oracle results on whole vectors of the reference.
  const CsrMatrix<T> Ar = CsrMatrix<T>::from_host(ref, h);
  Vector<T> xr = Vector<T>::from_host(ref, hx), yr(ref, n);
  spmv(T(1), Ar, xr, T(0), yr);
  const auto y_ref = yr.to_host();
  const auto hm = random_vector<T>(6 * 8, 12);
  DenseMatrix<T> Mr = DenseMatrix<T>::from_host(ref, 6, 8, hm);
  DenseMatrix<T> Cr(ref, 3, 3);
  gemm(Trans::N, Trans::T, T(1), Mr.block(1, 2, 3, 4), Mr.block(2, 3, 3, 4), T(0), Cr);
  const auto c_ref = Cr.to_host();
  for_each_device<T>(Op::spmv, [&](const Device& d) {
    const CsrMatrix<T> A = CsrMatrix<T>::from_host(d, h);
    // x and y are views into one allocation, disjoint.
    Vector<T> both(d, 2 * n + 5);
    fill(T(-1), both);
    Vector<T> x = both.sub(1, n), y = both.sub(n + 3, n);
    x.upload(hx);
    spmv(T(1), A, x, T(0), y);
    check_close(y.to_host(), y_ref, 64 * unit_roundoff<T>() * 8, "spmv on views of one vector");
    const auto all = both.to_host();
    CHECK(all[0] == T(-1));
    CHECK(all[static_cast<std::size_t>(n + 1)] == T(-1));
    CHECK(all[static_cast<std::size_t>(n + 2)] == T(-1));
    CHECK(all[static_cast<std::size_t>(2 * n + 4)] == T(-1));
    // Overlapping x and y are refused.
    Vector<T> y_bad = both.sub(2, n);
    CHECK_THROWS_AS(spmv(T(1), A, x, T(0), y_bad), InvalidArgument);

    // gemm on blocks of one matrix (read only) into a block of another.
    DenseMatrix<T> M = DenseMatrix<T>::from_host(d, 6, 8, hm);
    DenseMatrix<T> C(d, 5, 5);
    C.upload(std::vector<T>(25, T(4)).data());
    DenseMatrix<T> Cb = C.block(1, 1, 3, 3);
    gemm(Trans::N, Trans::T, T(1), M.block(1, 2, 3, 4), M.block(2, 3, 3, 4), T(0), Cb);
    check_close(Cb.to_host(), c_ref, 64 * unit_roundoff<T>() * 8, "gemm on blocks");
    const auto call = C.to_host();
    CHECK(call[0] == T(4));
    CHECK(call[24] == T(4));
    // trsv with a diagonal block as A and a sub-vector as x.
    std::vector<T> tri(16 * 16, T(0));
    for (int i = 0; i < 16; ++i)
      for (int j = 0; j <= i; ++j) tri[static_cast<std::size_t>(i * 16 + j)] = i == j ? T(4) : T(0.25);
    DenseMatrix<T> L = DenseMatrix<T>::from_host(d, 16, 16, tri);
    Vector<T> rhs = Vector<T>::from_host(d, random_vector<T>(20, 13));
    Vector<T> sub = rhs.sub(2, 12);
    const auto before = sub.to_host();
    trsv(Uplo::lower, Trans::N, Diag::non_unit, L.block(2, 2, 12, 12), sub);
    // Check L_block * solution = before.
    const auto sol = sub.to_host();
    for (int i = 0; i < 12; ++i) {
      double acc = 0;
      for (int j = 0; j <= i; ++j) acc += static_cast<double>(tri[static_cast<std::size_t>((i + 2) * 16 + j + 2)]) * sol[static_cast<std::size_t>(j)];
      CHECK(std::abs(acc - before[static_cast<std::size_t>(i)]) <= 1e3 * unit_roundoff<T>());
    }
    // sptrsv from a sub-vector b into another sub-vector x.
    const SptrsvPlan<T> plan = sptrsv_analyze(Uplo::lower, Diag::unit, A);
    Vector<T> bx(d, 2 * n + 2);
    fill(T(1), bx);
    Vector<T> bb = bx.sub(0, n), xx = bx.sub(n + 2, n);
    sptrsv_solve(plan, bb, xx);
    CHECK(all_finite(xx.to_host()));
  });
}

TEST_CASE("execution: wrapped memory is used in place") {
  for (const Device& d : all_devices()) {
    INFO(d.spec());
    Vector<double> owner = Vector<double>::from_host(d, {1, 2, 3, 4});
    // Wrap the owner's native handle (a host pointer, a device pointer or a cl_mem): a second
    // vector over the same memory, which Tessera must not free.
    {
      Vector<double> w = Vector<double>::wrap(d, owner.native_handle(), 4);
      scal(10.0, w);
      CHECK(!w.storage()->owned());
    }
    CHECK(owner.to_host() == std::vector<double>{10, 20, 30, 40});
    CHECK_THROWS_AS(Vector<double>::wrap(d, nullptr, 4), InvalidArgument);
  }
}

TEST_CASE("execution: HostBuffer transfers return at once and land in queue order") {
  for (const Device& d : all_devices()) {
    INFO(d.spec());
    const Queue q = d.new_queue();
    const std::int64_t n = 100003;
    HostBuffer<float> in(d, n), out(d, n);
    for (std::int64_t i = 0; i < n; ++i) in[i] = static_cast<float>(i % 97);
    Vector<float> v(d, n);
    copy(q, in, v);
    scal(q, 2.0f, v);
    copy(q, v, out);
    q.synchronize();
    bool ok = true;
    for (std::int64_t i = 0; i < n; ++i) ok = ok && out[i] == 2.0f * static_cast<float>(i % 97);
    CHECK(ok);
  }
}

// Two queues, one copying from pinned memory and one computing: the two together take less
// than the sum of each alone where the device has a copy engine (reported everywhere, checked
// on cuda devices: the overlap the issue asks the GPU machine to show).
TEST_CASE("execution: a transfer on one queue overlaps with kernels on another") {
  for (const Device& d : devices_under_test()) {
    if (!is_gpu_plugin(d)) continue;
    const Queue copy_q = d.new_queue(), compute_q = d.new_queue();
    const std::int64_t n = std::int64_t(1) << 26;  // 256 MiB in f32
    HostBuffer<float> host(d, n);
    for (std::int64_t i = 0; i < n; ++i) host[i] = 1.0f;
    Vector<float> dst(d, n), a(d, n), b(d, n);
    fill(compute_q, 1.0f, a);
    fill(compute_q, 2.0f, b);
    auto transfer = [&] { copy(copy_q, host, dst); };
    auto compute = [&] {
      for (int i = 0; i < 60; ++i) axpy(compute_q, 0.5f, a, b);
    };
    auto timed = [&](auto&& f) {
      d.synchronize();
      const auto t0 = std::chrono::steady_clock::now();
      f();
      d.synchronize();
      return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    };
    timed(transfer);
    timed(compute);  // warm-up
    double t_copy = 1e30, t_compute = 1e30, t_both = 1e30;
    for (int rep = 0; rep < 3; ++rep) {
      t_copy = std::min(t_copy, timed(transfer));
      t_compute = std::min(t_compute, timed(compute));
      t_both = std::min(t_both, timed([&] {
        transfer();
        compute();
      }));
    }
    MESSAGE(d.spec() << ": transfer " << t_copy << " ms, kernels " << t_compute << " ms, both on two queues "
                     << t_both << " ms (sum " << t_copy + t_compute << " ms)");
    if (d.info().backend == "cuda") CHECK(t_both < 0.85 * (t_copy + t_compute));
  }
}

TEST_CASE("execution: bad input to the new calls throws typed errors, writes nothing, leaves the device usable") {
  const Device ref = reference_device();
  for (const Device& d : all_devices()) {
    INFO(d.spec());
    Vector<double> x = Vector<double>::from_host(d, {1, 2, 3, 4, 5});
    Vector<double> y = Vector<double>::from_host(d, {5, 4, 3, 2, 1});
    const auto y0 = y.to_host();
    // A view past the end.
    CHECK_THROWS_AS(x.sub(3, 3), InvalidArgument);
    CHECK_THROWS_AS(x.sub(-1, 2), InvalidArgument);
    // A Scalar of another device (the reference's, used on d, or cpu's on the reference).
    const Device other = d == ref ? Device::open("cpu") : ref;
    Scalar<double> foreign(other, 2.0);
    CHECK_THROWS_AS(axpy(ScalarArg<double>(foreign), x, y), DeviceMismatch);
    CHECK_THROWS_AS(dot(x, y, foreign), DeviceMismatch);
    // Sizes, overlaps and empties.
    Vector<double> short_v(d, 4);
    CHECK_THROWS_AS(axpy(1.0, x, short_v), DimensionMismatch);
    CHECK_THROWS_AS(copy(x, short_v), DimensionMismatch);
    Vector<double> big = Vector<double>::from_host(d, {1, 2, 3, 4, 5, 6});
    Vector<double> left = big.sub(0, 4), right = big.sub(1, 4);
    CHECK_THROWS_AS(axpy(1.0, left, right), InvalidArgument);   // partial overlap
    CHECK_THROWS_AS(copy(left, right), InvalidArgument);
    CHECK_THROWS_AS(multiply(left, left, right), InvalidArgument);
    Scalar<double> s(d, 1.0), t(d, 1.0), u(d, 1.0);
    CHECK_THROWS_AS(dot2(x, y, x, s, s), InvalidArgument);
    // multiply_dot2: the same Scalar twice, z overlapping d or r, sizes; nothing written.
    {
      Vector<double> z = Vector<double>::from_host(d, std::vector<double>(static_cast<std::size_t>(x.size()), 5.0));
      CHECK_THROWS_AS(multiply_dot2(x, y, z, s, s), InvalidArgument);
      CHECK_THROWS_AS(multiply_dot2(x, y, y, s, t), InvalidArgument);
      CHECK_THROWS_AS(multiply_dot2(z, y, z, s, t), InvalidArgument);
      CHECK_THROWS_AS(multiply_dot2(left, big.sub(2, 4), right, s, t), InvalidArgument);
      CHECK_THROWS_AS(multiply_dot2(x, y, short_v, s, t), DimensionMismatch);
      CHECK_THROWS_AS(multiply_dot2(x, y, z, foreign, t), DeviceMismatch);
      CHECK(z.to_host() == std::vector<double>(static_cast<std::size_t>(x.size()), 5.0));
      CHECK(s.get() == 1.0);
      CHECK(t.get() == 1.0);
    }
    // axpby_pair: y1 overlapping y2, x2 being y1, a partial overlap, sizes, a foreign Scalar;
    // axpy_multiply_dot2: r or z overlapping another operand, one Scalar twice. Nothing written.
    {
      Vector<double> z = Vector<double>::from_host(d, std::vector<double>(static_cast<std::size_t>(x.size()), 5.0));
      Vector<double> w = Vector<double>::from_host(d, std::vector<double>(static_cast<std::size_t>(x.size()), 6.0));
      CHECK_THROWS_AS(axpby_pair(1.0, x, 1.0, z, 1.0, y, 1.0, z), InvalidArgument);     // y2 is y1
      CHECK_THROWS_AS(axpby_pair(1.0, x, 1.0, z, 1.0, z, 1.0, w), InvalidArgument);     // x2 is y1
      Vector<double> w4 = w.sub(0, 4);
      CHECK_THROWS_AS(axpby_pair(1.0, left, 1.0, right, 1.0, x, 1.0, w4), DimensionMismatch);
      CHECK_THROWS_AS(axpby_pair(1.0, x.sub(0, 4), 1.0, left, 1.0, y.sub(0, 4), 1.0, right), InvalidArgument);
      CHECK_THROWS_AS(axpby_pair(1.0, x, 1.0, z, 1.0, y, 1.0, short_v), DimensionMismatch);
      CHECK_THROWS_AS(axpby_pair(1.0, x, 1.0, z, ScalarArg<double>(foreign), y, 1.0, w), DeviceMismatch);
      CHECK_THROWS_AS(axpy_multiply_dot2(1.0, x, y, z, w, s, s), InvalidArgument);
      CHECK_THROWS_AS(axpy_multiply_dot2(1.0, x, y, z, z, s, t), InvalidArgument);
      CHECK_THROWS_AS(axpy_multiply_dot2(1.0, x, y, x, w, s, t), InvalidArgument);   // r is x
      CHECK_THROWS_AS(axpy_multiply_dot2(1.0, x, y, z, y, s, t), InvalidArgument);   // z is d
      CHECK_THROWS_AS(axpy_multiply_dot2(1.0, x, y, z, w, foreign, t), DeviceMismatch);
      CHECK_THROWS_AS(axpy_multiply_dot2(1.0, x, y, short_v, w, s, t), DimensionMismatch);
      CHECK(z.to_host() == std::vector<double>(static_cast<std::size_t>(x.size()), 5.0));
      CHECK(w.to_host() == std::vector<double>(static_cast<std::size_t>(x.size()), 6.0));
      CHECK(y.to_host() == y0);
      CHECK(s.get() == 1.0);
      CHECK(t.get() == 1.0);
    }
    CHECK_THROWS_AS(axpy(s * t * u, x, y), InvalidArgument);    // three Scalars above the line
    Scalar<double> empty;
    CHECK_THROWS_AS(dot(x, y, empty), InvalidArgument);
    CHECK_THROWS_AS(axpy(ScalarArg<double>(empty), x, y), InvalidArgument);
    Vector<double> none;
    CHECK_THROWS_AS(axpy(1.0, none, y), InvalidArgument);
    // A queue of another device; an empty queue.
    CHECK_THROWS_AS(axpy(other.queue(), 1.0, x, y), DeviceMismatch);
    CHECK_THROWS_AS(axpy(Queue(), 1.0, x, y), InvalidArgument);
    CHECK_THROWS_AS(spmv(other.queue(), 1.0, CsrMatrix<double>::from_host(d, laplacian_2d<double>(1, 5)), x, 0.0, y),
                    DeviceMismatch);
    // Wrapped null memory; wrapping a null queue.
    CHECK_THROWS_AS(Vector<double>::wrap(d, nullptr, 3), InvalidArgument);
    CHECK_THROWS_AS(d.wrap_queue(nullptr), InvalidArgument);
    // Waiting on an empty event, or on an event whose queue is gone.
    CHECK_THROWS_AS(d.queue().wait(Event()), InvalidArgument);
    Event orphan;
    {
      const Queue gone = d.new_queue();
      orphan = gone.record();
    }
    CHECK_THROWS_AS(d.queue().wait(orphan), InvalidArgument);
    CHECK_THROWS_AS(orphan.synchronize(), InvalidArgument);
    CHECK_THROWS_AS(other.queue().wait(d.queue().record()), DeviceMismatch);
    // A HostBuffer made for another device.
    HostBuffer<double> hb(other, 5);
    CHECK_THROWS_AS(copy(d.queue(), hb, y), DeviceMismatch);
    // Nothing was written, and the device still works.
    CHECK(y.to_host() == y0);
    CHECK(dot(x, y) == 35.0);
  }
}
