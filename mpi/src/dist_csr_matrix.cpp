// DistCsrMatrix: splitting each rank's rows into the diagonal and off-diagonal blocks, the halo
// plan (two all-to-alls, once), and the distributed SpMV.
#include "tessera/mpi/dist_csr_matrix.hpp"

#include <algorithm>
#include <string>

#include "collective.hpp"
#include "halo.hpp"
#include "nccl.hpp"
#include "tessera/errors.hpp"
#include "tessera/matrix_market.hpp"
#include "timing.hpp"

namespace tessera::mpi {

template <class T>
struct DistCsrMatrix<T>::State {
  RowPartition part;
  std::int64_t nnz = 0;  // global
  CsrMatrix<T> diag, offd;
  // The off-diagonal product runs on these row ranges only (offd's rows with ghosts, grouped;
  // see offd_ranges): the whole-height offd would read its row pointers and read and write all of
  // y for the few rows that have ghosts (one plane of a slab-partitioned grid).
  struct OffdRange {
    std::int64_t first = 0;
    CsrMatrix<T> rows;
  };
  std::vector<OffdRange> offd_ranges;
  std::vector<std::int64_t> ghosts;  // global column of each ghost, ascending: grouped by owner
  // Ghosts arrive from recv_ranks[k] into [recv_displs[k], + recv_counts[k]); rows
  // pack(send_displs[k] .. + send_counts[k]) go to send_ranks[k].
  std::vector<int> recv_ranks, recv_counts, recv_displs, send_ranks, send_counts, send_displs;
  // The pack as a product: row k of this 0/1 matrix picks the local row sent k-th, so packing
  // is one spmv of the existing backends (each product is 1 * x exactly: a copy).
  CsrMatrix<T> pack;
  detail::HaloBuffers<T> halo;
  Queue comm_queue;  // the NCCL path's messages run here, beside the diagonal block's product
};

namespace {

constexpr int kHaloTag = 0x7e55;  // on the partition's own communicator: no clash with the application's

// At most this many off-diagonal row ranges (each is one product on the device), and ranges
// closer than kOffdMergeGap rows are one: an empty row in a range costs its row pointer and
// y's read and write (about 20 bytes), a separate product a launch (microseconds).
constexpr std::size_t kOffdMaxRanges = 8;
constexpr std::int64_t kOffdMergeGap = 4096;

// [first, end) row ranges that hold every row of o with an entry, at most kOffdMaxRanges of them:
// the runs of such rows, joined across gaps < kOffdMergeGap, then across the smallest gaps.
template <class T>
std::vector<std::pair<std::int64_t, std::int64_t>> offd_ranges(const HostCsr<T>& o) {
  std::vector<std::pair<std::int64_t, std::int64_t>> runs;
  for (std::int64_t r = 0; r < o.rows; ++r) {
    if (o.row_ptr[static_cast<std::size_t>(r) + 1] == o.row_ptr[static_cast<std::size_t>(r)]) continue;
    if (!runs.empty() && r - runs.back().second < kOffdMergeGap)
      runs.back().second = r + 1;
    else
      runs.emplace_back(r, r + 1);
  }
  while (runs.size() > kOffdMaxRanges) {
    std::size_t k = 1;  // join run k with run k - 1 across the smallest gap
    for (std::size_t i = 2; i < runs.size(); ++i)
      if (runs[i].first - runs[i - 1].second < runs[k].first - runs[k - 1].second) k = i;
    runs[k - 1].second = runs[k].second;
    runs.erase(runs.begin() + static_cast<std::ptrdiff_t>(k));
  }
  return runs;
}

template <class T>
HostCsr<T> rows_of(const HostCsr<T>& g, std::int64_t begin, std::int64_t end) {
  HostCsr<T> h;
  h.rows = end - begin;
  h.cols = g.cols;
  const auto b = static_cast<std::size_t>(g.row_ptr[static_cast<std::size_t>(begin)]);
  const auto e = static_cast<std::size_t>(g.row_ptr[static_cast<std::size_t>(end)]);
  h.row_ptr.resize(static_cast<std::size_t>(h.rows) + 1);
  for (std::int64_t r = 0; r <= h.rows; ++r)
    h.row_ptr[static_cast<std::size_t>(r)] = g.row_ptr[static_cast<std::size_t>(begin + r)] - static_cast<std::int32_t>(b);
  h.col_idx.assign(g.col_idx.begin() + static_cast<std::ptrdiff_t>(b), g.col_idx.begin() + static_cast<std::ptrdiff_t>(e));
  h.values.assign(g.values.begin() + static_cast<std::ptrdiff_t>(b), g.values.begin() + static_cast<std::ptrdiff_t>(e));
  return h;
}

}  // namespace

template <class T>
DistCsrMatrix<T> DistCsrMatrix<T>::from_local_rows(const Device& device, RowPartition partition,
                                                   const HostCsr<T>& rows) {
  auto st = std::make_shared<State>();
  st->part = partition;
  const std::int64_t b = partition.local_begin(), n = partition.local_size();
  // Split the local rows into the two blocks (a local verdict on the structure, agreed).
  HostCsr<T> d, o;
  const auto all = detail::exchange(partition.comm(), {"DistCsrMatrix::from_local_rows", detail::dtype_code<T>()},
                                    [&](detail::Contribution& c) {
    if (!device) throw InvalidArgument("DistCsrMatrix::from_local_rows: the device handle is empty");
    if (rows.rows != n || rows.cols != partition.size())
      throw DimensionMismatch("DistCsrMatrix::from_local_rows: this rank's rows are " + std::to_string(rows.rows) +
                              " x " + std::to_string(rows.cols) + ", the partition gives it " + std::to_string(n) +
                              " rows of " + std::to_string(partition.size()) + " columns");
    tessera::detail::validate_csr(rows.rows, rows.cols, rows.row_ptr.data(), rows.row_ptr.size(), rows.col_idx.data(),
                                  rows.col_idx.size(), rows.values.size());
    for (std::int32_t col : rows.col_idx)
      if (col < b || col >= b + n) st->ghosts.push_back(col);
    std::sort(st->ghosts.begin(), st->ghosts.end());
    st->ghosts.erase(std::unique(st->ghosts.begin(), st->ghosts.end()), st->ghosts.end());
    d.rows = o.rows = n;
    d.cols = n;
    o.cols = static_cast<std::int64_t>(st->ghosts.size());
    d.row_ptr.assign(static_cast<std::size_t>(n) + 1, 0);
    o.row_ptr.assign(static_cast<std::size_t>(n) + 1, 0);
    for (std::int64_t r = 0; r < n; ++r) {
      for (std::int32_t k = rows.row_ptr[static_cast<std::size_t>(r)]; k < rows.row_ptr[static_cast<std::size_t>(r) + 1]; ++k) {
        const std::int64_t col = rows.col_idx[static_cast<std::size_t>(k)];
        const T v = rows.values[static_cast<std::size_t>(k)];
        if (col >= b && col < b + n) {
          d.col_idx.push_back(static_cast<std::int32_t>(col - b));
          d.values.push_back(v);
        } else {
          o.col_idx.push_back(static_cast<std::int32_t>(
              std::lower_bound(st->ghosts.begin(), st->ghosts.end(), col) - st->ghosts.begin()));
          o.values.push_back(v);
        }
      }
      d.row_ptr[static_cast<std::size_t>(r) + 1] = static_cast<std::int32_t>(d.col_idx.size());
      o.row_ptr[static_cast<std::size_t>(r) + 1] = static_cast<std::int32_t>(o.col_idx.size());
    }
    st->diag = CsrMatrix<T>::from_host(device, d);
    if (o.cols > 0) {
      st->offd = CsrMatrix<T>::from_host(device, o);
      for (const auto& [first, end] : offd_ranges(o)) {
        HostCsr<T> piece = rows_of(o, first, end);
        piece.cols = o.cols;
        st->offd_ranges.push_back({first, CsrMatrix<T>::from_host(device, piece)});
      }
    }
    c.values[0] = static_cast<double>(rows.nnz());
  });
  for (const auto& c : all) st->nnz += static_cast<std::int64_t>(c.values[0]);

  // The halo plan: who needs which of my rows (its ghosts, grouped by owner), in two all-to-alls.
  const int ranks = partition.ranks();
  const MPI_Comm comm = partition.comm();
  std::vector<int> need(static_cast<std::size_t>(ranks), 0), give(static_cast<std::size_t>(ranks), 0);
  for (std::int64_t g : st->ghosts) ++need[static_cast<std::size_t>(partition.owner(g))];
  MPI_Alltoall(need.data(), 1, MPI_INT, give.data(), 1, MPI_INT, comm);
  std::vector<int> need_displs(static_cast<std::size_t>(ranks), 0), give_displs(static_cast<std::size_t>(ranks), 0);
  for (int r = 1; r < ranks; ++r) {
    need_displs[static_cast<std::size_t>(r)] = need_displs[static_cast<std::size_t>(r) - 1] + need[static_cast<std::size_t>(r) - 1];
    give_displs[static_cast<std::size_t>(r)] = give_displs[static_cast<std::size_t>(r) - 1] + give[static_cast<std::size_t>(r) - 1];
  }
  const std::int64_t n_send = ranks > 0 ? give_displs.back() + give.back() : 0;
  std::vector<std::int64_t> wanted(static_cast<std::size_t>(n_send));
  MPI_Alltoallv(st->ghosts.data(), need.data(), need_displs.data(), MPI_INT64_T, wanted.data(), give.data(),
                give_displs.data(), MPI_INT64_T, comm);
  for (int r = 0; r < ranks; ++r) {
    const auto i = static_cast<std::size_t>(r);
    if (need[i] > 0) {
      st->recv_ranks.push_back(r);
      st->recv_counts.push_back(need[i]);
      st->recv_displs.push_back(need_displs[i]);
    }
    if (give[i] > 0) {
      st->send_ranks.push_back(r);
      st->send_counts.push_back(give[i]);
      st->send_displs.push_back(give_displs[i]);
    }
  }
  if (n_send > 0) {
    std::vector<std::int32_t> rp(static_cast<std::size_t>(n_send) + 1), ci(static_cast<std::size_t>(n_send));
    for (std::int64_t k = 0; k < n_send; ++k) {
      rp[static_cast<std::size_t>(k) + 1] = static_cast<std::int32_t>(k + 1);
      ci[static_cast<std::size_t>(k)] = static_cast<std::int32_t>(wanted[static_cast<std::size_t>(k)] - b);
    }
    st->pack = CsrMatrix<T>::from_host(device, n_send, n, rp, ci, std::vector<T>(static_cast<std::size_t>(n_send), T(1)));
  }
  st->halo = detail::HaloBuffers<T>(device, n_send, static_cast<std::int64_t>(st->ghosts.size()));
  DistCsrMatrix m;
  m.st_ = std::move(st);
  return m;
}

template <class T>
DistCsrMatrix<T> DistCsrMatrix<T>::from_global(const Device& device, RowPartition partition, const HostCsr<T>& global) {
  HostCsr<T> mine;
  detail::agree(partition.comm(), {"DistCsrMatrix::from_global", detail::dtype_code<T>()}, [&] {
    if (global.rows != partition.size() || global.cols != partition.size())
      throw DimensionMismatch("DistCsrMatrix::from_global: the matrix is " + std::to_string(global.rows) + " x " +
                              std::to_string(global.cols) + ", the partition has " + std::to_string(partition.size()) +
                              " rows (a square matrix partitioned as its rows is expected)");
    if (global.row_ptr.size() != static_cast<std::size_t>(global.rows) + 1)
      throw InvalidArgument("DistCsrMatrix::from_global: row_ptr has " + std::to_string(global.row_ptr.size()) +
                            " entries, expected rows + 1");
    tessera::detail::validate_csr(global.rows, global.cols, global.row_ptr.data(), global.row_ptr.size(),
                                  global.col_idx.data(), global.col_idx.size(), global.values.size());
    mine = rows_of(global, partition.local_begin(), partition.local_begin() + partition.local_size());
  });
  return from_local_rows(device, std::move(partition), mine);
}

// Rank 0 parses the file once and sends each rank its rows; the other ranks hold only their
// rows (and the row pointer, which the partition by nonzeros needs). Why not every rank parsing
// a byte range of the file: half of the matrices people have are gzip files, which have no
// random access (every rank would decompress the whole stream), and a second, range-based
// parser would duplicate the reader's checks and messages. One parse instead of one per rank
// (which the ranks of a node ran side by side on the same cores), and memory for the whole
// matrix on rank 0 only; Tessera's int32 indices bound that at 2^31 entries, which one host holds.
// A symmetric file's rows come out of the reader already expanded (entries from the other
// triangle included), so what a rank receives is exactly its rows of the one-rank matrix.
template <class T>
DistCsrMatrix<T> DistCsrMatrix<T>::read_matrix_market(const Device& device, MPI_Comm comm, const std::string& path,
                                                      Balance balance) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  HostCsr<T> g;  // the whole matrix, on rank 0 only
  const auto all = detail::exchange(comm, {"DistCsrMatrix::read_matrix_market", detail::dtype_code<T>()},
                                    [&](detail::Contribution& c) {
    if (rank != 0) return;
    g = tessera::read_matrix_market<T>(path);
    if (g.rows != g.cols)
      throw DimensionMismatch("DistCsrMatrix::read_matrix_market: '" + path + "' is " + std::to_string(g.rows) +
                              " x " + std::to_string(g.cols) + ", expected a square matrix");
    c.values[0] = static_cast<double>(g.rows);
  });
  const auto rows = static_cast<std::int64_t>(all[0].values[0]);
  std::vector<std::int32_t> row_ptr(static_cast<std::size_t>(rows) + 1);
  if (rank == 0) row_ptr.swap(g.row_ptr);
  MPI_Bcast(row_ptr.data(), static_cast<int>(row_ptr.size()), MPI_INT32_T, 0, comm);
  RowPartition p = balance == Balance::nonzeros ? RowPartition::by_nonzeros(comm, row_ptr)
                                                : RowPartition::uniform(comm, rows);
  std::vector<int> counts(static_cast<std::size_t>(p.ranks())), displs(counts.size());
  for (int r = 0; r < p.ranks(); ++r) {
    displs[static_cast<std::size_t>(r)] = row_ptr[static_cast<std::size_t>(p.begin(r))];
    counts[static_cast<std::size_t>(r)] = row_ptr[static_cast<std::size_t>(p.end(r))] - displs[static_cast<std::size_t>(r)];
  }
  HostCsr<T> mine;
  mine.rows = p.local_size();
  mine.cols = rows;
  const std::int32_t base = row_ptr[static_cast<std::size_t>(p.local_begin())];
  mine.row_ptr.assign(row_ptr.begin() + p.local_begin(), row_ptr.begin() + p.local_begin() + p.local_size() + 1);
  for (std::int32_t& x : mine.row_ptr) x -= base;
  std::vector<std::int32_t>().swap(row_ptr);
  const int n = counts[static_cast<std::size_t>(p.rank())];
  mine.col_idx.resize(static_cast<std::size_t>(n));
  mine.values.resize(static_cast<std::size_t>(n));
  MPI_Scatterv(g.col_idx.data(), counts.data(), displs.data(), MPI_INT32_T, mine.col_idx.data(), n, MPI_INT32_T, 0,
               comm);
  std::vector<std::int32_t>().swap(g.col_idx);
  MPI_Scatterv(g.values.data(), counts.data(), displs.data(), detail::mpi_type<T>(), mine.values.data(), n,
               detail::mpi_type<T>(), 0, comm);
  std::vector<T>().swap(g.values);
  return from_local_rows(device, std::move(p), mine);
}

