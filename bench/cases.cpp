// Case sizes. The guiding rule: at --size medium and large, bandwidth-bound cases are several
// times larger than the last-level cache (32 MiB on this 2-core VM, up to a few hundred MiB on
// servers), so they measure memory, not cache; medium finishes the whole default run in a few
// minutes on 2 cores; large holds the sizes of the CPU issue's targets (issue 3); gpu holds those
// of the CUDA issue's table (issue 5), in its dtypes only; small is tiny and odd-sized (primes,
// one past powers of two) for CI smoke runs and QEMU.
#include "cases.hpp"

#include <algorithm>
#include <filesystem>
#include <initializer_list>
#include <sstream>
#include <stdexcept>

namespace bench {

namespace {


// 33554432 -> "32M", 1000003 -> "1000003": readable sizes for case names.
std::string count(std::int64_t n) {
  if (n >= (1 << 20) && n % (1 << 20) == 0) return std::to_string(n >> 20) + "M";
  if (n >= (1 << 10) && n % (1 << 10) == 0 && n < (1 << 20)) return std::to_string(n >> 10) + "K";
  return std::to_string(n);
}

// The table's name of a case, from its kind and sizes.
std::string describe(const CaseSpec& c) {
  auto g = [&](const char* k) { return c.get(k); };
  std::ostringstream s;
  switch (c.op) {
    case Op::reduce:
      if (c.has("bytes") && g("bytes") % (std::int64_t(1) << 30) == 0) s << "sum " << (g("bytes") >> 30) << " GiB";
      else if (c.has("bytes")) s << "sum " << count(g("bytes")) << " bytes";
      else s << "sum n=" << count(g("n"));
      break;
    case Op::dot: s << "n=" << count(g("n")); break;
    case Op::spmv:
    case Op::spmm:
      if (c.kind == "laplace3d") s << "laplace3d " << g("n") << "^3";
      else if (c.kind == "laplace2d") s << "laplace2d " << g("n") << "^2";
      else if (c.kind == "random") s << "random " << count(g("rows")) << " rows " << g("min_per_row") << "-" << g("max_per_row") << "/row";
      else if (c.kind == "powerlaw") {
        s << "powerlaw " << count(g("rows")) << " rows " << g("min_len") << "-" << g("max_len") << "/row";
        if (c.has("exponent_x100")) s << " exp " << g("exponent_x100") / 100 << "." << g("exponent_x100") % 100 / 10;
      }
      else s << std::filesystem::path(c.path).filename().string();
      if (c.op == Op::spmm) s << " k=" << g("k");
      break;
    case Op::trsv: s << "n=" << g("n"); break;
    case Op::trsm: s << "n=" << g("n") << " nrhs=" << g("nrhs"); break;
    case Op::sptrsv:
      if (c.kind == "mtx") s << "lower(" << std::filesystem::path(c.path).filename().string() << ")";
      else s << "lower(laplace3d " << g("n") << "^3)";
      break;
    case Op::gemm:
      if (g("m") > 0 || g("k") > 0)  // a rectangular product (workloads/gemm.cpp)
        s << "m=" << (g("m") > 0 ? g("m") : g("n")) << " n=" << g("n") << " k=" << (g("k") > 0 ? g("k") : g("n"));
      else
        s << "n=" << g("n");
      if (g("scale_exp") > 0) s << " x2^+-" << g("scale_exp");  // badly scaled entries (workloads/gemm.cpp)
      break;
    case Op::stencil: {
      const bool two = c.kind == "2d";
      const auto r = g("radius");
      s << (two ? "2d " : "3d ") << (two ? 4 * r + 1 : 6 * r + 1) << "-pt " << g("n") << (two ? "^2" : "^3") << " x"
        << g("steps");
      if (g("aniso") != 0) s << " aniso";  // the general stencil (workloads/stencil.cpp)
      if (g("faces") == 1) s << " neumann";
      if (g("faces") == 2) s << " periodic";
      break;
    }
    case Op::conv2d: s << g("n") << "^2 " << g("k") << "x" << g("k"); break;
    case Op::axpy:
    case Op::copy:
    case Op::norm2:
    case Op::axpby_dot:
    case Op::dot2: s << "n=" << count(g("n")); break;
    case Op::launch:
      s << "axpy n=" << g("n") << (c.kind == "enqueue" ? " enqueue x" + std::to_string(g("calls")) : " + wait (round trip)");
      break;
    case Op::cg:
    case Op::bicgstab: {
      const std::string matrix = c.kind == "mtx" ? std::filesystem::path(c.path).filename().string()
                                                 : (c.op == Op::bicgstab ? "convdiff3d " : "laplace3d ") +
                                                       std::to_string(g("n")) + "^3";
      if (c.precond.empty()) s << "jacobi " << matrix << " x" << g("iters") << " it";
      else s << c.precond << (c.precond_dtype.empty() ? "" : "(" + c.precond_dtype + ")") << " " << matrix << " to tol";
      break;
    }
    case Op::conv_layer:
      s << "N" << g("N") << " C" << g("C") << " " << g("HW") << "x" << g("HW") << " K" << g("K") << " " << g("RS") << "x"
        << g("RS") << " p" << g("pad");
      if (g("stride") > 1) s << " s" << g("stride");
      break;
  }
  return s.str();
}

CaseSpec make(Op op, std::string kind, std::vector<std::pair<std::string, std::int64_t>> sizes) {
  CaseSpec c;
  c.op = op;
  c.kind = std::move(kind);
  c.sizes = std::move(sizes);
  c.name = describe(c);
  return c;
}

constexpr std::int64_t M = 1 << 20;

// The incomplete factorisation a solver case to the tolerance uses: IC(0) for CG (SPD
// matrices), ILU(0) for BiCGSTAB.
const char* incomplete_factorisation(Op op) { return op == Op::cg ? "ic0" : "ilu0"; }

// A solver case to the tolerance (its preconditioner: incomplete_factorisation) from `c`.
CaseSpec to_tolerance(CaseSpec c) {
  c.precond = incomplete_factorisation(c.op);
  c.sizes.erase(std::remove_if(c.sizes.begin(), c.sizes.end(), [](const auto& kv) { return kv.first == "iters"; }),
                c.sizes.end());
  c.name = describe(c);
  return c;
}

// The same with the factors stored in f32 for the f64 solve (mixed precision; f64 only): the row
// beside to_tolerance's shows its iterations and time against f64 factors.
CaseSpec f32_factors(CaseSpec c) {
  c.precond_dtype = "f32";
  c.dtypes = {tessera::DType::f64};
  c.name = describe(c);
  return c;
}

// The vector algebra at n elements per vector; `launch`: both of its kinds at n = 1000 (the
// issue's small operation: 1000 enqueues timed as a batch, and one call with its wait); `cg`,
// `bicgstab`: 50 Jacobi iterations on the 3D Laplacian (convection-diffusion matrix) of side
// `side`, and the solve to the tolerance with IC(0) (ILU(0)), its factors in the solve's dtype
// and, for f64, in f32.
std::vector<CaseSpec> vector_cases(Op op, std::int64_t n, std::int64_t side) {
  switch (op) {
    case Op::launch:
      return {make(op, "enqueue", {{"n", 1000}, {"calls", 1000}}), make(op, "roundtrip", {{"n", 1000}, {"calls", 1}})};
    case Op::cg:
    case Op::bicgstab: {
      const CaseSpec jacobi = make(op, "", {{"n", side}, {"iters", 50}});
      const CaseSpec tol = to_tolerance(jacobi);
      return {jacobi, tol, f32_factors(tol)};
    }
    default: return {make(op, "", {{"n", n}})};
  }
}

// spmm: the spmv cases' matrices times k = 8 and k = 32 dense columns (the table).
std::vector<CaseSpec> spmm_of(const std::vector<CaseSpec>& spmv) {
  std::vector<CaseSpec> out;
  for (const std::int64_t k : {8, 32})
    for (CaseSpec c : spmv) {
      c.op = Op::spmm;
      c.sizes.push_back({"k", k});
      c.name = describe(c);
      out.push_back(std::move(c));
    }
  return out;
}

std::vector<CaseSpec> small_cases(Op op) {
  switch (op) {
    case Op::reduce: return {make(op, "", {{"n", 1000003}})};
    case Op::dot: return {make(op, "", {{"n", 1000003}})};
    case Op::spmm: return spmm_of(small_cases(Op::spmv));
    case Op::spmv:
      return {make(op, "laplace3d", {{"n", 20}}),
              make(op, "random", {{"rows", 10007}, {"min_per_row", 5}, {"max_per_row", 8}}),
              make(op, "powerlaw", {{"rows", 10007}, {"min_len", 3}, {"max_len", 1000}})};
    case Op::trsv: return {make(op, "", {{"n", 257}})};
    case Op::trsm: return {make(op, "", {{"n", 129}, {"nrhs", 17}})};
    case Op::sptrsv: return {make(op, "", {{"n", 20}})};
    case Op::gemm: return {make(op, "", {{"n", 127}})};
    case Op::stencil:
      return {make(op, "2d", {{"n", 257}, {"radius", 1}, {"steps", 4}}),
              make(op, "3d", {{"n", 33}, {"radius", 1}, {"steps", 4}}),
              make(op, "3d", {{"n", 33}, {"radius", 4}, {"steps", 4}})};
    case Op::conv2d: return {make(op, "", {{"n", 257}, {"k", 5}})};
    case Op::conv_layer:
      return {make(op, "", {{"N", 2}, {"C", 8}, {"HW", 15}, {"K", 8}, {"RS", 3}, {"pad", 1}, {"stride", 1}})};
    default: return vector_cases(op, 1000003, 20);
  }
  return {};
}

std::vector<CaseSpec> medium_cases(Op op) {
  switch (op) {
    // 32M elements: 128 MiB (f32) / 256 MiB (f64) per vector, 4-8x the LLC.
    case Op::reduce: return {make(op, "", {{"n", 32 * M}})};
    case Op::dot: return {make(op, "", {{"n", 32 * M}})};
    // 96^3: 885K rows, 6.1M nonzeros, ~60 MB in f32 (64^3 would fit the LLC).
    case Op::spmm: return spmm_of(medium_cases(Op::spmv));
    case Op::spmv:
      return {make(op, "laplace3d", {{"n", 96}}),
              make(op, "random", {{"rows", M}, {"min_per_row", 5}, {"max_per_row", 8}}),
              make(op, "powerlaw", {{"rows", M}, {"min_len", 3}, {"max_len", 10000}})};
    case Op::trsv: return {make(op, "", {{"n", 4096}})};
    case Op::trsm: return {make(op, "", {{"n", 2048}, {"nrhs", 64}})};
    case Op::sptrsv: return {make(op, "", {{"n", 96}})};
    // m, k: a rectangular m x k times k x n product (0: n).
    case Op::gemm: return {make(op, "", {{"n", 1024}, {"scale_exp", 0}, {"m", 0}, {"k", 0}})};
    // 192^3 (28 MiB per f32 grid) and 4096^2 (64 MiB): 128^3 and 2048^2 grids would sit in
    // the LLC across the 10 steps and report cache, not memory, bandwidth.
    // faces / aniso (0 here): the general stencil's keys for --case (workloads/stencil.cpp).
    case Op::stencil:
      return {make(op, "2d", {{"n", 4096}, {"radius", 1}, {"steps", 10}, {"faces", 0}, {"aniso", 0}}),
              make(op, "3d", {{"n", 192}, {"radius", 1}, {"steps", 10}, {"faces", 0}, {"aniso", 0}}),
              make(op, "3d", {{"n", 192}, {"radius", 4}, {"steps", 10}, {"faces", 0}, {"aniso", 0}})};
    case Op::conv2d: return {make(op, "", {{"n", 2048}, {"k", 5}})};
    case Op::conv_layer:
      return {make(op, "", {{"N", 8}, {"C", 64}, {"HW", 28}, {"K", 64}, {"RS", 3}, {"pad", 1}, {"stride", 1}})};
    // cg, bicgstab: 64^3 (the smallest of issue 16's Laplacians; a CG iteration moves ~58 MB
    // in f64, 1.8x this VM's LLC) and 96^3 (~100 MB).
    case Op::cg:
    case Op::bicgstab: {
      auto v = vector_cases(op, 16 * M, 64);
      const auto big = vector_cases(op, 16 * M, 96);
      v.insert(v.end(), big.begin(), big.end());
      return v;
    }
    // 16M elements: 64 / 128 MiB per vector (f32 / f64), 2-4x this VM's LLC per operand.
    default: return vector_cases(op, 16 * M, 96);
  }
  return {};
}

std::vector<CaseSpec> large_cases(Op op) {
  switch (op) {
    case Op::reduce: return {make(op, "", {{"n", 64 * M}})};  // 256 MiB in f32
    case Op::dot: return {make(op, "", {{"n", 64 * M}})};
    case Op::spmm: return spmm_of(large_cases(Op::spmv));
    case Op::spmv:
      return {make(op, "laplace3d", {{"n", 128}}),
              make(op, "laplace2d", {{"n", 2048}}),
              make(op, "random", {{"rows", 4 * M}, {"min_per_row", 5}, {"max_per_row", 8}}),
              make(op, "powerlaw", {{"rows", 4 * M}, {"min_len", 3}, {"max_len", 10000}})};
    case Op::trsv: return {make(op, "", {{"n", 16384}})};
    case Op::trsm: return {make(op, "", {{"n", 4096}, {"nrhs", 128}})};
    case Op::sptrsv: return {make(op, "", {{"n", 128}})};
    case Op::gemm: return {make(op, "", {{"n", 2048}})};
    // 512^3 x16: the temporally blocked case (issue 18: 16 steps, a grid of 16x this VM's LLC);
    // its one-step-per-pass rate is the same case under TESSERA_TUNE=stencil.time_block=1.
    case Op::stencil:
      return {make(op, "3d", {{"n", 256}, {"radius", 1}, {"steps", 10}}),
              make(op, "3d", {{"n", 256}, {"radius", 4}, {"steps", 10}}),
              make(op, "2d", {{"n", 8192}, {"radius", 1}, {"steps", 10}}),
              make(op, "3d", {{"n", 512}, {"radius", 1}, {"steps", 16}})};
    case Op::conv2d: return {make(op, "", {{"n", 4096}, {"k", 5}})};
    case Op::conv_layer:  // the layer of the book (AlexNet conv4-like)
      return {make(op, "", {{"N", 128}, {"C", 384}, {"HW", 13}, {"K", 256}, {"RS", 3}, {"pad", 1}, {"stride", 1}})};
    // cg at 128^3, the case (0.234 ms per f64 iteration for cuSPARSE + cuBLAS on an H100),
    // and 256^3 on GPU devices only: 16.8M rows, 117M nonzeros, ~2.2 GB per copy in f64 (matrix
    // and CG vectors), 50 iterations take ~10 s per call on a CPU device and the reference's
    // plain loops ~30 s per dtype for the oracle, which a GPU case pays once.
    case Op::cg:
    case Op::bicgstab: {
      auto v = vector_cases(op, 32 * M, 128);
      auto big = vector_cases(op, 32 * M, 256);
      // Jacobi only: an incomplete factorisation of 16.8M rows is factorised on the host, and the
      // reference's solve to the tolerance (the oracle) would take many minutes.
      big.erase(std::remove_if(big.begin(), big.end(), [](const CaseSpec& c) { return !c.precond.empty(); }), big.end());
      for (auto& c : big) c.gpu_only = true;
      v.insert(v.end(), big.begin(), big.end());
      return v;
    }
    // 2^25 elements (128 / 256 MiB per vector): beyond the LLC of any CPU or GPU (H100: 50 MiB L2).
    default: return vector_cases(op, 32 * M, 128);
  }
  return {};
}

// The CUDA issue's table (issue 5), for `--size gpu --devices cuda:0`: its cases in its dtypes
// only. Host-side checks stay cheap: gemm and the conv layer are sampled (4096 entries); the
// reference runs spmv (0.23 GFLOP at 256^3), trsv (0.27 GFLOP), conv2d (0.84 GFLOP) and the
// stencil (10 steps of 512^3 with plain loops: seconds) once per case.
std::vector<CaseSpec> gpu_cases(Op op) {
  using tessera::DType;
  auto only = [](CaseSpec c, std::vector<DType> dtypes) {
    c.dtypes = std::move(dtypes);
    return c;
  };
  const std::vector<DType> f32 = {DType::f32}, both = {DType::f32, DType::f64};
  switch (op) {
    case Op::reduce: return {only(make(op, "", {{"bytes", 1024 * M}}), both)};  // 1 GiB in either dtype
    case Op::dot: return {};
    // Power-law rows as in the GPU figures: 3 / (1 - u)^(1 / 1.2) capped at 20000 (~30M nonzeros).
    case Op::spmm: return spmm_of(gpu_cases(Op::spmv));
    case Op::spmv:
      return {only(make(op, "laplace3d", {{"n", 256}}), f32),
              only(make(op, "random", {{"rows", 4 * M}, {"min_per_row", 5}, {"max_per_row", 8}}), f32),
              only(make(op, "powerlaw", {{"rows", 2 * M}, {"min_len", 3}, {"max_len", 20000}, {"exponent_x100", 120}}),
                   f32)};
    case Op::trsv: return {only(make(op, "", {{"n", 16384}}), f32)};
    case Op::trsm: return {};
    case Op::sptrsv: return {only(make(op, "", {{"n", 128}}), f32)};
    // n = 4096 also with badly scaled entries (issue 17: each mode's error on such data).
    case Op::gemm:
      return {only(make(op, "", {{"n", 4096}}), both), only(make(op, "", {{"n", 8192}}), f32),
              only(make(op, "", {{"n", 4096}, {"scale_exp", 40}}), f32),
              // issue 17's odd shapes: m x n x k
              only(make(op, "", {{"m", 5000}, {"n", 3000}, {"k", 2000}}), both),
              only(make(op, "", {{"m", 16384}, {"n", 64}, {"k", 16384}}), both),
              only(make(op, "", {{"m", 64}, {"n", 16384}, {"k", 16384}}), both)};
    case Op::stencil:
      return {only(make(op, "3d", {{"n", 512}, {"radius", 1}, {"steps", 10}}), f32),
              only(make(op, "3d", {{"n", 512}, {"radius", 1}, {"steps", 16}}), f32)};
    case Op::conv2d: return {only(make(op, "", {{"n", 4096}, {"k", 5}}), f32)};
    case Op::conv_layer:  // the book's layer and two 3 x 3 layers of ResNet-50 (issue 17)
      return {only(make(op, "", {{"N", 128}, {"C", 384}, {"HW", 13}, {"K", 256}, {"RS", 3}, {"pad", 1}, {"stride", 1}}),
                   f32),
              only(make(op, "", {{"N", 32}, {"C", 64}, {"HW", 56}, {"K", 64}, {"RS", 3}, {"pad", 1}, {"stride", 1}}), f32),
              only(make(op, "", {{"N", 32}, {"C", 256}, {"HW", 14}, {"K", 256}, {"RS", 3}, {"pad", 1}, {"stride", 1}}),
                   f32)};
    default: return {};  // the vector algebra, launch and cg: --size large has the sizes
  }
  return {};
}

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t");
  const auto e = s.find_last_not_of(" \t");
  return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}

// The size parameter a sweep varies, the factor between points and the number of points;
// factors make each point about 4x the work (or traffic) of the one before.
struct SweepAxis {
  const char* key;
  double factor;
  int points;
  std::int64_t min_value;
};

SweepAxis sweep_axis(Op op) {
  switch (op) {
    case Op::reduce:
    case Op::dot: return {"n", 4, 8, 1024};          // linear in n
    case Op::spmv:
    case Op::spmm: return {"n", 1.5874, 7, 8};       // laplace3d: rows ~ n^3
    case Op::trsv: return {"n", 2, 6, 64};           // n^2
    case Op::trsm: return {"n", 2, 5, 64};           // n^2 * nrhs
    case Op::sptrsv: return {"n", 1.5874, 6, 8};     // rows ~ n^3
    case Op::gemm: return {"n", 1.5874, 7, 32};      // n^3
    case Op::stencil: return {"n", 1.5874, 6, 16};   // 3d: n^3 (2d: n^2)
    case Op::conv2d: return {"n", 2, 6, 64};         // n^2
    case Op::conv_layer: return {"N", 4, 4, 1};      // linear in the batch
    case Op::cg:
    case Op::bicgstab: return {"n", 1.5874, 5, 8};   // rows ~ n^3
    case Op::launch: return {"n", 4, 4, 16};         // the enqueue cost against n
    default: return {"n", 4, 8, 1024};               // the vector algebra: linear in n
  }
  return {"n", 2, 4, 1};
}

}  // namespace

