// RowPartition, DistVector and the distributed vector algebra against the same operation on one
// device over the whole vector.
#include "support.hpp"

using namespace tessera;
using namespace tessera_mpi_test;
namespace dm = tessera::mpi;

TEST_CASE("mpi partition: blocks from local sizes, sizes, nonzeros; owner") {
  const int p = world_size(), me = world_rank();
  const auto a = dm::RowPartition::from_local_size(MPI_COMM_WORLD, 3 * me + 1);
  CHECK(a.ranks() == p);
  CHECK(a.rank() == me);
  CHECK(a.size() == 3 * p * (p - 1) / 2 + p);
  CHECK(a.local_size() == 3 * me + 1);
  for (int r = 0; r < p; ++r) {
    CHECK(a.owner(a.begin(r)) == r);
    CHECK(a.owner(a.end(r) - 1) == r);
  }
  const auto u = dm::RowPartition::uniform(MPI_COMM_WORLD, 10);
  std::int64_t sum = 0;
  for (int r = 0; r < p; ++r) {
    CHECK(u.end(r) - u.begin(r) >= 10 / p);
    CHECK(u.end(r) - u.begin(r) <= 10 / p + 1);
    sum += u.end(r) - u.begin(r);
  }
  CHECK(sum == 10);
  // An empty rank owns nothing; owner skips it.
  const auto e = dm::RowPartition::from_sizes(MPI_COMM_WORLD, uneven_sizes(17, p), 17);
  if (p >= 2) {
    CHECK(e.begin(1) == e.end(1));
    if (e.begin(1) < e.size()) CHECK(e.owner(e.begin(1)) != 1);
  }
  // By nonzeros: rows of lengths 1..n; each block's count is within one row of the share.
  const auto h = laplacian_2d<double>(9, 7);
  const auto z = dm::RowPartition::by_nonzeros(MPI_COMM_WORLD, h.row_ptr);
  CHECK(z.size() == h.rows);
  int longest = 0;
  for (std::int64_t r = 0; r < h.rows; ++r) longest = std::max(longest, h.row_ptr[r + 1] - h.row_ptr[r]);
  for (int r = 0; r < p; ++r) {
    const double nnz_r = h.row_ptr[z.end(r)] - h.row_ptr[z.begin(r)];
    CHECK(std::abs(nnz_r - static_cast<double>(h.nnz()) / p) <= longest);
  }
}

TEST_CASE_TEMPLATE("mpi vector: from_global / to_global round trip", T, float, double) {
  const Device dev = rank_device();
  for (const auto& [name, part] : partitions(101)) {
    CAPTURE(name);
    const auto g = tessera_test::random_vector<T>(101, 5);
    const auto v = dm::DistVector<T>::from_global(dev, part, g);
    CHECK(v.local().size() == part.local_size());
    CHECK(tessera_test::check_bitwise(v.to_global(), g, "round trip"));
  }
}

// The element-wise operations split exactly: the same arithmetic per element, so each rank's
// block is bit-identical to the same operation on the whole vector on that rank's device (ranks
// on different kinds of device round differently: each is compared with its own).
template <class T>
bool same_block(const dm::DistVector<T>& y, const std::vector<T>& whole, const char* what) {
  const auto b = whole.begin() + y.partition().local_begin();
  return tessera_test::check_bitwise(y.local().to_host(), std::vector<T>(b, b + y.partition().local_size()), what);
}

TEST_CASE_TEMPLATE("mpi vector algebra: element-wise operations bit-identical to one device", T, float, double) {
  const Device dev = rank_device();
  const Queue q = dev.queue();
  const std::int64_t n = 1031;  // prime: no rank's block is a multiple of a SIMD width
  const auto gx = tessera_test::random_vector<T>(n, 11), gy = tessera_test::random_vector<T>(n, 12),
             gz = tessera_test::random_vector<T>(n, 13, 0.5, 2.0);
  for (const auto& [name, part] : partitions(n)) {
    CAPTURE(name);
    auto X = Vector<T>::from_host(dev, gx), Y = Vector<T>::from_host(dev, gy), Z = Vector<T>::from_host(dev, gz);
    auto x = dm::DistVector<T>::from_global(dev, part, gx), y = dm::DistVector<T>::from_global(dev, part, gy),
         z = dm::DistVector<T>::from_global(dev, part, gz);
    Scalar<T> s(dev, T(0.75)), t(dev, T(-1.25));
    dm::axpy(q, ScalarArg<T>(s) / t, x, y);
    axpy(q, ScalarArg<T>(s) / t, X, Y);
    CHECK(same_block(y, Y.to_host(), "axpy"));
    dm::axpby(q, T(0.3), x, s, y);
    axpby(q, T(0.3), X, s, Y);
    CHECK(same_block(y, Y.to_host(), "axpby"));
    dm::scal(q, -ScalarArg<T>(t), y);
    scal(q, -ScalarArg<T>(t), Y);
    CHECK(same_block(y, Y.to_host(), "scal"));
    dm::multiply(q, x, z, y);
    multiply(q, X, Z, Y);
    CHECK(same_block(y, Y.to_host(), "multiply"));
    dm::divide(q, x, z, y);
    divide(q, X, Z, Y);
    CHECK(same_block(y, Y.to_host(), "divide"));
    dm::reciprocal(q, z, y);
    reciprocal(q, Z, Y);
    CHECK(same_block(y, Y.to_host(), "reciprocal"));
    dm::copy(q, x, y);
    CHECK(same_block(y, gx, "copy"));
    dm::fill(q, t, y);
    CHECK(same_block(y, std::vector<T>(n, T(-1.25)), "fill"));
  }
}

