// The distributed SpMV against spmv on one device over the whole matrix.
#include <algorithm>

#include "support.hpp"

using namespace tessera;
using namespace tessera_mpi_test;
namespace dm = tessera::mpi;

namespace {

// y = alpha A x + beta y, distributed, and the bound it must meet. The distributed row sum adds
// the diagonal block's products, then the off-diagonal block's: the same k terms (plus beta y)
// in another order, so both results lie within gamma_{k+1} (|alpha| |A| |x| + |beta| |y|)_i of
// the exact value, and within twice that of each other.
template <class T>
void check_spmv(const Device& dev, const dm::RowPartition& part, const HostCsr<T>& h, const char* what) {
  CAPTURE(what);
  const Queue q = dev.queue();
  const auto gx = tessera_test::random_vector<T>(static_cast<std::size_t>(h.cols), 31);
  const auto gy = tessera_test::random_vector<T>(static_cast<std::size_t>(h.rows), 32);
  const T alpha = T(1.5), beta = T(-0.75);
  const auto A = dm::DistCsrMatrix<T>::from_global(dev, part, h);
  auto x = dm::DistVector<T>::from_global(dev, part, gx), y = dm::DistVector<T>::from_global(dev, part, gy);
  dm::spmv(q, alpha, A, x, beta, y);
  const auto got = y.to_global();

  const auto S = CsrMatrix<T>::from_host(dev, h);
  auto X = Vector<T>::from_host(dev, gx), Y = Vector<T>::from_host(dev, gy);
  spmv(q, alpha, S, X, beta, Y);
  const auto ref = Y.to_host();
  std::vector<double> bound(ref.size());
  for (std::int64_t i = 0; i < h.rows; ++i) {
    double s = std::abs(double(beta) * gy[i]);
    for (std::int32_t k = h.row_ptr[i]; k < h.row_ptr[i + 1]; ++k)
      s += std::abs(double(alpha) * h.values[k] * gx[h.col_idx[k]]);
    bound[i] = 2 * tessera_test::gamma_bound<T>(h.row_ptr[i + 1] - h.row_ptr[i] + 1) * s;
  }
  CHECK(tessera_test::check_close(got, ref, bound, what));
  // Again on the same input: the halo plan and its buffers are reused, the bits are the same.
  auto y2 = dm::DistVector<T>::from_global(dev, part, gy);
  dm::spmv(q, alpha, A, x, beta, y2);
  CHECK(tessera_test::check_bitwise(y2.to_global(), got, "second spmv"));
}

}  // namespace

TEST_CASE_TEMPLATE("mpi spmv: random, Laplacian and banded matrices, uniform and uneven partitions", T, float, double) {
  const Device dev = rank_device();
  for (const auto& [name, part] : partitions(613)) {
    CAPTURE(name);
    check_spmv<T>(dev, part, random_csr<T>(613, 613, 0, 17, 7), "random 613");
  }
  const auto lap = laplacian_3d<T>(9, 8, 7);
  for (const auto& [name, part] : partitions(lap.rows)) {
    CAPTURE(name);
    check_spmv<T>(dev, part, lap, "laplacian 9x8x7");
  }
  for (const auto& [name, part] : partitions(0)) check_spmv<T>(dev, part, HostCsr<T>{}, "empty");
}

// The off-diagonal product runs on row ranges that hold the rows with ghosts (at most 8, runs
// joined across gaps): here the rows with an entry in another rank's rows come every 5003 and
// every 7919 rows (more runs than ranges at 2 and 3 ranks, gaps of several sizes), and three
// sit next to each other.
TEST_CASE_TEMPLATE("mpi spmv: rows with ghosts scattered over many far-apart runs", T, float, double) {
  const std::int64_t n = 60013;
  HostCsr<T> h;
  h.rows = h.cols = n;
  h.row_ptr.assign(1, 0);
  tessera_test::Rng rng(77);
  for (std::int64_t i = 0; i < n; ++i) {
    std::vector<std::int64_t> cols = {i};
    if (i % 5003 == 0 || i % 7919 == 1 || (i > 30000 && i < 30004)) cols.push_back((i + n / 2 + 5) % n);
    std::sort(cols.begin(), cols.end());
    for (std::int64_t c : cols) {
      h.col_idx.push_back(static_cast<std::int32_t>(c));
      h.values.push_back(static_cast<T>(rng.signed_unit()));
    }
    h.row_ptr.push_back(static_cast<std::int32_t>(h.col_idx.size()));
  }
  const Device dev = rank_device();
  for (const auto& [name, part] : partitions(n)) {
    CAPTURE(name);
    check_spmv<T>(dev, part, h, "scattered ghost rows");
  }
}

