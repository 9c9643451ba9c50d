// The distributed vector algebra (tessera/mpi/algebra.hpp): element-wise operations on the
// local blocks; reductions as a local reduction into device scalars, then one exchange of the
// partials (collective.hpp), summed in rank order in double on every rank.
#include "tessera/mpi/algebra.hpp"

#include <cmath>
#include <limits>
#include <string>

#include "collective.hpp"
#include "tessera/errors.hpp"
#include "nccl.hpp"
#include "timing.hpp"

namespace tessera::mpi {
namespace {

template <class T>
void check_same(const char* op, const DistVector<T>& a, const DistVector<T>& b) {
  if (a.partition() != b.partition())
    throw DimensionMismatch(std::string(op) + ": the vectors are partitioned differently (" +
                            std::to_string(a.size()) + " and " + std::to_string(b.size()) +
                            " rows); distributed operands must share one RowPartition");
}

// Runs local_partials (which writes n partial values into x.partials()) and writes their sums
// over the ranks into outs[0..n). On the MPI path the partials come to the host and are summed
// in rank order (in double) on every rank, then written back; on the NCCL path (cuda ranks) the
// checks are agreed first, then ncclAllReduce sums them into outs on the stream, no host wait
// (NCCL's ring gives every rank the same bits too).
template <class T, class Check, class Local>
void global_sums(const Queue& q, const char* op, const DistVector<T>& x, int n, Check check, Local local_partials,
                 std::initializer_list<Scalar<T>*> outs) {
  detail::PhaseClock clock(q);
  if (detail::Nccl* nccl = detail::nccl_for(x.partition(), x.device())) {
    detail::agree(x.comm(), {op, detail::dtype_code<T>()}, [&] {
      check();
      for (Scalar<T>* o : outs)
        if (o->device() != x.device())
          throw DeviceMismatch(std::string(op) + ": a result Scalar lives on " + o->device().spec() + ", x on " +
                               x.device().spec());
    });
    Scalar<T>* parts = x.partials();
    local_partials(parts);
    clock.lap(&PhaseTimes::local);
    int i = 0;
    for (Scalar<T>* o : outs) {
      detail::nccl_allreduce_sum(nccl, detail::device_pointer(parts[i].as_vector()),
                                 detail::device_pointer(o->as_vector()), 1, sizeof(T), q);
      ++i;
    }
    clock.lap(&PhaseTimes::allreduce);
    if (detail::timing_on()) ++detail::times().reductions;
    return;
  }
  const auto all = detail::exchange(x.comm(), {op, detail::dtype_code<T>()}, [&](detail::Contribution& c) {
    check();
    Scalar<T>* parts = x.partials();
    local_partials(parts);
    for (int i = 0; i < n; ++i) c.values[static_cast<std::size_t>(i)] = static_cast<double>(parts[i].get(q));
    clock.lap(&PhaseTimes::local);
  });
  clock.lap(&PhaseTimes::allreduce);
  if (detail::timing_on()) ++detail::times().reductions;
  std::array<double, detail::kValues> sums{};
  for (const auto& c : all)
    for (int i = 0; i < n; ++i) sums[static_cast<std::size_t>(i)] += c.values[static_cast<std::size_t>(i)];
  int i = 0;
  for (Scalar<T>* o : outs) o->set(q, static_cast<T>(sums[static_cast<std::size_t>(i++)]));
}

}  // namespace

template <class T>
Scalar<T>* DistVector<T>::partials() const {
  if (!partials_) partials_ = std::make_shared<std::array<Scalar<T>, 2>>(
                     std::array<Scalar<T>, 2>{Scalar<T>(device()), Scalar<T>(device())});
  return partials_->data();
}

template <class T>
DistVector<T>::DistVector(RowPartition partition, Vector<T> local) : part_(std::move(partition)), local_(std::move(local)) {
  detail::agree(part_.comm(), {"DistVector(partition, local)", detail::dtype_code<T>()}, [&] {
    if (local_.size() != part_.local_size())
      throw DimensionMismatch("DistVector: the local vector has " + std::to_string(local_.size()) +
                              " elements, the partition gives this rank " + std::to_string(part_.local_size()));
  });
}

template <class T>
DistVector<T> DistVector<T>::from_global(const Device& device, RowPartition partition, const std::vector<T>& global) {
  DistVector v;
  detail::agree(partition.comm(), {"DistVector::from_global", detail::dtype_code<T>()}, [&] {
    if (static_cast<std::int64_t>(global.size()) != partition.size())
      throw DimensionMismatch("DistVector::from_global: the global array has " + std::to_string(global.size()) +
                              " elements, the partition " + std::to_string(partition.size()));
    v = DistVector(device, partition);
    v.local_.upload(global.data() + partition.local_begin(), partition.local_size());
  });
  return v;
}

template <class T>
std::vector<T> DistVector<T>::to_global() const {
  detail::agree(comm(), {"DistVector::to_global", detail::dtype_code<T>()}, [] {});
  const std::vector<T> mine = local_.to_host();
  const auto& o = part_.offsets();
  std::vector<int> counts(static_cast<std::size_t>(part_.ranks())), displs(counts.size());
  for (std::size_t r = 0; r < counts.size(); ++r) {
    counts[r] = static_cast<int>(o[r + 1] - o[r]);
    displs[r] = static_cast<int>(o[r]);
  }
  std::vector<T> all(static_cast<std::size_t>(size()));
  const MPI_Datatype type = sizeof(T) == 4 ? MPI_FLOAT : MPI_DOUBLE;
  MPI_Allgatherv(mine.data(), static_cast<int>(mine.size()), type, all.data(), counts.data(), displs.data(), type,
                 comm());
  return all;
}

template <class T>
void fill(const Queue& q, same_t<ScalarArg<T>> value, DistVector<T>& y) {
  tessera::fill(q, value, y.local());
}
template <class T>
void copy(const Queue& q, const DistVector<T>& x, DistVector<T>& y) {
  check_same("copy", x, y);
  tessera::copy(q, x.local(), y.local());
}
template <class T>
void scal(const Queue& q, same_t<ScalarArg<T>> alpha, DistVector<T>& x) {
  tessera::scal(q, alpha, x.local());
}
template <class T>
void axpy(const Queue& q, same_t<ScalarArg<T>> alpha, const DistVector<T>& x, DistVector<T>& y) {
  check_same("axpy", x, y);
  tessera::axpy(q, alpha, x.local(), y.local());
}
template <class T>
void axpby(const Queue& q, same_t<ScalarArg<T>> alpha, const DistVector<T>& x, same_t<ScalarArg<T>> beta,
           DistVector<T>& y) {
  check_same("axpby", x, y);
  tessera::axpby(q, alpha, x.local(), beta, y.local());
}
template <class T>
void axpby_pair(const Queue& q, same_t<ScalarArg<T>> a1, const DistVector<T>& x1, same_t<ScalarArg<T>> b1,
                DistVector<T>& y1, same_t<ScalarArg<T>> a2, const DistVector<T>& x2, same_t<ScalarArg<T>> b2,
                DistVector<T>& y2) {
  check_same("axpby_pair", x1, y1);
  check_same("axpby_pair", x2, y1);
  check_same("axpby_pair", y2, y1);
  tessera::axpby_pair(q, a1, x1.local(), b1, y1.local(), a2, x2.local(), b2, y2.local());
}
template <class T>
void multiply(const Queue& q, const DistVector<T>& x, const DistVector<T>& y, DistVector<T>& z) {
  check_same("multiply", x, y);
  check_same("multiply", x, z);
  tessera::multiply(q, x.local(), y.local(), z.local());
}
template <class T>
void divide(const Queue& q, const DistVector<T>& x, const DistVector<T>& y, DistVector<T>& z) {
  check_same("divide", x, y);
  check_same("divide", x, z);
  tessera::divide(q, x.local(), y.local(), z.local());
}
template <class T>
void reciprocal(const Queue& q, const DistVector<T>& x, DistVector<T>& z) {
  check_same("reciprocal", x, z);
  tessera::reciprocal(q, x.local(), z.local());
}

template <class T>
void reduce(const Queue& q, ReduceOp op, const DistVector<T>& x, Scalar<T>& out) {
  // norm2 gathers sums of squares (the square root comes last); min, max and max_abs gather
  // (has a value, value) so that empty ranks do not take part.
  const bool extreme = op == ReduceOp::min || op == ReduceOp::max || op == ReduceOp::max_abs;
  const ReduceOp local_op = op == ReduceOp::norm2 ? ReduceOp::sum_squares : op;
  detail::PhaseClock clock(q);
  const auto all = detail::exchange(x.comm(), {"reduce", detail::dtype_code<T>()}, [&](detail::Contribution& c) {
    if (out.device() != x.device())
      throw DeviceMismatch("reduce: the Scalar lives on " + out.device().spec() + ", x on " + x.device().spec());
    if (extreme && x.local().size() == 0) return;  // nothing to contribute
    Scalar<T>& part = x.partials()[0];
    tessera::reduce(q, local_op, x.local(), part);
    c.values[0] = 1.0;
    c.values[1] = static_cast<double>(part.get(q));
    clock.lap(&PhaseTimes::local);
  });
  clock.lap(&PhaseTimes::allreduce);
  double v = 0.0;
  bool any = false;
  for (const auto& c : all) {
    if (!extreme) {
      v += c.values[1];
      continue;
    }
    if (c.values[0] == 0.0) continue;
    v = !any ? c.values[1] : op == ReduceOp::min ? std::min(v, c.values[1]) : std::max(v, c.values[1]);
    any = true;
  }
  // Every rank holds the same contributions: the same verdict everywhere, no agreement needed.
  if (extreme && !any && op != ReduceOp::max_abs)
    throw InvalidArgument(std::string("reduce: ") + to_string(op) + " of an empty distributed vector");
  if (op == ReduceOp::norm2) v = std::sqrt(v);
  out.set(q, static_cast<T>(v));
}

template <class T>
void dot(const Queue& q, const DistVector<T>& x, const DistVector<T>& y, Scalar<T>& out) {
  global_sums(q, "dot", x, 1, [&] { check_same("dot", x, y); },
              [&](Scalar<T>* parts) { tessera::dot(q, x.local(), y.local(), parts[0]); }, {&out});
}

template <class T>
void axpby_dot(const Queue& q, same_t<ScalarArg<T>> alpha, const DistVector<T>& x, same_t<ScalarArg<T>> beta,
               DistVector<T>& y, const DistVector<T>& w, Scalar<T>& out) {
  global_sums(
      q, "axpby_dot", y, 1,
      [&] {
        check_same("axpby_dot", x, y);
        check_same("axpby_dot", w, y);
      },
      [&](Scalar<T>* parts) { tessera::axpby_dot(q, alpha, x.local(), beta, y.local(), w.local(), parts[0]); },
      {&out});
}

template <class T>
void dot2(const Queue& q, const DistVector<T>& x, const DistVector<T>& y, const DistVector<T>& z, Scalar<T>& out_xy,
          Scalar<T>& out_xz) {
  global_sums(
      q, "dot2", x, 2,
      [&] {
        check_same("dot2", x, y);
        check_same("dot2", x, z);
      },
      [&](Scalar<T>* parts) { tessera::dot2(q, x.local(), y.local(), z.local(), parts[0], parts[1]); },
      {&out_xy, &out_xz});
}

template <class T>
void multiply_dot2(const Queue& q, const DistVector<T>& d, const DistVector<T>& r, DistVector<T>& z,
                   Scalar<T>& out_rz, Scalar<T>& out_rr) {
  global_sums(
      q, "multiply_dot2", r, 2,
      [&] {
        check_same("multiply_dot2", d, r);
        check_same("multiply_dot2", z, r);
      },
      [&](Scalar<T>* parts) { tessera::multiply_dot2(q, d.local(), r.local(), z.local(), parts[0], parts[1]); },
      {&out_rz, &out_rr});
}

template <class T>
void axpy_multiply_dot2(const Queue& q, same_t<ScalarArg<T>> alpha, const DistVector<T>& x, const DistVector<T>& d,
                        DistVector<T>& r, DistVector<T>& z, Scalar<T>& out_rz, Scalar<T>& out_rr) {
  global_sums(
      q, "axpy_multiply_dot2", r, 2,
      [&] {
        check_same("axpy_multiply_dot2", x, r);
        check_same("axpy_multiply_dot2", d, r);
        check_same("axpy_multiply_dot2", z, r);
      },
      [&](Scalar<T>* parts) {
        tessera::axpy_multiply_dot2(q, alpha, x.local(), d.local(), r.local(), z.local(), parts[0], parts[1]);
      },
      {&out_rz, &out_rr});
}

template <class T>
double agreed_seconds(const DistVector<T>& v, double seconds) {
  const auto all = detail::exchange(v.comm(), {"agreed_seconds", detail::dtype_code<T>()},
                                    [&](detail::Contribution& c) { c.values[0] = seconds; });
  double m = 0.0;
  for (const auto& c : all) m = std::max(m, c.values[0]);
  return m;
}

#define TESSERA_MPI_ALGEBRA(T)                                                                                       \
  template class DistVector<T>;                                                                                      \
  template void fill<T>(const Queue&, same_t<ScalarArg<T>>, DistVector<T>&);                                        \
  template void copy<T>(const Queue&, const DistVector<T>&, DistVector<T>&);                                        \
  template void scal<T>(const Queue&, same_t<ScalarArg<T>>, DistVector<T>&);                                        \
  template void axpy<T>(const Queue&, same_t<ScalarArg<T>>, const DistVector<T>&, DistVector<T>&);                  \
  template void axpby<T>(const Queue&, same_t<ScalarArg<T>>, const DistVector<T>&, same_t<ScalarArg<T>>,            \
                         DistVector<T>&);                                                                            \
  template void multiply<T>(const Queue&, const DistVector<T>&, const DistVector<T>&, DistVector<T>&);              \
  template void divide<T>(const Queue&, const DistVector<T>&, const DistVector<T>&, DistVector<T>&);                \
  template void reciprocal<T>(const Queue&, const DistVector<T>&, DistVector<T>&);                                  \
  template void reduce<T>(const Queue&, ReduceOp, const DistVector<T>&, Scalar<T>&);                                \
  template void dot<T>(const Queue&, const DistVector<T>&, const DistVector<T>&, Scalar<T>&);                       \
  template void axpby_dot<T>(const Queue&, same_t<ScalarArg<T>>, const DistVector<T>&, same_t<ScalarArg<T>>,        \
                             DistVector<T>&, const DistVector<T>&, Scalar<T>&);                                      \
  template void dot2<T>(const Queue&, const DistVector<T>&, const DistVector<T>&, const DistVector<T>&, Scalar<T>&, \
                        Scalar<T>&);                                                                                 \
  template void multiply_dot2<T>(const Queue&, const DistVector<T>&, const DistVector<T>&, DistVector<T>&,          \
                                 Scalar<T>&, Scalar<T>&);                                                            \
  template void axpby_pair<T>(const Queue&, same_t<ScalarArg<T>>, const DistVector<T>&, same_t<ScalarArg<T>>,       \
                              DistVector<T>&, same_t<ScalarArg<T>>, const DistVector<T>&, same_t<ScalarArg<T>>,       \
                              DistVector<T>&);                                                                       \
  template void axpy_multiply_dot2<T>(const Queue&, same_t<ScalarArg<T>>, const DistVector<T>&,                      \
                                      const DistVector<T>&, DistVector<T>&, DistVector<T>&, Scalar<T>&, Scalar<T>&); \
  template double agreed_seconds<T>(const DistVector<T>&, double);
TESSERA_MPI_ALGEBRA(float)
TESSERA_MPI_ALGEBRA(double)

}  // namespace tessera::mpi
