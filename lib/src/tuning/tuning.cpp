#include "tuning/tuning.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <stdexcept>

#include "tessera/errors.hpp"

namespace tessera::tuning {

// Each operation's table (tuning/<op>.cpp).
const std::vector<ParamSpec>& device_params();
const std::vector<ParamSpec>& reduce_params();
const std::vector<ParamSpec>& spmv_params();
const std::vector<ParamSpec>& spmm_params();
const std::vector<ParamSpec>& trsv_params();
const std::vector<ParamSpec>& sptrsv_params();
const std::vector<ParamSpec>& gemm_params();
const std::vector<ParamSpec>& stencil_params();
const std::vector<ParamSpec>& conv_params();
const std::vector<ParamSpec>& vector_params();
const std::vector<ParamSpec>& cg_params();

const std::vector<ParamSpec>& all_params() {
  static const std::vector<ParamSpec> all = [] {
    std::vector<ParamSpec> v;
    for (const auto* table : {&device_params(), &reduce_params(), &spmv_params(), &spmm_params(), &trsv_params(), &sptrsv_params(),
                              &gemm_params(), &stencil_params(), &conv_params(), &vector_params(), &cg_params()})
      v.insert(v.end(), table->begin(), table->end());
    return v;
  }();
  return all;
}

const std::vector<DeviceClass>& device_classes() {
  static const std::vector<DeviceClass> classes = {
      {"cpu/host", "the host CPU: OpenMP threads, Highway SIMD (ARM, and x86 cores of other vendors)"},
      {"cpu/intel", "an Intel x86 host CPU: as cpu/host, SIMD gathers cheap"},
      {"cpu/amd", "an AMD x86 host CPU: as cpu/host, SIMD gathers microcoded (slow)"},
      {"cuda/sm90", "NVIDIA Hopper (sm_90): 132 SMs, cp.async, DMMA"},
      {"cuda/sm80", "NVIDIA Ampere and Ada (sm_80..sm_89): cp.async, DMMA"},
      {"opencl/nvidia", "NVIDIA GPU: warp 32, tiles in shared memory"},
      {"opencl/amd-gcn", "AMD GCN GPU: wavefront 64, <= 256 work-items and 32 KB local memory per group"},
      {"opencl/pocl-cpu", "PoCL on a CPU: register-blocked kernels, no local memory, explicit vectors"},
      {"opencl/intel-cpu", "Intel OpenCL CPU runtime: register-blocked kernels, no local memory, explicit vectors"},
      {"opencl/generic", "generic OpenCL device: small work-groups and tiles that any OpenCL 1.2 device runs"},
  };
  return classes;
}

namespace {

std::string trim(std::string_view s) {
  const auto b = s.find_first_not_of(" \t");
  if (b == std::string_view::npos) return {};
  const auto e = s.find_last_not_of(" \t");
  return std::string(s.substr(b, e - b + 1));
}

std::string backend_of(const std::string& device_class) { return device_class.substr(0, device_class.find('/')); }

const ParamSpec* find_spec(std::string_view key) { return find_param(key); }

// The names of a named parameter, split at '|'.
std::vector<std::string> names_of(const ParamSpec& p) {
  std::vector<std::string> out;
  if (p.names == nullptr) return out;
  std::string_view s = p.names;
  for (std::size_t b = 0;;) {
    const std::size_t e = s.find('|', b);
    out.emplace_back(s.substr(b, e == std::string_view::npos ? std::string_view::npos : e - b));
    if (e == std::string_view::npos) break;
    b = e + 1;
  }
  return out;
}

bool is_class(const std::string& name) {
  return std::any_of(device_classes().begin(), device_classes().end(),
                     [&](const DeviceClass& c) { return name == c.name; });
}

std::string class_names(const std::string& backend) {
  std::string s;
  for (const auto& c : device_classes())
    if (backend_of(c.name) == backend) s += (s.empty() ? "" : ", ") + std::string(c.name).substr(backend.size() + 1);
  return s;
}

// The default of `p` for the class, if the parameter exists there.
bool default_for(const ParamSpec& p, const std::string& device_class, std::int64_t& value) {
  const std::string wildcard = backend_of(device_class) + "/*";
  for (const auto& d : p.defaults)
    if (device_class == d.device_class) return value = d.value, true;
  for (const auto& d : p.defaults)
    if (wildcard == d.device_class) return value = d.value, true;
  return false;
}

std::string check_value(const ParamSpec& p, std::int64_t v) {
  if (v < p.min || v > p.max)
    return std::string(p.key) + " = " + std::to_string(v) + " is outside " + std::to_string(p.min) + ".." +
           std::to_string(p.max);
  if (p.shape == Shape::pow2 && (v <= 0 || (v & (v - 1)) != 0))
    return std::string(p.key) + " = " + std::to_string(v) + " must be a power of two";
  if (p.shape == Shape::vector_width && v != 1 && v != 2 && v != 4 && v != 8 && v != 16)
    return std::string(p.key) + " = " + std::to_string(v) + " must be 1, 2, 4, 8 or 16 (a vector width)";
  return {};
}

struct Item {
  std::string target, key, value;
};

// Splits "a:b:key=value" into target "a:b", key and value.
std::vector<Item> parse(const std::string& text) {
  std::vector<Item> items;
  std::size_t start = 0;
  while (start <= text.size()) {
    std::size_t end = text.find(',', start);
    if (end == std::string::npos) end = text.size();
    const std::string item = trim(std::string_view(text).substr(start, end - start));
    start = end + 1;
    if (item.empty()) continue;
    const auto eq = item.find('=');
    if (eq == std::string::npos)
      throw InvalidArgument("TESSERA_TUNE='" + text + "': item '" + item +
                            "' has no '='; expected [target:]key=value, e.g. cuda:0:spmv.stream_mean=0");
    const std::string lhs = trim(std::string_view(item).substr(0, eq));
    const auto colon = lhs.rfind(':');
    Item it;
    it.key = colon == std::string::npos ? lhs : trim(std::string_view(lhs).substr(colon + 1));
    it.target = colon == std::string::npos ? std::string() : trim(std::string_view(lhs).substr(0, colon));
    it.value = trim(std::string_view(item).substr(eq + 1));
    if (it.key.empty())
      throw InvalidArgument("TESSERA_TUNE='" + text + "': item '" + item + "' names no key");
    items.push_back(std::move(it));
  }
  return items;
}

// Whether an item's target names this device: empty, its spec, or its backend.
bool targets(const Item& it, const std::string& spec, const std::string& backend) {
  if (it.target.empty()) return true;
  return it.target == spec || it.target == backend;
}

}  // namespace

const ParamSpec* find_param(std::string_view key) {
  for (const auto& p : all_params())
    if (key == p.key) return &p;
  return nullptr;
}

std::string value_name(const ParamSpec& p, std::int64_t v) {
  const std::vector<std::string> names = names_of(p);
  if (v >= 0 && v < static_cast<std::int64_t>(names.size())) return names[static_cast<std::size_t>(v)];
  return std::to_string(v);
}

Tuning Tuning::for_device(const std::string& device_class, const std::string& spec) {
  const char* env = std::getenv("TESSERA_TUNE");
  return for_device(device_class, spec, env != nullptr ? env : "");
}

Tuning Tuning::for_device(const std::string& device_class, const std::string& spec, const std::string& text) {
  const std::string backend = backend_of(device_class);
  const std::vector<Item> items = parse(text);
  auto fail = [&](const std::string& what) {
    throw InvalidArgument("TESSERA_TUNE='" + text + "' for " + spec + ": " + what);
  };

  Tuning t;
  t.class_ = device_class;
  for (const Item& it : items) {
    if (it.key != "class" || !targets(it, spec, backend)) continue;
    const std::string chosen = backend + "/" + it.value;
    if (!is_class(chosen)) fail("unknown class '" + it.value + "'; expected one of " + class_names(backend));
    t.class_ = chosen;
    t.overridden_ = true;
  }
  if (!is_class(t.class_)) throw std::logic_error("tuning: unknown device class " + t.class_);

  for (const auto& p : all_params()) {
    std::int64_t v = 0;
    if (default_for(p, t.class_, v)) t.values_.emplace_back(p.key, v);
  }

  for (const Item& it : items) {
    if (it.key == "class" || !targets(it, spec, backend)) continue;
    const ParamSpec* p = find_spec(it.key);
    if (p == nullptr) fail("unknown key '" + it.key + "' (tessera-info lists each device's keys)");
    if (!t.has(it.key)) {
      // A key of another backend, given without a target: not meant for this device.
      if (it.target.empty()) continue;
      fail("key '" + it.key + "' does not exist on a " + t.class_ + " device");
    }
    char* end = nullptr;
    errno = 0;
    long long v = std::strtoll(it.value.c_str(), &end, 10);
    const std::vector<std::string> names = names_of(*p);
    if (const auto n = std::find(names.begin(), names.end(), it.value); n != names.end()) {
      v = n - names.begin();
    } else if (it.value.empty() || *end != '\0' || errno == ERANGE) {
      if (!names.empty()) fail(it.key + "=" + it.value + " is not one of " + p->names + " (or their number)");
      fail(it.key + "=" + it.value + " is not an integer");
    }
    if (std::string why = check_value(*p, v); !why.empty()) fail(why);
    for (auto& [k, value] : t.values_)
      if (k == it.key) value = v;
    t.overridden_ = true;
  }
  return t;
}

bool Tuning::has(std::string_view key) const {
  return std::any_of(values_.begin(), values_.end(), [&](const auto& kv) { return kv.first == key; });
}

std::int64_t Tuning::operator[](std::string_view key) const {
  for (const auto& [k, v] : values_)
    if (k == key) return v;
  throw std::logic_error("tuning: " + class_ + " has no parameter " + std::string(key));
}

void Tuning::set(std::string_view key, std::int64_t value) {
  const ParamSpec* p = find_spec(key);
  if (p == nullptr || !has(key)) throw std::logic_error("tuning: " + class_ + " has no parameter " + std::string(key));
  if (std::string why = check_value(*p, value); !why.empty()) throw InvalidArgument("tuning for " + class_ + ": " + why);
  for (auto& [k, v] : values_)
    if (k == key) v = value;
}

std::string Tuning::defines(std::string_view op) const {
  std::string out;
  for (const auto& [k, v] : values_) {
    if (k.size() <= op.size() || k.compare(0, op.size(), op) != 0 || k[op.size()] != '.') continue;
    std::string name;
    for (const char c : k) name += c == '.' ? '_' : static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    out += (out.empty() ? "-D" : " -D") + name + "=" + std::to_string(v);
  }
  return out;
}

}  // namespace tessera::tuning
