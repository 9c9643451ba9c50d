// Helpers shared by the workloads: deterministic random inputs, widening results to double,
// and choosing the float or double instantiation from a DType.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "workload.hpp"

namespace bench {

// splitmix64 of (seed, index): a counter-based generator, so filling is parallel and gives the
// same numbers on every machine and thread count (std::uniform_real_distribution does not:
// its algorithm is implementation-defined).
inline std::uint64_t mix64(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}
// Uniform in [0, 1) from element `i` of stream `seed`.
inline double uniform01(std::uint64_t seed, std::uint64_t i) {
  return static_cast<double>(mix64(mix64(seed) ^ i) >> 11) * 0x1.0p-53;
}
// Uniform in [-hi, -lo] U [lo, hi]: never zero, so no product or sum is trivially zero and a
// kernel that skips work cannot pass the check by accident.
inline double signed_uniform(std::uint64_t seed, std::uint64_t i, double lo = 0.1, double hi = 1.0) {
  const double u = uniform01(seed, i);
  const double mag = lo + (hi - lo) * (u < 0.5 ? 2 * u : 2 * u - 1);
  return u < 0.5 ? -mag : mag;
}

template <class T>
std::vector<T> random_vector(std::int64_t n, std::uint64_t seed, double lo = 0.1, double hi = 1.0) {
  std::vector<T> v(static_cast<std::size_t>(n));
  T* p = v.data();
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < n; ++i) p[i] = static_cast<T>(signed_uniform(seed, static_cast<std::uint64_t>(i), lo, hi));
  return v;
}

template <class T>
std::vector<double> widen(const std::vector<T>& v) {
  return std::vector<double>(v.begin(), v.end());
}

// Bytes of a CSR matrix read once: values, int32 column indices and int32 row pointers (the
// matrix part of every sparse workload's byte count; each adds its vectors).
template <class Csr>
double csr_bytes(const Csr& A) {
  using T = typename decltype(A.values)::value_type;
  return static_cast<double>(A.nnz()) * (sizeof(T) + 4) + static_cast<double>(A.rows + 1) * 4;
}

// Sets size parameter `key` (replacing an existing one), for Workload::sizes().
inline void set_size(std::vector<std::pair<std::string, std::int64_t>>& v, const std::string& key, std::int64_t value) {
  for (auto& kv : v)
    if (kv.first == key) {
      kv.second = value;
      return;
    }
  v.emplace_back(key, value);
}

// Instantiates W<float> or W<double>.
// The math-mode lines of an f32 product (gemm, conv_layer; MathMode in tessera/types.hpp), from
// make(mode), a Tessera runner computing in that mode: "tessera-tf32" (checked at TF32's
// tolerance, its ratio against the TF32 baselines) and "tessera-tf32x3" (FP32's tolerance and
// exact baselines: it claims FP32-level accuracy). None for f64.
template <class T, class Make>
std::vector<NamedRunner> math_mode_variants(const tessera::Device& dev, Make&& make) {
  std::vector<NamedRunner> v;
  if constexpr (sizeof(T) == 4) {
    v.push_back({"tessera-tf32", make(tessera::MathMode::tf32), dev.spec(), true, kTf32Variant});
    v.push_back({"tessera-tf32x3", make(tessera::MathMode::tf32x3), dev.spec(), false, ""});
  }
  return v;
}

template <template <class> class W>
std::unique_ptr<Workload> make_typed(const CaseSpec& spec, tessera::DType dtype) {
  if (dtype == tessera::DType::f32) return std::make_unique<W<float>>(spec, dtype);
  return std::make_unique<W<double>>(spec, dtype);
}

}  // namespace bench
