// --report DIR: one self-contained HTML page (inline CSS and SVG, no scripts, no fonts or files
// from the network), so it opens anywhere, is archived as one file, and renders the same in a
// headless browser. Per operation: horizontal bars of the rate that bounds it (GB/s or GFLOP/s)
// for every device and implementation, with the measured peak marked; for --sweep series, time
// against size on log-log axes; then the rows as a table.
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>

#include "report.hpp"

namespace bench {

namespace {

std::string esc(const std::string& s) {
  std::string o;
  for (char c : s) {
    switch (c) {
      case '&': o += "&amp;"; break;
      case '<': o += "&lt;"; break;
      case '>': o += "&gt;"; break;
      case '"': o += "&quot;"; break;
      default: o += c;
    }
  }
  return o;
}

std::string f(const char* fmt, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, fmt, v);
  return buf;
}

std::string num3(double v) {
  if (std::isnan(v)) return "";
  if (v >= 100) return f("%.0f", v);
  if (v >= 10) return f("%.1f", v);
  return f("%.3g", v);
}

// One colour per device/implementation, in order of first appearance.
class Palette {
 public:
  const char* operator()(const std::string& key) {
    static const char* colors[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
                                   "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"};
    auto it = index_.find(key);
    if (it == index_.end()) it = index_.emplace(key, index_.size()).first;
    return colors[it->second % 10];
  }

 private:
  std::map<std::string, std::size_t> index_;
};

std::string impl_key(const Row& r) { return r.device + " / " + r.impl; }
double rate(const Row& r) { return r.bound == "flops" ? r.gflops : r.gbs; }
const char* rate_unit(const Row& r) { return r.bound == "flops" ? "GFLOP/s" : "GB/s"; }

// Bars: one group per case and dtype, one bar per device/implementation.
std::string bar_chart(const std::vector<const Row*>& rows, Palette& pal) {
  const int label_w = 330, bar_w = 430, text_w = 200, bar_h = 16, gap = 4, head_h = 20;
  double scale = 0;
  for (const Row* r : rows) {
    if (!r->measured()) continue;
    scale = std::max(scale, rate(*r));
    if (!std::isnan(r->pct_peak) && r->pct_peak > 0) scale = std::max(scale, rate(*r) / r->pct_peak * 100);
  }
  if (!(scale > 0)) scale = 1;
  std::ostringstream s;
  int y = 0;
  std::string unit;
  std::ostringstream body;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const Row& r = *rows[i];
    const std::string u = r.dtype + " " + r.case_name;
    if (unit != u) {
      unit = u;
      y += i ? gap * 2 : 0;
      body << "<text x='0' y='" << y + 14 << "' class='unit'>" << esc(u) << "</text>\n";
      y += head_h;
    }
    body << "<text x='12' y='" << y + 12 << "' class='lbl'>" << esc(impl_key(r)) << "</text>\n";
    if (r.measured() && r.check != "FAILED") {
      const double w = std::max(1.0, rate(r) / scale * bar_w);
      body << "<rect x='" << label_w << "' y='" << y << "' width='" << f("%.1f", w) << "' height='" << bar_h
           << "' fill='" << pal(impl_key(r)) << "'><title>" << esc(impl_key(r)) << ": " << num3(rate(r)) << " "
           << rate_unit(r) << ", median " << num3(r.median_ms) << " ms</title></rect>\n";
      if (!std::isnan(r.pct_peak) && r.pct_peak > 0) {
        const double px = label_w + rate(r) / r.pct_peak * 100 / scale * bar_w;
        body << "<line x1='" << f("%.1f", px) << "' x2='" << f("%.1f", px) << "' y1='" << y - 1 << "' y2='"
             << y + bar_h + 1 << "' class='peak'/>\n";
      }
      std::string t = num3(rate(r)) + " " + rate_unit(r);
      if (!std::isnan(r.pct_peak)) t += " (" + f("%.0f", r.pct_peak) + "%)";
      if (!std::isnan(r.ratio_to_baseline)) t += " " + f("%.2f", r.ratio_to_baseline) + "x";
      body << "<text x='" << label_w + bar_w + 6 << "' y='" << y + 12 << "' class='val'>" << esc(t) << "</text>\n";
    } else {
      const bool failed = r.check == "FAILED";
      body << "<text x='" << label_w << "' y='" << y + 12 << "' class='" << (failed ? "failed" : "na") << "'>"
           << esc(failed ? "FAILED: " + r.note : r.check + ": " + r.note) << "</text>\n";
    }
    y += bar_h + gap;
  }
  s << "<svg xmlns='http://www.w3.org/2000/svg' width='" << label_w + bar_w + text_w << "' height='" << y + 4
    << "' class='chart'>\n"
    << body.str() << "</svg>\n";
  return s.str();
}

