/// \file
/// DistVector<T>: a vector whose rows are spread over the ranks of an MPI communicator.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <vector>

#include "tessera/mpi/partition.hpp"
#include "tessera/scalar.hpp"
#include "tessera/vector.hpp"

namespace tessera::mpi {

/// A distributed vector: each rank holds its block of rows (RowPartition) as a local Vector on
/// its own device (ranks may use different kinds of devices). A handle, as Vector: copies share
/// the elements. size() is the global size; local() the rank's block.
template <class T>
class DistVector {
 public:
  using value_type = T;  ///< the element type
  DistVector() = default;
  /// Allocates this rank's block of `partition` on `device` (contents unspecified). Not
  /// collective.
  DistVector(const Device& device, RowPartition partition)
      : part_(std::move(partition)), local_(device, part_.local_size()) {}
  /// Adopts `local` as this rank's block. Collective: throws DimensionMismatch on every rank if
  /// any rank's local.size() is not its block's size.
  DistVector(RowPartition partition, Vector<T> local);
  /// Each rank keeps its block of `global` (which holds partition.size() elements on every
  /// rank). Collective: DimensionMismatch on every rank when a rank's `global` has another size.
  static DistVector from_global(const Device& device, RowPartition partition, const std::vector<T>& global);
  /// Every rank's block, gathered on every rank (collective; a host wait).
  std::vector<T> to_global() const;

  std::int64_t size() const { return part_.size(); }                 ///< global number of elements
  const RowPartition& partition() const { return part_; }            ///< who owns which rows
  MPI_Comm comm() const { return part_.comm(); }                     ///< the partition's communicator
  const Device& device() const { return local_.device(); }           ///< this rank's device
  const Vector<T>& local() const { return local_; }                  ///< this rank's block
  Vector<T>& local() { return local_; }                              ///< this rank's block

  /// Two device scalars for the partial sums of this vector's reductions (made at first use;
  /// shared by copies): reductions allocate nothing per call.
  Scalar<T>* partials() const;

 private:
  RowPartition part_;
  Vector<T> local_;
  mutable std::shared_ptr<std::array<Scalar<T>, 2>> partials_;
};

/// The solver-space hooks (lib/src/solve/driver.hpp): a new vector shaped as v on the same
/// device and partition, and whether two vectors share elements on this rank (a local verdict:
/// the solvers check it inside their collective argument check).
///@{
template <class T>
DistVector<T> like(const DistVector<T>& v) {
  return DistVector<T>(v.device(), v.partition());
}
template <class T>
bool shares_elements(const DistVector<T>& a, const DistVector<T>& b) {
  const Vector<T>&x = a.local(), &y = b.local();
  return x.storage() && x.storage() == y.storage() && x.offset() < y.offset() + y.size() &&
         y.offset() < x.offset() + x.size();
}
///@}

}  // namespace tessera::mpi
