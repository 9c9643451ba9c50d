// The vendor baselines a workload is compared with, run in the same process on the same host
// data. Each returns the runners of the libraries compiled in (TESSERA_BENCH_WITH_*) that
// implement the case in that dtype, for the devices being timed: host libraries (OpenBLAS,
// Eigen, oneDNN) accompany Tessera's "cpu" device, NVIDIA's (CUB, cuBLAS, cuSPARSE, cuDNN) its
// "cuda:0".
#pragma once

#include <vector>

#include "op_data.hpp"
#include "workload.hpp"

namespace bench {

// The Tessera devices being timed; a baseline runs only beside its device.
void set_baseline_devices(const std::vector<std::string>& specs);

template <class T>
std::vector<NamedRunner> reduce_baselines(const ReduceData<T>& d);
template <class T>
std::vector<NamedRunner> dot_baselines(const DotData<T>& d);
template <class T>
std::vector<NamedRunner> spmv_baselines(const SpmvData<T>& d);
template <class T>
std::vector<NamedRunner> spmm_baselines(const SpmmData<T>& d);
template <class T>
std::vector<NamedRunner> trsv_baselines(const TrsvData<T>& d);
template <class T>
std::vector<NamedRunner> trsm_baselines(const TrsmData<T>& d);
template <class T>
std::vector<NamedRunner> sptrsv_baselines(const SptrsvData<T>& d);
template <class T>
std::vector<NamedRunner> gemm_baselines(const GemmData<T>& d);
template <class T>
std::vector<NamedRunner> conv2d_baselines(const Conv2dData<T>& d);
template <class T>
std::vector<NamedRunner> conv_layer_baselines(const ConvLayerData<T>& d);
template <class T>
std::vector<NamedRunner> vector_baselines(const VectorData<T>& d);  // axpy, copy, norm2, axpby_dot, dot2
template <class T>
std::vector<NamedRunner> launch_baselines(const VectorData<T>& d);
template <class T>
std::vector<NamedRunner> cg_baselines(const CgData<T>& d);
template <class T>
std::vector<NamedRunner> bicgstab_baselines(const CgData<T>& d);  // the same fields as cg

// Library names and versions compiled in, for the report header ("OpenBLAS 0.3.21", ...).
std::vector<std::string> baseline_libraries();

}  // namespace bench
