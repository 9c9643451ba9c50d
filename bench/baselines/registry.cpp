// Which baseline libraries implement which case; compiled-out libraries simply contribute nothing.
#include <algorithm>
#include <string>
#include <type_traits>

#include "baselines/baselines.hpp"
#include "baselines/libs.hpp"
#if TESSERA_BENCH_WITH_CLBLAST || TESSERA_BENCH_WITH_VIENNACL
#include "baselines/opencl_device.hpp"
#endif

namespace bench {

namespace {

std::vector<std::string>& baseline_devices() {
  static std::vector<std::string> d;
  return d;
}
[[maybe_unused]] bool host() {
  const auto& d = baseline_devices();
  return std::find(d.begin(), d.end(), "cpu") != d.end();
}
// cuBLAS/cuSPARSE use GPU 0, which Tessera calls cuda:0.
[[maybe_unused]] bool gpu0() {
#if TESSERA_BENCH_WITH_CUDA_LIBS
  const auto& d = baseline_devices();
  static const bool there = cudalibs::available();
  return there && std::find(d.begin(), d.end(), "cuda:0") != d.end();
#else
  return false;
#endif
}
#if TESSERA_BENCH_WITH_CLBLAST || TESSERA_BENCH_WITH_VIENNACL
// The timed opencl:N devices that run dtype T (f64 needs cl_khr_fp64): CLBlast and ViennaCL
// run on each of them, beside Tessera's row for the same device.
template <class T>
std::vector<std::string> opencl_devices() {
  std::vector<std::string> out;
  for (const auto& spec : opencl_baseline::opencl_specs(baseline_devices()))
    if (std::is_same_v<T, float> || opencl_baseline::device(spec).fp64) out.push_back(spec);
  return out;
}
#endif

}  // namespace

void set_baseline_devices(const std::vector<std::string>& specs) { baseline_devices() = specs; }

template <class T>
std::vector<NamedRunner> reduce_baselines([[maybe_unused]] const ReduceData<T>& d) {
  std::vector<NamedRunner> v;
#if TESSERA_BENCH_WITH_CUDA_LIBS
  if (gpu0()) v.push_back({"cub", cudalibs::reduce(d), "cuda:0"});
#endif
  return v;
}

template <class T>
std::vector<NamedRunner> dot_baselines([[maybe_unused]] const DotData<T>& d) {
  std::vector<NamedRunner> v;
#if TESSERA_BENCH_WITH_OPENBLAS
  if (host()) v.push_back({"openblas", openblas::dot(d)});
#endif
#if TESSERA_BENCH_WITH_EIGEN
  if (host()) v.push_back({"eigen", eigen::dot(d)});
#endif
#if TESSERA_BENCH_WITH_CUDA_LIBS
  if (gpu0()) v.push_back({"cublas", cudalibs::dot(d), "cuda:0"});
  if (gpu0()) v.push_back({"cublas-devptr", cudalibs::dot_scalar(d), "cuda:0", false, "scalar"});
#endif
  return v;
}

template <class T>
std::vector<NamedRunner> spmv_baselines([[maybe_unused]] const SpmvData<T>& d) {
  std::vector<NamedRunner> v;
#if TESSERA_BENCH_WITH_EIGEN
  if (host()) v.push_back({"eigen", eigen::spmv(d)});
#endif
#if TESSERA_BENCH_WITH_CUDA_LIBS
  if (gpu0()) v.push_back({"cusparse", cudalibs::spmv(d), "cuda:0"});
  if (gpu0()) v.push_back({"cusparse-sell", cudalibs::spmv_sell(d), "cuda:0"});
#endif
#if TESSERA_BENCH_WITH_VIENNACL
  for (const auto& spec : opencl_devices<T>()) v.push_back({"viennacl", viennacl_lib::spmv(spec, d), spec});
#endif
  return v;
}

template <class T>
std::vector<NamedRunner> spmm_baselines([[maybe_unused]] const SpmmData<T>& d) {
  std::vector<NamedRunner> v;
#if TESSERA_BENCH_WITH_EIGEN
  if (host()) v.push_back({"eigen", eigen::spmm(d)});
#endif
#if TESSERA_BENCH_WITH_CUDA_LIBS
  if (gpu0()) v.push_back({"cusparse", cudalibs::spmm(d), "cuda:0"});
#endif
  return v;
}

template <class T>
std::vector<NamedRunner> trsv_baselines([[maybe_unused]] const TrsvData<T>& d) {
  std::vector<NamedRunner> v;
#if TESSERA_BENCH_WITH_OPENBLAS
  if (host()) v.push_back({"openblas", openblas::trsv(d)});
#endif
#if TESSERA_BENCH_WITH_CUDA_LIBS
  if (gpu0()) v.push_back({"cublas", cudalibs::trsv(d), "cuda:0"});
#endif
#if TESSERA_BENCH_WITH_CLBLAST
  for (const auto& spec : opencl_devices<T>()) v.push_back({"clblast", clblast_lib::trsv(spec, d), spec});
#endif
  return v;
}

template <class T>
std::vector<NamedRunner> trsm_baselines([[maybe_unused]] const TrsmData<T>& d) {
  std::vector<NamedRunner> v;
#if TESSERA_BENCH_WITH_OPENBLAS
  if (host()) v.push_back({"openblas", openblas::trsm(d)});
#endif
#if TESSERA_BENCH_WITH_CUDA_LIBS
  if (gpu0()) v.push_back({"cublas", cudalibs::trsm(d), "cuda:0"});
#endif
#if TESSERA_BENCH_WITH_CLBLAST
  for (const auto& spec : opencl_devices<T>()) v.push_back({"clblast", clblast_lib::trsm(spec, d), spec});
#endif
  return v;
}

template <class T>
std::vector<NamedRunner> sptrsv_baselines([[maybe_unused]] const SptrsvData<T>& d) {
  std::vector<NamedRunner> v;
#if TESSERA_BENCH_WITH_EIGEN
  if (host()) v.push_back({"eigen", eigen::sptrsv(d)});
#endif
#if TESSERA_BENCH_WITH_CUDA_LIBS
  if (gpu0()) v.push_back({"cusparse", cudalibs::sptrsv(d), "cuda:0"});
#endif
  return v;
}

template <class T>
std::vector<NamedRunner> gemm_baselines([[maybe_unused]] const GemmData<T>& d) {
  std::vector<NamedRunner> v;
#if TESSERA_BENCH_WITH_OPENBLAS
  if (host()) v.push_back({"openblas", openblas::gemm(d)});
#endif
#if TESSERA_BENCH_WITH_EIGEN
  if (host()) v.push_back({"eigen", eigen::gemm(d)});
#endif
#if TESSERA_BENCH_WITH_CUDA_LIBS
  if (gpu0()) v.push_back({"cublas", cudalibs::gemm(d), "cuda:0"});
  if constexpr (std::is_same_v<T, float>)
    if (gpu0()) v.push_back({"cublas-tf32", cudalibs::gemm_tf32(d), "cuda:0", true, kTf32Variant});
#endif
#if TESSERA_BENCH_WITH_CLBLAST
  for (const auto& spec : opencl_devices<T>()) v.push_back({"clblast", clblast_lib::gemm(spec, d), spec});
#endif
  return v;
}

template <class T>
std::vector<NamedRunner> conv2d_baselines([[maybe_unused]] const Conv2dData<T>& d) {
  std::vector<NamedRunner> v;
#if TESSERA_BENCH_WITH_ONEDNN
  if constexpr (std::is_same_v<T, float>)
    if (host()) v.push_back({"onednn", onednn::conv2d(d)});
#endif
#if TESSERA_BENCH_WITH_CUDNN
  if (gpu0() && cudnn::available() && (d.mode == tessera::ConvMode::valid || d.K % 2 == 1)) {
    v.push_back({"cudnn", cudnn::conv2d(d, false), "cuda:0"});
    if constexpr (std::is_same_v<T, float>) v.push_back({"cudnn-tf32", cudnn::conv2d(d, true), "cuda:0", true, kTf32Variant});
  }
#endif
  return v;
}

template <class T>
std::vector<NamedRunner> conv_layer_baselines([[maybe_unused]] const ConvLayerData<T>& d) {
  std::vector<NamedRunner> v;
#if TESSERA_BENCH_WITH_ONEDNN
  if constexpr (std::is_same_v<T, float>)
    if (host()) v.push_back({"onednn", onednn::conv_layer(d)});
#endif
#if TESSERA_BENCH_WITH_CUDNN
  if (gpu0() && cudnn::available()) {
    v.push_back({"cudnn", cudnn::conv_layer(d, false), "cuda:0"});
    if constexpr (std::is_same_v<T, float>) v.push_back({"cudnn-tf32", cudnn::conv_layer(d, true), "cuda:0", true, kTf32Variant});
  }
#endif
  return v;
}

template <class T>
std::vector<NamedRunner> vector_baselines([[maybe_unused]] const VectorData<T>& d) {
  std::vector<NamedRunner> v;
#if TESSERA_BENCH_WITH_OPENBLAS
  if (host()) v.push_back({"openblas", openblas::vector(d)});
#endif
#if TESSERA_BENCH_WITH_EIGEN
  if (host()) v.push_back({"eigen", eigen::vector(d)});
#endif
#if TESSERA_BENCH_WITH_CUDA_LIBS
  if (gpu0()) v.push_back({"cublas", cudalibs::vector(d), "cuda:0"});
#endif
  return v;
}

template <class T>
std::vector<NamedRunner> launch_baselines([[maybe_unused]] const VectorData<T>& d) {
  std::vector<NamedRunner> v;
#if TESSERA_BENCH_WITH_OPENBLAS
  if (host()) v.push_back({"openblas", openblas::launch(d)});
#endif
#if TESSERA_BENCH_WITH_CUDA_LIBS
  if (gpu0()) v.push_back({"cublas", cudalibs::launch(d), "cuda:0"});
#endif
  return v;
}

template <class T>
std::vector<NamedRunner> cg_baselines([[maybe_unused]] const CgData<T>& d) {
  std::vector<NamedRunner> v;
  if (!d.precond.empty()) {  // IC(0) to the tolerance: Eigen's IncompleteCholesky
#if TESSERA_BENCH_WITH_EIGEN
    if (host()) v.push_back({"eigen", eigen::cg_ic0(d)});
#endif
    return v;
  }
#if TESSERA_BENCH_WITH_EIGEN
  if (host()) v.push_back({"eigen", eigen::cg(d)});
#endif
#if TESSERA_BENCH_WITH_CUDA_LIBS
  if (gpu0()) v.push_back({"cusparse+cublas", cudalibs::cg(d), "cuda:0"});
#endif
#if TESSERA_BENCH_WITH_VIENNACL
  for (const auto& spec : opencl_devices<T>()) v.push_back({"viennacl", viennacl_lib::cg(spec, d), spec});
#endif
  return v;
}

template <class T>
std::vector<NamedRunner> bicgstab_baselines([[maybe_unused]] const CgData<T>& d) {
  std::vector<NamedRunner> v;
#if TESSERA_BENCH_WITH_EIGEN
  if (host()) v.push_back({"eigen", eigen::bicgstab(d)});
#endif
  return v;
}

std::vector<std::string> baseline_libraries() {
  std::vector<std::string> v;
#if TESSERA_BENCH_WITH_OPENBLAS
  v.push_back(openblas::version());
#endif
#if TESSERA_BENCH_WITH_EIGEN
  v.push_back(eigen::version());
#endif
#if TESSERA_BENCH_WITH_ONEDNN
  v.push_back(onednn::version());
#endif
#if TESSERA_BENCH_WITH_CUDA_LIBS
  v.push_back(cudalibs::version());
#endif
#if TESSERA_BENCH_WITH_CUDNN
  v.push_back(cudnn::version());  // or why libcudnn could not be loaded
#endif
#if TESSERA_BENCH_WITH_CLBLAST
  v.push_back(clblast_lib::version());
#endif
#if TESSERA_BENCH_WITH_VIENNACL
  v.push_back(viennacl_lib::version());
#endif
  return v;
}

#define TESSERA_BENCH_INSTANTIATE(T)                                               \
  template std::vector<NamedRunner> reduce_baselines<T>(const ReduceData<T>&);     \
  template std::vector<NamedRunner> dot_baselines<T>(const DotData<T>&);           \
  template std::vector<NamedRunner> spmv_baselines<T>(const SpmvData<T>&);         \
  template std::vector<NamedRunner> spmm_baselines<T>(const SpmmData<T>&);         \
  template std::vector<NamedRunner> trsv_baselines<T>(const TrsvData<T>&);         \
  template std::vector<NamedRunner> trsm_baselines<T>(const TrsmData<T>&);         \
  template std::vector<NamedRunner> sptrsv_baselines<T>(const SptrsvData<T>&);     \
  template std::vector<NamedRunner> gemm_baselines<T>(const GemmData<T>&);         \
  template std::vector<NamedRunner> conv2d_baselines<T>(const Conv2dData<T>&);     \
  template std::vector<NamedRunner> conv_layer_baselines<T>(const ConvLayerData<T>&); \
  template std::vector<NamedRunner> vector_baselines<T>(const VectorData<T>&);       \
  template std::vector<NamedRunner> launch_baselines<T>(const VectorData<T>&);       \
  template std::vector<NamedRunner> cg_baselines<T>(const CgData<T>&);             \
  template std::vector<NamedRunner> bicgstab_baselines<T>(const CgData<T>&);
TESSERA_BENCH_INSTANTIATE(float)
TESSERA_BENCH_INSTANTIATE(double)
#undef TESSERA_BENCH_INSTANTIATE

}  // namespace bench
