// What each baseline library file provides; registry.cpp calls only those compiled in.
// Every runner works on the workload's host arrays directly (inputs are not copied) and owns
// its output, which it restores in reset() where the library works in place.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "op_data.hpp"
#include "runner.hpp"

namespace bench {

namespace openblas {  // baselines/openblas.cpp: cblas level 1-3
template <class T>
std::unique_ptr<Runner> dot(const DotData<T>& d);
template <class T>
std::unique_ptr<Runner> trsv(const TrsvData<T>& d);
template <class T>
std::unique_ptr<Runner> trsm(const TrsmData<T>& d);
template <class T>
std::unique_ptr<Runner> gemm(const GemmData<T>& d);
std::string version();
}  // namespace openblas

namespace eigen {  // baselines/eigen.cpp: SparseMatrix<T, RowMajor> and dense products
template <class T>
std::unique_ptr<Runner> spmv(const SpmvData<T>& d);
template <class T>
std::unique_ptr<Runner> sptrsv(const SptrsvData<T>& d);
template <class T>
std::unique_ptr<Runner> gemm(const GemmData<T>& d);
std::string version();
}  // namespace eigen

namespace onednn {  // baselines/onednn.cpp: convolution_forward, f32 only (no f64 on CPUs)
std::unique_ptr<Runner> conv2d(const Conv2dData<float>& d);
std::unique_ptr<Runner> conv_layer(const ConvLayerData<float>& d);
std::string version();
}  // namespace onednn

namespace cudalibs {  // baselines/cuda_libs.cpp: cuBLAS and cuSPARSE on GPU 0 (Tessera's cuda:0)
bool available();  // a CUDA device is there
template <class T>
std::unique_ptr<Runner> dot(const DotData<T>& d);
template <class T>
std::unique_ptr<Runner> trsv(const TrsvData<T>& d);
template <class T>
std::unique_ptr<Runner> trsm(const TrsmData<T>& d);
template <class T>
std::unique_ptr<Runner> gemm(const GemmData<T>& d);
template <class T>
std::unique_ptr<Runner> spmv(const SpmvData<T>& d);
template <class T>
std::unique_ptr<Runner> sptrsv(const SptrsvData<T>& d);
std::string version();
// cuBLAS gemm FLOP/s on GPU 0 at the largest n <= 8192 that fits in a quarter of the memory:
// the device's FLOP/s peak for the report (the vendor GEMM, where a FMA loop would need a kernel).
double gemm_peak_gflops(bool f32, std::uint64_t memory_bytes);
}  // namespace cudalibs

}  // namespace bench