std::vector<CaseSpec> sweep_cases(Op op, const std::string& size) {
  const auto base = default_cases(op, size);
  if (base.empty()) return {};
  SweepAxis ax = sweep_axis(op);
  if (!base.front().has(ax.key) && base.front().has("bytes")) ax = {"bytes", ax.factor, ax.points, 8 * ax.min_value};
  std::vector<CaseSpec> out;
  double v = static_cast<double>(base.front().get(ax.key));
  for (int p = 0; p < ax.points; ++p, v /= ax.factor) {
    const auto value = static_cast<std::int64_t>(v + 0.5);
    if (value < ax.min_value) break;
    CaseSpec c = base.front();
    for (auto& kv : c.sizes)
      if (kv.first == ax.key) kv.second = value;
    c.name = describe(c);
    c.series = std::string(to_string(op)) + (c.kind.empty() ? "" : " " + c.kind) + " over " + ax.key;
    if (out.empty() || out.back().name != c.name) out.push_back(std::move(c));
  }
  std::reverse(out.begin(), out.end());
  return out;
}

Op parse_op(const std::string& name) {
  std::string known;
  for (Op op : all_ops) {
    if (name == to_string(op)) return op;
    known += (known.empty() ? "" : ", ") + std::string(to_string(op));
  }
  throw std::invalid_argument("unknown operation '" + name + "', expected one of " + known);
}

