// oneDNN baselines: convolution_forward (inference) with algorithm::convolution_auto and
// format_tag::any, so oneDNN picks both the algorithm and its preferred memory layouts.
// The timed call takes NCHW in and gives NCHW out, as Tessera does: it includes the reorders
// of the input and output into and out of oneDNN's chosen layout when that differs (usually a
// small share of a layer). The weights are reordered once, outside the timing, as a framework
// caches them. The single-channel conv2d is the same primitive with N = C = K = 1.
#include <dnnl.hpp>

#include <unordered_map>

#include "baselines/libs.hpp"

namespace bench::onednn {

namespace {

using dnnl::memory;
using tag = memory::format_tag;
using dt = memory::data_type;

dnnl::engine& engine() {
  static dnnl::engine e(dnnl::engine::kind::cpu, 0);
  return e;
}

class Conv : public Runner {
 public:
  // in: N x C x H x W, filter: K x C x R x S (both NCHW host arrays); out: N x K x P x Q.
  Conv(const float* in, const float* filter, memory::dims src, memory::dims wei, memory::dims dst, memory::dims strides,
       memory::dims pad_l, memory::dims pad_r)
      : stream_(engine()), out_(static_cast<std::size_t>(dst[0] * dst[1] * dst[2] * dst[3])) {
    const memory::desc src_any(src, dt::f32, tag::any), wei_any(wei, dt::f32, tag::any), dst_any(dst, dt::f32, tag::any);
    const dnnl::convolution_forward::desc desc(dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_auto,
                                               src_any, wei_any, dst_any, strides, pad_l, pad_r);
    pd_ = dnnl::convolution_forward::primitive_desc(desc, engine());
    conv_ = dnnl::convolution_forward(pd_);

    // User memories wrap the host arrays (oneDNN does not write src or weights).
    user_src_ = memory({src, dt::f32, tag::nchw}, engine(), const_cast<float*>(in));
    user_dst_ = memory({dst, dt::f32, tag::nchw}, engine(), out_.data());
    memory user_wei({wei, dt::f32, tag::oihw}, engine(), const_cast<float*>(filter));

    src_ = pd_.src_desc() == user_src_.get_desc() ? user_src_ : memory(pd_.src_desc(), engine());
    dst_ = pd_.dst_desc() == user_dst_.get_desc() ? user_dst_ : memory(pd_.dst_desc(), engine());
    wei_ = pd_.weights_desc() == user_wei.get_desc() ? user_wei : memory(pd_.weights_desc(), engine());
    if (wei_ != user_wei) {
      dnnl::reorder(user_wei, wei_).execute(stream_, user_wei, wei_);
      stream_.wait();
    }
    if (src_ != user_src_) src_reorder_ = dnnl::reorder(user_src_, src_);
    if (dst_ != user_dst_) dst_reorder_ = dnnl::reorder(dst_, user_dst_);
  }

  void run() override {
    if (src_ != user_src_) src_reorder_.execute(stream_, user_src_, src_);
    conv_.execute(stream_, {{DNNL_ARG_SRC, src_}, {DNNL_ARG_WEIGHTS, wei_}, {DNNL_ARG_DST, dst_}});
    if (dst_ != user_dst_) dst_reorder_.execute(stream_, dst_, user_dst_);
    stream_.wait();
  }
  std::vector<double> result() override { return std::vector<double>(out_.begin(), out_.end()); }
  std::string detail() const override { return pd_.impl_info_str(); }

 private:
  dnnl::stream stream_;
  std::vector<float> out_;
  dnnl::convolution_forward::primitive_desc pd_;
  dnnl::convolution_forward conv_;
  memory user_src_, user_dst_, src_, dst_, wei_;
  dnnl::reorder src_reorder_, dst_reorder_;
};

}  // namespace

std::unique_ptr<Runner> conv2d(const Conv2dData<float>& d) {
  // 'same': zero padding (K-1)/2 before and K/2 after, so the output is H x W.
  const auto lo = (d.K - 1) / 2, hi = d.K / 2;
  return std::make_unique<Conv>(d.image.data(), d.filter.data(), memory::dims{1, 1, d.H, d.W},
                                memory::dims{1, 1, d.K, d.K}, memory::dims{1, 1, d.H, d.W}, memory::dims{1, 1},
                                memory::dims{lo, lo}, memory::dims{hi, hi});
}

std::unique_ptr<Runner> conv_layer(const ConvLayerData<float>& d) {
  // Right padding that makes oneDNN's output extent equal P (and Q) under Tessera's formula.
  const auto pr_h = (d.P - 1) * d.params.stride_h + d.R - d.H - d.params.pad_h;
  const auto pr_w = (d.Q - 1) * d.params.stride_w + d.S - d.W - d.params.pad_w;
  return std::make_unique<Conv>(d.in.data(), d.filter.data(), memory::dims{d.N, d.C, d.H, d.W},
                                memory::dims{d.K, d.C, d.R, d.S}, memory::dims{d.N, d.K, d.P, d.Q},
                                memory::dims{d.params.stride_h, d.params.stride_w},
                                memory::dims{d.params.pad_h, d.params.pad_w}, memory::dims{pr_h, pr_w});
}

std::string version() {
  const dnnl_version_t* v = dnnl_version();
  return "oneDNN " + std::to_string(v->major) + "." + std::to_string(v->minor) + "." + std::to_string(v->patch);
}

}  // namespace bench::onednn