// Log-log lines of median time against size (bytes or FLOPs per call), one per
// device/implementation and dtype (f64 dashed).
std::string scaling_chart(const std::vector<const Row*>& rows, Palette& pal) {
  const int W = 760, H = 360, ml = 70, mr = 190, mt = 10, mb = 45;
  std::map<std::string, std::vector<std::pair<double, double>>> lines;  // key -> (x, ms)
  double x0 = 1e300, x1 = 0, y0 = 1e300, y1 = 0;
  const bool by_flops = !rows.empty() && rows.front()->bound == "flops";
  for (const Row* r : rows) {
    if (!r->measured() || r->check == "FAILED") continue;
    const double x = by_flops ? r->flops : r->bytes;
    if (!(x > 0) || !(r->median_ms > 0)) continue;
    lines[impl_key(*r) + " " + r->dtype].push_back({x, r->median_ms});
    x0 = std::min(x0, x), x1 = std::max(x1, x), y0 = std::min(y0, r->median_ms), y1 = std::max(y1, r->median_ms);
  }
  if (lines.empty()) return "";
  const double lx0 = std::floor(std::log10(x0)), lx1 = std::max(lx0 + 1, std::ceil(std::log10(x1)));
  const double ly0 = std::floor(std::log10(y0)), ly1 = std::max(ly0 + 1, std::ceil(std::log10(y1)));
  auto px = [&](double x) { return ml + (std::log10(x) - lx0) / (lx1 - lx0) * (W - ml - mr); };
  auto py = [&](double y) { return mt + (ly1 - std::log10(y)) / (ly1 - ly0) * (H - mt - mb); };
  std::ostringstream s;
  s << "<svg xmlns='http://www.w3.org/2000/svg' width='" << W << "' height='" << H << "' class='chart'>\n";
  for (double e = lx0; e <= lx1; ++e)
    s << "<line x1='" << px(std::pow(10, e)) << "' x2='" << px(std::pow(10, e)) << "' y1='" << mt << "' y2='" << H - mb
      << "' class='grid'/><text x='" << px(std::pow(10, e)) << "' y='" << H - mb + 16 << "' class='tick' "
      << "text-anchor='middle'>1e" << e << "</text>\n";
  for (double e = ly0; e <= ly1; ++e)
    s << "<line x1='" << ml << "' x2='" << W - mr << "' y1='" << py(std::pow(10, e)) << "' y2='" << py(std::pow(10, e))
      << "' class='grid'/><text x='" << ml - 6 << "' y='" << py(std::pow(10, e)) + 4 << "' class='tick' "
      << "text-anchor='end'>" << esc(f("%g", std::pow(10, e))) << "</text>\n";
  s << "<text x='" << (ml + W - mr) / 2 << "' y='" << H - 8 << "' class='axis' text-anchor='middle'>"
    << (by_flops ? "FLOPs per call" : "bytes per call") << "</text>\n"
    << "<text x='14' y='" << (mt + H - mb) / 2 << "' class='axis' text-anchor='middle' transform='rotate(-90 14 "
    << (mt + H - mb) / 2 << ")'>median ms</text>\n";
  int ly = mt + 10;
  for (auto& [key, pts] : lines) {
    std::sort(pts.begin(), pts.end());
    const std::string color = pal(key.substr(0, key.rfind(' ')));
    const bool dashed = key.size() >= 3 && key.compare(key.size() - 3, 3, "f64") == 0;
    s << "<polyline fill='none' stroke='" << color << "' stroke-width='2'" << (dashed ? " stroke-dasharray='6 3'" : "")
      << " points='";
    for (const auto& [x, y] : pts) s << f("%.1f", px(x)) << "," << f("%.1f", py(y)) << " ";
    s << "'/>\n";
    for (const auto& [x, y] : pts)
      s << "<circle cx='" << f("%.1f", px(x)) << "' cy='" << f("%.1f", py(y)) << "' r='3' fill='" << color << "'><title>"
        << esc(key) << ": " << num3(y) << " ms at " << f("%.3g", x) << "</title></circle>\n";
    s << "<line x1='" << W - mr + 10 << "' x2='" << W - mr + 34 << "' y1='" << ly << "' y2='" << ly << "' stroke='"
      << color << "' stroke-width='2'" << (dashed ? " stroke-dasharray='6 3'" : "") << "/><text x='" << W - mr + 40
      << "' y='" << ly + 4 << "' class='lbl'>" << esc(key) << "</text>\n";
    ly += 16;
  }
  s << "</svg>\n";
  return s.str();
}

