// Recorded graphs (Queue::begin_capture / end_capture, Graph::launch) and the solvers' replay of
// their iterations from one: bit-identical results to the unrecorded work, no host wait, stale
// graphs refused, and the typed errors of each call. Devices that cannot record (cpu,
// reference, opencl) must say so and refuse with NotImplemented.
#include <doctest/doctest.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "support/compare.hpp"
#include "support/devices.hpp"
#include "support/random.hpp"
#include "tessera/tessera.hpp"

using namespace tessera;
using namespace tessera_test;

namespace {

// A step that reads and writes device scalars and vectors: x += (s / t) y; s = x.x; y = y * w.
template <class T>
struct Work {
  Vector<T> x, y, w;
  Scalar<T> s, t;
  void step(const Queue& q) {
    axpy(q, s / t, y, x);
    dot(q, x, x, s);
    multiply(q, w, y, y);
  }
};

template <class T>
Work<T> make_work(const Device& d, std::int64_t n) {
  const auto nn = static_cast<std::size_t>(n);
  Work<T> w{Vector<T>::from_host(d, random_vector<T>(nn, 11)), Vector<T>::from_host(d, random_vector<T>(nn, 12)),
            Vector<T>::from_host(d, random_vector<T>(nn, 13, 0.5, 1.0)), Scalar<T>(d), Scalar<T>(d)};
  w.s.set(T(0.25));
  w.t.set(T(3));
  return w;
}

template <class T>
bool same_bits(const std::vector<T>& a, const std::vector<T>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0;
}

}  // namespace

TEST_CASE_TEMPLATE("graphs: a recorded sequence replays bit-identically to the same work unrecorded, without waits", T,
                   float, double) {
  for (const Device& d : all_devices()) {
    INFO(d.spec());
    const Queue q = d.new_queue();
    if (!q.can_capture()) {
      CHECK_THROWS_AS(q.begin_capture(), NotImplemented);
      Vector<T> v(d, 3);
      fill(q, T(2), v);  // still usable
      q.synchronize();
      CHECK(v.to_host()[2] == T(2));
      continue;
    }
    const std::int64_t n = 100003;  // odd, several blocks
    Work<T> plain = make_work<T>(d, n), replayed = make_work<T>(d, n);
    for (int i = 0; i < 7; ++i) plain.step(q);
    replayed.step(q);  // the first run builds the scratch that the recording uses
    q.begin_capture();
    replayed.step(q);
    const Graph g = q.end_capture();
    REQUIRE(g);
    CHECK(g.device() == d);
    // The recording ran nothing: one step done so far.
    q.synchronize();
    const std::uint64_t waits = d.host_waits();
    for (int i = 0; i < 6; ++i) CHECK(g.launch(q));
    CHECK(d.host_waits() == waits);
    q.synchronize();
    CHECK(same_bits(plain.x.to_host(), replayed.x.to_host()));
    CHECK(same_bits(plain.y.to_host(), replayed.y.to_host()));
    CHECK(plain.s.get(q) == replayed.s.get(q));
    // Another queue of the device replays it too, in its own order.
    const Queue other = d.new_queue();
    plain.step(q);
    q.synchronize();
    CHECK(g.launch(other));
    other.synchronize();
    CHECK(same_bits(plain.x.to_host(), replayed.x.to_host()));
  }
}

TEST_CASE_TEMPLATE("graphs: a skewed SpMV recorded on a queue that never ran it replays right, and runs right after",
                   T, float, double) {
  // The matrix's shared plans (CUDA: the split layout) are made on the default queue first; the
  // recording queue has none of its own scratch for it yet (CUDA: the split kernel's row
  // tickets, zeroed when allocated), nor is merge path's partition made: what the recording
  // holds must not leave the queue, or the shared cache, with work recorded but never run.
  const std::int64_t n = 3001;
  const HostCsr<T> h = power_law_csr<T>(n, 1.2, 3, 3000, 61);
  const auto hx = random_vector<T>(static_cast<std::size_t>(n), 62);
  // |y_i| <= sum_j |a_ij x_j| <= 3000 (entries and x within [-1, 1]): merge and split sum in
  // different orders.
  const double bound = gamma_bound<T>(3002) * 3000;
  for (const Device& d : all_devices()) {
    const Queue q = d.new_queue(), other = d.new_queue();
    if (!q.can_capture()) continue;
    INFO(d.spec());
    const auto A = CsrMatrix<T>::from_host(d, h);
    const auto x = Vector<T>::from_host(d, hx);
    Vector<T> y0(d, n), y1(d, n), y2(d, n), y3(d, n);
    spmv(T(1), A, x, T(0), y0);
    const auto expected = y0.to_host();
    q.begin_capture();
    spmv(q, T(1), A, x, T(0), y1);
    const Graph g = q.end_capture();
    spmv(q, T(1), A, x, T(0), y2);  // outside the graph, on the same queue, before any replay
    q.synchronize();
    check_close(y2.to_host(), expected, bound, "after the recording, same queue, not replayed yet");
    REQUIRE(g.launch(q));
    q.synchronize();
    check_close(y1.to_host(), expected, bound, "replayed");
    spmv(other, T(1), A, x, T(0), y3);  // another queue, whatever the recording made
    other.synchronize();
    check_close(y3.to_host(), expected, bound, "after the recording, another queue");
  }
}