std::vector<CaseSpec> default_cases(Op op, const std::string& size) {
  if (size == "small") return small_cases(op);
  if (size == "large") return large_cases(op);
  if (size == "gpu") return gpu_cases(op);
  return medium_cases(op);
}

CaseSpec parse_case(const std::string& text) {
  // OP[:KIND][:key=value,...]
  std::vector<std::string> parts;
  std::stringstream ss(text);
  for (std::string p; std::getline(ss, p, ':');) parts.push_back(trim(p));
  if (parts.empty() || parts[0].empty()) throw std::invalid_argument("--case '" + text + "': expected OP[:KIND][:key=value,...]");
  const Op op = parse_op(parts[0]);
  std::string kind, assignments;
  for (std::size_t i = 1; i < parts.size(); ++i) {
    if (parts[i].find('=') != std::string::npos) assignments = parts[i];
    else kind = parts[i];
  }
  auto base = medium_cases(op);
  auto it = std::find_if(base.begin(), base.end(), [&](const CaseSpec& c) { return kind.empty() || c.kind == kind; });
  if (it == base.end()) {
    std::string kinds;
    for (const auto& c : base)
      if (kinds.find(c.kind) == std::string::npos) kinds += (kinds.empty() ? "" : ", ") + c.kind;
    throw std::invalid_argument("--case '" + text + "': unknown kind '" + kind + "' for " + parts[0] + " (known: " + kinds + ")");
  }
  CaseSpec c = *it;
  std::stringstream as(assignments);
  for (std::string a; std::getline(as, a, ',');) {
    if (trim(a).empty()) continue;
    const auto eq = a.find('=');
    const std::string key = trim(a.substr(0, eq));
    const bool known = std::any_of(c.sizes.begin(), c.sizes.end(), [&](const auto& kv) { return kv.first == key; });
    if (eq == std::string::npos || !known) {
      std::string keys;
      for (const auto& kv : c.sizes) keys += (keys.empty() ? "" : ", ") + kv.first;
      throw std::invalid_argument("--case '" + text + "': '" + trim(a) + "' is not key=value with a key of " + keys);
    }
    std::int64_t v = 0;
    try {
      std::size_t used = 0;
      v = std::stoll(trim(a.substr(eq + 1)), &used);
      if (used != trim(a.substr(eq + 1)).size() || v < 0) throw std::invalid_argument("");
    } catch (const std::exception&) {
      throw std::invalid_argument("--case '" + text + "': the value of " + key + " must be a non-negative integer");
    }
    for (auto& kv : c.sizes)
      if (kv.first == key) kv.second = v;
  }
  c.name = describe(c);
  return c;
}