std::string rows_table(const std::vector<const Row*>& rows) {
  std::ostringstream s;
  s << "<table><tr><th>dtype</th><th>case</th><th>device</th><th>impl</th><th>median ms</th><th>min</th><th>max</th>"
       "<th>GFLOP/s</th><th>GB/s</th><th>% peak</th><th>vs base</th><th>check</th></tr>\n";
  for (const Row* r : rows) {
    s << "<tr><td>" << esc(r->dtype) << "</td><td>" << esc(r->case_name) << "</td><td>" << esc(r->device) << "</td><td>"
      << esc(r->impl) << "</td>";
    if (r->measured() && r->check != "FAILED") {
      s << "<td>" << num3(r->median_ms) << "</td><td>" << num3(r->min_ms) << "</td><td>" << num3(r->max_ms) << "</td><td>"
        << num3(r->gflops) << "</td><td>" << num3(r->gbs) << "</td><td>"
        << (std::isnan(r->pct_peak) ? "" : f("%.0f%% ", r->pct_peak) + esc(r->peak_name) + (r->in_llc ? "*" : ""))
        << "</td><td>"
        << (std::isnan(r->ratio_to_baseline) ? "" : f("%.2fx ", r->ratio_to_baseline) + esc(r->baseline))
        << "</td><td>" << esc(r->check) << "</td>";
    } else {
      s << "<td colspan='7' class='" << (r->check == "FAILED" ? "failed" : "na") << "'>" << esc(r->note) << "</td><td>"
        << esc(r->check) << "</td>";
    }
    s << "</tr>\n";
  }
  s << "</table>\n";
  return s.str();
}

}  // namespace

