// tessera-solve: solves A x = b for a Matrix Market A on one device or on all of them, side by
// side, with the solvers and preconditioners of tessera/solve.hpp; prints iterations, the
// final true residual, the error against the known solution (when b = A * ones is made here),
// setup and per-iteration time. --json and --history write the same for scripts.
//
// Exit codes: 0 every device converged, 1 an error (bad file, non-square matrix, a
// preconditioner that cannot be built, ...), 2 a device did not converge (what it reached is
// printed).
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "command_line.hpp"
#include "tessera/tessera.hpp"

namespace {

using namespace tessera;

struct Args {
  std::string matrix, rhs, device = "auto", solver = "cg", precond = "none", dtype = "f64", json, history;
  std::string precond_dtype;  // the factors' storage (ilu0, ic0); empty: the solve's dtype
  double tol = 1e-8;
  int restart = 30, check_every = 0;
  bool no_graphs = false;
  bool no_fused = false;
  std::int64_t max_it = 10000;
};

struct Run {
  std::string device;
  std::string error;  // the device could not run the solve
  SolveResult result;
  double error_vs_ones = -1;  // max |x_i - 1|, when b = A * ones
};

// A is symmetric when every stored (i, j) has a stored (j, i) of the same value.
bool symmetric(const HostCsr<double>& a) {
  for (std::int32_t i = 0; i < a.rows; ++i)
    for (auto k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k) {
      const std::int32_t j = a.col_idx[k];
      const auto b = a.col_idx.begin() + a.row_ptr[j], e = a.col_idx.begin() + a.row_ptr[j + 1];
      const auto p = std::lower_bound(b, e, i);  // rows from read_matrix_market are sorted
      if (p == e || *p != i || a.values[static_cast<std::size_t>(p - a.col_idx.begin())] != a.values[k]) return false;
    }
  return true;
}

std::vector<double> read_rhs(const std::string& path, std::int64_t n) {
  const HostCsr<double> b = read_matrix_market<double>(path);
  if (b.rows != n || b.cols != 1)
    throw DimensionMismatch("--rhs " + path + " is " + std::to_string(b.rows) + " x " + std::to_string(b.cols) +
                            ", expected " + std::to_string(n) + " x 1");
  std::vector<double> v(static_cast<std::size_t>(n), 0.0);
  for (std::int32_t i = 0; i < n; ++i)
    for (auto k = b.row_ptr[i]; k < b.row_ptr[i + 1]; ++k) v[static_cast<std::size_t>(i)] += b.values[k];
  return v;
}

void progress(const std::string& line) {
  static const bool tty = isatty(STDERR_FILENO) != 0;
  if (tty) std::fprintf(stderr, "\r\033[K%s", line.c_str());
}

template <class T>
Run solve_on(const std::string& spec, const HostCsr<double>& h, const std::vector<double>* rhs, const Args& a) {
  Run run;
  run.device = spec;
  const Device d = Device::open(spec);
  run.device = d.spec();
  progress(run.device + ": uploading");
  HostCsr<T> ht;
  ht.rows = h.rows;
  ht.cols = h.cols;
  ht.row_ptr = h.row_ptr;
  ht.col_idx = h.col_idx;
  ht.values.assign(h.values.begin(), h.values.end());
  const auto A = CsrMatrix<T>::from_host(d, ht);
  Vector<T> b(d, h.rows), x(d, h.rows);
  if (rhs != nullptr) {
    b.upload(std::vector<T>(rhs->begin(), rhs->end()));
  } else {
    const auto ones = Vector<T>::from_host(d, std::vector<T>(static_cast<std::size_t>(h.rows), T(1)));
    spmv(T(1), A, ones, T(0), b);
  }
  fill(T(0), x);
  progress(run.device + ": preconditioner " + a.precond);
  std::unique_ptr<Preconditioner<T>> M;
  if (a.precond == "jacobi") M = std::make_unique<Jacobi<T>>(A);
  const DType storage = a.precond_dtype == "f32" ? DType::f32 : dtype_v<T>;
  if (a.precond == "ilu0") M = std::make_unique<Ilu0<T>>(A, storage);
  if (a.precond == "ic0") M = std::make_unique<Ic0<T>>(A, storage);
  progress(run.device + ": " + a.solver + " running");
  SolveOptions o;
  o.rel_tol = a.tol;
  o.max_iterations = a.max_it;
  o.restart = a.restart;
  o.check_every = a.check_every;
  o.graphs = !a.no_graphs;
  o.fused = !a.no_fused;
  o.record_history = !a.history.empty();
  const SolverKind kind = a.solver == "cg" ? SolverKind::cg : a.solver == "bicgstab" ? SolverKind::bicgstab : SolverKind::gmres;
  run.result = solve(kind, d.queue(), A, b, x, M.get(), o);
  if (rhs == nullptr) {
    double err = 0;
    for (const T v : x.to_host()) err = std::max(err, std::fabs(static_cast<double>(v) - 1.0));
    run.error_vs_ones = err;
  }
  progress("");
  return run;
}

std::string fmt(const char* f, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

void print_table(const std::vector<Run>& runs, bool known_solution) {
  std::vector<std::pair<std::string, std::vector<std::string>>> rows = {
      {"status", {}}, {"iterations", {}}, {"true ||r||/||b||", {}}, {"recurrence ||r||", {}}, {"max |x - 1|", {}},
      {"setup (s)", {}}, {"preconditioner (s)", {}}, {"per iteration (us)", {}}, {"solve (s)", {}}, {"check every", {}}, {"graph replay", {}},
      {"fused steps", {}}};
  for (const Run& r : runs) {
    const SolveResult& s = r.result;
    const bool ok = r.error.empty();
    auto put = [&](std::size_t row, const std::string& v) { rows[row].second.push_back(ok ? v : "-"); };
    rows[0].second.push_back(ok ? to_string(s.status) : "error");
    put(1, std::to_string(s.iterations));
    put(2, s.true_residual >= 0 && s.rhs_norm > 0 ? fmt("%.3e", s.true_residual / s.rhs_norm) : "-");
    put(3, fmt("%.3e", s.residual));
    put(4, known_solution ? fmt("%.3e", r.error_vs_ones) : "-");
    put(5, fmt("%.3g", s.setup_seconds));
    put(6, fmt("%.3g", s.preconditioner_seconds));
    put(7, fmt("%.2f", s.seconds_per_iteration() * 1e6));
    put(8, fmt("%.3g", s.solve_seconds));
    put(9, std::to_string(s.check_every));
    put(10, s.graph ? "yes" : "no");
    put(11, s.fused ? "yes" : "no");
  }
  std::size_t w0 = 20, w = 14;
  for (const Run& r : runs) w = std::max(w, r.device.size() + 2);
  std::printf("%-*s", static_cast<int>(w0), "");
  for (const Run& r : runs) std::printf("%*s", static_cast<int>(w), r.device.c_str());
  std::printf("\n");
  for (const auto& [name, cells] : rows) {
    std::printf("%-*s", static_cast<int>(w0), name.c_str());
    for (const auto& c : cells) std::printf("%*s", static_cast<int>(w), c.c_str());
    std::printf("\n");
  }
  for (const Run& r : runs) {
    if (!r.error.empty()) std::printf("%s: error: %s\n", r.device.c_str(), r.error.c_str());
    else if (!r.result.converged) std::printf("%s: %s\n", r.device.c_str(), r.result.reason.c_str());
  }
}

nlohmann::json to_json(const Args& a, const HostCsr<double>& h, const std::vector<Run>& runs) {
  nlohmann::json j;
  j["matrix"] = a.matrix;
  j["rows"] = h.rows;
  j["nnz"] = h.nnz();
  j["solver"] = a.solver;
  j["preconditioner"] = a.precond;
  j["dtype"] = a.dtype;
  j["preconditioner_dtype"] = a.precond_dtype.empty() ? a.dtype : a.precond_dtype;
  j["rel_tol"] = a.tol;
  j["devices"] = nlohmann::json::array();
  for (const Run& r : runs) {
    nlohmann::json d;
    d["device"] = r.device;
    if (!r.error.empty()) {
      d["error"] = r.error;
    } else {
      const SolveResult& s = r.result;
      d["status"] = to_string(s.status);
      d["converged"] = s.converged;
      d["reason"] = s.reason;
      d["iterations"] = s.iterations;
      d["residual"] = s.residual;
      d["true_residual"] = s.true_residual;
      d["rhs_norm"] = s.rhs_norm;
      if (r.error_vs_ones >= 0) d["error_vs_ones"] = r.error_vs_ones;
      d["setup_seconds"] = s.setup_seconds;
      d["preconditioner_seconds"] = s.preconditioner_seconds;
      d["solve_seconds"] = s.solve_seconds;
      d["seconds_per_iteration"] = s.seconds_per_iteration();
      d["check_every"] = s.check_every;
      d["graph"] = s.graph;
      d["fused"] = s.fused;
    }
    j["devices"].push_back(d);
  }
  return j;
}

}  // namespace

int main(int argc, char** argv) {
  Args a;
  tessera::tools::CommandLine cli{
      "tessera-solve: solve A x = b (Matrix Market A) with CG, BiCGSTAB or GMRES on Tessera's devices"};
  cli.option("matrix", a.matrix, "A, a Matrix Market coordinate file (.mtx or .mtx.gz)").required();
  cli.option("--rhs", a.rhs, "b, an n x 1 Matrix Market coordinate file; default b = A * ones");
  cli.option("--device", a.device, "cuda:0, opencl:0, cpu, reference, auto, or all (every device but the reference)");
  cli.option("--solver", a.solver, "cg, bicgstab or gmres").choices({"cg", "bicgstab", "gmres"});
  cli.option("--precond", a.precond, "none, jacobi, ilu0 or ic0").choices({"none", "jacobi", "ilu0", "ic0"});
  cli.option("--tol", a.tol, "relative tolerance: stop when ||b - A x|| <= tol ||b||");
  cli.option("--dtype", a.dtype, "f32 or f64").choices({"f32", "f64"});
  cli.option("--precond-dtype", a.precond_dtype,
             "ilu0/ic0 factors stored in f32 or f64 (default: --dtype); f32 with --dtype f64 is the "
             "mixed-precision preconditioner")
      .choices({"f32", "f64"});
  cli.option("--restart", a.restart, "GMRES restart length m").positive();
  cli.option("--max-it", a.max_it, "iteration limit").non_negative();
  cli.option("--check-every", a.check_every, "residual check interval (0: chosen automatically)").non_negative();
  cli.flag("--no-graphs", a.no_graphs, "do not replay CG/BiCGSTAB iterations from a recorded graph (cuda)");
  cli.flag("--no-fused", a.no_fused,
           "run CG's iterations as separate operations where the device has a fused kernel (small systems)");
  cli.option("--json", a.json, "write the results as JSON to this file");
  cli.option("--history", a.history, "write device,iteration,residual at every check to this CSV file");
  if (int rc = 0; !cli.parse(argc, argv, rc)) return rc;

  // An explicit choice the run cannot honour is an error, not a silent default: Jacobi and none
  // have no factors to store, and f64 factors in an f32 solve would gain nothing.
  if (!a.precond_dtype.empty() && a.precond_dtype != a.dtype) {
    if (a.precond != "ilu0" && a.precond != "ic0") {
      std::fprintf(stderr, "tessera-solve: --precond-dtype %s applies to ilu0 and ic0 only, not to --precond %s\n",
                   a.precond_dtype.c_str(), a.precond.c_str());
      return 1;
    }
    if (a.dtype == "f32") {
      std::fprintf(stderr, "tessera-solve: --precond-dtype f64 with --dtype f32: factors are stored at most in the "
                           "solve's precision\n");
      return 1;
    }
  }
  const std::string precond_label =
      a.precond + (a.precond_dtype.empty() || a.precond_dtype == a.dtype ? "" : "(" + a.precond_dtype + ")");

  HostCsr<double> h;
  std::vector<double> rhs;
  try {
    h = read_matrix_market<double>(a.matrix);
    if (h.rows != h.cols) {
      std::fprintf(stderr, "tessera-solve: %s is %lld x %lld; a linear system needs a square matrix\n",
                   a.matrix.c_str(), static_cast<long long>(h.rows), static_cast<long long>(h.cols));
      return 1;
    }
    if (!a.rhs.empty()) rhs = read_rhs(a.rhs, h.rows);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "tessera-solve: %s\n", e.what());
    return 1;
  }
  if (a.solver == "cg" && !symmetric(h))
    std::fprintf(stderr, "tessera-solve: warning: %s is not symmetric; CG needs a symmetric positive definite matrix "
                         "(try --solver bicgstab or gmres)\n", a.matrix.c_str());
  if (a.precond == "ic0" && !symmetric(h))
    std::fprintf(stderr, "tessera-solve: warning: IC(0) reads only the lower triangle of an unsymmetric matrix\n");

