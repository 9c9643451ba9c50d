// What the NVIDIA baselines share beyond cuda_common.hpp: the cuBLAS and cuSPARSE handles
// (cuda_libs.cpp: one each for the process, on GPU 0 and stream(), created on first use), their
// status checks, the CUDA data type of float and double, and cuSPARSE descriptors over device
// copies of host arrays.
#pragma once

#include <cublas_v2.h>
#include <cusparse.h>

#include <cstdint>
#include <type_traits>
#include <vector>

#include "baselines/cuda_common.hpp"
#include "tessera/csr_matrix.hpp"

namespace bench::cudalibs {

void check(cublasStatus_t s, const char* what);
void check(cusparseStatus_t s, const char* what);
cublasHandle_t blas();
cusparseHandle_t sparse();

template <class T>
constexpr cudaDataType cuda_type() {
  return std::is_same_v<T, float> ? CUDA_R_32F : CUDA_R_64F;
}

// A cuSPARSE CSR matrix over device copies of a host CSR.
template <class T>
struct DevCsr {
  explicit DevCsr(const tessera::HostCsr<T>& h) : row_ptr(h.row_ptr), col_idx(h.col_idx), values(h.values) {
    check(cusparseCreateCsr(&mat, h.rows, h.cols, h.nnz(), row_ptr.get<int>(), col_idx.get<int>(), values.get<T>(),
                            CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, cuda_type<T>()),
          "cusparseCreateCsr");
  }
  ~DevCsr() { cusparseDestroySpMat(mat); }
  DevBuf row_ptr, col_idx, values;
  cusparseSpMatDescr_t mat = nullptr;
};

struct DevVec {
  template <class T>
  explicit DevVec(const std::vector<T>& h) : buf(h) {
    check(cusparseCreateDnVec(&vec, static_cast<int64_t>(h.size()), buf.get<T>(), cuda_type<T>()),
          "cusparseCreateDnVec");
  }
  ~DevVec() { cusparseDestroyDnVec(vec); }
  DevBuf buf;
  cusparseDnVecDescr_t vec = nullptr;
};

}  // namespace bench::cudalibs
