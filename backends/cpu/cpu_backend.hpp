// The CPU backend: OpenMP threads + Highway SIMD kernels (kernels/cpu/), the SIMD target chosen
// at run time (capped by TESSERA_CPU_TARGET).
#pragma once

#include <cstddef>
#include <mutex>

#include "host_memory_backend.hpp"

namespace tessera {

class CpuBackend final : public HostMemoryBackend {
 public:
  CpuBackend();
  DeviceInfo info() const override;

  double reduce(DType, ReduceOp, const VecView& x) override;
  double dot(DType, const VecView& x, const VecView& y) override;
  void spmv(DType, double alpha, const CsrView& A, const VecView& x, double beta, const VecView& y) override;
  void trsv(DType, Uplo, Trans, Diag, const MatView& A, const VecView& x) override;
  void trsm(DType, Uplo, Trans, Diag, double alpha, const MatView& A, const MatView& B) override;
  std::shared_ptr<SptrsvPlanData> sptrsv_analyze(DType, Uplo, Diag, const CsrView& A) override;
  void sptrsv_solve(DType, const SptrsvPlanData& plan, const CsrView& A, const VecView& b, const VecView& x) override;
  void gemm(DType, Trans ta, Trans tb, double alpha, const MatView& A, const MatView& B, double beta,
            const MatView& C) override;
  void stencil(DType, const StencilSpec&, const GridView& u, int steps) override;
  void conv2d(DType, ConvMode, const MatView& image, const MatView& filter, const MatView& out) override;
  void conv_layer(DType, const ConvParams&, const TensorView& in, const TensorView& filter,
                  const TensorView& out) override;

 private:
  // Host memory that grows on demand and is freed with the backend (or the Scratch).
  struct Scratch {
    explicit Scratch(CpuBackend* o) : owner(o) {}
    Scratch(const Scratch&) = delete;
    Scratch& operator=(const Scratch&) = delete;
    ~Scratch();
    void* reserve(std::size_t bytes);
    CpuBackend* owner;
    std::mutex mutex;
    void* data = nullptr;
    std::size_t bytes = 0;
  };
  Scratch stencil_scratch_{this};  // stencil's second grid
};

}  // namespace tessera