  std::vector<std::string> specs;
  if (a.device == "all") {
    for (const DeviceInfo& d : devices())
      if (d.backend != "reference") specs.push_back(d.spec);
  } else {
    specs.push_back(a.device);
  }
  std::printf("%s: %lld x %lld, %lld nonzeros; %s + %s, %s, tol %g%s\n", a.matrix.c_str(),
              static_cast<long long>(h.rows), static_cast<long long>(h.cols), static_cast<long long>(h.nnz()),
              a.solver.c_str(), precond_label.c_str(), a.dtype.c_str(), a.tol, rhs.empty() ? ", b = A * ones" : "");
  std::vector<Run> runs;
  bool failed = false;
  for (const std::string& spec : specs) {
    try {
      runs.push_back(a.dtype == "f32" ? solve_on<float>(spec, h, rhs.empty() ? nullptr : &rhs, a)
                                      : solve_on<double>(spec, h, rhs.empty() ? nullptr : &rhs, a));
    } catch (const std::exception& e) {
      progress("");
      Run r;
      r.device = spec;
      r.error = e.what();
      runs.push_back(r);
      failed = true;
    }
  }
  print_table(runs, rhs.empty());

  if (!a.json.empty()) {
    std::ofstream out(a.json);
    out << to_json(a, h, runs).dump(2) << "\n";
    if (!out) {
      std::fprintf(stderr, "tessera-solve: cannot write %s\n", a.json.c_str());
      return 1;
    }
  }
  if (!a.history.empty()) {
    std::ofstream out(a.history);
    out << "device,iteration,residual\n";
    for (const Run& r : runs)
      for (std::size_t i = 0; i < r.result.history.size(); ++i)
        out << r.device << "," << r.result.history_iterations[i] << "," << r.result.history[i] << "\n";
    if (!out) {
      std::fprintf(stderr, "tessera-solve: cannot write %s\n", a.history.c_str());
      return 1;
    }
  }
  if (failed) return 1;
  for (const Run& r : runs)
    if (!r.result.converged) return 2;
  return 0;
}
