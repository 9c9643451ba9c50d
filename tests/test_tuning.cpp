// The tuning table (lib/src/tuning/): defaults per device class, TESSERA_TUNE overrides and
// their validation, and the OpenCL defines generated from it. Pure host logic: no device.
#include <doctest/doctest.h>

#include <cstdlib>
#include <string>

#include "host_machine.hpp"
#include "tessera/errors.hpp"
#include "tessera/tessera.hpp"
#include "tuning/tuning.hpp"

using tessera::InvalidArgument;
using tessera::tuning::Tuning;

TEST_CASE("tuning: every parameter's defaults lie in its range and name known classes") {
  for (const auto& p : tessera::tuning::all_params()) {
    INFO(p.key);
    CHECK(std::string(p.key).find('.') != std::string::npos);
    CHECK(!p.defaults.empty());
    for (const auto& d : p.defaults) {
      CHECK(d.value >= p.min);
      CHECK(d.value <= p.max);
      const std::string cls = d.device_class;
      bool known = cls.size() > 2 && cls.compare(cls.size() - 2, 2, "/*") == 0;
      for (const auto& c : tessera::tuning::device_classes()) known = known || cls == c.name;
      CHECK_MESSAGE(known, "unknown class " << cls);
    }
  }
  // Every class builds (its defaults pass their own validation).
  for (const auto& c : tessera::tuning::device_classes()) CHECK_NOTHROW(Tuning::for_device(c.name, "x:0", ""));
}

TEST_CASE("tuning: defaults per class, exact class before the backend's wildcard") {
  const Tuning nv = Tuning::for_device("opencl/nvidia", "opencl:0", "");
  const Tuning gcn = Tuning::for_device("opencl/amd-gcn", "opencl:0", "");
  const Tuning cuda = Tuning::for_device("cuda/sm90", "cuda:0", "");
  CHECK(nv["spmv.stream_mean"] == 12);
  CHECK(gcn["spmv.stream_mean"] == 0);
  CHECK(gcn["spmv.max_lanes"] == 64);
  CHECK(cuda["spmv.lanes_shift"] == 1);
  // Keys of other backends do not exist on a device.
  CHECK_FALSE(cuda.has("gemm.mwg"));
  CHECK_FALSE(nv.has("reduce.blocks_per_sm"));
  CHECK(Tuning::for_device("cpu/host", "cpu", "").has("reduce.min_per_thread"));
}

TEST_CASE("tuning: the cpu classes by x86 vendor, and what they set apart") {
  const Tuning intel = Tuning::for_device("cpu/intel", "cpu", "");
  const Tuning amd = Tuning::for_device("cpu/amd", "cpu", "");
  const Tuning host = Tuning::for_device("cpu/host", "cpu", "");
  // AMD's microcoded gathers: scalar loads there, gathers elsewhere.
  CHECK(amd["spmv.gathers"] == 0);
  CHECK(intel["spmv.gathers"] == 1);
  CHECK(host["spmv.gathers"] == 1);
  // Intel: SELL for rows of any spread, the padding limit deciding; the others: irregular rows only.
  CHECK(intel["spmv.sell_max_cv"] == 1000);
  CHECK(amd["spmv.sell_max_cv"] == 0);
  CHECK(host["spmv.sell_max_cv"] == 0);
  // Everything else the same: the three differ only where a measurement put them apart.
  CHECK(intel["spmv.sell_max_padding"] == amd["spmv.sell_max_padding"]);
  CHECK(intel["stencil.block_bytes"] == host["stencil.block_bytes"]);
  // The class may be chosen, as for OpenCL devices, and a wrong one is refused.
  CHECK(Tuning::for_device("cpu/intel", "cpu", "cpu:class=amd").device_class() == "cpu/amd");
  CHECK(Tuning::for_device("cpu/intel", "cpu", "cpu:class=amd")["spmv.gathers"] == 0);
  CHECK_THROWS_AS(Tuning::for_device("cpu/host", "cpu", "cpu:class=nvidia"), tessera::InvalidArgument);
}

