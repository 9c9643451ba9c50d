// The device-communicator cache (mpi/src/comm_cache.hpp) with a stand-in for NCCL's
// communicators (a counter: making and destroying one is all the cache sees), so its keying,
// agreement and destruction order run on every machine; and many partitions in a loop through
// the public calls, which on cuda ranks with NCCL make at most one communicator.
#include <algorithm>

#include "collective.hpp"
#include "comm_cache.hpp"
#include "nccl.hpp"
#include "support.hpp"

using namespace tessera;
using namespace tessera_mpi_test;
namespace dm = tessera::mpi;
using dm::detail::CommCache;

namespace {
// Makes numbered stand-ins over the cache's duplicate; records which are destroyed, in order.
struct FakeTransport {
  int made = 0;
  std::vector<int> destroyed;
  CommCache::Make maker(MPI_Comm expected_group) {
    return [this, expected_group](MPI_Comm own) {
      int same = MPI_UNEQUAL;
      MPI_Comm_compare(own, expected_group, &same);
      CHECK(same == MPI_CONGRUENT);  // a duplicate of the ranks asked for, never theirs
      auto* id = new int(++made);
      return CommCache::Handle(id, [this](void* p) {
        destroyed.push_back(*static_cast<int*>(p));
        delete static_cast<int*>(p);
      });
    };
  }
};
int id_of(void* h) { return h != nullptr ? *static_cast<int*>(h) : 0; }
}  // namespace

TEST_CASE("mpi comm cache: one communicator per group of ranks and device, agreed, destroyed in order") {
  const int p = world_size(), me = world_rank();
  FakeTransport fake;  // outlives the cache (its deleters write here)
  {
    CommCache cache;
    // Many partitions of the same ranks: one communicator.
    void* first = nullptr;
    for (int i = 0; i < 40; ++i) {
      const auto part = dm::RowPartition::uniform(MPI_COMM_WORLD, 10 + i);
      void* h = cache.acquire(part.comm(), 0, true, fake.maker(part.comm()));
      if (i == 0) first = h;
      CHECK(h == first);
    }
    CHECK(id_of(first) == 1);
    CHECK(cache.made() == 1);
    // Another device index: its own; the first still serves device 0.
    const auto part = dm::RowPartition::uniform(MPI_COMM_WORLD, 9);
    void* second = cache.acquire(part.comm(), 1, true, fake.maker(part.comm()));
    CHECK(id_of(second) == 2);
    CHECK(cache.acquire(part.comm(), 0, true, fake.maker(part.comm())) == first);
    // One rank not usable: nobody takes the transport, nothing is made.
    CHECK(cache.acquire(part.comm(), 0, me != p - 1, fake.maker(part.comm())) == nullptr);
    CHECK(cache.made() == 2);
    // Half the ranks: their own group (one rank alone is congruent with a one-rank world: shared).
    MPI_Comm half = MPI_COMM_NULL;
    MPI_Comm_split(MPI_COMM_WORLD, me % 2, me, &half);
    void* h_half = cache.acquire(half, 0, true, fake.maker(half));
    CHECK(id_of(h_half) == (p == 1 ? 1 : 3));
    CHECK(cache.acquire(half, 0, true, fake.maker(half)) == h_half);
    // The same ranks in another order are another communicator (NCCL ranks follow the order).
    MPI_Comm reversed = MPI_COMM_NULL;
    MPI_Comm_split(MPI_COMM_WORLD, 0, p - me, &reversed);
    void* h_rev = cache.acquire(reversed, 0, true, fake.maker(reversed));
    if (p > 1) {
      CHECK(h_rev != first);
      CHECK(h_rev != h_half);
    } else {
      CHECK(h_rev == first);
    }
    // Rank 0 now on device 1 while the others stay on 0: every rank holds an entry, but from
    // different creations (rank 0's from the device-1 one): a new one is made by all.
    const int made_before = cache.made();
    void* mixed = cache.acquire(part.comm(), me == 0 ? 1 : 0, true, fake.maker(part.comm()));
    if (p > 1) {
      CHECK(cache.made() == made_before + 1);
      CHECK(id_of(mixed) == cache.made());
      // ... and serves from then on, for both keys.
      CHECK(cache.acquire(part.comm(), me == 0 ? 1 : 0, true, fake.maker(part.comm())) == mixed);
    } else {
      CHECK(mixed == second);
    }
    const int total = cache.made();
    CHECK(fake.destroyed.empty());
    cache.clear();  // collective: every rank destroys in the order made
    std::vector<int> in_order(static_cast<std::size_t>(total));
    for (int i = 0; i < total; ++i) in_order[static_cast<std::size_t>(i)] = i + 1;
    CHECK(fake.destroyed == in_order);
    MPI_Comm_free(&half);
    MPI_Comm_free(&reversed);
  }
  // A creation that fails on one rank throws on every rank and keeps nothing.
  CommCache cache;
  const auto part = dm::RowPartition::uniform(MPI_COMM_WORLD, 5);
  CHECK_THROWS_AS(cache.acquire(part.comm(), 0, true,
                                [&](MPI_Comm own) {
                                  dm::detail::agree(own, {"fake creation", 0}, [&] {
                                    if (me == p - 1) throw BackendUnavailable("no device here");
                                  });
                                  return CommCache::Handle();
                                }),
                  BackendUnavailable);
  CHECK(cache.made() == 0);
  CHECK(id_of(cache.acquire(part.comm(), 0, true, fake.maker(part.comm()))) == fake.made);
}

