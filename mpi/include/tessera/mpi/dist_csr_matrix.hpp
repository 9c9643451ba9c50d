/// \file
/// DistCsrMatrix<T>: a square sparse matrix whose rows are spread over the ranks (the rows and
/// the columns follow one RowPartition), and the distributed SpMV.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "tessera/csr_matrix.hpp"
#include "tessera/mpi/algebra.hpp"
#include "tessera/ops.hpp"
#include "tessera/mpi/dist_vector.hpp"

namespace tessera::mpi {

/// How a matrix read from a file is split over the ranks.
enum class Balance {
  rows,      ///< equal row counts (RowPartition::uniform)
  nonzeros,  ///< about equal nonzeros (RowPartition::by_nonzeros)
};

/// A square CSR matrix distributed by rows. Each rank holds its rows as two CSR matrices on its
/// device: the diagonal block (the columns it owns, renumbered from 0) and the off-diagonal
/// block over its ghost columns (the columns other ranks own that its rows touch, sorted and
/// numbered from 0). The halo plan (which of its rows each rank sends, which ghosts it
/// receives from whom) is built once, at construction. A handle: copies share everything.
///
/// Construction is collective; a bad structure on any rank throws InvalidArgument on every rank.
template <class T>
class DistCsrMatrix {
 public:
  DistCsrMatrix() = default;
  /// This rank's rows: `rows` has partition.local_size() rows and partition.size() columns,
  /// column indices global.
  static DistCsrMatrix from_local_rows(const Device& device, RowPartition partition, const HostCsr<T>& rows);
  /// Each rank keeps its rows of `global` (the same square matrix on every rank).
  static DistCsrMatrix from_global(const Device& device, RowPartition partition, const HostCsr<T>& global);
  /// Reads a Matrix Market file (tessera::read_matrix_market) and splits it by `balance`: rank 0
  /// parses the file (only rank 0 needs to see it, and only rank 0 needs the whole matrix's
  /// host memory) and sends every rank its rows; the others hold their rows and the global row
  /// pointer. Symmetric files give both triangles, as on one rank. Errors (no such file, a
  /// parse error, a matrix that is not square) are thrown on every rank.
  static DistCsrMatrix read_matrix_market(const Device& device, MPI_Comm comm, const std::string& path,
                                          Balance balance = Balance::nonzeros);

  std::int64_t rows() const;                   ///< global rows
  std::int64_t cols() const { return rows(); }  ///< global columns (square)
  std::int64_t nnz() const;                    ///< global stored entries
  const Device& device() const;                ///< this rank's device
  const RowPartition& partition() const;       ///< rows and columns
  MPI_Comm comm() const { return partition().comm(); }  ///< the partition's communicator
  const CsrMatrix<T>& diagonal_block() const;      ///< this rank's rows x its own columns
  const CsrMatrix<T>& off_diagonal_block() const;  ///< this rank's rows x its ghost columns (may be empty)
  const std::vector<std::int64_t>& ghost_columns() const;  ///< global index of each ghost column
  /// The ranks this rank receives ghosts from / sends rows to (its halo neighbours).
  ///@{
  const std::vector<int>& receive_ranks() const;
  const std::vector<int>& send_ranks() const;
  ///@}

  struct State;  ///< the blocks, the halo plan and its staging buffers (mpi/src)
  /// The state, for the library's own operations.
  const std::shared_ptr<State>& state() const { return st_; }

 private:
  std::shared_ptr<State> st_;
};

/// y = alpha * A * x + beta * y (collective). The halo exchange overlaps the local product:
/// ghost values are packed on the device, sent (non-blocking, staged through host memory unless
/// the device is the host), the diagonal block's product runs meanwhile, and the off-diagonal
/// block's product is added once the ghosts arrived. x, y and A share one partition
/// (DimensionMismatch on every rank); devices are checked on every rank before anything moves.
template <class T>
void spmv(const Queue& q, tessera::detail::same_t<T> alpha, const DistCsrMatrix<T>& A, const DistVector<T>& x,
          tessera::detail::same_t<T> beta, DistVector<T>& y);

/// y = alpha * A * x + beta * y, then out = w . y over every rank's rows (collective): CG's A p
/// and p . Ap. On the MPI path the diagonal block's product and its dot are one pass where the
/// backend fuses them (tessera::spmv_dot), the off-diagonal ranges add theirs; the sum is taken in
/// rank order as dot's. On the NCCL path it is spmv, then dot (no host wait). The checks of spmv,
/// and w on the same partition and device, not sharing y's elements.
template <class T>
void spmv_dot(const Queue& q, tessera::detail::same_t<T> alpha, const DistCsrMatrix<T>& A, const DistVector<T>& x,
              tessera::detail::same_t<T> beta, DistVector<T>& y, const DistVector<T>& w, Scalar<T>& out);

}  // namespace tessera::mpi
