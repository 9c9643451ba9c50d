// Thread safety: 8 host threads share one Device and one CsrMatrix, each with vectors of its
// own, and run mixed operations (spmv, value-returning and device-scalar reductions, gemm, the
// vector algebra); every result must equal that of the same sequence run by one thread. Once
// with a queue per thread, once with every thread on the default queue (serialised there).
// Then sparse triangular solves: 8 threads share one plan per triangle (the plan is read-only;
// what a solve writes besides x is its queue's), each solving its own right-hand sides, in place
// and not. The cpu and reference part also runs under ThreadSanitizer in CI (scripts/tsan.sh).
#include <doctest/doctest.h>

#include <atomic>
#include <cmath>
#include <cstdint>
#include <functional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "support/devices.hpp"
#include "support/random.hpp"
#include "support/scale.hpp"
#include "support/sparse.hpp"
#include "tessera/tessera.hpp"

using namespace tessera;
using namespace tessera_test;

namespace {

// What one iteration of one thread computes, brought to the host.
struct Results {
  std::vector<double> values;  // reductions, dots, norms
  std::vector<double> y;       // the spmv + axpy output
  std::vector<double> c;       // the gemm output
  bool operator==(const Results& o) const { return values == o.values && y == o.y && c == o.c; }
};

// Thread t's inputs: its own data (seeded by t), so a result that crosses threads shows.
struct Work {
  Vector<double> x, y;
  DenseMatrix<double> a, b, c;
  Scalar<double> s;
  Work(const Device& d, std::int64_t n, int t)
      : x(Vector<double>::from_host(d, random_vector<double>(static_cast<std::size_t>(n), 1000 + t))),
        y(d, n),
        a(DenseMatrix<double>::from_host(d, 24, 20, random_vector<double>(480, 2000 + t))),
        b(DenseMatrix<double>::from_host(d, 20, 16, random_vector<double>(320, 3000 + t))),
        c(d, 24, 16),
        s(d) {}
};

Results step(const Queue& q, const CsrMatrix<double>& A, Work& w, int iteration) {
  Results r;
  const double k = 1.0 + iteration % 5;
  spmv(q, k, A, w.x, 0.0, w.y);
  axpy(q, -0.5, w.x, w.y);
  dot(q, w.x, w.y, w.s);
  norm2(q, w.y, w.s);  // overwrites s: order on the queue matters
  r.values.push_back(w.s.get(q));
  r.values.push_back(dot(q, w.x, w.y));
  r.values.push_back(reduce(q, ReduceOp::sum, w.y));
  gemm(q, Trans::N, Trans::N, k, w.a, w.b, 0.0, w.c);
  std::vector<double> y(static_cast<std::size_t>(w.y.size())), c(24 * 16);
  w.y.download(q, y.data(), w.y.size(), true);
  q.synchronize();  // the matrix download below runs on the default queue
  w.c.download(c.data());
  r.y = std::move(y);
  r.c = std::move(c);
  return r;
}

constexpr int kThreads = 8;

// Runs body(queue, t) on kThreads threads at once, each on a queue of its own or all on the
// device's default queue; body returns how many of its results differ from one thread's. Checks
// that none did and that no call threw.
void on_threads(const Device& d, bool own_queue, int iterations, const std::function<int(const Queue&, int)>& body) {
  INFO((own_queue ? "a queue per thread" : "all threads on the default queue"));
  std::atomic<int> wrong{0}, errors{0};
  std::vector<std::thread> pool;
  for (int t = 0; t < kThreads; ++t)
    pool.emplace_back([&, t] {
      try {
        wrong += body(own_queue ? d.new_queue() : d.queue(), t);
      } catch (const std::exception&) {
        ++errors;
      }
    });
  for (auto& th : pool) th.join();
  CHECK_MESSAGE(wrong.load() == 0, wrong.load() << " wrong results in " << kThreads << " x " << iterations);
  CHECK(errors.load() == 0);
}

}  // namespace

TEST_CASE("threads: 8 threads on one device, own queues and the default queue, match one thread") {
  const int iterations = static_cast<int>(scaled(200, 20));
  for (const Device& d : all_devices()) {
    INFO(d.spec());
    const CsrMatrix<double> A = CsrMatrix<double>::from_host(d, laplacian_2d<double>(61, 53));
    const std::int64_t n = A.rows();
    // The single-threaded answers, per thread's data and iteration pattern (5 distinct k).
    std::vector<std::vector<Results>> expected(kThreads);
    for (int t = 0; t < kThreads; ++t) {
      Work w(d, n, t);
      for (int i = 0; i < 5; ++i) expected[static_cast<std::size_t>(t)].push_back(step(d.queue(), A, w, i));
    }
    for (const bool own_queue : {true, false})
      on_threads(d, own_queue, iterations, [&](const Queue& q, int t) {
        Work w(d, n, t);
        int wrong = 0;
        for (int i = 0; i < iterations; ++i)
          if (!(step(q, A, w, i) == expected[static_cast<std::size_t>(t)][static_cast<std::size_t>(i % 5)])) ++wrong;
        return wrong;
      });
  }
}