TEST_CASE("mpi spmv: one rank is bit-identical to one device; the halo plan is as the structure says") {
  const Device dev = rank_device();
  const Queue q = dev.queue();
  const auto h = laplacian_2d<double>(23, 19);
  const auto part = dm::RowPartition::uniform(MPI_COMM_WORLD, h.rows);
  const auto A = dm::DistCsrMatrix<double>::from_global(dev, part, h);
  CHECK(A.nnz() == h.nnz());
  // A 5-point Laplacian on a row-major grid: rank blocks of >= nx rows touch only their
  // neighbours' boundary rows.
  std::int64_t ghosts_expected = 0;
  const std::int64_t b = part.local_begin(), e = b + part.local_size();
  std::vector<int> expect_ranks;
  for (std::int64_t c = 0; c < h.rows; ++c) {
    if (c >= b && c < e) continue;
    bool touched = false;
    for (std::int64_t r = b; r < e && !touched; ++r)
      for (std::int32_t k = h.row_ptr[r]; k < h.row_ptr[r + 1]; ++k) touched |= h.col_idx[k] == c;
    if (touched) {
      ++ghosts_expected;
      const int o = part.owner(c);
      if (expect_ranks.empty() || expect_ranks.back() != o) expect_ranks.push_back(o);
    }
  }
  CHECK(static_cast<std::int64_t>(A.ghost_columns().size()) == ghosts_expected);
  CHECK(A.receive_ranks() == expect_ranks);
  CHECK(A.send_ranks() == expect_ranks);  // symmetric structure: send to whom you receive from
  if (world_size() == 1) {
    const auto gx = tessera_test::random_vector<double>(static_cast<std::size_t>(h.rows), 3);
    auto x = dm::DistVector<double>::from_global(dev, part, gx), y = dm::DistVector<double>(dev, part);
    dm::spmv(q, 1.0, A, x, 0.0, y);
    const auto S = CsrMatrix<double>::from_host(dev, h);
    auto X = Vector<double>::from_host(dev, gx), Y = Vector<double>(dev, h.rows);
    spmv(q, 1.0, S, X, 0.0, Y);
    CHECK(tessera_test::check_bitwise(y.to_global(), Y.to_host(), "1 rank"));
  }
}

TEST_CASE("mpi spmv: a rank with no ghosts (block-diagonal matrix) exchanges nothing") {
  const Device dev = rank_device();
  const auto part = dm::RowPartition::from_sizes(MPI_COMM_WORLD, uneven_sizes(200, world_size()), 200);
  // Each rank's rows touch only its own columns.
  HostCsr<double> h;
  h.rows = h.cols = 200;
  for (std::int64_t r = 0; r < 200; ++r) {
    const int o = part.owner(r);
    for (std::int64_t c = std::max(part.begin(o), r - 2); c < std::min(part.end(o), r + 3); ++c) {
      h.col_idx.push_back(static_cast<std::int32_t>(c));
      h.values.push_back(c == r ? 4.0 : -1.0 / (1 + c + r));
    }
    h.row_ptr.push_back(static_cast<std::int32_t>(h.col_idx.size()));
  }
  const auto A = dm::DistCsrMatrix<double>::from_global(dev, part, h);
  CHECK(A.ghost_columns().empty());
  CHECK(A.receive_ranks().empty());
  CHECK(A.send_ranks().empty());
  check_spmv<double>(dev, part, h, "block diagonal");
}

TEST_CASE_TEMPLATE("mpi spmv: matrices of the shared collection, read in parallel", T, float, double) {
  const Device dev = rank_device();
  // Symmetric (one triangle stored: a rank's rows take entries from the other one too), pattern
  // symmetric, general, plain and gzip.
  for (const char* name : {"494_bus.mtx", "bcsstk13.mtx.gz", "cage10.mtx.gz", "gre_1107.mtx", "dwt_992.mtx"}) {
    const std::string path = matrix_path(name);
    if (path.empty()) {
      if (world_rank() == 0) MESSAGE("skipped: " << name << " is not in the shared matrix folder");
      continue;
    }
    CAPTURE(name);
    const auto h = read_matrix_market<T>(path);
    for (const auto balance : {dm::Balance::nonzeros, dm::Balance::rows}) {
      const auto A = dm::DistCsrMatrix<T>::read_matrix_market(dev, MPI_COMM_WORLD, path, balance);
      CHECK(A.rows() == h.rows);
      CHECK(A.nnz() == h.nnz());
      // Each rank's blocks are exactly those of the matrix read whole, split the same way.
      const auto B = dm::DistCsrMatrix<T>::from_global(dev, A.partition(), h);
      CHECK(A.ghost_columns() == B.ghost_columns());
      for (const auto& [a, b] : {std::pair(&A.diagonal_block(), &B.diagonal_block()),
                                 std::pair(&A.off_diagonal_block(), &B.off_diagonal_block())}) {
        CHECK(a->rows() == b->rows());
        CHECK(a->nnz() == b->nnz());
        if (b->rows() == 0) continue;  // an empty rank, or no ghosts
        const auto ha = a->to_host(), hb = b->to_host();
        CHECK(ha.rows == hb.rows);
        CHECK(ha.cols == hb.cols);
        CHECK(ha.row_ptr == hb.row_ptr);
        CHECK(ha.col_idx == hb.col_idx);
        CHECK(tessera_test::check_bitwise(ha.values, hb.values, "values"));
      }
      check_spmv<T>(dev, A.partition(), h, name);
    }
  }
}