void write_html_report(const std::string& dir, const RunInfo& i, const std::vector<Row>& rows) {
  std::filesystem::create_directories(dir);
  write_json((std::filesystem::path(dir) / "results.json").string(), i, rows);
  write_csv((std::filesystem::path(dir) / "results.csv").string(), rows);

  std::ostringstream h;
  h << "<!DOCTYPE html>\n<html lang='en'><head><meta charset='utf-8'><title>tessera-bench " << esc(i.date)
    << "</title>\n<style>\n"
       "body{font-family:system-ui,sans-serif;margin:24px;color:#222;max-width:1200px}\n"
       "h1{font-size:22px}h2{font-size:18px;margin-top:32px;border-bottom:1px solid #ccc}\n"
       "table{border-collapse:collapse;font-size:12px;margin:8px 0}td,th{border:1px solid #ddd;padding:2px 6px;"
       "text-align:left}th{background:#f4f4f4}\n"
       ".chart{display:block;margin:8px 0;font-size:11px}.unit{font-weight:bold;font-size:12px}.lbl{fill:#333}"
       ".val{fill:#333}.na{fill:#888;color:#888}.failed{fill:#c00;color:#c00;font-weight:bold}\n"
       ".peak{stroke:#000;stroke-width:2;stroke-dasharray:3 2}.grid{stroke:#e4e4e4}.tick{fill:#555}.axis{fill:#333}\n"
       ".meta td:first-child{font-weight:bold;white-space:nowrap}\n"
       "</style></head><body>\n";
  h << "<h1>tessera-bench " << esc(i.tessera_version) << ": " << esc(i.machine) << ", " << esc(i.date) << "</h1>\n";
  h << "<table class='meta'>\n";
  auto meta = [&](const std::string& k, const std::string& v) {
    h << "<tr><td>" << esc(k) << "</td><td>" << esc(v) << "</td></tr>\n";
  };
  meta("command", i.command_line);
  meta("machine", i.cpu_model + ", " + std::to_string(i.cores) + " cores, " + std::to_string(i.threads) +
                      " OpenMP threads, " + f("%.1f GiB", static_cast<double>(i.memory_bytes) / (1ull << 30)) +
                      ", last-level cache " + f("%.0f MiB", static_cast<double>(i.llc_bytes) / (1 << 20)) + "; " + i.os);
  meta("build", i.compiler + "; cpu SIMD target " + i.cpu_simd_target);
  std::string libs;
  for (const auto& b : i.baselines) libs += (libs.empty() ? "" : "; ") + b;
  meta("baselines", libs.empty() ? "none" : libs);
  if (!i.openblas_core.empty()) meta("OpenBLAS core", i.openblas_core + " (" + i.openblas_note + ")");
  meta("size", i.size + f(", >= %.2g s", i.min_time_s) + " and >= " + std::to_string(i.min_reps) +
                   " calls per measurement, median");
  for (const auto& d : i.devices)
    meta("device " + d.spec, d.name + (d.simd_target.empty() ? "" : ", SIMD " + d.simd_target) + ", " +
                                 std::to_string(d.compute_units) + " compute units");
  for (const auto& [b, why] : i.unavailable) meta(b, "unavailable: " + why);
  for (const auto& p : i.peaks)
    meta("peak " + p.scope, p.host_memory
                                ? "read " + num3(p.read_gbs) + " GB/s, copy " + num3(p.copy_gbs) + " GB/s, triad " +
                                      num3(p.triad_gbs) + " GB/s; " + p.flops_kind + " f32 " + num3(p.gflops_f32) + " GFLOP/s, f64 " +
                                      num3(p.gflops_f64) + " GFLOP/s (" + p.method + ")"
                                : "copy " + num3(p.copy_gbs) + " GB/s" +
                                      (std::isnan(p.gflops_f32) ? std::string()
                                                                : "; " + p.flops_kind + " f32 " + num3(p.gflops_f32) + " GFLOP/s, f64 " +
                                                                      num3(p.gflops_f64) + " GFLOP/s") +
                                      " (" + p.method + ")");
  for (const auto& n : i.notes) meta("note", n);
  h << "</table>\n<p>Bars: the rate that bounds each operation (GB/s for bandwidth-bound ones, GFLOP/s for gemm, trsm "
       "and the conv layer), the dashed mark at the device's measured peak; the text gives the % of that peak and, on "
       "Tessera's rows, the ratio fastest baseline time / Tessera time on the same device (&gt; 1: Tessera faster). * after a percentage: the data is smaller than 2x "
       "the host's last-level cache, so on a CPU the rate may be cache bandwidth. Every result was "
       "checked against the reference backend; FAILED marks a wrong result. Data: <a href='results.json'>"
       "results.json</a>, <a href='results.csv'>results.csv</a>.</p>\n";

  Palette pal;
  std::vector<std::string> ops;
  for (const Row& r : rows)
    if (std::find(ops.begin(), ops.end(), r.op) == ops.end()) ops.push_back(r.op);
  for (const auto& op : ops) {
    std::vector<const Row*> mine;
    for (const Row& r : rows)
      if (r.op == op) mine.push_back(&r);
    h << "<h2 id='" << esc(op) << "'>" << esc(op) << "</h2>\n" << bar_chart(mine, pal);
    std::vector<std::string> series;
    for (const Row* r : mine)
      if (!r->series.empty() && std::find(series.begin(), series.end(), r->series) == series.end())
        series.push_back(r->series);
    for (const auto& se : series) {
      std::vector<const Row*> pts;
      for (const Row* r : mine)
        if (r->series == se) pts.push_back(r);
      h << "<h3>" << esc(se) << ": time against size</h3>\n" << scaling_chart(pts, pal);
    }
    h << rows_table(mine);
  }
  h << "</body></html>\n";

  const auto path = std::filesystem::path(dir) / "index.html";
  std::ofstream out(path);
  if (!out) throw std::runtime_error("cannot write " + path.string());
  out << h.str();
  if (!out) throw std::runtime_error("error writing " + path.string());
}

}  // namespace bench