TEST_CASE("threads: 8 threads multiply one skewed matrix (per-matrix plans, per-queue scratch), match one thread") {
  // Long rows among short ones: merge path or CUDA's split kernel, whose per-matrix plan is made
  // by whichever thread comes first while the others wait for it, and whose partial sums and
  // row tickets each queue holds for itself.
  const int iterations = static_cast<int>(scaled(40, 6));
  const HostCsr<double> h = power_law_csr<double>(6007, 1.2, 3, 6000, 51);
  for (const Device& d : all_devices()) {
    INFO(d.spec());
    std::vector<std::vector<double>> expected;
    for (int t = 0; t < kThreads; ++t) {
      const CsrMatrix<double> A = CsrMatrix<double>::from_host(d, h);
      const auto x = Vector<double>::from_host(d, random_vector<double>(6007, 5000 + static_cast<std::uint32_t>(t)));
      Vector<double> y(d, 6007);
      spmv(1.0, A, x, 0.0, y);
      expected.push_back(y.to_host());
    }
    const CsrMatrix<double> A = CsrMatrix<double>::from_host(d, h);  // new: no plan yet
    for (const bool own_queue : {true, false})
      on_threads(d, own_queue, iterations, [&](const Queue& q, int t) {
        const auto x = Vector<double>::from_host(d, random_vector<double>(6007, 5000 + static_cast<std::uint32_t>(t)));
        Vector<double> y(d, 6007);
        std::vector<double> got(6007);
        int wrong = 0;
        for (int i = 0; i < iterations; ++i) {
          spmv(q, 1.0, A, x, 0.0, y);
          y.download(q, got.data(), y.size(), true);
          // Not bitwise: merge path adds the carries of rows spanning several tiles by atomics,
          // in any order; a lost or doubled partial sum is off by whole entries.
          const auto& e = expected[static_cast<std::size_t>(t)];
          for (std::size_t r = 0; r < got.size(); ++r)
            if (!(std::abs(got[r] - e[r]) <= 1e-9 * (1.0 + std::abs(e[r])))) {
              ++wrong;
              break;
            }
        }
        return wrong;
      });
  }
}

TEST_CASE("threads: 8 threads share sparse triangular solve plans, own queues and the default queue, match one thread") {
  const int iterations = static_cast<int>(scaled(12, 4));
  // Triangles that take each of CUDA's schedules by default: two wide levels (the few-levels
  // launch), many wide levels (parts of the rows), many narrow levels (one block).
  TriangularSpec two_levels;
  two_levels.bands = 2;
  two_levels.max_per_row = 100;
  const std::vector<std::pair<std::string, HostCsr<double>>> triangles = {
      {"two wide levels", triangular_system<double>(2541, two_levels, 41)},
      {"lower(laplacian 40^3)", laplacian_3d<double>(40, 40, 40)},
      {"lower(laplacian 61 x 53)", laplacian_2d<double>(61, 53)}};
  for (const Device& d : all_devices()) {
    for (const auto& [name, h] : triangles) {
      INFO(d.spec() << ", " << name);
      const CsrMatrix<double> A = CsrMatrix<double>::from_host(d, h);
      const SptrsvPlan<double> plan = sptrsv_analyze(Uplo::lower, Diag::non_unit, A);
      const auto n = static_cast<std::size_t>(A.rows());
      // One thread's answers: thread t's right-hand side, solved into x and in place.
      std::vector<std::vector<double>> rhs, expected, expected_in_place;
      for (int t = 0; t < kThreads; ++t) {
        rhs.push_back(random_vector<double>(n, 4000 + static_cast<std::uint32_t>(t)));
        const auto b = Vector<double>::from_host(d, rhs.back());
        Vector<double> x(d, A.rows());
        sptrsv_solve(plan, b, x);
        expected.push_back(x.to_host());
        auto xb = Vector<double>::from_host(d, rhs.back());
        sptrsv_solve(plan, xb, xb);
        expected_in_place.push_back(xb.to_host());
      }
      for (const bool own_queue : {true, false})
        on_threads(d, own_queue, iterations, [&](const Queue& q, int t) {
          const auto tt = static_cast<std::size_t>(t);
          const auto b = Vector<double>::from_host(d, rhs[tt]);
          Vector<double> x(d, A.rows());
          std::vector<double> got(n);
          int wrong = 0;
          for (int i = 0; i < iterations; ++i) {
            const bool in_place = i % 2 == 1;
            if (in_place) {
              auto xb = Vector<double>::from_host(d, rhs[tt]);
              sptrsv_solve(q, plan, xb, xb);
              xb.download(q, got.data(), xb.size(), true);
            } else {
              sptrsv_solve(q, plan, b, x);
              x.download(q, got.data(), x.size(), true);
            }
            if (got != (in_place ? expected_in_place[tt] : expected[tt])) ++wrong;
          }
          return wrong;
        });
    }
  }
}
