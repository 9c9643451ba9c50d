// CSV: the JSON rows flattened, sizes as one "key=value;..." column; empty cells for n/a.
#include <cmath>
#include <fstream>
#include <stdexcept>

#include "report.hpp"

namespace bench {

namespace {

std::string field(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string q = "\"";
  for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

std::string num(double v) {
  if (std::isnan(v)) return "";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

}  // namespace

std::string sizes_string(const std::vector<std::pair<std::string, std::int64_t>>& sizes) {
  std::string s;
  for (const auto& [k, v] : sizes) s += (s.empty() ? "" : ";") + k + "=" + std::to_string(v);
  return s;
}

void write_csv(const std::string& path, const std::vector<Row>& rows) {
  std::ofstream f(path);
  if (!f) throw std::runtime_error("cannot write " + path);
  f << "op,dtype,case,sizes,flops,bytes,bound,device,backend,impl,impl_detail,reps,median_ms,min_ms,max_ms,first_call_ms,setup_ms,iterations,gflops,gbs,"
       "pct_peak,peak,in_llc,ratio_to_baseline,baseline,check,check_error,check_mean_error,oracle,note\n";
  for (const Row& r : rows) {
    f << field(r.op) << ',' << r.dtype << ',' << field(r.case_name) << ',' << field(sizes_string(r.sizes)) << ',' << num(r.flops) << ','
      << num(r.bytes) << ',' << field(r.bound) << ','
      << field(r.device) << ',' << field(r.backend) << ',' << field(r.impl) << ',' << field(r.impl_detail) << ',' << (r.reps ? std::to_string(r.reps) : "")
      << ',' << num(r.median_ms) << ',' << num(r.min_ms) << ',' << num(r.max_ms) << ',' << num(r.first_call_ms) << ','
      << num(r.setup_ms) << ',' << (r.iterations >= 0 ? std::to_string(r.iterations) : "") << ',' << num(r.gflops) << ',' << num(r.gbs) << ',' << num(r.pct_peak) << ','
      << field(r.peak_name) << ',' << (r.in_llc ? "1" : "0") << ',' << num(r.ratio_to_baseline) << ',' << field(r.baseline) << ',' << r.check << ','
      << num(r.check_error) << ',' << num(r.check_mean_error) << ',' << r.oracle << ',' << field(r.note) << '\n';
  }
  if (!f) throw std::runtime_error("error writing " + path);
}

}  // namespace bench