template <class T>
std::int64_t DistCsrMatrix<T>::rows() const {
  return st_ ? st_->part.size() : 0;
}
template <class T>
std::int64_t DistCsrMatrix<T>::nnz() const {
  return st_ ? st_->nnz : 0;
}
template <class T>
const Device& DistCsrMatrix<T>::device() const {
  static const Device none;
  return st_ ? st_->diag.device() : none;
}
template <class T>
const RowPartition& DistCsrMatrix<T>::partition() const {
  static const RowPartition none;
  return st_ ? st_->part : none;
}
template <class T>
const CsrMatrix<T>& DistCsrMatrix<T>::diagonal_block() const {
  return st_->diag;
}
template <class T>
const CsrMatrix<T>& DistCsrMatrix<T>::off_diagonal_block() const {
  return st_->offd;
}
template <class T>
const std::vector<std::int64_t>& DistCsrMatrix<T>::ghost_columns() const {
  return st_->ghosts;
}
template <class T>
const std::vector<int>& DistCsrMatrix<T>::receive_ranks() const {
  return st_->recv_ranks;
}
template <class T>
const std::vector<int>& DistCsrMatrix<T>::send_ranks() const {
  return st_->send_ranks;
}

namespace {

// y += alpha * (off-diagonal block) * ghosts, range by range, as spmv's products (the same bits
// with and without part). With part, which holds w . y after the diagonal block: each range's
// w . y is taken out before its update and put back after (scratch holds it on the way), so part
// ends as w . y over the final y. The two sums over a range round as any dot does: within a
// dot's bound.
template <class T>
void add_off_diagonal(const Queue& q, T alpha, typename DistCsrMatrix<T>::State& s, DistVector<T>& y,
                      const DistVector<T>* w, Scalar<T>* part, Scalar<T>* scratch) {
  for (auto& range : s.offd_ranges) {
    Vector<T> y_part = y.local().sub(range.first, range.rows.rows());
    if (part == nullptr) {
      tessera::spmv(q, alpha, range.rows, s.halo.recv(), T(1), y_part);
      continue;
    }
    const Vector<T> w_part = w->local().sub(range.first, range.rows.rows());
    Vector<T> sum = part->as_vector();  // a handle to the Scalar's element
    tessera::dot(q, w_part, y_part, *scratch);
    tessera::axpy(q, T(-1), scratch->as_vector(), sum);
    tessera::spmv_dot(q, alpha, range.rows, s.halo.recv(), T(1), y_part, w_part, *scratch);
    tessera::axpy(q, T(1), scratch->as_vector(), sum);
  }
}

// The checks of spmv (and spmv_dot, with w), agreed by every rank before anything moves.
template <class T>
void check_spmv(const char* op, const Queue& q, const DistCsrMatrix<T>& A, const DistVector<T>& x,
                const DistVector<T>& y, const DistVector<T>* w, const Scalar<T>* out) {
  if (!A.state()) throw InvalidArgument(std::string(op) + ": the distributed matrix is empty (default-constructed)");
  const auto& s = *A.state();
  detail::agree(s.part.comm(), {op, detail::dtype_code<T>()}, [&] {
    if (x.partition() != s.part || y.partition() != s.part || (w != nullptr && w->partition() != s.part))
      throw DimensionMismatch(std::string(op) + ": A has " + std::to_string(A.rows()) + " rows, x " +
                              std::to_string(x.size()) + " and y " + std::to_string(y.size()) +
                              " elements; A, x, y (and w) must share one RowPartition");
    for (const Device* d : {&x.device(), &y.device(), &q.device(), w != nullptr ? &w->device() : &x.device()})
      if (*d != A.device())
        throw DeviceMismatch(std::string(op) + ": an operand or the queue lives on " + d->spec() + ", A on " +
                             A.device().spec());
    if (shares_elements(x, y)) throw InvalidArgument(std::string(op) + ": x and y must be different vectors");
    if (w != nullptr && shares_elements(*w, y)) throw InvalidArgument(std::string(op) + ": w and y must be different vectors");
    if (out != nullptr && out->device() != A.device())
      throw DeviceMismatch(std::string(op) + ": the result Scalar lives on " + out->device().spec() + ", A on " +
                           A.device().spec());
  });
}

// spmv after the checks; with part (MPI path only): part = w . y over this rank's rows.
template <class T>
void spmv_unchecked(const Queue& q, T alpha, const DistCsrMatrix<T>& A, const DistVector<T>& x, T beta,
                    DistVector<T>& y, const DistVector<T>* w, Scalar<T>* part, Scalar<T>* scratch) {
  auto& s = *A.state();
  const MPI_Comm comm = s.part.comm();
  detail::PhaseClock clock(q);
  auto& halo = s.halo;
  if (detail::Nccl* nccl = detail::nccl_for(s.part, A.device())) {
    // On the device's streams: pack on q; the messages on the communication queue once the pack
    // (and the previous product reading the ghosts) is done; the diagonal block meanwhile on q;
    // the off-diagonal block after the messages. No host wait.
    if (!s.comm_queue) s.comm_queue = A.device().new_queue();
    const Queue& cq = s.comm_queue;
    if (s.pack.rows() > 0) tessera::spmv(q, T(1), s.pack, x.local(), T(0), halo.send());
    clock.lap(&PhaseTimes::local);
    cq.wait(q.record());
    detail::nccl_group_start(nccl);
    for (std::size_t k = 0; k < s.recv_ranks.size(); ++k)
      detail::nccl_recv(nccl, detail::device_pointer(halo.recv()) + s.recv_displs[k],
                        static_cast<std::size_t>(s.recv_counts[k]), sizeof(T), s.recv_ranks[k], cq);
    for (std::size_t k = 0; k < s.send_ranks.size(); ++k)
      detail::nccl_send(nccl, detail::device_pointer(halo.send()) + s.send_displs[k],
                        static_cast<std::size_t>(s.send_counts[k]), sizeof(T), s.send_ranks[k], cq);
    detail::nccl_group_end(nccl);
    if (detail::timing_on()) cq.synchronize();
    clock.lap(&PhaseTimes::halo);
    tessera::spmv(q, alpha, s.diag, x.local(), beta, y.local());
    clock.lap(&PhaseTimes::local);
    q.wait(cq.record());
    add_off_diagonal<T>(q, alpha, s, y, nullptr, nullptr, nullptr);
    clock.lap(&PhaseTimes::local);
    if (detail::timing_on()) ++detail::times().spmvs;
    return;
  }
  const MPI_Datatype type = detail::mpi_type<T>();
  std::vector<MPI_Request> requests(s.recv_ranks.size() + s.send_ranks.size(), MPI_REQUEST_NULL);
  // 1. Receives first, so no message waits for its buffer.
  halo.recv_writable();
  T* recv = halo.recv_mpi();
  for (std::size_t k = 0; k < s.recv_ranks.size(); ++k)
    MPI_Irecv(recv + s.recv_displs[k], s.recv_counts[k], type, s.recv_ranks[k], kHaloTag, comm, &requests[k]);
  // 2. Pack the rows others need on the device; stage them; send.
  clock.lap(&PhaseTimes::halo);
  if (s.pack.rows() > 0) tessera::spmv(q, T(1), s.pack, x.local(), T(0), halo.send());
  clock.lap(&PhaseTimes::local);
  halo.send_ready(q);
  T* send = halo.send_mpi();
  for (std::size_t k = 0; k < s.send_ranks.size(); ++k) {
    MPI_Isend(send + s.send_displs[k], s.send_counts[k], type, s.send_ranks[k], kHaloTag, comm,
              &requests[s.recv_ranks.size() + k]);
    if (detail::timing_on()) detail::times().halo_bytes += static_cast<std::int64_t>(s.send_counts[k] * sizeof(T));
  }
  clock.lap(&PhaseTimes::halo);
  // 3. The diagonal block's product while the messages travel.
  if (part != nullptr)
    tessera::spmv_dot(q, alpha, s.diag, x.local(), beta, y.local(), w->local(), *part);
  else
    tessera::spmv(q, alpha, s.diag, x.local(), beta, y.local());
  clock.lap(&PhaseTimes::local);
  // 4. Ghosts in; the off-diagonal block's product added.
  MPI_Waitall(static_cast<int>(requests.size()), requests.data(), MPI_STATUSES_IGNORE);
  halo.recv_done(q);
  clock.lap(&PhaseTimes::halo);
  add_off_diagonal<T>(q, alpha, s, y, w, part, scratch);
  clock.lap(&PhaseTimes::local);
  if (detail::timing_on()) ++detail::times().spmvs;
}

}  // namespace

