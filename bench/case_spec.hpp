// CaseSpec: one named problem of one operation (sizes, generator), independent of dtype.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "operation.hpp"
#include "tessera/types.hpp"

namespace bench {

struct CaseSpec {
  Op op = Op::reduce;
  std::string name;  // what the table shows, e.g. "laplace3d 96^3", "n=1024"
  std::string kind;  // the generator: spmv "laplace3d" | "random" | "powerlaw" | "mtx";
                     // stencil "2d" | "3d"; empty where an op has one kind
  std::vector<std::pair<std::string, std::int64_t>> sizes;  // the parameters, also written to JSON
  std::string path;  // Matrix Market file (kind "mtx")
  // cg, bicgstab: "" (Jacobi, a fixed number of iterations) or the incomplete factorisation
  // ("ic0", "ilu0") of a solve to the tolerance (workloads/converged_solve.hpp).
  std::string precond;
  // With precond: "f32" stores the factors in f32 for an f64 solve (mixed precision, the case
  // runs in f64 only); empty: in the solve's dtype.
  std::string precond_dtype;
  std::string series;  // --sweep: the size series this case belongs to (empty otherwise)
  std::vector<tessera::DType> dtypes;  // the only dtypes it runs in (--size gpu); empty: all asked for
  // Runs only where a GPU device is timed, and then only on GPU devices and their baselines (cg
  // at 256^3: minutes of host loops and gigabytes on a CPU device).
  bool gpu_only = false;

  std::int64_t get(const std::string& key, std::int64_t fallback = 0) const {
    for (const auto& [k, v] : sizes)
      if (k == key) return v;
    return fallback;
  }
  bool has(const std::string& key) const {
    for (const auto& kv : sizes)
      if (kv.first == key) return true;
    return false;
  }
};

}  // namespace bench
