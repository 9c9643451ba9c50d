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
// baselines/openblas_vector.cpp: ?axpy, ?copy, ?nrm2; axpby_dot as ?axpby + ?dot and dot2 as
// two ?dot (what a BLAS user writes: no fused forms); launch: ?axpy called `calls` times.
template <class T>
std::unique_ptr<Runner> vector(const VectorData<T>& d);
template <class T>
std::unique_ptr<Runner> launch(const VectorData<T>& d);
}  // namespace openblas

namespace eigen {  // baselines/eigen.cpp: SparseMatrix<T, RowMajor> and dense products
template <class T>
std::unique_ptr<Runner> spmv(const SpmvData<T>& d);
template <class T>
std::unique_ptr<Runner> spmm(const SpmmData<T>& d);  // row-major sparse x dense, Y = alpha A X + beta Y
template <class T>
std::unique_ptr<Runner> sptrsv(const SptrsvData<T>& d);
template <class T>
std::unique_ptr<Runner> gemm(const GemmData<T>& d);
std::string version();
// baselines/eigen_vector.cpp: the vector algebra as Eigen expressions (dot also), and
// ConjugateGradient with DiagonalPreconditioner.
template <class T>
std::unique_ptr<Runner> vector(const VectorData<T>& d);
template <class T>
std::unique_ptr<Runner> dot(const DotData<T>& d);
template <class T>
std::unique_ptr<Runner> cg(const CgData<T>& d);
// baselines/eigen_solve.cpp: BiCGSTAB with DiagonalPreconditioner (d.precond empty) or with
// IncompleteLUT to the tolerance (d.precond "ilu0"); ConjugateGradient with IncompleteCholesky
// to the tolerance (the cg cases of d.precond "ic0").
template <class T>
std::unique_ptr<Runner> bicgstab(const CgData<T>& d);
template <class T>
std::unique_ptr<Runner> cg_ic0(const CgData<T>& d);
}  // namespace eigen

namespace onednn {  // baselines/onednn.cpp: convolution_forward, f32 only (no f64 on CPUs)
std::unique_ptr<Runner> conv2d(const Conv2dData<float>& d);
std::unique_ptr<Runner> conv_layer(const ConvLayerData<float>& d);
std::string version();
}  // namespace onednn

namespace cudalibs {  // baselines/cuda_libs.cpp: CUB, cuBLAS and cuSPARSE on GPU 0 (Tessera's cuda:0)
bool available();  // a CUDA device is there
template <class T>
std::unique_ptr<Runner> reduce(const ReduceData<T>& d);  // CUB DeviceReduce::Sum (cub_reduce.cu)
template <class T>
std::unique_ptr<Runner> dot(const DotData<T>& d);
template <class T>
std::unique_ptr<Runner> trsv(const TrsvData<T>& d);
template <class T>
std::unique_ptr<Runner> trsm(const TrsmData<T>& d);
template <class T>
std::unique_ptr<Runner> gemm(const GemmData<T>& d);  // f32: pedantic FP32; f64: FP64
std::unique_ptr<Runner> gemm_tf32(const GemmData<float>& d);  // TF32 tensor cores: a separate line
template <class T>
std::unique_ptr<Runner> spmv(const SpmvData<T>& d);
template <class T>
std::unique_ptr<Runner> spmv_sell(const SpmvData<T>& d);  // cusparseSpMV on sliced ELL (cusparse_sell.cpp)
template <class T>
std::unique_ptr<Runner> spmm(const SpmmData<T>& d);  // cusparseSpMM, row-major X and Y (CSR_ALG2)
template <class T>
std::unique_ptr<Runner> sptrsv(const SptrsvData<T>& d);
std::string version();
// baselines/cuda_vector.cpp: cuBLAS level 1. dot_scalar: cublas?dot in device pointer mode (the
// result stays on the GPU, as Tessera's dot into a Scalar); vector: ?axpy, ?copy, ?nrm2 (device
// pointer mode), axpby_dot as ?scal + ?axpy + ?dot and dot2 as two ?dot (device pointer mode:
// cuBLAS has no fused forms); launch: ?axpy enqueued `calls` times, or once with a wait.
template <class T>
std::unique_ptr<Runner> dot_scalar(const DotData<T>& d);
template <class T>
std::unique_ptr<Runner> vector(const VectorData<T>& d);
template <class T>
std::unique_ptr<Runner> launch(const VectorData<T>& d);
// baselines/cuda_cg.cpp: CG with cusparseSpMV and cuBLAS level 1 with host scalars (a host
// wait at each of the two dots per iteration), as CuPy's cg runs.
template <class T>
std::unique_ptr<Runner> cg(const CgData<T>& d);
// cuBLAS gemm FLOP/s on GPU 0 at the largest n <= 8192 that fits in a quarter of the memory:
// the device's FLOP/s peak for the report (the vendor GEMM, where a FMA loop would need a kernel).
double gemm_peak_gflops(bool f32, std::uint64_t memory_bytes);
}  // namespace cudalibs

namespace cudnn {  // baselines/cudnn.cpp: cuDNN 9 convolution forward on GPU 0, libcudnn opened at run time
bool available();       // libcudnn.so.9 was found and has every function used
std::string version();  // "cuDNN 9.x.y", or why it is not there
// tf32: CUDNN_TENSOR_OP_MATH (a separate line, f32 only); otherwise CUDNN_FMA_MATH (f32) or
// the default math (f64). Set-up failures surface as the row's n/a or error on its first call.
template <class T>
std::unique_ptr<Runner> conv2d(const Conv2dData<T>& d, bool tf32);  // odd K or 'valid' only
template <class T>
std::unique_ptr<Runner> conv_layer(const ConvLayerData<T>& d, bool tf32);
}  // namespace cudnn

// OpenCL baselines run on the device of Tessera's `spec` ("opencl:N"; baselines/opencl_device.hpp).
namespace clblast_lib {  // baselines/clblast.cpp: CLBlast level 2-3, row-major
template <class T>
std::unique_ptr<Runner> gemm(const std::string& spec, const GemmData<T>& d);
template <class T>
std::unique_ptr<Runner> trsv(const std::string& spec, const TrsvData<T>& d);
template <class T>
std::unique_ptr<Runner> trsm(const std::string& spec, const TrsmData<T>& d);
std::string version();
}  // namespace clblast_lib

namespace viennacl_lib {  // baselines/viennacl.cpp: compressed_matrix SpMV, OpenCL backend
template <class T>
std::unique_ptr<Runner> spmv(const std::string& spec, const SpmvData<T>& d);
// baselines/viennacl_cg.cpp: linalg::solve with cg_tag and jacobi_precond, fixed iterations.
template <class T>
std::unique_ptr<Runner> cg(const std::string& spec, const CgData<T>& d);
std::string version();
}  // namespace viennacl_lib

}  // namespace bench