template <class T>
void spmv(const Queue& q, tessera::detail::same_t<T> alpha, const DistCsrMatrix<T>& A, const DistVector<T>& x,
          tessera::detail::same_t<T> beta, DistVector<T>& y) {
  check_spmv<T>("spmv", q, A, x, y, nullptr, nullptr);
  spmv_unchecked<T>(q, alpha, A, x, beta, y, nullptr, nullptr, nullptr);
}

template <class T>
void spmv_dot(const Queue& q, tessera::detail::same_t<T> alpha, const DistCsrMatrix<T>& A, const DistVector<T>& x,
              tessera::detail::same_t<T> beta, DistVector<T>& y, const DistVector<T>& w, Scalar<T>& out) {
  // Every check first, agreed (w's partition and out's device too): one rank's error reaches
  // all before anything moves. On the NCCL path a w on another partition would otherwise reach
  // the dot, which would open that partition's communicator on one rank only and hang.
  check_spmv<T>("spmv_dot", q, A, x, y, &w, &out);
  if (detail::nccl_for(x.partition(), x.device()) != nullptr) {  // on the device's streams, no host wait
    spmv_unchecked<T>(q, alpha, A, x, beta, y, nullptr, nullptr, nullptr);
    dot(q, w, y, out);
    return;
  }
  Scalar<T>* parts = y.partials();
  spmv_unchecked<T>(q, alpha, A, x, beta, y, &w, &parts[0], &parts[1]);
  // Every rank's w . y, summed in rank order in double, as the distributed dot does.
  detail::PhaseClock clock(q);
  const auto all = detail::exchange(A.state()->part.comm(), {"spmv_dot sum", detail::dtype_code<T>()},
                                    [&](detail::Contribution& c) { c.values[0] = static_cast<double>(parts[0].get(q)); });
  double sum = 0.0;
  for (const auto& c : all) sum += c.values[0];
  out.set(q, static_cast<T>(sum));
  clock.lap(&PhaseTimes::allreduce);
  if (detail::timing_on()) ++detail::times().reductions;
}

template class DistCsrMatrix<float>;
template class DistCsrMatrix<double>;
template void spmv_dot<float>(const Queue&, float, const DistCsrMatrix<float>&, const DistVector<float>&, float,
                              DistVector<float>&, const DistVector<float>&, Scalar<float>&);
template void spmv_dot<double>(const Queue&, double, const DistCsrMatrix<double>&, const DistVector<double>&, double,
                               DistVector<double>&, const DistVector<double>&, Scalar<double>&);
template void spmv<float>(const Queue&, float, const DistCsrMatrix<float>&, const DistVector<float>&, float,
                          DistVector<float>&);
template void spmv<double>(const Queue&, double, const DistCsrMatrix<double>&, const DistVector<double>&, double,
                           DistVector<double>&);

}  // namespace tessera::mpi