// Reductions sum in another order than one device: each rank's partial is a k-term sum in T
// (error <= gamma_k sum |terms|), the ranks' partials are summed in double and rounded once (u
// |s|); one device's is also within gamma_n sum |terms| of the exact value. So the two differ
// by at most 2 gamma_n sum |terms| + 2 u |s| (check_close adds the 2 u |ref| term).
template <class T>
void check_sum(T got, T ref, double abs_terms, std::int64_t n, const char* what) {
  CAPTURE(what);
  CHECK(tessera_test::check_close(std::vector<T>{got}, std::vector<T>{ref},
                                  std::vector<double>{2 * tessera_test::gamma_bound<T>(static_cast<double>(n)) * abs_terms},
                                  what));
}

TEST_CASE_TEMPLATE("mpi vector algebra: reductions within the bound of a reordered sum, same on every rank", T, float,
                   double) {
  const Device dev = rank_device();
  const Queue q = dev.queue();
  for (std::int64_t n : {std::int64_t{0}, std::int64_t{1}, std::int64_t{7}, std::int64_t{4099}}) {
    const auto gx = tessera_test::random_vector<T>(static_cast<std::size_t>(n), 21),
               gy = tessera_test::random_vector<T>(static_cast<std::size_t>(n), 22),
               gw = tessera_test::random_vector<T>(static_cast<std::size_t>(n), 23);
    double xy = 0, xx = 0, xw = 0;
    for (std::int64_t i = 0; i < n; ++i) {
      xy += std::abs(double(gx[i]) * gy[i]);
      xx += double(gx[i]) * gx[i];
      xw += std::abs(double(gx[i]) * gw[i]);
    }
    for (const auto& [name, part] : partitions(n)) {
      CAPTURE(name);
      CAPTURE(n);
      auto X = Vector<T>::from_host(dev, gx), Y = Vector<T>::from_host(dev, gy), W = Vector<T>::from_host(dev, gw);
      auto x = dm::DistVector<T>::from_global(dev, part, gx), y = dm::DistVector<T>::from_global(dev, part, gy),
           w = dm::DistVector<T>::from_global(dev, part, gw);
      Scalar<T> a(dev), b(dev), A(dev), B(dev);
      dm::dot(q, x, y, a);
      dot(q, X, Y, A);
      check_sum(a.get(q), A.get(q), xy, n, "dot");
      dm::norm2(q, x, a);
      norm2(q, X, A);
      // sqrt halves the relative error of the sum of squares.
      check_sum(a.get(q), A.get(q), std::sqrt(xx), n, "norm2");
      dm::reduce(q, ReduceOp::sum, x, a);
      reduce(q, ReduceOp::sum, X, A);
      double sx = 0;
      for (auto v : gx) sx += std::abs(double(v));
      check_sum(a.get(q), A.get(q), sx, n, "sum");
      dm::reduce(q, ReduceOp::max_abs, x, a);
      reduce(q, ReduceOp::max_abs, X, A);
      CHECK(a.get(q) == A.get(q));
      if (n > 0) {
        dm::reduce(q, ReduceOp::min, x, a);
        reduce(q, ReduceOp::min, X, A);
        CHECK(a.get(q) == A.get(q));
        dm::reduce(q, ReduceOp::max, x, a);
        reduce(q, ReduceOp::max, X, A);
        CHECK(a.get(q) == A.get(q));
      } else {
        CHECK_THROWS_AS(dm::reduce(q, ReduceOp::min, x, a), InvalidArgument);
      }
      dm::dot2(q, x, y, w, a, b);
      dot2(q, X, Y, W, A, B);
      check_sum(a.get(q), A.get(q), xy, n, "dot2 xy");
      check_sum(b.get(q), B.get(q), xw, n, "dot2 xw");
      // axpby_dot: the update is element-wise (bit-identical), its dot a reordered sum.
      dm::axpby_dot(q, T(0.5), x, T(-2), y, w, a);
      axpby_dot(q, T(0.5), X, T(-2), Y, W, A);
      CHECK(same_block(y, Y.to_host(), "axpby_dot update"));
      const auto yy = Y.to_host();
      double yw = 0;
      for (std::int64_t i = 0; i < n; ++i) yw += std::abs(double(yy[i]) * gw[i]);
      check_sum(a.get(q), A.get(q), yw, n, "axpby_dot dot");
      // Every rank holds the same bits.
      dm::dot(q, x, w, a);
      T mine = a.get(q), lo = mine, hi = mine;
      MPI_Allreduce(MPI_IN_PLACE, &lo, 1, sizeof(T) == 4 ? MPI_FLOAT : MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD);
      MPI_Allreduce(MPI_IN_PLACE, &hi, 1, sizeof(T) == 4 ? MPI_FLOAT : MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
      CHECK(lo == hi);
    }
  }
}

TEST_CASE("mpi transport: host devices use MPI on their memory, others stage through host memory") {
  const Device dev = rank_device();
  const std::string t = dm::transport(dev);
  MESSAGE("rank " << world_rank() << " of " << world_size() << ": " << dev.spec() << ", halo transport: " << t);
  if (dev.info().backend == "cpu" || dev.info().backend == "reference")
    CHECK(t == "host memory (no staging)");
  else if (dev.info().backend == "opencl")
    CHECK(t == "host-staged");
  else
    CHECK(t.find("CUDA") != std::string::npos);
}
