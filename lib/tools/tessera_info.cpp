// tessera-info: what this Tessera build finds on this machine: its version, every device with
// its facts, every backend (and, for each unavailable one, why), and which operation runs in
// which dtype on which device. Text for people, --json for scripts.
//
// Its main use is finding out why a backend is missing, so it has to keep going when a plugin
// or a device fails: each call into the library is guarded, and what failed is printed in its
// place instead of ending the program.
#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <iostream>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "command_line.hpp"
#include "tessera/tessera.hpp"

namespace {

constexpr std::array<tessera::DType, 2> all_dtypes = {tessera::DType::f32, tessera::DType::f64};

struct DeviceReport {
  tessera::DeviceInfo info;
  std::string error;  // why the device could not be opened for the feature matrix, if it could not
  // support[op][dtype], in the order of tessera::all_ops and all_dtypes; empty when error is set.
  std::vector<std::array<tessera::Support, all_dtypes.size()>> support;
};

struct Report {
  std::string version = tessera::version();
  std::vector<std::string> cpu_targets;
  std::string cpu_target;
  std::vector<DeviceReport> devices;
  std::string devices_error;  // tessera::devices() itself failed
  std::vector<tessera::BackendStatus> backends;
  std::string backends_error;
};

// Runs f, and returns the message of whatever it threw, or nothing when it did not throw.
template <class F>
std::optional<std::string> failure_of(F&& f) {
  try {
    f();
  } catch (const std::exception& e) {
    return std::string(e.what());
  } catch (...) {
    return std::string("unknown exception");
  }
  return std::nullopt;
}

DeviceReport report_device(const tessera::Device& device) {
  DeviceReport r;
  r.info = device.info();
  for (const tessera::Op op : tessera::all_ops) {
    std::array<tessera::Support, all_dtypes.size()> row;
    for (std::size_t t = 0; t < all_dtypes.size(); ++t) {
      if (auto err = failure_of([&] { row[t] = device.backend().support(op, all_dtypes[t]); }))
        row[t] = {false, "support() threw: " + *err};
    }
    r.support.push_back(row);
  }
  return r;
}

// Collects everything first, so the text and JSON writers only format. Devices are listed
// before backends are read: opening a device can fail, and the registry then records the
// reason in that device's backend status.
Report collect(const std::string& only_spec) {
  Report rep;
  if (auto err = failure_of([&] { rep.cpu_targets = tessera::cpu_targets(); })) rep.cpu_targets = {"? (" + *err + ")"};
  if (auto err = failure_of([&] { rep.cpu_target = tessera::cpu_target(); })) rep.cpu_target = "? (" + *err + ")";

  if (!only_spec.empty()) {
    // Errors propagate: the caller asked for this one device, so not finding it is the answer.
    rep.devices.push_back(report_device(tessera::Device::open(only_spec)));
  } else {
    std::vector<tessera::DeviceInfo> infos;
    if (auto err = failure_of([&] { infos = tessera::devices(); })) rep.devices_error = *err;
    for (const auto& info : infos) {
      DeviceReport r;
      if (auto err = failure_of([&] { r = report_device(tessera::Device::open(info.spec)); })) {
        r.info = info;
        r.error = *err;
      }
      rep.devices.push_back(std::move(r));
    }
  }
  if (auto err = failure_of([&] { rep.backends = tessera::backends(); })) rep.backends_error = *err;
  return rep;
}

std::string gib(std::uint64_t bytes) {
  if (bytes == 0) return "unknown";
  std::ostringstream s;
  s.setf(std::ios::fixed);
  s.precision(1);
  s << static_cast<double>(bytes) / (1024.0 * 1024.0 * 1024.0) << " GiB";
  return s.str();
}

std::string join(const std::vector<std::string>& parts, const char* sep) {
  std::string out;
  for (const auto& p : parts) out += (out.empty() ? "" : sep) + p;
  return out;
}

std::string pad(const std::string& s, std::size_t width) {
  return s.size() >= width ? s : s + std::string(width - s.size(), ' ');
}

std::string rtrim(std::string s) {
  s.erase(s.find_last_not_of(' ') + 1);
  return s;
}

std::string or_dash(const std::string& s) { return s.empty() ? "-" : s; }

// "f32 f64", "f32 -", "- f64" or "-": the dtypes an op runs in on a device.
std::string cell(const std::array<tessera::Support, all_dtypes.size()>& row) {
  bool any = false;
  std::string out;
  for (std::size_t t = 0; t < all_dtypes.size(); ++t) {
    any = any || row[t].ok;
    out += std::string(t ? " " : "") + (row[t].ok ? tessera::to_string(all_dtypes[t]) : "-");
  }
  return any ? out : "-";
}

// ---- text ----

void print_devices(std::ostream& o, const Report& rep) {
  o << "Devices (" << rep.devices.size() << ")\n";
  if (!rep.devices_error.empty()) o << "  listing devices failed: " << rep.devices_error << "\n";
  if (rep.devices.empty()) o << "  none\n";
  // Rows first, for every device, so that all values line up in one column.
  std::vector<std::vector<std::pair<std::string, std::string>>> all_rows;
  std::size_t w = 0;
  for (const auto& d : rep.devices) {
    const auto& i = d.info;
    std::vector<std::pair<std::string, std::string>> rows = {
        {"backend", i.backend},
        {"vendor", or_dash(i.vendor)},
        {"type", or_dash(i.type)},
        {"compute units", i.compute_units > 0 ? std::to_string(i.compute_units) : "unknown"},
        {"memory", gib(i.memory_bytes)},
        {"driver", or_dash(i.driver)},
    };
    if (i.backend == "cpu" || !i.simd_target.empty())
      rows.emplace_back("SIMD target", or_dash(i.simd_target) + "   (compiled and supported here: " +
                                           join(rep.cpu_targets, ", ") + ")");
    if (!d.error.empty()) rows.emplace_back("error", d.error);
    for (const auto& r : rows) w = std::max(w, r.first.size());
    for (const auto& kv : i.details) w = std::max(w, kv.first.size() + 2);  // details sit 2 deeper
    all_rows.push_back(std::move(rows));
  }
  w += 3;
  for (std::size_t k = 0; k < rep.devices.size(); ++k) {
    const auto& i = rep.devices[k].info;
    o << "\n  " << i.spec << "   " << or_dash(i.name) << "\n";
    for (const auto& r : all_rows[k]) o << "    " << pad(r.first, w) << r.second << "\n";
    if (!i.details.empty()) {
      o << "    details\n";
      for (const auto& kv : i.details) o << "      " << pad(kv.first, w - 2) << kv.second << "\n";
    }
    if (!i.tuning.empty()) {
      // Several values per line: there are dozens, and each is short.
      o << "    tuning (" << i.tuning_class << "; TESSERA_TUNE=" << i.spec << ":key=value overrides)\n";
      std::string line;
      for (const auto& [key, value] : i.tuning) {
        const std::string item = key + "=" + std::to_string(value);
        if (!line.empty() && line.size() + item.size() + 2 > 96) {
          o << "      " << line << "\n";
          line.clear();
        }
        line += (line.empty() ? "" : "  ") + item;
      }
      if (!line.empty()) o << "      " << line << "\n";
    }
  }
}

void print_backends(std::ostream& o, const Report& rep) {
  o << "Backends\n";
  if (!rep.backends_error.empty()) o << "  listing backends failed: " << rep.backends_error << "\n";
  std::size_t w = 4;
  for (const auto& b : rep.backends) w = std::max(w, b.name.size());
  w += 3;
  o << "  " << pad("name", w) << pad("status", 14) << pad("devices", 9) << "location\n";
  for (const auto& b : rep.backends) {
    o << "  " << pad(b.name, w) << pad(b.available ? "available" : "unavailable", 14)
      << pad(std::to_string(b.device_count), 9) << or_dash(b.location) << "\n";
    // Unavailable: why. Available with a reason: some of its devices could not be opened.
    if (!b.reason.empty())
      o << "  " << std::string(w, ' ') << (b.available ? "note: " : "reason: ") << b.reason << "\n";
  }
}

void print_matrix(std::ostream& o, const Report& rep) {
  o << "Feature matrix\n";
  o << "  cell: the dtypes the device runs the operation in (\"f32 f64\", \"f32 -\", ...); \"-\": not supported\n";
  std::size_t w0 = 0;
  for (const tessera::Op op : tessera::all_ops) w0 = std::max(w0, std::string(tessera::to_string(op)).size());
  w0 += 3;
  std::vector<std::size_t> widths;
  std::string line = "  " + pad("op", w0);
  for (const auto& d : rep.devices) {
    widths.push_back(std::max<std::size_t>(d.info.spec.size(), 7) + 3);  // 7: "f32 f64"
    line += pad(d.info.spec, widths.back());
  }
  o << rtrim(line) << "\n";
  for (std::size_t k = 0; k < tessera::all_ops.size(); ++k) {
    line = "  " + pad(tessera::to_string(tessera::all_ops[k]), w0);
    for (std::size_t c = 0; c < rep.devices.size(); ++c) {
      const auto& d = rep.devices[c];
      line += pad(d.error.empty() ? cell(d.support[k]) : "?", widths[c]);  // "?": could not be opened
    }
    o << rtrim(line) << "\n";
  }

  // Why not: per device, each distinct reason once, with the cells it covers.
  bool header = false;
  for (const auto& d : rep.devices) {
    std::vector<std::pair<std::string, std::vector<std::string>>> reasons;
    std::size_t unsupported = 0;
    if (!d.error.empty()) reasons.push_back({"could not be opened: " + d.error, {}});
    for (std::size_t k = 0; k < d.support.size(); ++k)
      for (std::size_t t = 0; t < all_dtypes.size(); ++t) {
        const auto& s = d.support[k][t];
        if (s.ok) continue;
        ++unsupported;
        const std::string where = std::string(tessera::to_string(tessera::all_ops[k])) + " " +
                                  tessera::to_string(all_dtypes[t]);
        auto it = std::find_if(reasons.begin(), reasons.end(), [&](const auto& r) { return r.first == s.reason; });
        if (it == reasons.end()) reasons.push_back({s.reason, {where}});
        else it->second.push_back(where);
      }
    if (reasons.empty()) continue;
    if (!header) o << "  not supported, and why:\n";
    header = true;
    for (const auto& [why, cells] : reasons) {
      const bool all =
          !cells.empty() && cells.size() == unsupported && unsupported == d.support.size() * all_dtypes.size();
      o << "    " << d.info.spec << ": " << (all ? "everything" : join(cells, ", ")) << (cells.empty() ? "" : ": ")
        << or_dash(why) << "\n";
    }
  }
}

void print_text(std::ostream& o, const Report& rep) {
  o << "Tessera " << rep.version << "\n\n";
  print_devices(o, rep);
  o << "\n";
  print_backends(o, rep);
  o << "\n";
  print_matrix(o, rep);
}

// ---- JSON ----

nlohmann::ordered_json to_json(const Report& rep) {
  using json = nlohmann::ordered_json;
  json j;
  j["version"] = rep.version;
  j["cpu_target"] = rep.cpu_target;
  j["cpu_targets"] = rep.cpu_targets;

  j["devices"] = json::array();
  json matrix = json::object();
  json unsupported = json::array();
  for (const auto& d : rep.devices) {
    const auto& i = d.info;
    json details = json::object();
    for (const auto& [k, v] : i.details) details[k] = v;
    json tuning = json::object();
    for (const auto& [k, v] : i.tuning) tuning[k] = v;
    json dev = {{"spec", i.spec},
                {"backend", i.backend},
                {"index", i.index},
                {"name", i.name},
                {"vendor", i.vendor},
                {"type", i.type},
                {"compute_units", i.compute_units},
                {"memory_bytes", i.memory_bytes},
                {"simd_target", i.simd_target},
                {"driver", i.driver},
                {"details", details},
                {"tuning_class", i.tuning_class},
                {"tuning", tuning}};
    if (!d.error.empty()) dev["error"] = d.error;
    j["devices"].push_back(dev);

    // feature_matrix[spec][op] = the dtypes it runs in; "unsupported" says why for the rest.
    json col = json::object();
    if (!d.error.empty()) col["error"] = d.error;
    for (std::size_t k = 0; k < d.support.size(); ++k) {
      const char* op = tessera::to_string(tessera::all_ops[k]);
      col[op] = json::array();
      for (std::size_t t = 0; t < all_dtypes.size(); ++t) {
        const auto& s = d.support[k][t];
        if (s.ok) col[op].push_back(tessera::to_string(all_dtypes[t]));
        else
          unsupported.push_back({{"device", i.spec}, {"op", op}, {"dtype", tessera::to_string(all_dtypes[t])},
                                 {"reason", s.reason}});
      }
    }
    matrix[i.spec] = col;
  }
  if (!rep.devices_error.empty()) j["devices_error"] = rep.devices_error;

  j["backends"] = json::array();
  for (const auto& b : rep.backends)
    j["backends"].push_back({{"name", b.name},
                             {"available", b.available},
                             {"device_count", b.device_count},
                             {"location", b.location},
                             {"reason", b.reason}});
  if (!rep.backends_error.empty()) j["backends_error"] = rep.backends_error;

  j["ops"] = json::array();
  for (const tessera::Op op : tessera::all_ops) j["ops"].push_back(tessera::to_string(op));
  j["feature_matrix"] = matrix;
  j["unsupported"] = unsupported;
  return j;
}

}  // namespace

int main(int argc, char** argv) {
  tessera::tools::CommandLine cli{
      "Lists what this Tessera build finds here: devices, backends (with the reason for each "
      "unavailable one) and which operations each device runs."};
  bool json = false;
  std::string device;
  cli.flag("--json", json, "Print everything as one JSON document on stdout");
  cli.option("--device", device,
             "Only this device: a spec as Device::open takes it (reference, cpu, "
             "cuda:0, opencl:1, auto)");
  cli.version_flag("--version", std::string("tessera-info ") + tessera::version());
  if (int rc = 0; !cli.parse(argc, argv, rc)) return rc;

  Report rep;
  try {
    rep = collect(device);
  } catch (const std::exception& e) {
    // Only --device gets here: the one device asked for is not there.
    std::cerr << "tessera-info: " << e.what() << "\n(run tessera-info without --device to see what is there)\n";
    return 1;
  }
  if (json) std::cout << to_json(rep).dump(2) << "\n";
  else print_text(std::cout, rep);
  return 0;
}