std::vector<CaseSpec> matrix_market_cases(const std::vector<std::string>& paths, Op op) {
  namespace fs = std::filesystem;
  std::vector<std::string> files;
  for (const auto& p : paths) {
    if (fs::is_directory(p)) {
      std::vector<std::string> found;
      for (const auto& e : fs::directory_iterator(p)) {
        const std::string name = e.path().filename().string();
        auto ends = [&](const std::string& suf) {
          return name.size() >= suf.size() && name.compare(name.size() - suf.size(), suf.size(), suf) == 0;
        };
        if (e.is_regular_file() && (ends(".mtx") || ends(".mtx.gz"))) found.push_back(e.path().string());
      }
      std::sort(found.begin(), found.end());
      files.insert(files.end(), found.begin(), found.end());
    } else {
      files.push_back(p);  // a missing file is reported as that case's error
    }
  }
  std::vector<CaseSpec> cases;
  for (const auto& f : files) {
    CaseSpec c;
    c.op = op;
    c.kind = "mtx";
    c.path = f;
    if (op == Op::spmv || op == Op::sptrsv) {  // one product; sptrsv: the lower triangle, one solve
      c.name = describe(c);
      cases.push_back(c);
      continue;
    }
    if (op == Op::spmm) {  // the spmv case's matrix times k = 8 and k = 32 columns
      c.op = Op::spmv;
      const auto k = spmm_of({c});
      cases.insert(cases.end(), k.begin(), k.end());
      continue;
    }
    if (op == Op::cg) {  // Jacobi, 50 iterations, and IC(0) to the tolerance
      c.sizes = {{"iters", 50}};
      c.name = describe(c);
      cases.push_back(c);
    }
    const CaseSpec tol = to_tolerance(std::move(c));  // bicgstab: ILU(0) to the tolerance only
    cases.push_back(tol);
    cases.push_back(f32_factors(tol));
  }
  return cases;
}

