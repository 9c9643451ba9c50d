// SpMM: rows split among threads by cost as spmv (cpu/row_split.hpp); each thread runs the
// column-vectorised row kernel (kernels/cpu/spmm.cpp). Fewer threads run where each would get
// less than spmm.min_work_per_thread multiply-adds (tuning/spmm.cpp). Where X is larger than a
// quarter of the last-level cache (spmv's rule, cpu/row_split.hpp), the kernel prefetches the
// rows of X spmm.prefetch_entries entries ahead.
#include <cstdint>
#include <type_traits>

#include "cpu/cpu_backend.hpp"
#include "cpu/row_split.hpp"
#include "host_machine.hpp"
#include "kernels/cpu/dispatch.hpp"
#include "kernels/cpu/spmm.hpp"

namespace tessera {

template <class T>
void CpuBackend::spmm(QueueImpl&, double alpha, const CsrView& A, const MatView& Xv, double beta,
                      const MatView& Yv) {
  const auto* row_ptr = static_cast<const std::int32_t*>(A.row_ptr);
  const auto* col = static_cast<const std::int32_t*>(A.col_idx);
  const T* val = static_cast<const T*>(A.values);
  const T* X = host_ptr<const T>(Xv);
  T* Y = host_ptr<T>(Yv);
  const T a = static_cast<T>(alpha), b = static_cast<T>(beta);
  const std::int64_t rows = A.rows, k = Yv.cols;
  const std::int64_t pf = cpu::prefetch_gathers(static_cast<std::size_t>(Xv.rows * Xv.ld) * sizeof(T),
                                                host::machine().caches.l3)
                              ? tune_["spmm.prefetch_entries"]
                              : 0;
  auto run = [&](std::int64_t r0, std::int64_t r1) {
    if constexpr (std::is_same_v<T, float>)
      cpu::spmm_f32(row_ptr, col, val, X, Xv.ld, a, b, Y, Yv.ld, k, r0, r1, pf);
    else
      cpu::spmm_f64(row_ptr, col, val, X, Xv.ld, a, b, Y, Yv.ld, k, r0, r1, pf);
  };
  cpu::for_each_row_share(row_ptr, rows, A.nnz, cpu::threads_for((A.nnz + rows) * k, tune_["spmm.min_work_per_thread"]), run);
}

TESSERA_INSTANTIATE_TYPED_OP(CpuBackend, spmm)

}  // namespace tessera