// spmv_dot: y as spmv computes it (bit-identical: the same products in the same order), and out
// = w . y over every rank's rows within a dot's bound; w may be x. Bad input on one rank: the same
// error everywhere, y and out untouched, and the ranks still in step.
TEST_CASE_TEMPLATE("mpi spmv_dot: the product as spmv's and w . y over all ranks; bad input", T, float, double) {
  const Device dev = rank_device();
  const Queue q = dev.queue();
  const auto lap = laplacian_3d<T>(11, 9, 13);
  const auto gx = tessera_test::random_vector<T>(static_cast<std::size_t>(lap.rows), 41);
  const auto gy = tessera_test::random_vector<T>(static_cast<std::size_t>(lap.rows), 42);
  const auto gw = tessera_test::random_vector<T>(static_cast<std::size_t>(lap.rows), 43);
  for (const auto& [name, part] : partitions(lap.rows)) {
    CAPTURE(name);
    const auto A = dm::DistCsrMatrix<T>::from_global(dev, part, lap);
    const auto x = dm::DistVector<T>::from_global(dev, part, gx);
    for (bool w_is_x : {false, true}) {
      const auto w = w_is_x ? x : dm::DistVector<T>::from_global(dev, part, gw);
      auto y = dm::DistVector<T>::from_global(dev, part, gy);
      auto y_ref = dm::DistVector<T>::from_global(dev, part, gy);
      Scalar<T> out(dev, T(-1));
      dm::spmv_dot(q, T(1.5), A, x, T(-0.5), y, w, out);
      dm::spmv(q, T(1.5), A, x, T(-0.5), y_ref);
      const auto got = y.to_global();
      CHECK(tessera_test::check_bitwise(got, y_ref.to_global(), "spmv_dot's y vs spmv's"));
      const auto hw = w_is_x ? gx : gw;
      long double dot = 0, dot_abs = 0;
      for (std::size_t i = 0; i < got.size(); ++i) {
        dot += static_cast<long double>(hw[i]) * got[i];
        dot_abs += std::abs(static_cast<long double>(hw[i]) * got[i]);
      }
      const double bound = 2 * tessera_test::gamma_bound<T>(static_cast<double>(got.size()) + 2) * static_cast<double>(dot_abs);
      CHECK(std::abs(static_cast<double>(out.get()) - static_cast<double>(dot)) <= bound);
    }
  }
  // Bad input: w on another partition on one rank; w sharing y.
  const auto part = dm::RowPartition::uniform(MPI_COMM_WORLD, lap.rows);
  const auto A = dm::DistCsrMatrix<T>::from_global(dev, part, lap);
  const auto x = dm::DistVector<T>::from_global(dev, part, gx);
  auto y = dm::DistVector<T>::from_global(dev, part, gy);
  Scalar<T> out(dev, T(7));
  const auto other_part = dm::RowPartition::uniform(MPI_COMM_WORLD, lap.rows + 1);
  const auto w_bad = world_rank() == 0 ? dm::DistVector<T>(dev, other_part) : x;
  CHECK_THROWS_AS(dm::spmv_dot(q, T(1), A, x, T(0), y, w_bad, out), DimensionMismatch);
  CHECK_THROWS_AS(dm::spmv_dot(q, T(1), A, x, T(0), y, y, out), InvalidArgument);
  // The result on another device on the last rank only: DeviceMismatch everywhere, no hang.
  const Device other = Device::open(dev.info().backend == "reference" ? "cpu" : "reference");
  Scalar<T> elsewhere(world_rank() == world_size() - 1 ? other : dev, T(7));
  CHECK_THROWS_AS(dm::spmv_dot(q, T(1), A, x, T(0), y, x, elsewhere), DeviceMismatch);
  CHECK(elsewhere.get() == T(7));
  CHECK(tessera_test::check_bitwise(y.to_global(), gy, "y untouched"));
  CHECK(out.get() == T(7));
  dm::spmv_dot(q, T(1), A, x, T(0), y, x, out);  // still in step
  CHECK(std::isfinite(static_cast<double>(out.get())));
}
