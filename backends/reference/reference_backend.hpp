// The reference backend: plain sequential loops with double accumulation. It is the oracle every
// other backend is tested against, and a device users can select ("reference"). Readability wins
// over speed everywhere: each operation is the textbook loop nest, written once per dtype through
// a template and dispatched on the DType at the top of each method.
#pragma once

#include <memory>

#include "host_memory_backend.hpp"

namespace tessera {

class ReferenceBackend final : public HostMemoryBackend {
 public:
  ReferenceBackend();
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
};

}  // namespace tessera
