// ViennaCL baseline: CSR SpMV (compressed_matrix, OpenCL backend) on the OpenCL device of
// Tessera's opencl:N. ViennaCL is given that device's context and in-order queue
// (viennacl::ocl::setup_context), so its kernels run where Tessera's do and clFinish on the
// queue waits for them. The matrix and x are uploaded once (untimed); y is restored from y0
// before every call; ViennaCL compiles its kernels on the first call (first_call_ms).
#include <map>
#include <mutex>
#include <string>
#include <vector>
#include <viennacl/compressed_matrix.hpp>
#include <viennacl/linalg/prod.hpp>
#include <viennacl/ocl/backend.hpp>
#include <viennacl/vector.hpp>
#include <viennacl/version.hpp>

#include "baselines/libs.hpp"
#include "baselines/opencl_device.hpp"
#include "baselines/viennacl_context.hpp"

namespace bench::viennacl_lib {

// ViennaCL names its contexts by number; one per OpenCL device, set up on first use. Numbers
// from 1000 leave ViennaCL's default context (0) alone.
viennacl::context context_for(const opencl_baseline::ClDevice& dev) {
  static std::mutex mutex;
  static std::map<std::string, long> ids;
  std::lock_guard<std::mutex> lock(mutex);
  auto it = ids.find(dev.spec);
  if (it == ids.end()) {
    const long id = 1000 + static_cast<long>(ids.size());
    viennacl::ocl::setup_context(id, dev.context, std::vector<cl_device_id>{dev.device},
                                 std::vector<cl_command_queue>{dev.queue});
    it = ids.emplace(dev.spec, id).first;
  }
  return viennacl::context(viennacl::ocl::get_context(it->second));
}

namespace {

using opencl_baseline::ClDevice;
using opencl_baseline::ClRunner;

template <class T>
class Spmv : public ClRunner {
 public:
  Spmv(const ClDevice& dev, const SpmvData<T>& d)
      : ClRunner(dev), d_(d), ctx_(context_for(dev)), A_(ctx_), x_(d.x.size(), ctx_), y_(d.y0.size(), ctx_) {
    // ViennaCL's CSR uses unsigned int indices: the same bits as Tessera's non-negative int32.
    A_.set(d.A.row_ptr.data(), d.A.col_idx.data(), d.A.values.data(), static_cast<viennacl::vcl_size_t>(d.A.rows),
           static_cast<viennacl::vcl_size_t>(d.A.cols), static_cast<viennacl::vcl_size_t>(d.A.nnz()));
    viennacl::fast_copy(d.x.begin(), d.x.end(), x_.begin());
  }
  void reset() override { viennacl::fast_copy(d_.y0.begin(), d_.y0.end(), y_.begin()); }
  void run() override { viennacl::linalg::prod_impl(A_, x_, d_.alpha, y_, d_.beta); }
  std::vector<double> result() override {
    std::vector<T> h(d_.y0.size());
    viennacl::fast_copy(y_.begin(), y_.end(), h.begin());
    return std::vector<double>(h.begin(), h.end());
  }

 private:
  const SpmvData<T>& d_;
  viennacl::context ctx_;
  viennacl::compressed_matrix<T> A_;
  viennacl::vector<T> x_, y_;
};

}  // namespace

template <class T>
std::unique_ptr<Runner> spmv(const std::string& spec, const SpmvData<T>& d) {
  return std::make_unique<Spmv<T>>(opencl_baseline::device(spec), d);
}

std::string version() {
  return "ViennaCL " + std::to_string(VIENNACL_MAJOR_VERSION) + "." + std::to_string(VIENNACL_MINOR_VERSION) + "." +
         std::to_string(VIENNACL_PATCH_VERSION);
}

template std::unique_ptr<Runner> spmv<float>(const std::string&, const SpmvData<float>&);
template std::unique_ptr<Runner> spmv<double>(const std::string&, const SpmvData<double>&);

}  // namespace bench::viennacl_lib