TEST_CASE("graphs: a graph whose scratch was freed since its recording refuses to launch") {
  for (const Device& d : all_devices()) {
    const Queue q = d.new_queue();
    if (!q.can_capture()) continue;
    INFO(d.spec());
    Work<float> w = make_work<float>(d, 5000);
    w.step(q);
    q.begin_capture();
    w.step(q);
    const Graph g = q.end_capture();
    CHECK(g.launch(q));
    {
      // A queue's reduction scratch is freed with the queue: afterwards no graph can prove
      // that its own scratch is still in place (the test is conservative), so it refuses.
      const Queue brief = d.new_queue();
      Scalar<float> s(d);
      dot(brief, w.x, w.x, s);
      brief.synchronize();
    }
    q.synchronize();
    const auto before = w.x.to_host();
    CHECK_FALSE(g.launch(q));
    q.synchronize();
    CHECK(same_bits(before, w.x.to_host()));  // nothing ran
    // Recording again gives a working graph.
    q.begin_capture();
    w.step(q);
    CHECK(q.end_capture().launch(q));
  }
}

TEST_CASE("graphs: bad input throws typed errors, runs nothing, leaves the queue usable") {
  const Device cpu = Device::open("cpu");
  CHECK_THROWS_AS((void)Graph().launch(cpu.queue()), InvalidArgument);
  CHECK_THROWS_AS((void)Queue().can_capture(), InvalidArgument);
  for (const Device& d : all_devices()) {
    const Queue q = d.new_queue();
    if (!q.can_capture()) continue;
    INFO(d.spec());
    CHECK_THROWS_AS((void)q.end_capture(), InvalidArgument);  // not recording
    Vector<double> x = Vector<double>::from_host(d, {1, 2, 3});
    Scalar<double> s(d);
    dot(q, x, x, s);  // scratch in place
    q.begin_capture();
    CHECK_THROWS_AS(q.begin_capture(), InvalidArgument);  // already recording
    scal(q, 2.0, x);
    // A host wait cannot be recorded: the wait fails, and so does the recording, with nothing run.
    CHECK_THROWS_AS((void)s.get(q), Error);
    CHECK_THROWS_AS((void)q.end_capture(), Error);
    CHECK_THROWS_AS((void)q.end_capture(), InvalidArgument);  // no longer recording
    q.synchronize();
    CHECK(x.to_host() == std::vector<double>{1, 2, 3});
    dot(q, x, x, s);
    CHECK(s.get(q) == 14.0);
    // A graph of one device launched on a queue of another.
    q.begin_capture();
    scal(q, 2.0, x);
    const Graph g = q.end_capture();
    CHECK_THROWS_AS((void)g.launch(cpu.queue()), DeviceMismatch);
    q.synchronize();
    CHECK(x.to_host() == std::vector<double>{1, 2, 3});
  }
}

TEST_CASE_TEMPLATE("graphs: CG and BiCGSTAB replayed from a graph match the unrecorded solve bit for bit", T, float,
                   double) {
  const HostCsr<T> h = laplacian_3d<T>(13, 11, 9);
  const auto b = random_vector<T>(static_cast<std::size_t>(h.rows), 5);
  for (const Device& d : all_devices()) {
    INFO(d.spec());
    const CsrMatrix<T> A = CsrMatrix<T>::from_host(d, h);
    const Vector<T> bv = Vector<T>::from_host(d, b);
    const Jacobi<T> M(A);
    for (const bool bicg : {false, true}) {
      INFO((bicg ? "bicgstab" : "cg"));
      SolveOptions o;
      o.rel_tol = std::is_same_v<T, float> ? 1e-5 : 1e-10;
      o.check_every = 4;  // the same checks in both runs, and more than one period per interval
      Vector<T> x1(d, h.rows), x2(d, h.rows);
      fill(T(0), x1);
      fill(T(0), x2);
      o.graphs = false;
      const SolveResult r1 = bicg ? bicgstab(A, bv, x1, &M, o) : cg(A, bv, x1, &M, o);
      o.graphs = true;
      const SolveResult r2 = bicg ? bicgstab(A, bv, x2, &M, o) : cg(A, bv, x2, &M, o);
      CHECK(r1.converged);
      CHECK(r2.converged);
      CHECK_FALSE(r1.graph);
      CHECK(r2.graph == d.queue().can_capture());
      CHECK(r1.iterations == r2.iterations);
      CHECK(r1.residual == r2.residual);
      CHECK(same_bits(x1.to_host(), x2.to_host()));
    }
  }
}
