// The CPU backend: OpenMP threads + Highway SIMD kernels (kernels/cpu/), the SIMD target chosen
// at run time (capped by TESSERA_CPU_TARGET). Its run-time constants (minimum work per thread,
// cache blocks, ...) come from its Tuning, class "cpu/intel", "cpu/amd" or "cpu/host" by the x86
// vendor (backend.cpp; defaults in lib/src/tuning/<op>.cpp), so TESSERA_TUNE="cpu:..." may
// override them.
#pragma once

#include <memory>
#include <string>

#include "host_memory_backend.hpp"
#include "tuning/tuning.hpp"

namespace tessera {

class CpuBackend final : public HostMemoryBackend<CpuBackend> {
 public:
  CpuBackend();
  DeviceInfo info() const override;
  struct ColumnInfo;  ///< spmv.cpp: what a product of A in one dtype takes from A's column plan

  TESSERA_TYPED_BACKEND_OPERATIONS

 private:
  tuning::Tuning tune_;

  // Per-op state, defined and used in the op's file only.
  struct StencilState;  // stencil.cpp: the second grid, kept between calls
  static std::shared_ptr<StencilState> make_stencil_state();
  std::shared_ptr<StencilState> stencil_state_ = make_stencil_state();
  struct SpmvState;  // spmv.cpp: the SELL-C-sigma layouts and column plans of the matrices seen last
  static std::shared_ptr<SpmvState> make_spmv_state();
  std::shared_ptr<SpmvState> spmv_state_ = make_spmv_state();
  template <class T>
  struct SellPlan;  // spmv.cpp: one matrix's layout and padded arrays
  template <class T>
  std::shared_ptr<const SellPlan<T>> sell_plan(const CsrView& A);  // null: CSR runs
  struct ColumnPlan;  // spmv.cpp: one matrix's bandwidth and, where asked for, narrow columns
  ColumnInfo column_info(const CsrView& A, DType dtype);

 public:
  /// "sell(...)", "csr/rows" or "csr/rows(int16 columns)" (Backend::spmv_kernel).
  std::string spmv_kernel(DType dtype, const CsrView& A) override;
  /// The CSR product with the dot of each thread's rows right after them (Backend::spmv_dot).
  void spmv_dot(DType dtype, QueueImpl& q, double alpha, const CsrView& A, const VecView& x, double beta,
                const VecView& y, const VecView& w, const VecView& out) override;

  /// CG's iterations in one thread team for small systems (Backend::cg_steps; spmv.cpp).
  bool cg_steps(DType dtype, QueueImpl& q, std::int64_t steps, const CsrView& A, const VecView& d, const VecView& x,
                const VecView& r, const VecView& p, const VecView& ap, const VecView& z, const VecView& rz,
                const VecView& rr) override;

 private:
  template <class T>
  bool cg_steps_typed(std::int64_t steps, const CsrView& A, const VecView& d, const VecView& x, const VecView& r,
                      const VecView& p, const VecView& ap, const VecView& z, const VecView& rz, const VecView& rr);
  template <class T>
  void spmv_dot_typed(QueueImpl& q, double alpha, const CsrView& A, const VecView& x, double beta, const VecView& y,
                      const VecView& w, const VecView& out);
};

}  // namespace tessera