TEST_CASE("tuning: the cpu device runs its x86 vendor's class") {
  const char* env = std::getenv("TESSERA_TUNE");
  const std::string tune = env != nullptr ? env : "";
  if (tune.find("class") != std::string::npos) return;  // a class chosen by hand
  std::string expected = "cpu/host";  // ARM and the rest, and any build not for x86
#if defined(__x86_64__) || defined(__i386__)
  const std::string& vendor = tessera::host::machine().vendor;
  if (vendor == "GenuineIntel") expected = "cpu/intel";
  if (vendor == "AuthenticAMD") expected = "cpu/amd";
#endif
  CHECK(tessera::Device::open("cpu").info().tuning_class == expected);
}

TEST_CASE("tuning: TESSERA_TUNE items apply to the devices they target") {
  const std::string text = "cuda:0:spmv.stream_mean=0, opencl:gemm.mwg=48, opencl:1:class=amd-gcn, reduce.vw=8";
  const Tuning c0 = Tuning::for_device("cuda/sm90", "cuda:0", text);
  const Tuning c1 = Tuning::for_device("cuda/sm90", "cuda:1", text);
  CHECK(c0["spmv.stream_mean"] == 0);
  CHECK(c0.overridden());
  CHECK(c1["spmv.stream_mean"] == 12);
  const Tuning o0 = Tuning::for_device("opencl/nvidia", "opencl:0", text);
  const Tuning o1 = Tuning::for_device("opencl/nvidia", "opencl:1", text);
  CHECK(o0.device_class() == "opencl/nvidia");
  CHECK(o0["gemm.mwg"] == 48);
  CHECK(o0["reduce.vw"] == 8);  // untargeted: every device that has the key
  CHECK(o1.device_class() == "opencl/amd-gcn");
  CHECK(o1["gemm.mwg"] == 48);  // applied after the class change
  CHECK(o1["spmv.max_lanes"] == 64);
}

TEST_CASE("tuning: malformed, unknown and out-of-range overrides throw InvalidArgument naming TESSERA_TUNE") {
  auto fails = [](const std::string& text, const std::string& cls = "opencl/nvidia") {
    try {
      (void)Tuning::for_device(cls, "opencl:0", text);
    } catch (const InvalidArgument& e) {
      CHECK(std::string(e.what()).find("TESSERA_TUNE") != std::string::npos);
      return true;
    }
    return false;
  };
  CHECK(fails("spmv.wg"));                 // no '='
  CHECK(fails("spmv.nonsense=4"));         // unknown key
  CHECK(fails("spmv.wg=abc"));             // not an integer
  CHECK(fails("spmv.wg=12"));              // not a power of two
  CHECK(fails("spmv.wg=4096"));            // above its range
  CHECK(fails("reduce.vw=3"));             // not a vector width
  CHECK(fails("opencl:class=nosuch"));     // unknown class
  CHECK(fails("opencl:0:reduce.blocks_per_sm=2"));  // a CUDA key aimed at an OpenCL device
  CHECK(fails("spmv.stream_mean=99999999999999999999"));  // overflows
  CHECK_FALSE(fails(""));
  CHECK_FALSE(fails("cuda:0:spmv.wg=3"));  // aimed at another device: not checked here
  CHECK_FALSE(fails("reduce.blocks_per_sm=2"));  // untargeted key of another backend: ignored
}

TEST_CASE("tuning: OpenCL defines are generated from an operation's keys") {
  Tuning t = Tuning::for_device("opencl/pocl-cpu", "opencl:0", "opencl:spmv.rows_per_item=8");
  const std::string d = t.defines("spmv");
  CHECK(d.find("-DSPMV_WG=64") != std::string::npos);
  CHECK(d.find("-DSPMV_ROWS_PER_ITEM=8") != std::string::npos);
  CHECK(d.find("GEMM") == std::string::npos);
  CHECK(t.defines("nosuchop").empty());
  t.set("gemm.mwg", 64);
  CHECK(t["gemm.mwg"] == 64);
  CHECK_THROWS_AS(t.set("gemm.vw", 5), InvalidArgument);
}