namespace {
// The files of `names` that exist under `dir`, in that order.
std::vector<std::string> existing_under(const std::string& dir, std::initializer_list<const char*> names) {
  std::vector<std::string> out;
  for (const char* n : names) {
    const auto p = std::filesystem::path(dir) / n;
    if (std::filesystem::is_regular_file(p)) out.push_back(p.string());
  }
  return out;
}
}  // namespace

std::vector<std::string> large_spd_matrices(const std::string& dir) {
  // The SPD matrices of ../shared/data/matrices (MANIFEST.md), largest first (253K-290K nonzeros).
  return existing_under(dir, {"bcsstk16.mtx.gz", "Dubcova1.mtx.gz"});
}

std::vector<std::string> spd_matrices(const std::string& dir) {
  // Every SPD matrix of ../shared/data/matrices (MANIFEST.md), largest first (290K-3.3K nonzeros).
  return existing_under(dir, {"bcsstk16.mtx.gz", "Dubcova1.mtx.gz", "bcsstk13.mtx.gz", "Chem97ZtZ.mtx", "nos6.mtx",
                              "494_bus.mtx"});
}

std::vector<std::string> large_collection_matrices(const std::string& dir) {
  // The largest real matrices of ../shared/data/matrices (MANIFEST.md), 250K-1.6M nonzeros.
  return existing_under(dir, {"dblp-2010.mtx.gz", "cage11.mtx.gz", "delaunay_n16.mtx.gz",
                              "vsp_model1_crew1_cr42_south31.mtx.gz", "ct2010.mtx.gz", "EX5.mtx.gz", "bcsstk16.mtx.gz",
                              "Dubcova1.mtx.gz"});
}

}  // namespace bench
