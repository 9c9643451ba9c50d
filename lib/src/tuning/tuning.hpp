// One tuning mechanism for every backend (CUB's tuning_<op>, CLBlast's parameter database):
// each operation declares its named integer parameters once, in lib/src/tuning/<op>.cpp, with
// the valid range and a default per device class; a device's Tuning is those defaults for its
// class, then the user's overrides from TESSERA_TUNE, validated. Backends read values by key,
// OpenCL kernels get them as generated -D defines, tessera-info shows them, and an autotuner
// writes exactly this data.
//
// Device classes are "<backend>/<class>": "cuda/sm90", "cuda/sm80", "opencl/nvidia",
// "opencl/amd-gcn", "opencl/pocl-cpu", "opencl/intel-cpu", "opencl/generic", "cpu/intel", "cpu/amd",
// "cpu/host" (any other CPU: ARM, other x86 vendors). A
// parameter's defaults are matched against the class exactly, then against "<backend>/*"; a
// parameter with no match does not exist on that device (cuda has no gemm.mdimc).
//
// TESSERA_TUNE = item (',' item)*
//   item = [target ':'] key '=' value
//   target: a device spec ("cuda:0", "opencl:1", "cpu") or a backend name ("opencl": all of
//           its devices); none: every device that has the key
//   key: "<op>.<name>" (tessera-info lists each device's keys) or "class" (value: a class name
//        of the device's backend without the prefix, e.g. opencl:0:class=amd-gcn; applied
//        before the other items)
// e.g. TESSERA_TUNE="cuda:0:spmv.stream_mean=0,opencl:0:class=amd-gcn,opencl:gemm.mwg=64".
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace tessera::tuning {

// A parameter's constraint beyond its range.
enum class Shape : std::uint8_t { any, pow2, vector_width /* 1, 2, 4, 8 or 16 */ };

struct Default {
  const char* device_class;  // "opencl/nvidia", or "opencl/*" for every class of the backend
  std::int64_t value;
};

struct ParamSpec {
  const char* key;  // "<op>.<name>", e.g. "spmv.wg"
  const char* doc;  // one line: what it sets and which kernels read it
  std::int64_t min, max;
  Shape shape;
  std::vector<Default> defaults;
  // For a choice among named alternatives: "auto|csr|sell", value i being the i-th name;
  // TESSERA_TUNE accepts the name or the number. Null for a plain number.
  const char* names = nullptr;
};
// The name of value v of a named parameter ("sell"), or the number as text.
std::string value_name(const ParamSpec& p, std::int64_t v);
// The spec of `key`, or null.
const ParamSpec* find_param(std::string_view key);

// Every parameter of every operation (tuning/<op>.cpp), in display order.
const std::vector<ParamSpec>& all_params();

// One device class: its name and a line for tessera-info.
struct DeviceClass {
  const char* name;  // "opencl/nvidia"
  const char* description;
};
const std::vector<DeviceClass>& device_classes();

class Tuning {
 public:
  Tuning() = default;

  // The defaults of `device_class` ("opencl/nvidia"), then the TESSERA_TUNE items for the
  // device `spec` (a "class=" item first selects another class of the same backend). Throws
  // InvalidArgument for an unknown class or key, a malformed item, or a value outside its range
  // or shape; the message names TESSERA_TUNE and the item.
  static Tuning for_device(const std::string& device_class, const std::string& spec);
  // As for_device, with the override text given (tests; `overrides` has TESSERA_TUNE's syntax).
  static Tuning for_device(const std::string& device_class, const std::string& spec, const std::string& overrides);

  // A parameter's value; a key this device does not have is a programming error (std::logic_error).
  std::int64_t operator[](std::string_view key) const;
  int get(std::string_view key) const { return static_cast<int>((*this)[key]); }
  bool has(std::string_view key) const;

  // Sets one value, validated as an override is (tests, and backends that derive a value from
  // the device at open, e.g. a subgroup width they query).
  void set(std::string_view key, std::int64_t value);

  // "-DSPMV_WG=256 -DSPMV_MAX_LANES=32 ..." for every key of `op` ("spmv"): the OpenCL build
  // options of that operation's kernels, in key order.
  std::string defines(std::string_view op) const;

  const std::string& device_class() const { return class_; }
  bool overridden() const { return overridden_; }  // a TESSERA_TUNE item applied to this device
  // (key, value) in the table's order.
  const std::vector<std::pair<std::string, std::int64_t>>& values() const { return values_; }

 private:
  std::string class_;
  bool overridden_ = false;
  std::vector<std::pair<std::string, std::int64_t>> values_;
};

}  // namespace tessera::tuning