// What the NCCL test timeout on 2 GPUs came from: a communicator per partition. Here a loop of
// partitions, vectors, reductions and products on each; on cuda ranks with NCCL at most one
// communicator is made for all of them (none when one was made before), elsewhere none.
TEST_CASE("mpi many partitions and vectors in a loop share one device communicator") {
  const Device dev = rank_device();
  const Queue q = dev.queue();
  const int before = dm::detail::nccl_communicators_made();
  double total = 0;
  for (int i = 0; i < 60; ++i) {
    const std::int64_t n = 7 + 3 * i;
    const auto part = i % 2 == 0 ? dm::RowPartition::uniform(MPI_COMM_WORLD, n)
                                 : dm::RowPartition::from_sizes(MPI_COMM_WORLD, uneven_sizes(n, world_size()), n);
    const auto g = tessera_test::random_vector<double>(static_cast<std::size_t>(n), 100 + i);
    auto x = dm::DistVector<double>::from_global(dev, part, g);
    const auto h = laplacian_2d<double>(n, 2);
    const auto part2 = i % 2 == 0 ? dm::RowPartition::uniform(MPI_COMM_WORLD, 2 * n)
                                  : dm::RowPartition::from_sizes(MPI_COMM_WORLD, uneven_sizes(2 * n, world_size()), 2 * n);
    const auto g2 = tessera_test::random_vector<double>(static_cast<std::size_t>(2 * n), 200 + i);
    const auto A = dm::DistCsrMatrix<double>::from_global(dev, part2, h);
    auto x2 = dm::DistVector<double>::from_global(dev, part2, g2);
    dm::DistVector<double> y2(dev, part2);
    dm::spmv(q, 1.0, A, x2, 0.0, y2);
    Scalar<double> s(dev);
    dm::dot(q, x2, y2, s);
    // x' A x on the host; the distributed sum is within the reordered-sum bound of it.
    double ref = 0, sum_abs = 0;
    for (std::int64_t r = 0; r < h.rows; ++r)
      for (std::int32_t k = h.row_ptr[r]; k < h.row_ptr[r + 1]; ++k) {
        ref += g2[r] * h.values[k] * g2[h.col_idx[k]];
        sum_abs += std::abs(g2[r] * h.values[k] * g2[h.col_idx[k]]);
      }
    CHECK(std::abs(s.get(q) - ref) <= 2 * tessera_test::gamma_bound<double>(2.0 * n + 5) * sum_abs);
    dm::dot(q, x, x, s);
    double xx = 0;
    for (double v : g) xx += v * v;
    CHECK(std::abs(s.get(q) - xx) <= 2 * tessera_test::gamma_bound<double>(static_cast<double>(n)) * xx);
    total += s.get(q);
  }
  CHECK(std::isfinite(total));
  const int made = dm::detail::nccl_communicators_made() - before;
  MESSAGE("NCCL communicators made by 60 partitions: " << made);
  CHECK(made <= 1);
  if (dev.info().backend != "cuda") CHECK(made == 0);
}
